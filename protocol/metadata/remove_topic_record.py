# Generated from RemoveTopicRecord.json by protocol/codegen.py — do not edit.
"""RemoveTopicRecord: API key 9 metadata, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class RemoveTopicRecord(Message):
    schema_name = "RemoveTopicRecord"
    api_key = 9
    message_type = "metadata"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    __slots__ = ("topic_id",)
    FIELDS = (
        Field("topic_id", "uuid", (0, MAX), default=ZERO_UUID),
    )

    def __init__(self, topic_id=ZERO_UUID):
        self.topic_id = topic_id


__all__ = ["RemoveTopicRecord"]
