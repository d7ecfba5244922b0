# Generated from RenewDelegationTokenResponse.json by protocol/codegen.py — do not edit.
"""RenewDelegationTokenResponse: API key 39 response, versions 0-2, flexible versions 2+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class RenewDelegationTokenResponse(Message):
    schema_name = "RenewDelegationTokenResponse"
    api_key = 39
    message_type = "response"
    valid_versions = (0, 2)
    flexible_versions = (2, MAX)
    __slots__ = ("error_code", "expiry_timestamp_ms", "throttle_time_ms",)
    FIELDS = (
        Field("error_code", "int16", (0, MAX), default=0),
        Field("expiry_timestamp_ms", "int64", (0, MAX), default=0),
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
    )

    def __init__(self, error_code=0, expiry_timestamp_ms=0, throttle_time_ms=0):
        self.error_code = error_code
        self.expiry_timestamp_ms = expiry_timestamp_ms
        self.throttle_time_ms = throttle_time_ms


__all__ = ["RenewDelegationTokenResponse"]
