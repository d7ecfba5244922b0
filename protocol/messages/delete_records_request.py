# Generated from DeleteRecordsRequest.json by protocol/codegen.py — do not edit.
"""DeleteRecordsRequest: API key 21 request, versions 0-2, flexible versions 2+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class DeleteRecordsPartition(Struct):
    __slots__ = ("partition_index", "offset",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("offset", "int64", (0, MAX), default=0),
    )

    def __init__(self, partition_index=0, offset=0):
        self.partition_index = partition_index
        self.offset = offset


class DeleteRecordsTopic(Struct):
    __slots__ = ("name", "partitions",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("partitions", Array(DeleteRecordsPartition), (0, MAX), default=NEW),
    )

    def __init__(self, name="", partitions=NEW):
        self.name = name
        self.partitions = [] if partitions is NEW else partitions


class DeleteRecordsRequest(Message):
    schema_name = "DeleteRecordsRequest"
    api_key = 21
    message_type = "request"
    valid_versions = (0, 2)
    flexible_versions = (2, MAX)
    api_listeners = ('broker',)
    DeleteRecordsPartition = DeleteRecordsPartition
    DeleteRecordsTopic = DeleteRecordsTopic
    __slots__ = ("topics", "timeout_ms",)
    FIELDS = (
        Field("topics", Array(DeleteRecordsTopic), (0, MAX), default=NEW),
        Field("timeout_ms", "int32", (0, MAX), default=0),
    )

    def __init__(self, topics=NEW, timeout_ms=0):
        self.topics = [] if topics is NEW else topics
        self.timeout_ms = timeout_ms


__all__ = ["DeleteRecordsRequest"]
