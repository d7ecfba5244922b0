# Generated from SaslAuthenticateResponse.json by protocol/codegen.py — do not edit.
"""SaslAuthenticateResponse: API key 36 response, versions 0-2, flexible versions 2+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class SaslAuthenticateResponse(Message):
    schema_name = "SaslAuthenticateResponse"
    api_key = 36
    message_type = "response"
    valid_versions = (0, 2)
    flexible_versions = (2, MAX)
    __slots__ = ("error_code", "error_message", "auth_bytes", "session_lifetime_ms",)
    FIELDS = (
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
        Field("auth_bytes", "bytes", (0, MAX), default=b""),
        Field("session_lifetime_ms", "int64", (1, MAX), default=0, ignorable=True),
    )

    def __init__(self, error_code=0, error_message="", auth_bytes=b"", session_lifetime_ms=0):
        self.error_code = error_code
        self.error_message = error_message
        self.auth_bytes = auth_bytes
        self.session_lifetime_ms = session_lifetime_ms


__all__ = ["SaslAuthenticateResponse"]
