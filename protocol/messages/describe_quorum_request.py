# Generated from DescribeQuorumRequest.json by protocol/codegen.py — do not edit.
"""DescribeQuorumRequest: API key 55 request, versions 0-2, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class PartitionData(Struct):
    __slots__ = ("partition_index",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
    )

    def __init__(self, partition_index=0):
        self.partition_index = partition_index


class TopicData(Struct):
    __slots__ = ("topic_name", "partitions",)
    FIELDS = (
        Field("topic_name", "string", (0, MAX), default=""),
        Field("partitions", Array(PartitionData), (0, MAX), default=NEW),
    )

    def __init__(self, topic_name="", partitions=NEW):
        self.topic_name = topic_name
        self.partitions = [] if partitions is NEW else partitions


class DescribeQuorumRequest(Message):
    schema_name = "DescribeQuorumRequest"
    api_key = 55
    message_type = "request"
    valid_versions = (0, 2)
    flexible_versions = (0, MAX)
    api_listeners = ('broker', 'controller')
    PartitionData = PartitionData
    TopicData = TopicData
    __slots__ = ("topics",)
    FIELDS = (
        Field("topics", Array(TopicData), (0, MAX), default=NEW),
    )

    def __init__(self, topics=NEW):
        self.topics = [] if topics is NEW else topics


__all__ = ["DescribeQuorumRequest"]
