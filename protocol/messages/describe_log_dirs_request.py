# Generated from DescribeLogDirsRequest.json by protocol/codegen.py — do not edit.
"""DescribeLogDirsRequest: API key 35 request, versions 0-4, flexible versions 2+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class DescribableLogDirTopic(Struct):
    __slots__ = ("topic", "partitions",)
    FIELDS = (
        Field("topic", "string", (0, MAX), default=""),
        Field("partitions", Array("int32"), (0, MAX), default=NEW),
    )

    def __init__(self, topic="", partitions=NEW):
        self.topic = topic
        self.partitions = [] if partitions is NEW else partitions


class DescribeLogDirsRequest(Message):
    schema_name = "DescribeLogDirsRequest"
    api_key = 35
    message_type = "request"
    valid_versions = (0, 4)
    flexible_versions = (2, MAX)
    api_listeners = ('broker',)
    DescribableLogDirTopic = DescribableLogDirTopic
    __slots__ = ("topics",)
    FIELDS = (
        Field("topics", Array(DescribableLogDirTopic), (0, MAX), nullable_versions=(0, MAX), default=NEW),
    )

    def __init__(self, topics=NEW):
        self.topics = [] if topics is NEW else topics


__all__ = ["DescribeLogDirsRequest"]
