# Generated from RemoveUserScramCredentialRecord.json by protocol/codegen.py — do not edit.
"""RemoveUserScramCredentialRecord: API key 22 metadata, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class RemoveUserScramCredentialRecord(Message):
    schema_name = "RemoveUserScramCredentialRecord"
    api_key = 22
    message_type = "metadata"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    __slots__ = ("name", "mechanism",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("mechanism", "int8", (0, MAX), default=0),
    )

    def __init__(self, name="", mechanism=0):
        self.name = name
        self.mechanism = mechanism


__all__ = ["RemoveUserScramCredentialRecord"]
