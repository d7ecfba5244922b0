# Generated from GroupMetadataValue.json by protocol/codegen.py — do not edit.
"""GroupMetadataValue: data, versions 0-4, flexible versions 4+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class MemberMetadata(Struct):
    __slots__ = ("member_id", "group_instance_id", "client_id", "client_host", "rebalance_timeout", "session_timeout", "subscription", "assignment",)
    FIELDS = (
        Field("member_id", "string", (0, MAX), default=""),
        Field("group_instance_id", "string", (3, MAX), nullable_versions=(3, MAX), ignorable=True),
        Field("client_id", "string", (0, MAX), default=""),
        Field("client_host", "string", (0, MAX), default=""),
        Field("rebalance_timeout", "int32", (1, MAX), default=-1, ignorable=True),
        Field("session_timeout", "int32", (0, MAX), default=0),
        Field("subscription", "bytes", (0, MAX), default=b""),
        Field("assignment", "bytes", (0, MAX), default=b""),
    )

    def __init__(self, member_id="", group_instance_id=None, client_id="", client_host="", rebalance_timeout=-1, session_timeout=0, subscription=b"", assignment=b""):
        self.member_id = member_id
        self.group_instance_id = group_instance_id
        self.client_id = client_id
        self.client_host = client_host
        self.rebalance_timeout = rebalance_timeout
        self.session_timeout = session_timeout
        self.subscription = subscription
        self.assignment = assignment


class GroupMetadataValue(Message):
    schema_name = "GroupMetadataValue"
    api_key = None
    message_type = "data"
    valid_versions = (0, 4)
    flexible_versions = (4, MAX)
    MemberMetadata = MemberMetadata
    __slots__ = ("protocol_type", "generation", "protocol", "leader", "current_state_timestamp", "members",)
    FIELDS = (
        Field("protocol_type", "string", (0, MAX), default=""),
        Field("generation", "int32", (0, MAX), default=0),
        Field("protocol", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
        Field("leader", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
        Field("current_state_timestamp", "int64", (2, MAX), default=-1, ignorable=True),
        Field("members", Array(MemberMetadata), (0, MAX), default=NEW),
    )

    def __init__(self, protocol_type="", generation=0, protocol="", leader="", current_state_timestamp=-1, members=NEW):
        self.protocol_type = protocol_type
        self.generation = generation
        self.protocol = protocol
        self.leader = leader
        self.current_state_timestamp = current_state_timestamp
        self.members = [] if members is NEW else members


__all__ = ["GroupMetadataValue"]
