# Generated from EndTransactionRecord.json by protocol/codegen.py — do not edit.
"""EndTransactionRecord: API key 24 metadata, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class EndTransactionRecord(Message):
    schema_name = "EndTransactionRecord"
    api_key = 24
    message_type = "metadata"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    __slots__ = ()
    FIELDS = ()

    def __init__(self):
        pass


__all__ = ["EndTransactionRecord"]
