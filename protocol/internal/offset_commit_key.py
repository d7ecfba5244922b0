# Generated from OffsetCommitKey.json by protocol/codegen.py — do not edit.
"""OffsetCommitKey: data, versions 0-1."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class OffsetCommitKey(Message):
    schema_name = "OffsetCommitKey"
    api_key = None
    message_type = "data"
    valid_versions = (0, 1)
    flexible_versions = None
    __slots__ = ("group", "topic", "partition",)
    FIELDS = (
        Field("group", "string", (0, 1), default=""),
        Field("topic", "string", (0, 1), default=""),
        Field("partition", "int32", (0, 1), default=0),
    )

    def __init__(self, group="", topic="", partition=0):
        self.group = group
        self.topic = topic
        self.partition = partition


__all__ = ["OffsetCommitKey"]
