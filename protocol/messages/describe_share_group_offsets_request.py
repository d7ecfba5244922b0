# Generated from DescribeShareGroupOffsetsRequest.json by protocol/codegen.py — do not edit.
"""DescribeShareGroupOffsetsRequest: API key 90 request, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class DescribeShareGroupOffsetsRequestTopic(Struct):
    __slots__ = ("topic_name", "partitions",)
    FIELDS = (
        Field("topic_name", "string", (0, MAX), default=""),
        Field("partitions", Array("int32"), (0, MAX), default=NEW),
    )

    def __init__(self, topic_name="", partitions=NEW):
        self.topic_name = topic_name
        self.partitions = [] if partitions is NEW else partitions


class DescribeShareGroupOffsetsRequestGroup(Struct):
    __slots__ = ("group_id", "topics",)
    FIELDS = (
        Field("group_id", "string", (0, MAX), default=""),
        Field("topics", Array(DescribeShareGroupOffsetsRequestTopic), (0, MAX), nullable_versions=(0, MAX), default=NEW),
    )

    def __init__(self, group_id="", topics=NEW):
        self.group_id = group_id
        self.topics = [] if topics is NEW else topics


class DescribeShareGroupOffsetsRequest(Message):
    schema_name = "DescribeShareGroupOffsetsRequest"
    api_key = 90
    message_type = "request"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    api_listeners = ('broker',)
    DescribeShareGroupOffsetsRequestGroup = DescribeShareGroupOffsetsRequestGroup
    DescribeShareGroupOffsetsRequestTopic = DescribeShareGroupOffsetsRequestTopic
    __slots__ = ("groups",)
    FIELDS = (
        Field("groups", Array(DescribeShareGroupOffsetsRequestGroup), (0, MAX), default=NEW),
    )

    def __init__(self, groups=NEW):
        self.groups = [] if groups is NEW else groups


__all__ = ["DescribeShareGroupOffsetsRequest"]
