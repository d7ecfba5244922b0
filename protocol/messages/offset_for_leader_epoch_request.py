# Generated from OffsetForLeaderEpochRequest.json by protocol/codegen.py — do not edit.
"""OffsetForLeaderEpochRequest: API key 23 request, versions 0-4, flexible versions 4+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class OffsetForLeaderPartition(Struct):
    __slots__ = ("partition", "current_leader_epoch", "leader_epoch",)
    FIELDS = (
        Field("partition", "int32", (0, MAX), default=0),
        Field("current_leader_epoch", "int32", (2, MAX), default=-1, ignorable=True),
        Field("leader_epoch", "int32", (0, MAX), default=0),
    )

    def __init__(self, partition=0, current_leader_epoch=-1, leader_epoch=0):
        self.partition = partition
        self.current_leader_epoch = current_leader_epoch
        self.leader_epoch = leader_epoch


class OffsetForLeaderTopic(Struct):
    __slots__ = ("topic", "partitions",)
    FIELDS = (
        Field("topic", "string", (0, MAX), default=""),
        Field("partitions", Array(OffsetForLeaderPartition), (0, MAX), default=NEW),
    )

    def __init__(self, topic="", partitions=NEW):
        self.topic = topic
        self.partitions = [] if partitions is NEW else partitions


class OffsetForLeaderEpochRequest(Message):
    schema_name = "OffsetForLeaderEpochRequest"
    api_key = 23
    message_type = "request"
    valid_versions = (0, 4)
    flexible_versions = (4, MAX)
    api_listeners = ('broker',)
    OffsetForLeaderPartition = OffsetForLeaderPartition
    OffsetForLeaderTopic = OffsetForLeaderTopic
    __slots__ = ("replica_id", "topics",)
    FIELDS = (
        Field("replica_id", "int32", (3, MAX), default=-2, ignorable=True),
        Field("topics", Array(OffsetForLeaderTopic), (0, MAX), default=NEW),
    )

    def __init__(self, replica_id=-2, topics=NEW):
        self.replica_id = replica_id
        self.topics = [] if topics is NEW else topics


__all__ = ["OffsetForLeaderEpochRequest"]
