# Generated from InitProducerIdRequest.json by protocol/codegen.py — do not edit.
"""InitProducerIdRequest: API key 22 request, versions 0-5, flexible versions 2+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class InitProducerIdRequest(Message):
    schema_name = "InitProducerIdRequest"
    api_key = 22
    message_type = "request"
    valid_versions = (0, 5)
    flexible_versions = (2, MAX)
    api_listeners = ('broker', 'zkBroker')
    __slots__ = ("transactional_id", "transaction_timeout_ms", "producer_id", "producer_epoch",)
    FIELDS = (
        Field("transactional_id", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
        Field("transaction_timeout_ms", "int32", (0, MAX), default=0),
        Field("producer_id", "int64", (3, MAX), default=-1),
        Field("producer_epoch", "int16", (3, MAX), default=-1),
    )

    def __init__(self, transactional_id="", transaction_timeout_ms=0, producer_id=-1, producer_epoch=-1):
        self.transactional_id = transactional_id
        self.transaction_timeout_ms = transaction_timeout_ms
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch


__all__ = ["InitProducerIdRequest"]
