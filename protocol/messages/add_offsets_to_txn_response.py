# Generated from AddOffsetsToTxnResponse.json by protocol/codegen.py — do not edit.
"""AddOffsetsToTxnResponse: API key 25 response, versions 0-4, flexible versions 3+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class AddOffsetsToTxnResponse(Message):
    schema_name = "AddOffsetsToTxnResponse"
    api_key = 25
    message_type = "response"
    valid_versions = (0, 4)
    flexible_versions = (3, MAX)
    __slots__ = ("throttle_time_ms", "error_code",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
    )

    def __init__(self, throttle_time_ms=0, error_code=0):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code


__all__ = ["AddOffsetsToTxnResponse"]
