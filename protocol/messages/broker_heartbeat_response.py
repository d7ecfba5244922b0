# Generated from BrokerHeartbeatResponse.json by protocol/codegen.py — do not edit.
"""BrokerHeartbeatResponse: API key 63 response, versions 0-1, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class BrokerHeartbeatResponse(Message):
    schema_name = "BrokerHeartbeatResponse"
    api_key = 63
    message_type = "response"
    valid_versions = (0, 1)
    flexible_versions = (0, MAX)
    __slots__ = ("throttle_time_ms", "error_code", "is_caught_up", "is_fenced", "should_shut_down",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("is_caught_up", "bool", (0, MAX), default=False),
        Field("is_fenced", "bool", (0, MAX), default=True),
        Field("should_shut_down", "bool", (0, MAX), default=False),
    )

    def __init__(self, throttle_time_ms=0, error_code=0, is_caught_up=False, is_fenced=True, should_shut_down=False):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.is_caught_up = is_caught_up
        self.is_fenced = is_fenced
        self.should_shut_down = should_shut_down


__all__ = ["BrokerHeartbeatResponse"]
