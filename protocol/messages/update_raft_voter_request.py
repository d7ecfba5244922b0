# Generated from UpdateRaftVoterRequest.json by protocol/codegen.py — do not edit.
"""UpdateRaftVoterRequest: API key 82 request, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class Listener(Struct):
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


class UpdateRaftVoterRequest(Message):
    schema_name = "UpdateRaftVoterRequest"
    api_key = 82
    message_type = "request"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    api_listeners = ('controller',)
    KRaftVersionFeature = KRaftVersionFeature
    Listener = Listener
    __slots__ = ("cluster_id", "current_leader_epoch", "voter_id", "voter_directory_id", "listeners", "k_raft_version_feature",)
    FIELDS = (
        Field("cluster_id", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
        Field("current_leader_epoch", "int32", (0, MAX), default=0),
        Field("voter_id", "int32", (0, MAX), default=0),
        Field("voter_directory_id", "uuid", (0, MAX), default=ZERO_UUID),
        Field("listeners", Array(Listener), (0, MAX), default=NEW),
        Field("k_raft_version_feature", KRaftVersionFeature, (0, MAX), default=NEW),
    )

    def __init__(self, cluster_id="", current_leader_epoch=0, voter_id=0, voter_directory_id=ZERO_UUID, listeners=NEW, k_raft_version_feature=NEW):
        self.cluster_id = cluster_id
        self.current_leader_epoch = current_leader_epoch
        self.voter_id = voter_id
        self.voter_directory_id = voter_directory_id
        self.listeners = [] if listeners is NEW else listeners
        self.k_raft_version_feature = KRaftVersionFeature() if k_raft_version_feature is NEW else k_raft_version_feature


__all__ = ["UpdateRaftVoterRequest"]
