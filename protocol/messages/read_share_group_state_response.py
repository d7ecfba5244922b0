# Generated from ReadShareGroupStateResponse.json by protocol/codegen.py — do not edit.
"""ReadShareGroupStateResponse: API key 84 response, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class StateBatch(Struct):
    __slots__ = ("first_offset", "last_offset", "delivery_state", "delivery_count",)
    FIELDS = (
        Field("first_offset", "int64", (0, MAX), default=0),
        Field("last_offset", "int64", (0, MAX), default=0),
        Field("delivery_state", "int8", (0, MAX), default=0),
        Field("delivery_count", "int16", (0, MAX), default=0),
    )

    def __init__(self, first_offset=0, last_offset=0, delivery_state=0, delivery_count=0):
        self.first_offset = first_offset
        self.last_offset = last_offset
        self.delivery_state = delivery_state
        self.delivery_count = delivery_count


class PartitionResult(Struct):
    __slots__ = ("partition", "error_code", "error_message", "state_epoch", "start_offset", "state_batches",)
    FIELDS = (
        Field("partition", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX)),
        Field("state_epoch", "int32", (0, MAX), default=0),
        Field("start_offset", "int64", (0, MAX), default=0),
        Field("state_batches", Array(StateBatch), (0, MAX), default=NEW),
    )

    def __init__(self, partition=0, error_code=0, error_message=None, state_epoch=0, start_offset=0, state_batches=NEW):
        self.partition = partition
        self.error_code = error_code
        self.error_message = error_message
        self.state_epoch = state_epoch
        self.start_offset = start_offset
        self.state_batches = [] if state_batches is NEW else state_batches


class ReadStateResult(Struct):
    __slots__ = ("topic_id", "partitions",)
    FIELDS = (
        Field("topic_id", "uuid", (0, MAX), default=ZERO_UUID),
        Field("partitions", Array(PartitionResult), (0, MAX), default=NEW),
    )

    def __init__(self, topic_id=ZERO_UUID, partitions=NEW):
        self.topic_id = topic_id
        self.partitions = [] if partitions is NEW else partitions


class ReadShareGroupStateResponse(Message):
    schema_name = "ReadShareGroupStateResponse"
    api_key = 84
    message_type = "response"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    PartitionResult = PartitionResult
    ReadStateResult = ReadStateResult
    StateBatch = StateBatch
    __slots__ = ("results",)
    FIELDS = (
        Field("results", Array(ReadStateResult), (0, MAX), default=NEW),
    )

    def __init__(self, results=NEW):
        self.results = [] if results is NEW else results


__all__ = ["ReadShareGroupStateResponse"]
