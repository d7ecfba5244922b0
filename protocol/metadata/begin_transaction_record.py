# Generated from BeginTransactionRecord.json by protocol/codegen.py — do not edit.
"""BeginTransactionRecord: API key 23 metadata, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class BeginTransactionRecord(Message):
    schema_name = "BeginTransactionRecord"
    api_key = 23
    message_type = "metadata"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    __slots__ = ("name",)
    FIELDS = (
        Field("name", "string", (0, MAX), nullable_versions=(0, MAX), tagged_versions=(0, MAX), tag=0),
    )

    def __init__(self, name=None):
        self.name = name


__all__ = ["BeginTransactionRecord"]
