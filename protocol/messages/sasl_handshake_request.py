# Generated from SaslHandshakeRequest.json by protocol/codegen.py — do not edit.
"""SaslHandshakeRequest: API key 17 request, versions 0-1."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class SaslHandshakeRequest(Message):
    schema_name = "SaslHandshakeRequest"
    api_key = 17
    message_type = "request"
    valid_versions = (0, 1)
    flexible_versions = None
    api_listeners = ('broker', 'controller')
    __slots__ = ("mechanism",)
    FIELDS = (
        Field("mechanism", "string", (0, MAX), default=""),
    )

    def __init__(self, mechanism=""):
        self.mechanism = mechanism


__all__ = ["SaslHandshakeRequest"]
