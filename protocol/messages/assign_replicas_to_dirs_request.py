# Generated from AssignReplicasToDirsRequest.json by protocol/codegen.py — do not edit.
"""AssignReplicasToDirsRequest: API key 73 request, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class PartitionData(Struct):
    __slots__ = ("partition_index",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
    )

    def __init__(self, partition_index=0):
        self.partition_index = partition_index


class TopicData(Struct):
    __slots__ = ("topic_id", "partitions",)
    FIELDS = (
        Field("topic_id", "uuid", (0, MAX), default=ZERO_UUID),
        Field("partitions", Array(PartitionData), (0, MAX), default=NEW),
    )

    def __init__(self, topic_id=ZERO_UUID, partitions=NEW):
        self.topic_id = topic_id
        self.partitions = [] if partitions is NEW else partitions


class DirectoryData(Struct):
    __slots__ = ("id", "topics",)
    FIELDS = (
        Field("id", "uuid", (0, MAX), default=ZERO_UUID),
        Field("topics", Array(TopicData), (0, MAX), default=NEW),
    )

    def __init__(self, id=ZERO_UUID, topics=NEW):
        self.id = id
        self.topics = [] if topics is NEW else topics


class AssignReplicasToDirsRequest(Message):
    schema_name = "AssignReplicasToDirsRequest"
    api_key = 73
    message_type = "request"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    api_listeners = ('controller',)
    DirectoryData = DirectoryData
    PartitionData = PartitionData
    TopicData = TopicData
    __slots__ = ("broker_id", "broker_epoch", "directories",)
    FIELDS = (
        Field("broker_id", "int32", (0, MAX), default=0),
        Field("broker_epoch", "int64", (0, MAX), default=-1),
        Field("directories", Array(DirectoryData), (0, MAX), default=NEW),
    )

    def __init__(self, broker_id=0, broker_epoch=-1, directories=NEW):
        self.broker_id = broker_id
        self.broker_epoch = broker_epoch
        self.directories = [] if directories is NEW else directories


__all__ = ["AssignReplicasToDirsRequest"]
