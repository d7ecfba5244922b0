# Generated from DeleteTopicsRequest.json by protocol/codegen.py — do not edit.
"""DeleteTopicsRequest: API key 20 request, versions 0-6, flexible versions 4+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class DeleteTopicState(Struct):
    __slots__ = ("name", "topic_id",)
    FIELDS = (
        Field("name", "string", (6, MAX), nullable_versions=(6, MAX)),
        Field("topic_id", "uuid", (6, MAX), default=ZERO_UUID),
    )

    def __init__(self, name=None, topic_id=ZERO_UUID):
        self.name = name
        self.topic_id = topic_id


class DeleteTopicsRequest(Message):
    schema_name = "DeleteTopicsRequest"
    api_key = 20
    message_type = "request"
    valid_versions = (0, 6)
    flexible_versions = (4, MAX)
    api_listeners = ('broker', 'controller')
    DeleteTopicState = DeleteTopicState
    __slots__ = ("topics", "topic_names", "timeout_ms",)
    FIELDS = (
        Field("topics", Array(DeleteTopicState), (6, MAX), default=NEW),
        Field("topic_names", Array("string"), (0, 5), default=NEW, ignorable=True),
        Field("timeout_ms", "int32", (0, MAX), default=0),
    )

    def __init__(self, topics=NEW, topic_names=NEW, timeout_ms=0):
        self.topics = [] if topics is NEW else topics
        self.topic_names = [] if topic_names is NEW else topic_names
        self.timeout_ms = timeout_ms


__all__ = ["DeleteTopicsRequest"]
