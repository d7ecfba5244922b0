# Generated from InitProducerIdRequest.json by protocol/codegen.py — do not edit.
"""InitProducerIdRequest: API key 22 request, versions 0-6, flexible versions 2+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class InitProducerIdRequest(Message):
    schema_name = "InitProducerIdRequest"
    api_key = 22
    message_type = "request"
    valid_versions = (0, 6)
    flexible_versions = (2, MAX)
    latest_version_unstable = True
    api_listeners = ('broker',)
    __slots__ = ("transactional_id", "transaction_timeout_ms", "producer_id", "producer_epoch", "enable2_pc", "keep_prepared_txn",)
    FIELDS = (
        Field("transactional_id", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
        Field("transaction_timeout_ms", "int32", (0, MAX), default=0),
        Field("producer_id", "int64", (3, MAX), default=-1),
        Field("producer_epoch", "int16", (3, MAX), default=-1),
        Field("enable2_pc", "bool", (6, MAX), default=False),
        Field("keep_prepared_txn", "bool", (6, MAX), default=False),
    )

    def __init__(self, transactional_id="", transaction_timeout_ms=0, producer_id=-1, producer_epoch=-1, enable2_pc=False, keep_prepared_txn=False):
        self.transactional_id = transactional_id
        self.transaction_timeout_ms = transaction_timeout_ms
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch
        self.enable2_pc = enable2_pc
        self.keep_prepared_txn = keep_prepared_txn


__all__ = ["InitProducerIdRequest"]
