# Generated from DescribeShareGroupOffsetsResponse.json by protocol/codegen.py — do not edit.
"""DescribeShareGroupOffsetsResponse: API key 90 response, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class DescribeShareGroupOffsetsResponsePartition(Struct):
    __slots__ = ("partition_index", "start_offset", "leader_epoch", "error_code", "error_message",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("start_offset", "int64", (0, MAX), default=0),
        Field("leader_epoch", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX)),
    )

    def __init__(self, partition_index=0, start_offset=0, leader_epoch=0, error_code=0, error_message=None):
        self.partition_index = partition_index
        self.start_offset = start_offset
        self.leader_epoch = leader_epoch
        self.error_code = error_code
        self.error_message = error_message


class DescribeShareGroupOffsetsResponseTopic(Struct):
    __slots__ = ("topic_name", "topic_id", "partitions",)
    FIELDS = (
        Field("topic_name", "string", (0, MAX), default=""),
        Field("topic_id", "uuid", (0, MAX), default=ZERO_UUID),
        Field("partitions", Array(DescribeShareGroupOffsetsResponsePartition), (0, MAX), default=NEW),
    )

    def __init__(self, topic_name="", topic_id=ZERO_UUID, partitions=NEW):
        self.topic_name = topic_name
        self.topic_id = topic_id
        self.partitions = [] if partitions is NEW else partitions


class DescribeShareGroupOffsetsResponseGroup(Struct):
    __slots__ = ("group_id", "topics", "error_code", "error_message",)
    FIELDS = (
        Field("group_id", "string", (0, MAX), default=""),
        Field("topics", Array(DescribeShareGroupOffsetsResponseTopic), (0, MAX), default=NEW),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX)),
    )

    def __init__(self, group_id="", topics=NEW, error_code=0, error_message=None):
        self.group_id = group_id
        self.topics = [] if topics is NEW else topics
        self.error_code = error_code
        self.error_message = error_message


class DescribeShareGroupOffsetsResponse(Message):
    schema_name = "DescribeShareGroupOffsetsResponse"
    api_key = 90
    message_type = "response"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    DescribeShareGroupOffsetsResponseGroup = DescribeShareGroupOffsetsResponseGroup
    DescribeShareGroupOffsetsResponsePartition = DescribeShareGroupOffsetsResponsePartition
    DescribeShareGroupOffsetsResponseTopic = DescribeShareGroupOffsetsResponseTopic
    __slots__ = ("throttle_time_ms", "groups",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("groups", Array(DescribeShareGroupOffsetsResponseGroup), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, groups=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.groups = [] if groups is NEW else groups


__all__ = ["DescribeShareGroupOffsetsResponse"]
