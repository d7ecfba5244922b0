# Generated from RemoveAccessControlEntryRecord.json by protocol/codegen.py — do not edit.
"""RemoveAccessControlEntryRecord: API key 19 metadata, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class RemoveAccessControlEntryRecord(Message):
    schema_name = "RemoveAccessControlEntryRecord"
    api_key = 19
    message_type = "metadata"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    __slots__ = ("id",)
    FIELDS = (
        Field("id", "uuid", (0, MAX), default=ZERO_UUID),
    )

    def __init__(self, id=ZERO_UUID):
        self.id = id


__all__ = ["RemoveAccessControlEntryRecord"]
