# Generated from DeleteRecordsResponse.json by protocol/codegen.py — do not edit.
"""DeleteRecordsResponse: API key 21 response, versions 0-2, flexible versions 2+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class DeleteRecordsPartitionResult(Struct):
    __slots__ = ("partition_index", "low_watermark", "error_code",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("low_watermark", "int64", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
    )

    def __init__(self, partition_index=0, low_watermark=0, error_code=0):
        self.partition_index = partition_index
        self.low_watermark = low_watermark
        self.error_code = error_code


class DeleteRecordsTopicResult(Struct):
    __slots__ = ("name", "partitions",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("partitions", Array(DeleteRecordsPartitionResult), (0, MAX), default=NEW),
    )

    def __init__(self, name="", partitions=NEW):
        self.name = name
        self.partitions = [] if partitions is NEW else partitions


class DeleteRecordsResponse(Message):
    schema_name = "DeleteRecordsResponse"
    api_key = 21
    message_type = "response"
    valid_versions = (0, 2)
    flexible_versions = (2, MAX)
    DeleteRecordsPartitionResult = DeleteRecordsPartitionResult
    DeleteRecordsTopicResult = DeleteRecordsTopicResult
    __slots__ = ("throttle_time_ms", "topics",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("topics", Array(DeleteRecordsTopicResult), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, topics=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.topics = [] if topics is NEW else topics


__all__ = ["DeleteRecordsResponse"]
