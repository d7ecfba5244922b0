# Generated from DescribeTransactionsResponse.json by protocol/codegen.py — do not edit.
"""DescribeTransactionsResponse: API key 65 response, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class TopicData(Struct):
    __slots__ = ("topic", "partitions",)
    FIELDS = (
        Field("topic", "string", (0, MAX), default=""),
        Field("partitions", Array("int32"), (0, MAX), default=NEW),
    )

    def __init__(self, topic="", partitions=NEW):
        self.topic = topic
        self.partitions = [] if partitions is NEW else partitions


class TransactionState(Struct):
    __slots__ = ("error_code", "transactional_id", "transaction_state", "transaction_timeout_ms", "transaction_start_time_ms", "producer_id", "producer_epoch", "topics",)
    FIELDS = (
        Field("error_code", "int16", (0, MAX), default=0),
        Field("transactional_id", "string", (0, MAX), default=""),
        Field("transaction_state", "string", (0, MAX), default=""),
        Field("transaction_timeout_ms", "int32", (0, MAX), default=0),
        Field("transaction_start_time_ms", "int64", (0, MAX), default=0),
        Field("producer_id", "int64", (0, MAX), default=0),
        Field("producer_epoch", "int16", (0, MAX), default=0),
        Field("topics", Array(TopicData), (0, MAX), default=NEW),
    )

    def __init__(self, error_code=0, transactional_id="", transaction_state="", transaction_timeout_ms=0, transaction_start_time_ms=0, producer_id=0, producer_epoch=0, topics=NEW):
        self.error_code = error_code
        self.transactional_id = transactional_id
        self.transaction_state = transaction_state
        self.transaction_timeout_ms = transaction_timeout_ms
        self.transaction_start_time_ms = transaction_start_time_ms
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch
        self.topics = [] if topics is NEW else topics


class DescribeTransactionsResponse(Message):
    schema_name = "DescribeTransactionsResponse"
    api_key = 65
    message_type = "response"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    TopicData = TopicData
    TransactionState = TransactionState
    __slots__ = ("throttle_time_ms", "transaction_states",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("transaction_states", Array(TransactionState), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, transaction_states=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.transaction_states = [] if transaction_states is NEW else transaction_states


__all__ = ["DescribeTransactionsResponse"]
