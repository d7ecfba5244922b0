# Generated from OffsetFetchResponse.json by protocol/codegen.py — do not edit.
"""OffsetFetchResponse: API key 9 response, versions 0-10, flexible versions 6+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class OffsetFetchResponsePartition(Struct):
    __slots__ = ("partition_index", "committed_offset", "committed_leader_epoch", "metadata", "error_code",)
    FIELDS = (
        Field("partition_index", "int32", (0, 7), default=0),
        Field("committed_offset", "int64", (0, 7), default=0),
        Field("committed_leader_epoch", "int32", (5, 7), default=-1, ignorable=True),
        Field("metadata", "string", (0, 7), nullable_versions=(0, 7), default=""),
        Field("error_code", "int16", (0, 7), default=0),
    )

    def __init__(self, partition_index=0, committed_offset=0, committed_leader_epoch=-1, metadata="", error_code=0):
        self.partition_index = partition_index
        self.committed_offset = committed_offset
        self.committed_leader_epoch = committed_leader_epoch
        self.metadata = metadata
        self.error_code = error_code


class OffsetFetchResponseTopic(Struct):
    __slots__ = ("name", "partitions",)
    FIELDS = (
        Field("name", "string", (0, 7), default=""),
        Field("partitions", Array(OffsetFetchResponsePartition), (0, 7), default=NEW),
    )

    def __init__(self, name="", partitions=NEW):
        self.name = name
        self.partitions = [] if partitions is NEW else partitions


class OffsetFetchResponsePartitions(Struct):
    __slots__ = ("partition_index", "committed_offset", "committed_leader_epoch", "metadata", "error_code",)
    FIELDS = (
        Field("partition_index", "int32", (8, MAX), default=0),
        Field("committed_offset", "int64", (8, MAX), default=0),
        Field("committed_leader_epoch", "int32", (8, MAX), default=-1, ignorable=True),
        Field("metadata", "string", (8, MAX), nullable_versions=(8, MAX), default=""),
        Field("error_code", "int16", (8, MAX), default=0),
    )

    def __init__(self, partition_index=0, committed_offset=0, committed_leader_epoch=-1, metadata="", error_code=0):
        self.partition_index = partition_index
        self.committed_offset = committed_offset
        self.committed_leader_epoch = committed_leader_epoch
        self.metadata = metadata
        self.error_code = error_code


class OffsetFetchResponseTopics(Struct):
    __slots__ = ("name", "topic_id", "partitions",)
    FIELDS = (
        Field("name", "string", (8, 9), default="", ignorable=True),
        Field("topic_id", "uuid", (10, MAX), default=ZERO_UUID, ignorable=True),
        Field("partitions", Array(OffsetFetchResponsePartitions), (8, MAX), default=NEW),
    )

    def __init__(self, name="", topic_id=ZERO_UUID, partitions=NEW):
        self.name = name
        self.topic_id = topic_id
        self.partitions = [] if partitions is NEW else partitions


class OffsetFetchResponseGroup(Struct):
    __slots__ = ("group_id", "topics", "error_code",)
    FIELDS = (
        Field("group_id", "string", (8, MAX), default=""),
        Field("topics", Array(OffsetFetchResponseTopics), (8, MAX), default=NEW),
        Field("error_code", "int16", (8, MAX), default=0),
    )

    def __init__(self, group_id="", topics=NEW, error_code=0):
        self.group_id = group_id
        self.topics = [] if topics is NEW else topics
        self.error_code = error_code


class OffsetFetchResponse(Message):
    schema_name = "OffsetFetchResponse"
    api_key = 9
    message_type = "response"
    valid_versions = (0, 10)
    flexible_versions = (6, MAX)
    OffsetFetchResponseGroup = OffsetFetchResponseGroup
    OffsetFetchResponsePartition = OffsetFetchResponsePartition
    OffsetFetchResponsePartitions = OffsetFetchResponsePartitions
    OffsetFetchResponseTopic = OffsetFetchResponseTopic
    OffsetFetchResponseTopics = OffsetFetchResponseTopics
    __slots__ = ("throttle_time_ms", "topics", "error_code", "groups",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (3, MAX), default=0, ignorable=True),
        Field("topics", Array(OffsetFetchResponseTopic), (0, 7), default=NEW),
        Field("error_code", "int16", (2, 7), default=0, ignorable=True),
        Field("groups", Array(OffsetFetchResponseGroup), (8, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, topics=NEW, error_code=0, groups=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.topics = [] if topics is NEW else topics
        self.error_code = error_code
        self.groups = [] if groups is NEW else groups


__all__ = ["OffsetFetchResponse"]
