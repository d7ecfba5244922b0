# Generated from ControllerRegistrationResponse.json by protocol/codegen.py — do not edit.
"""ControllerRegistrationResponse: API key 70 response, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class ControllerRegistrationResponse(Message):
    schema_name = "ControllerRegistrationResponse"
    api_key = 70
    message_type = "response"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    __slots__ = ("throttle_time_ms", "error_code", "error_message",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
    )

    def __init__(self, throttle_time_ms=0, error_code=0, error_message=""):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message


__all__ = ["ControllerRegistrationResponse"]
