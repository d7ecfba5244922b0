# Generated from EnvelopeResponse.json by protocol/codegen.py — do not edit.
"""EnvelopeResponse: API key 58 response, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class EnvelopeResponse(Message):
    schema_name = "EnvelopeResponse"
    api_key = 58
    message_type = "response"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    __slots__ = ("response_data", "error_code",)
    FIELDS = (
        Field("response_data", "bytes", (0, MAX), nullable_versions=(0, MAX)),
        Field("error_code", "int16", (0, MAX), default=0),
    )

    def __init__(self, response_data=None, error_code=0):
        self.response_data = response_data
        self.error_code = error_code


__all__ = ["EnvelopeResponse"]
