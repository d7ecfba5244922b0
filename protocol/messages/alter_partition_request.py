# Generated from AlterPartitionRequest.json by protocol/codegen.py — do not edit.
"""AlterPartitionRequest: API key 56 request, versions 0-3, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class BrokerState(Struct):
    __slots__ = ("broker_id", "broker_epoch",)
    FIELDS = (
        Field("broker_id", "int32", (3, MAX), default=0),
        Field("broker_epoch", "int64", (3, MAX), default=-1),
    )

    def __init__(self, broker_id=0, broker_epoch=-1):
        self.broker_id = broker_id
        self.broker_epoch = broker_epoch


class PartitionData(Struct):
    __slots__ = ("partition_index", "leader_epoch", "new_isr", "new_isr_with_epochs", "leader_recovery_state", "partition_epoch",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("leader_epoch", "int32", (0, MAX), default=0),
        Field("new_isr", Array("int32"), (0, 2), default=NEW),
        Field("new_isr_with_epochs", Array(BrokerState), (3, MAX), default=NEW),
        Field("leader_recovery_state", "int8", (1, MAX), default=0),
        Field("partition_epoch", "int32", (0, MAX), default=0),
    )

    def __init__(self, partition_index=0, leader_epoch=0, new_isr=NEW, new_isr_with_epochs=NEW, leader_recovery_state=0, partition_epoch=0):
        self.partition_index = partition_index
        self.leader_epoch = leader_epoch
        self.new_isr = [] if new_isr is NEW else new_isr
        self.new_isr_with_epochs = [] if new_isr_with_epochs is NEW else new_isr_with_epochs
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


class AlterPartitionRequest(Message):
    schema_name = "AlterPartitionRequest"
    api_key = 56
    message_type = "request"
    valid_versions = (0, 3)
    flexible_versions = (0, MAX)
    api_listeners = ('controller',)
    BrokerState = BrokerState
    PartitionData = PartitionData
    TopicData = TopicData
    __slots__ = ("broker_id", "broker_epoch", "topics",)
    FIELDS = (
        Field("broker_id", "int32", (0, MAX), default=0),
        Field("broker_epoch", "int64", (0, MAX), default=-1),
        Field("topics", Array(TopicData), (0, MAX), default=NEW),
    )

    def __init__(self, broker_id=0, broker_epoch=-1, topics=NEW):
        self.broker_id = broker_id
        self.broker_epoch = broker_epoch
        self.topics = [] if topics is NEW else topics


__all__ = ["AlterPartitionRequest"]
