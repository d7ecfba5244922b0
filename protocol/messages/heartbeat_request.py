# Generated from HeartbeatRequest.json by protocol/codegen.py — do not edit.
"""HeartbeatRequest: API key 12 request, versions 0-4, flexible versions 4+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class HeartbeatRequest(Message):
    schema_name = "HeartbeatRequest"
    api_key = 12
    message_type = "request"
    valid_versions = (0, 4)
    flexible_versions = (4, MAX)
    api_listeners = ('broker',)
    __slots__ = ("group_id", "generation_id", "member_id", "group_instance_id",)
    FIELDS = (
        Field("group_id", "string", (0, MAX), default=""),
        Field("generation_id", "int32", (0, MAX), default=0),
        Field("member_id", "string", (0, MAX), default=""),
        Field("group_instance_id", "string", (3, MAX), nullable_versions=(3, MAX)),
    )

    def __init__(self, group_id="", generation_id=0, member_id="", group_instance_id=None):
        self.group_id = group_id
        self.generation_id = generation_id
        self.member_id = member_id
        self.group_instance_id = group_instance_id


__all__ = ["HeartbeatRequest"]
