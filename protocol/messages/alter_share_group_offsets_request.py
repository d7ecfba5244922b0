# Generated from AlterShareGroupOffsetsRequest.json by protocol/codegen.py — do not edit.
"""AlterShareGroupOffsetsRequest: API key 91 request, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class AlterShareGroupOffsetsRequestPartition(Struct):
    __slots__ = ("partition_index", "start_offset",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("start_offset", "int64", (0, MAX), default=0),
    )

    def __init__(self, partition_index=0, start_offset=0):
        self.partition_index = partition_index
        self.start_offset = start_offset


class AlterShareGroupOffsetsRequestTopic(Struct):
    __slots__ = ("topic_name", "partitions",)
    FIELDS = (
        Field("topic_name", "string", (0, MAX), default=""),
        Field("partitions", Array(AlterShareGroupOffsetsRequestPartition), (0, MAX), default=NEW),
    )

    def __init__(self, topic_name="", partitions=NEW):
        self.topic_name = topic_name
        self.partitions = [] if partitions is NEW else partitions


class AlterShareGroupOffsetsRequest(Message):
    schema_name = "AlterShareGroupOffsetsRequest"
    api_key = 91
    message_type = "request"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    api_listeners = ('broker',)
    AlterShareGroupOffsetsRequestPartition = AlterShareGroupOffsetsRequestPartition
    AlterShareGroupOffsetsRequestTopic = AlterShareGroupOffsetsRequestTopic
    __slots__ = ("group_id", "topics",)
    FIELDS = (
        Field("group_id", "string", (0, MAX), default=""),
        Field("topics", Array(AlterShareGroupOffsetsRequestTopic), (0, MAX), default=NEW),
    )

    def __init__(self, group_id="", topics=NEW):
        self.group_id = group_id
        self.topics = [] if topics is NEW else topics


__all__ = ["AlterShareGroupOffsetsRequest"]
