# Generated from BrokerRegistrationResponse.json by protocol/codegen.py — do not edit.
"""BrokerRegistrationResponse: API key 62 response, versions 0-4, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class BrokerRegistrationResponse(Message):
    schema_name = "BrokerRegistrationResponse"
    api_key = 62
    message_type = "response"
    valid_versions = (0, 4)
    flexible_versions = (0, MAX)
    __slots__ = ("throttle_time_ms", "error_code", "broker_epoch",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("broker_epoch", "int64", (0, MAX), default=-1),
    )

    def __init__(self, throttle_time_ms=0, error_code=0, broker_epoch=-1):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.broker_epoch = broker_epoch


__all__ = ["BrokerRegistrationResponse"]
