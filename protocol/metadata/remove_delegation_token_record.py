# Generated from RemoveDelegationTokenRecord.json by protocol/codegen.py — do not edit.
"""RemoveDelegationTokenRecord: API key 26 metadata, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class RemoveDelegationTokenRecord(Message):
    schema_name = "RemoveDelegationTokenRecord"
    api_key = 26
    message_type = "metadata"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    __slots__ = ("token_id",)
    FIELDS = (
        Field("token_id", "string", (0, MAX), default=""),
    )

    def __init__(self, token_id=""):
        self.token_id = token_id


__all__ = ["RemoveDelegationTokenRecord"]
