# Generated from SaslAuthenticateRequest.json by protocol/codegen.py — do not edit.
"""SaslAuthenticateRequest: API key 36 request, versions 0-2, flexible versions 2+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class SaslAuthenticateRequest(Message):
    schema_name = "SaslAuthenticateRequest"
    api_key = 36
    message_type = "request"
    valid_versions = (0, 2)
    flexible_versions = (2, MAX)
    api_listeners = ('broker', 'controller')
    __slots__ = ("auth_bytes",)
    FIELDS = (
        Field("auth_bytes", "bytes", (0, MAX), default=b""),
    )

    def __init__(self, auth_bytes=b""):
        self.auth_bytes = auth_bytes


__all__ = ["SaslAuthenticateRequest"]
