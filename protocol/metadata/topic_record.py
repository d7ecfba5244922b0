# Generated from TopicRecord.json by protocol/codegen.py — do not edit.
"""TopicRecord: API key 2 metadata, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class TopicRecord(Message):
    schema_name = "TopicRecord"
    api_key = 2
    message_type = "metadata"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    __slots__ = ("name", "topic_id",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("topic_id", "uuid", (0, MAX), default=ZERO_UUID),
    )

    def __init__(self, name="", topic_id=ZERO_UUID):
        self.name = name
        self.topic_id = topic_id


__all__ = ["TopicRecord"]
