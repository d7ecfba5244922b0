# Generated from OffsetCommitResponse.json by protocol/codegen.py — do not edit.
"""OffsetCommitResponse: API key 8 response, versions 0-10, flexible versions 8+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class OffsetCommitResponsePartition(Struct):
    __slots__ = ("partition_index", "error_code",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
    )

    def __init__(self, partition_index=0, error_code=0):
        self.partition_index = partition_index
        self.error_code = error_code


class OffsetCommitResponseTopic(Struct):
    __slots__ = ("name", "topic_id", "partitions",)
    FIELDS = (
        Field("name", "string", (0, 9), default="", ignorable=True),
        Field("topic_id", "uuid", (10, MAX), default=ZERO_UUID, ignorable=True),
        Field("partitions", Array(OffsetCommitResponsePartition), (0, MAX), default=NEW),
    )

    def __init__(self, name="", topic_id=ZERO_UUID, partitions=NEW):
        self.name = name
        self.topic_id = topic_id
        self.partitions = [] if partitions is NEW else partitions


class OffsetCommitResponse(Message):
    schema_name = "OffsetCommitResponse"
    api_key = 8
    message_type = "response"
    valid_versions = (0, 10)
    flexible_versions = (8, MAX)
    OffsetCommitResponsePartition = OffsetCommitResponsePartition
    OffsetCommitResponseTopic = OffsetCommitResponseTopic
    __slots__ = ("throttle_time_ms", "topics",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (3, MAX), default=0, ignorable=True),
        Field("topics", Array(OffsetCommitResponseTopic), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, topics=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.topics = [] if topics is NEW else topics


__all__ = ["OffsetCommitResponse"]
