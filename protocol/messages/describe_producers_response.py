# Generated from DescribeProducersResponse.json by protocol/codegen.py — do not edit.
"""DescribeProducersResponse: API key 61 response, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class ProducerState(Struct):
    __slots__ = ("producer_id", "producer_epoch", "last_sequence", "last_timestamp", "coordinator_epoch", "current_txn_start_offset",)
    FIELDS = (
        Field("producer_id", "int64", (0, MAX), default=0),
        Field("producer_epoch", "int32", (0, MAX), default=0),
        Field("last_sequence", "int32", (0, MAX), default=-1),
        Field("last_timestamp", "int64", (0, MAX), default=-1),
        Field("coordinator_epoch", "int32", (0, MAX), default=0),
        Field("current_txn_start_offset", "int64", (0, MAX), default=-1),
    )

    def __init__(self, producer_id=0, producer_epoch=0, last_sequence=-1, last_timestamp=-1, coordinator_epoch=0, current_txn_start_offset=-1):
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch
        self.last_sequence = last_sequence
        self.last_timestamp = last_timestamp
        self.coordinator_epoch = coordinator_epoch
        self.current_txn_start_offset = current_txn_start_offset


class PartitionResponse(Struct):
    __slots__ = ("partition_index", "error_code", "error_message", "active_producers",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX)),
        Field("active_producers", Array(ProducerState), (0, MAX), default=NEW),
    )

    def __init__(self, partition_index=0, error_code=0, error_message=None, active_producers=NEW):
        self.partition_index = partition_index
        self.error_code = error_code
        self.error_message = error_message
        self.active_producers = [] if active_producers is NEW else active_producers


class TopicResponse(Struct):
    __slots__ = ("name", "partitions",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("partitions", Array(PartitionResponse), (0, MAX), default=NEW),
    )

    def __init__(self, name="", partitions=NEW):
        self.name = name
        self.partitions = [] if partitions is NEW else partitions


class DescribeProducersResponse(Message):
    schema_name = "DescribeProducersResponse"
    api_key = 61
    message_type = "response"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    PartitionResponse = PartitionResponse
    ProducerState = ProducerState
    TopicResponse = TopicResponse
    __slots__ = ("throttle_time_ms", "topics",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("topics", Array(TopicResponse), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, topics=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.topics = [] if topics is NEW else topics


__all__ = ["DescribeProducersResponse"]
