# Generated from DescribeTopicPartitionsRequest.json by protocol/codegen.py — do not edit.
"""DescribeTopicPartitionsRequest: API key 75 request, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class TopicRequest(Struct):
    __slots__ = ("name",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
    )

    def __init__(self, name=""):
        self.name = name


class Cursor(Struct):
    __slots__ = ("topic_name", "partition_index",)
    FIELDS = (
        Field("topic_name", "string", (0, MAX), default=""),
        Field("partition_index", "int32", (0, MAX), default=0),
    )

    def __init__(self, topic_name="", partition_index=0):
        self.topic_name = topic_name
        self.partition_index = partition_index


class DescribeTopicPartitionsRequest(Message):
    schema_name = "DescribeTopicPartitionsRequest"
    api_key = 75
    message_type = "request"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    api_listeners = ('broker',)
    Cursor = Cursor
    TopicRequest = TopicRequest
    __slots__ = ("topics", "response_partition_limit", "cursor",)
    FIELDS = (
        Field("topics", Array(TopicRequest), (0, MAX), default=NEW),
        Field("response_partition_limit", "int32", (0, MAX), default=2000),
        Field("cursor", Cursor, (0, MAX), nullable_versions=(0, MAX)),
    )

    def __init__(self, topics=NEW, response_partition_limit=2000, cursor=None):
        self.topics = [] if topics is NEW else topics
        self.response_partition_limit = response_partition_limit
        self.cursor = cursor


__all__ = ["DescribeTopicPartitionsRequest"]
