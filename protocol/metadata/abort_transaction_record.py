# Generated from AbortTransactionRecord.json by protocol/codegen.py — do not edit.
"""AbortTransactionRecord: API key 25 metadata, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class AbortTransactionRecord(Message):
    schema_name = "AbortTransactionRecord"
    api_key = 25
    message_type = "metadata"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    __slots__ = ("reason",)
    FIELDS = (
        Field("reason", "string", (0, MAX), nullable_versions=(0, MAX), tagged_versions=(0, MAX), tag=0),
    )

    def __init__(self, reason=None):
        self.reason = reason


__all__ = ["AbortTransactionRecord"]
