# Generated from AllocateProducerIdsResponse.json by protocol/codegen.py — do not edit.
"""AllocateProducerIdsResponse: API key 67 response, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class AllocateProducerIdsResponse(Message):
    schema_name = "AllocateProducerIdsResponse"
    api_key = 67
    message_type = "response"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    __slots__ = ("throttle_time_ms", "error_code", "producer_id_start", "producer_id_len",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("producer_id_start", "int64", (0, MAX), default=0),
        Field("producer_id_len", "int32", (0, MAX), default=0),
    )

    def __init__(self, throttle_time_ms=0, error_code=0, producer_id_start=0, producer_id_len=0):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.producer_id_start = producer_id_start
        self.producer_id_len = producer_id_len


__all__ = ["AllocateProducerIdsResponse"]
