# Generated from ReadShareGroupStateSummaryResponse.json by protocol/codegen.py — do not edit.
"""ReadShareGroupStateSummaryResponse: API key 87 response, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class PartitionResult(Struct):
    __slots__ = ("partition", "error_code", "error_message", "state_epoch", "leader_epoch", "start_offset",)
    FIELDS = (
        Field("partition", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX)),
        Field("state_epoch", "int32", (0, MAX), default=0),
        Field("leader_epoch", "int32", (0, MAX), default=0),
        Field("start_offset", "int64", (0, MAX), default=0),
    )

    def __init__(self, partition=0, error_code=0, error_message=None, state_epoch=0, leader_epoch=0, start_offset=0):
        self.partition = partition
        self.error_code = error_code
        self.error_message = error_message
        self.state_epoch = state_epoch
        self.leader_epoch = leader_epoch
        self.start_offset = start_offset


class ReadStateSummaryResult(Struct):
    __slots__ = ("topic_id", "partitions",)
    FIELDS = (
        Field("topic_id", "uuid", (0, MAX), default=ZERO_UUID),
        Field("partitions", Array(PartitionResult), (0, MAX), default=NEW),
    )

    def __init__(self, topic_id=ZERO_UUID, partitions=NEW):
        self.topic_id = topic_id
        self.partitions = [] if partitions is NEW else partitions


class ReadShareGroupStateSummaryResponse(Message):
    schema_name = "ReadShareGroupStateSummaryResponse"
    api_key = 87
    message_type = "response"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    PartitionResult = PartitionResult
    ReadStateSummaryResult = ReadStateSummaryResult
    __slots__ = ("results",)
    FIELDS = (
        Field("results", Array(ReadStateSummaryResult), (0, MAX), default=NEW),
    )

    def __init__(self, results=NEW):
        self.results = [] if results is NEW else results


__all__ = ["ReadShareGroupStateSummaryResponse"]
