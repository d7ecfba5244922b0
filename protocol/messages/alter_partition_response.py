# Generated from AlterPartitionResponse.json by protocol/codegen.py — do not edit.
"""AlterPartitionResponse: API key 56 response, versions 0-3, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class PartitionData(Struct):
    __slots__ = ("partition_index", "error_code", "leader_id", "leader_epoch", "isr", "leader_recovery_state", "partition_epoch",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("leader_id", "int32", (0, MAX), default=0),
        Field("leader_epoch", "int32", (0, MAX), default=0),
        Field("isr", Array("int32"), (0, MAX), default=NEW),
        Field("leader_recovery_state", "int8", (1, MAX), default=0, ignorable=True),
        Field("partition_epoch", "int32", (0, MAX), default=0),
    )

    def __init__(self, partition_index=0, error_code=0, leader_id=0, leader_epoch=0, isr=NEW, leader_recovery_state=0, partition_epoch=0):
        self.partition_index = partition_index
        self.error_code = error_code
        self.leader_id = leader_id
        self.leader_epoch = leader_epoch
        self.isr = [] if isr is NEW else isr
        self.leader_recovery_state = leader_recovery_state
        self.partition_epoch = partition_epoch


class TopicData(Struct):
    __slots__ = ("topic_name", "topic_id", "partitions",)
    FIELDS = (
        Field("topic_name", "string", (0, 1), default="", ignorable=True),
        Field("topic_id", "uuid", (2, MAX), default=ZERO_UUID, ignorable=True),
        Field("partitions", Array(PartitionData), (0, MAX), default=NEW),
    )

    def __init__(self, topic_name="", topic_id=ZERO_UUID, partitions=NEW):
        self.topic_name = topic_name
        self.topic_id = topic_id
        self.partitions = [] if partitions is NEW else partitions


class AlterPartitionResponse(Message):
    schema_name = "AlterPartitionResponse"
    api_key = 56
    message_type = "response"
    valid_versions = (0, 3)
    flexible_versions = (0, MAX)
    PartitionData = PartitionData
    TopicData = TopicData
    __slots__ = ("throttle_time_ms", "error_code", "topics",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("topics", Array(TopicData), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, error_code=0, topics=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.topics = [] if topics is NEW else topics


__all__ = ["AlterPartitionResponse"]
