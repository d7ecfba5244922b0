# Generated from OffsetDeleteRequest.json by protocol/codegen.py — do not edit.
"""OffsetDeleteRequest: API key 47 request, versions 0."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class OffsetDeleteRequestPartition(Struct):
    __slots__ = ("partition_index",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
    )

    def __init__(self, partition_index=0):
        self.partition_index = partition_index


class OffsetDeleteRequestTopic(Struct):
    __slots__ = ("name", "partitions",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("partitions", Array(OffsetDeleteRequestPartition), (0, MAX), default=NEW),
    )

    def __init__(self, name="", partitions=NEW):
        self.name = name
        self.partitions = [] if partitions is NEW else partitions


class OffsetDeleteRequest(Message):
    schema_name = "OffsetDeleteRequest"
    api_key = 47
    message_type = "request"
    valid_versions = (0, 0)
    flexible_versions = None
    api_listeners = ('broker',)
    OffsetDeleteRequestPartition = OffsetDeleteRequestPartition
    OffsetDeleteRequestTopic = OffsetDeleteRequestTopic
    __slots__ = ("group_id", "topics",)
    FIELDS = (
        Field("group_id", "string", (0, MAX), default=""),
        Field("topics", Array(OffsetDeleteRequestTopic), (0, MAX), default=NEW),
    )

    def __init__(self, group_id="", topics=NEW):
        self.group_id = group_id
        self.topics = [] if topics is NEW else topics


__all__ = ["OffsetDeleteRequest"]
