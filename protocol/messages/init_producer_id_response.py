# Generated from InitProducerIdResponse.json by protocol/codegen.py — do not edit.
"""InitProducerIdResponse: API key 22 response, versions 0-6, flexible versions 2+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class InitProducerIdResponse(Message):
    schema_name = "InitProducerIdResponse"
    api_key = 22
    message_type = "response"
    valid_versions = (0, 6)
    flexible_versions = (2, MAX)
    __slots__ = ("throttle_time_ms", "error_code", "producer_id", "producer_epoch", "ongoing_txn_producer_id", "ongoing_txn_producer_epoch",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0, ignorable=True),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("producer_id", "int64", (0, MAX), default=-1),
        Field("producer_epoch", "int16", (0, MAX), default=0),
        Field("ongoing_txn_producer_id", "int64", (6, MAX), default=-1),
        Field("ongoing_txn_producer_epoch", "int16", (6, MAX), default=-1),
    )

    def __init__(self, throttle_time_ms=0, error_code=0, producer_id=-1, producer_epoch=0, ongoing_txn_producer_id=-1, ongoing_txn_producer_epoch=-1):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch
        self.ongoing_txn_producer_id = ongoing_txn_producer_id
        self.ongoing_txn_producer_epoch = ongoing_txn_producer_epoch


__all__ = ["InitProducerIdResponse"]
