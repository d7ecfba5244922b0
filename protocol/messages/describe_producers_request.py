# Generated from DescribeProducersRequest.json by protocol/codegen.py — do not edit.
"""DescribeProducersRequest: API key 61 request, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class TopicRequest(Struct):
    __slots__ = ("name", "partition_indexes",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("partition_indexes", Array("int32"), (0, MAX), default=NEW),
    )

    def __init__(self, name="", partition_indexes=NEW):
        self.name = name
        self.partition_indexes = [] if partition_indexes is NEW else partition_indexes


class DescribeProducersRequest(Message):
    schema_name = "DescribeProducersRequest"
    api_key = 61
    message_type = "request"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    api_listeners = ('broker',)
    TopicRequest = TopicRequest
    __slots__ = ("topics",)
    FIELDS = (
        Field("topics", Array(TopicRequest), (0, MAX), default=NEW),
    )

    def __init__(self, topics=NEW):
        self.topics = [] if topics is NEW else topics


__all__ = ["DescribeProducersRequest"]
