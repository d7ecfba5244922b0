# Generated from SaslHandshakeResponse.json by protocol/codegen.py — do not edit.
"""SaslHandshakeResponse: API key 17 response, versions 0-1."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class SaslHandshakeResponse(Message):
    schema_name = "SaslHandshakeResponse"
    api_key = 17
    message_type = "response"
    valid_versions = (0, 1)
    flexible_versions = None
    __slots__ = ("error_code", "mechanisms",)
    FIELDS = (
        Field("error_code", "int16", (0, MAX), default=0),
        Field("mechanisms", Array("string"), (0, MAX), default=NEW),
    )

    def __init__(self, error_code=0, mechanisms=NEW):
        self.error_code = error_code
        self.mechanisms = [] if mechanisms is NEW else mechanisms


__all__ = ["SaslHandshakeResponse"]
