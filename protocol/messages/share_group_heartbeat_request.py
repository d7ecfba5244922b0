# Generated from ShareGroupHeartbeatRequest.json by protocol/codegen.py — do not edit.
"""ShareGroupHeartbeatRequest: API key 76 request, versions 0-1, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class ShareGroupHeartbeatRequest(Message):
    schema_name = "ShareGroupHeartbeatRequest"
    api_key = 76
    message_type = "request"
    valid_versions = (0, 1)
    flexible_versions = (0, MAX)
    api_listeners = ('broker',)
    __slots__ = ("group_id", "member_id", "member_epoch", "rack_id", "subscribed_topic_names",)
    FIELDS = (
        Field("group_id", "string", (0, MAX), default=""),
        Field("member_id", "string", (0, MAX), default=""),
        Field("member_epoch", "int32", (0, MAX), default=0),
        Field("rack_id", "string", (0, MAX), nullable_versions=(0, MAX)),
        Field("subscribed_topic_names", Array("string"), (0, MAX), nullable_versions=(0, MAX)),
    )

    def __init__(self, group_id="", member_id="", member_epoch=0, rack_id=None, subscribed_topic_names=None):
        self.group_id = group_id
        self.member_id = member_id
        self.member_epoch = member_epoch
        self.rack_id = rack_id
        self.subscribed_topic_names = subscribed_topic_names


__all__ = ["ShareGroupHeartbeatRequest"]
