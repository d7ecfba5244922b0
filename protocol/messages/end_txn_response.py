# Generated from EndTxnResponse.json by protocol/codegen.py — do not edit.
"""EndTxnResponse: API key 26 response, versions 0-5, flexible versions 3+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class EndTxnResponse(Message):
    schema_name = "EndTxnResponse"
    api_key = 26
    message_type = "response"
    valid_versions = (0, 5)
    flexible_versions = (3, MAX)
    __slots__ = ("throttle_time_ms", "error_code", "producer_id", "producer_epoch",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("producer_id", "int64", (5, MAX), default=-1, ignorable=True),
        Field("producer_epoch", "int16", (5, MAX), default=-1, ignorable=True),
    )

    def __init__(self, throttle_time_ms=0, error_code=0, producer_id=-1, producer_epoch=-1):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch


__all__ = ["EndTxnResponse"]
