# Generated from HeartbeatResponse.json by protocol/codegen.py — do not edit.
"""HeartbeatResponse: API key 12 response, versions 0-4, flexible versions 4+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class HeartbeatResponse(Message):
    schema_name = "HeartbeatResponse"
    api_key = 12
    message_type = "response"
    valid_versions = (0, 4)
    flexible_versions = (4, MAX)
    __slots__ = ("throttle_time_ms", "error_code",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (1, MAX), default=0, ignorable=True),
        Field("error_code", "int16", (0, MAX), default=0),
    )

    def __init__(self, throttle_time_ms=0, error_code=0):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code


__all__ = ["HeartbeatResponse"]
