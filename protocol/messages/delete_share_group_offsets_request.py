# Generated from DeleteShareGroupOffsetsRequest.json by protocol/codegen.py — do not edit.
"""DeleteShareGroupOffsetsRequest: API key 92 request, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class DeleteShareGroupOffsetsRequestTopic(Struct):
    __slots__ = ("topic_name",)
    FIELDS = (
        Field("topic_name", "string", (0, MAX), default=""),
    )

    def __init__(self, topic_name=""):
        self.topic_name = topic_name


class DeleteShareGroupOffsetsRequest(Message):
    schema_name = "DeleteShareGroupOffsetsRequest"
    api_key = 92
    message_type = "request"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    api_listeners = ('broker',)
    DeleteShareGroupOffsetsRequestTopic = DeleteShareGroupOffsetsRequestTopic
    __slots__ = ("group_id", "topics",)
    FIELDS = (
        Field("group_id", "string", (0, MAX), default=""),
        Field("topics", Array(DeleteShareGroupOffsetsRequestTopic), (0, MAX), default=NEW),
    )

    def __init__(self, group_id="", topics=NEW):
        self.group_id = group_id
        self.topics = [] if topics is NEW else topics


__all__ = ["DeleteShareGroupOffsetsRequest"]
