# Generated from OffsetForLeaderEpochResponse.json by protocol/codegen.py — do not edit.
"""OffsetForLeaderEpochResponse: API key 23 response, versions 0-4, flexible versions 4+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class EpochEndOffset(Struct):
    __slots__ = ("error_code", "partition", "leader_epoch", "end_offset",)
    FIELDS = (
        Field("error_code", "int16", (0, MAX), default=0),
        Field("partition", "int32", (0, MAX), default=0),
        Field("leader_epoch", "int32", (1, MAX), default=-1, ignorable=True),
        Field("end_offset", "int64", (0, MAX), default=-1),
    )

    def __init__(self, error_code=0, partition=0, leader_epoch=-1, end_offset=-1):
        self.error_code = error_code
        self.partition = partition
        self.leader_epoch = leader_epoch
        self.end_offset = end_offset


class OffsetForLeaderTopicResult(Struct):
    __slots__ = ("topic", "partitions",)
    FIELDS = (
        Field("topic", "string", (0, MAX), default=""),
        Field("partitions", Array(EpochEndOffset), (0, MAX), default=NEW),
    )

    def __init__(self, topic="", partitions=NEW):
        self.topic = topic
        self.partitions = [] if partitions is NEW else partitions


class OffsetForLeaderEpochResponse(Message):
    schema_name = "OffsetForLeaderEpochResponse"
    api_key = 23
    message_type = "response"
    valid_versions = (0, 4)
    flexible_versions = (4, MAX)
    EpochEndOffset = EpochEndOffset
    OffsetForLeaderTopicResult = OffsetForLeaderTopicResult
    __slots__ = ("throttle_time_ms", "topics",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (2, MAX), default=0, ignorable=True),
        Field("topics", Array(OffsetForLeaderTopicResult), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, topics=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.topics = [] if topics is NEW else topics


__all__ = ["OffsetForLeaderEpochResponse"]
