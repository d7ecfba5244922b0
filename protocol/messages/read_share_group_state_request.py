# Generated from ReadShareGroupStateRequest.json by protocol/codegen.py — do not edit.
"""ReadShareGroupStateRequest: API key 84 request, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class PartitionData(Struct):
    __slots__ = ("partition", "leader_epoch",)
    FIELDS = (
        Field("partition", "int32", (0, MAX), default=0),
        Field("leader_epoch", "int32", (0, MAX), default=0),
    )

    def __init__(self, partition=0, leader_epoch=0):
        self.partition = partition
        self.leader_epoch = leader_epoch


class ReadStateData(Struct):
    __slots__ = ("topic_id", "partitions",)
    FIELDS = (
        Field("topic_id", "uuid", (0, MAX), default=ZERO_UUID),
        Field("partitions", Array(PartitionData), (0, MAX), default=NEW),
    )

    def __init__(self, topic_id=ZERO_UUID, partitions=NEW):
        self.topic_id = topic_id
        self.partitions = [] if partitions is NEW else partitions


class ReadShareGroupStateRequest(Message):
    schema_name = "ReadShareGroupStateRequest"
    api_key = 84
    message_type = "request"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    api_listeners = ('broker',)
    PartitionData = PartitionData
    ReadStateData = ReadStateData
    __slots__ = ("group_id", "topics",)
    FIELDS = (
        Field("group_id", "string", (0, MAX), default=""),
        Field("topics", Array(ReadStateData), (0, MAX), default=NEW),
    )

    def __init__(self, group_id="", topics=NEW):
        self.group_id = group_id
        self.topics = [] if topics is NEW else topics


__all__ = ["ReadShareGroupStateRequest"]
