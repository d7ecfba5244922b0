# Generated from TxnOffsetCommitResponse.json by protocol/codegen.py — do not edit.
"""TxnOffsetCommitResponse: API key 28 response, versions 0-5, flexible versions 3+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class TxnOffsetCommitResponsePartition(Struct):
    __slots__ = ("partition_index", "error_code",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
    )

    def __init__(self, partition_index=0, error_code=0):
        self.partition_index = partition_index
        self.error_code = error_code


class TxnOffsetCommitResponseTopic(Struct):
    __slots__ = ("name", "partitions",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("partitions", Array(TxnOffsetCommitResponsePartition), (0, MAX), default=NEW),
    )

    def __init__(self, name="", partitions=NEW):
        self.name = name
        self.partitions = [] if partitions is NEW else partitions


class TxnOffsetCommitResponse(Message):
    schema_name = "TxnOffsetCommitResponse"
    api_key = 28
    message_type = "response"
    valid_versions = (0, 5)
    flexible_versions = (3, MAX)
    TxnOffsetCommitResponsePartition = TxnOffsetCommitResponsePartition
    TxnOffsetCommitResponseTopic = TxnOffsetCommitResponseTopic
    __slots__ = ("throttle_time_ms", "topics",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("topics", Array(TxnOffsetCommitResponseTopic), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, topics=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.topics = [] if topics is NEW else topics


__all__ = ["TxnOffsetCommitResponse"]
