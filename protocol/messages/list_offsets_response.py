# Generated from ListOffsetsResponse.json by protocol/codegen.py — do not edit.
"""ListOffsetsResponse: API key 2 response, versions 0-10, flexible versions 6+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class ListOffsetsPartitionResponse(Struct):
    __slots__ = ("partition_index", "error_code", "old_style_offsets", "timestamp", "offset", "leader_epoch",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("old_style_offsets", Array("int64"), (0, 0), default=NEW),
        Field("timestamp", "int64", (1, MAX), default=-1),
        Field("offset", "int64", (1, MAX), default=-1),
        Field("leader_epoch", "int32", (4, MAX), default=-1),
    )

    def __init__(self, partition_index=0, error_code=0, old_style_offsets=NEW, timestamp=-1, offset=-1, leader_epoch=-1):
        self.partition_index = partition_index
        self.error_code = error_code
        self.old_style_offsets = [] if old_style_offsets is NEW else old_style_offsets
        self.timestamp = timestamp
        self.offset = offset
        self.leader_epoch = leader_epoch


class ListOffsetsTopicResponse(Struct):
    __slots__ = ("name", "partitions",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("partitions", Array(ListOffsetsPartitionResponse), (0, MAX), default=NEW),
    )

    def __init__(self, name="", partitions=NEW):
        self.name = name
        self.partitions = [] if partitions is NEW else partitions


class ListOffsetsResponse(Message):
    schema_name = "ListOffsetsResponse"
    api_key = 2
    message_type = "response"
    valid_versions = (0, 10)
    flexible_versions = (6, MAX)
    ListOffsetsPartitionResponse = ListOffsetsPartitionResponse
    ListOffsetsTopicResponse = ListOffsetsTopicResponse
    __slots__ = ("throttle_time_ms", "topics",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (2, MAX), default=0, ignorable=True),
        Field("topics", Array(ListOffsetsTopicResponse), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, topics=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.topics = [] if topics is NEW else topics


__all__ = ["ListOffsetsResponse"]
