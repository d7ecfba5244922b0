# Generated from LeaveGroupResponse.json by protocol/codegen.py — do not edit.
"""LeaveGroupResponse: API key 13 response, versions 0-5, flexible versions 4+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class MemberResponse(Struct):
    __slots__ = ("member_id", "group_instance_id", "error_code",)
    FIELDS = (
        Field("member_id", "string", (3, MAX), default=""),
        Field("group_instance_id", "string", (3, MAX), nullable_versions=(3, MAX), default=""),
        Field("error_code", "int16", (3, MAX), default=0),
    )

    def __init__(self, member_id="", group_instance_id="", error_code=0):
        self.member_id = member_id
        self.group_instance_id = group_instance_id
        self.error_code = error_code


class LeaveGroupResponse(Message):
    schema_name = "LeaveGroupResponse"
    api_key = 13
    message_type = "response"
    valid_versions = (0, 5)
    flexible_versions = (4, MAX)
    MemberResponse = MemberResponse
    __slots__ = ("throttle_time_ms", "error_code", "members",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (1, MAX), default=0, ignorable=True),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("members", Array(MemberResponse), (3, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, error_code=0, members=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.members = [] if members is NEW else members


__all__ = ["LeaveGroupResponse"]
