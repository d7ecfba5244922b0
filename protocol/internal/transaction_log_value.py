# Generated from TransactionLogValue.json by protocol/codegen.py — do not edit.
"""TransactionLogValue: data, versions 0-1, flexible versions 1+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class PartitionsSchema(Struct):
    __slots__ = ("topic", "partition_ids",)
    FIELDS = (
        Field("topic", "string", (0, MAX), default=""),
        Field("partition_ids", Array("int32"), (0, MAX), default=NEW),
    )

    def __init__(self, topic="", partition_ids=NEW):
        self.topic = topic
        self.partition_ids = [] if partition_ids is NEW else partition_ids


class TransactionLogValue(Message):
    schema_name = "TransactionLogValue"
    api_key = None
    message_type = "data"
    valid_versions = (0, 1)
    flexible_versions = (1, MAX)
    PartitionsSchema = PartitionsSchema
    __slots__ = ("producer_id", "producer_epoch", "transaction_timeout_ms", "transaction_status", "transaction_partitions", "transaction_last_update_timestamp_ms", "transaction_start_timestamp_ms",)
    FIELDS = (
        Field("producer_id", "int64", (0, MAX), default=0),
        Field("producer_epoch", "int16", (0, MAX), default=0),
        Field("transaction_timeout_ms", "int32", (0, MAX), default=0),
        Field("transaction_status", "int8", (0, MAX), default=0),
        Field("transaction_partitions", Array(PartitionsSchema), (0, MAX), nullable_versions=(0, MAX), default=NEW),
        Field("transaction_last_update_timestamp_ms", "int64", (0, MAX), default=0),
        Field("transaction_start_timestamp_ms", "int64", (0, MAX), default=0),
    )

    def __init__(self, producer_id=0, producer_epoch=0, transaction_timeout_ms=0, transaction_status=0, transaction_partitions=NEW, transaction_last_update_timestamp_ms=0, transaction_start_timestamp_ms=0):
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch
        self.transaction_timeout_ms = transaction_timeout_ms
        self.transaction_status = transaction_status
        self.transaction_partitions = [] if transaction_partitions is NEW else transaction_partitions
        self.transaction_last_update_timestamp_ms = transaction_last_update_timestamp_ms
        self.transaction_start_timestamp_ms = transaction_start_timestamp_ms


__all__ = ["TransactionLogValue"]
