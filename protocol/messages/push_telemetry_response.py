# Generated from PushTelemetryResponse.json by protocol/codegen.py — do not edit.
"""PushTelemetryResponse: API key 72 response, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class PushTelemetryResponse(Message):
    schema_name = "PushTelemetryResponse"
    api_key = 72
    message_type = "response"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    __slots__ = ("throttle_time_ms", "error_code",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
    )

    def __init__(self, throttle_time_ms=0, error_code=0):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code


__all__ = ["PushTelemetryResponse"]
