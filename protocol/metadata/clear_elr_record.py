# Generated from ClearElrRecord.json by protocol/codegen.py — do not edit.
"""ClearElrRecord: API key 28 metadata, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class ClearElrRecord(Message):
    schema_name = "ClearElrRecord"
    api_key = 28
    message_type = "metadata"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    __slots__ = ("topic_name",)
    FIELDS = (
        Field("topic_name", "string", (0, MAX), default=""),
    )

    def __init__(self, topic_name=""):
        self.topic_name = topic_name


__all__ = ["ClearElrRecord"]
