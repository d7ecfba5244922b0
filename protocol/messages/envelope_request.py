# Generated from EnvelopeRequest.json by protocol/codegen.py — do not edit.
"""EnvelopeRequest: API key 58 request, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class EnvelopeRequest(Message):
    schema_name = "EnvelopeRequest"
    api_key = 58
    message_type = "request"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    api_listeners = ('controller',)
    __slots__ = ("request_data", "request_principal", "client_host_address",)
    FIELDS = (
        Field("request_data", "bytes", (0, MAX), default=b""),
        Field("request_principal", "bytes", (0, MAX), nullable_versions=(0, MAX), default=b""),
        Field("client_host_address", "bytes", (0, MAX), default=b""),
    )

    def __init__(self, request_data=b"", request_principal=b"", client_host_address=b""):
        self.request_data = request_data
        self.request_principal = request_principal
        self.client_host_address = client_host_address


__all__ = ["EnvelopeRequest"]
