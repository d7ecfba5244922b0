# Generated from JoinGroupResponse.json by protocol/codegen.py — do not edit.
"""JoinGroupResponse: API key 11 response, versions 0-9, flexible versions 6+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class JoinGroupResponseMember(Struct):
    __slots__ = ("member_id", "group_instance_id", "metadata",)
    FIELDS = (
        Field("member_id", "string", (0, MAX), default=""),
        Field("group_instance_id", "string", (5, MAX), nullable_versions=(5, MAX), ignorable=True),
        Field("metadata", "bytes", (0, MAX), default=b""),
    )

    def __init__(self, member_id="", group_instance_id=None, metadata=b""):
        self.member_id = member_id
        self.group_instance_id = group_instance_id
        self.metadata = metadata


class JoinGroupResponse(Message):
    schema_name = "JoinGroupResponse"
    api_key = 11
    message_type = "response"
    valid_versions = (0, 9)
    flexible_versions = (6, MAX)
    JoinGroupResponseMember = JoinGroupResponseMember
    __slots__ = ("throttle_time_ms", "error_code", "generation_id", "protocol_type", "protocol_name", "leader", "skip_assignment", "member_id", "members",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (2, MAX), default=0, ignorable=True),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("generation_id", "int32", (0, MAX), default=-1),
        Field("protocol_type", "string", (7, MAX), nullable_versions=(7, MAX), ignorable=True),
        Field("protocol_name", "string", (0, MAX), nullable_versions=(7, MAX), default=""),
        Field("leader", "string", (0, MAX), default=""),
        Field("skip_assignment", "bool", (9, MAX), default=False),
        Field("member_id", "string", (0, MAX), default=""),
        Field("members", Array(JoinGroupResponseMember), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, error_code=0, generation_id=-1, protocol_type=None, protocol_name="", leader="", skip_assignment=False, member_id="", members=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.generation_id = generation_id
        self.protocol_type = protocol_type
        self.protocol_name = protocol_name
        self.leader = leader
        self.skip_assignment = skip_assignment
        self.member_id = member_id
        self.members = [] if members is NEW else members


__all__ = ["JoinGroupResponse"]
