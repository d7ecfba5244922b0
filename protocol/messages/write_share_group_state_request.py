# Generated from WriteShareGroupStateRequest.json by protocol/codegen.py — do not edit.
"""WriteShareGroupStateRequest: API key 85 request, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class StateBatch(Struct):
    __slots__ = ("first_offset", "last_offset", "delivery_state", "delivery_count",)
    FIELDS = (
        Field("first_offset", "int64", (0, MAX), default=0),
        Field("last_offset", "int64", (0, MAX), default=0),
        Field("delivery_state", "int8", (0, MAX), default=0),
        Field("delivery_count", "int16", (0, MAX), default=0),
    )

    def __init__(self, first_offset=0, last_offset=0, delivery_state=0, delivery_count=0):
        self.first_offset = first_offset
        self.last_offset = last_offset
        self.delivery_state = delivery_state
        self.delivery_count = delivery_count


class PartitionData(Struct):
    __slots__ = ("partition", "state_epoch", "leader_epoch", "start_offset", "state_batches",)
    FIELDS = (
        Field("partition", "int32", (0, MAX), default=0),
        Field("state_epoch", "int32", (0, MAX), default=0),
        Field("leader_epoch", "int32", (0, MAX), default=0),
        Field("start_offset", "int64", (0, MAX), default=0),
        Field("state_batches", Array(StateBatch), (0, MAX), default=NEW),
    )

    def __init__(self, partition=0, state_epoch=0, leader_epoch=0, start_offset=0, state_batches=NEW):
        self.partition = partition
        self.state_epoch = state_epoch
        self.leader_epoch = leader_epoch
        self.start_offset = start_offset
        self.state_batches = [] if state_batches is NEW else state_batches


class WriteStateData(Struct):
    __slots__ = ("topic_id", "partitions",)
    FIELDS = (
        Field("topic_id", "uuid", (0, MAX), default=ZERO_UUID),
        Field("partitions", Array(PartitionData), (0, MAX), default=NEW),
    )

    def __init__(self, topic_id=ZERO_UUID, partitions=NEW):
        self.topic_id = topic_id
        self.partitions = [] if partitions is NEW else partitions


class WriteShareGroupStateRequest(Message):
    schema_name = "WriteShareGroupStateRequest"
    api_key = 85
    message_type = "request"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    api_listeners = ('broker',)
    PartitionData = PartitionData
    StateBatch = StateBatch
    WriteStateData = WriteStateData
    __slots__ = ("group_id", "topics",)
    FIELDS = (
        Field("group_id", "string", (0, MAX), default=""),
        Field("topics", Array(WriteStateData), (0, MAX), default=NEW),
    )

    def __init__(self, group_id="", topics=NEW):
        self.group_id = group_id
        self.topics = [] if topics is NEW else topics


__all__ = ["WriteShareGroupStateRequest"]
