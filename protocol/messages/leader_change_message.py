# Generated from LeaderChangeMessage.json by protocol/codegen.py — do not edit.
"""LeaderChangeMessage: data, versions 0-1, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class Voter(Struct):
    __slots__ = ("voter_id", "voter_directory_id",)
    FIELDS = (
        Field("voter_id", "int32", (0, MAX), default=0),
        Field("voter_directory_id", "uuid", (1, MAX), default=ZERO_UUID),
    )

    def __init__(self, voter_id=0, voter_directory_id=ZERO_UUID):
        self.voter_id = voter_id
        self.voter_directory_id = voter_directory_id


class LeaderChangeMessage(Message):
    schema_name = "LeaderChangeMessage"
    api_key = None
    message_type = "data"
    valid_versions = (0, 1)
    flexible_versions = (0, MAX)
    Voter = Voter
    __slots__ = ("version", "leader_id", "voters", "granting_voters",)
    FIELDS = (
        Field("version", "int16", (0, MAX), default=0),
        Field("leader_id", "int32", (0, MAX), default=0),
        Field("voters", Array(Voter), (0, MAX), default=NEW),
        Field("granting_voters", Array(Voter), (0, MAX), default=NEW),
    )

    def __init__(self, version=0, leader_id=0, voters=NEW, granting_voters=NEW):
        self.version = version
        self.leader_id = leader_id
        self.voters = [] if voters is NEW else voters
        self.granting_voters = [] if granting_voters is NEW else granting_voters


__all__ = ["LeaderChangeMessage"]
