# Generated from VotersRecord.json by protocol/codegen.py — do not edit.
"""VotersRecord: data, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class Endpoint(Struct):
    __slots__ = ("name", "host", "port",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("host", "string", (0, MAX), default=""),
        Field("port", "uint16", (0, MAX), default=0),
    )

    def __init__(self, name="", host="", port=0):
        self.name = name
        self.host = host
        self.port = port


class KRaftVersionFeature(Struct):
    __slots__ = ("min_supported_version", "max_supported_version",)
    FIELDS = (
        Field("min_supported_version", "int16", (0, MAX), default=0),
        Field("max_supported_version", "int16", (0, MAX), default=0),
    )

    def __init__(self, min_supported_version=0, max_supported_version=0):
        self.min_supported_version = min_supported_version
        self.max_supported_version = max_supported_version


class Voter(Struct):
    __slots__ = ("voter_id", "voter_directory_id", "endpoints", "k_raft_version_feature",)
    FIELDS = (
        Field("voter_id", "int32", (0, MAX), default=0),
        Field("voter_directory_id", "uuid", (0, MAX), default=ZERO_UUID),
        Field("endpoints", Array(Endpoint), (0, MAX), default=NEW),
        Field("k_raft_version_feature", KRaftVersionFeature, (0, MAX), default=NEW),
    )

    def __init__(self, voter_id=0, voter_directory_id=ZERO_UUID, endpoints=NEW, k_raft_version_feature=NEW):
        self.voter_id = voter_id
        self.voter_directory_id = voter_directory_id
        self.endpoints = [] if endpoints is NEW else endpoints
        self.k_raft_version_feature = KRaftVersionFeature() if k_raft_version_feature is NEW else k_raft_version_feature


class VotersRecord(Message):
    schema_name = "VotersRecord"
    api_key = None
    message_type = "data"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    Endpoint = Endpoint
    KRaftVersionFeature = KRaftVersionFeature
    Voter = Voter
    __slots__ = ("version", "voters",)
    FIELDS = (
        Field("version", "int16", (0, MAX), default=0),
        Field("voters", Array(Voter), (0, MAX), default=NEW),
    )

    def __init__(self, version=0, voters=NEW):
        self.version = version
        self.voters = [] if voters is NEW else voters


__all__ = ["VotersRecord"]
