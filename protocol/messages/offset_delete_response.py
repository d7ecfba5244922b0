# Generated from OffsetDeleteResponse.json by protocol/codegen.py — do not edit.
"""OffsetDeleteResponse: API key 47 response, versions 0."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class OffsetDeleteResponsePartition(Struct):
    __slots__ = ("partition_index", "error_code",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
    )

    def __init__(self, partition_index=0, error_code=0):
        self.partition_index = partition_index
        self.error_code = error_code


class OffsetDeleteResponseTopic(Struct):
    __slots__ = ("name", "partitions",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("partitions", Array(OffsetDeleteResponsePartition), (0, MAX), default=NEW),
    )

    def __init__(self, name="", partitions=NEW):
        self.name = name
        self.partitions = [] if partitions is NEW else partitions


class OffsetDeleteResponse(Message):
    schema_name = "OffsetDeleteResponse"
    api_key = 47
    message_type = "response"
    valid_versions = (0, 0)
    flexible_versions = None
    OffsetDeleteResponsePartition = OffsetDeleteResponsePartition
    OffsetDeleteResponseTopic = OffsetDeleteResponseTopic
    __slots__ = ("error_code", "throttle_time_ms", "topics",)
    FIELDS = (
        Field("error_code", "int16", (0, MAX), default=0),
        Field("throttle_time_ms", "int32", (0, MAX), default=0, ignorable=True),
        Field("topics", Array(OffsetDeleteResponseTopic), (0, MAX), default=NEW),
    )

    def __init__(self, error_code=0, throttle_time_ms=0, topics=NEW):
        self.error_code = error_code
        self.throttle_time_ms = throttle_time_ms
        self.topics = [] if topics is NEW else topics


__all__ = ["OffsetDeleteResponse"]
