# Generated from UserScramCredentialRecord.json by protocol/codegen.py — do not edit.
"""UserScramCredentialRecord: API key 11 metadata, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class UserScramCredentialRecord(Message):
    schema_name = "UserScramCredentialRecord"
    api_key = 11
    message_type = "metadata"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    __slots__ = ("name", "mechanism", "salt", "stored_key", "server_key", "iterations",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("mechanism", "int8", (0, MAX), default=0),
        Field("salt", "bytes", (0, MAX), default=b""),
        Field("stored_key", "bytes", (0, MAX), default=b""),
        Field("server_key", "bytes", (0, MAX), default=b""),
        Field("iterations", "int32", (0, MAX), default=0),
    )

    def __init__(self, name="", mechanism=0, salt=b"", stored_key=b"", server_key=b"", iterations=0):
        self.name = name
        self.mechanism = mechanism
        self.salt = salt
        self.stored_key = stored_key
        self.server_key = server_key
        self.iterations = iterations


__all__ = ["UserScramCredentialRecord"]
