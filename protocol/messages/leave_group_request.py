# Generated from LeaveGroupRequest.json by protocol/codegen.py — do not edit.
"""LeaveGroupRequest: API key 13 request, versions 0-5, flexible versions 4+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class MemberIdentity(Struct):
    __slots__ = ("member_id", "group_instance_id", "reason",)
    FIELDS = (
        Field("member_id", "string", (3, MAX), default=""),
        Field("group_instance_id", "string", (3, MAX), nullable_versions=(3, MAX)),
        Field("reason", "string", (5, MAX), nullable_versions=(5, MAX), ignorable=True),
    )

    def __init__(self, member_id="", group_instance_id=None, reason=None):
        self.member_id = member_id
        self.group_instance_id = group_instance_id
        self.reason = reason


class LeaveGroupRequest(Message):
    schema_name = "LeaveGroupRequest"
    api_key = 13
    message_type = "request"
    valid_versions = (0, 5)
    flexible_versions = (4, MAX)
    api_listeners = ('broker',)
    MemberIdentity = MemberIdentity
    __slots__ = ("group_id", "member_id", "members",)
    FIELDS = (
        Field("group_id", "string", (0, MAX), default=""),
        Field("member_id", "string", (0, 2), default=""),
        Field("members", Array(MemberIdentity), (3, MAX), default=NEW),
    )

    def __init__(self, group_id="", member_id="", members=NEW):
        self.group_id = group_id
        self.member_id = member_id
        self.members = [] if members is NEW else members


__all__ = ["LeaveGroupRequest"]
