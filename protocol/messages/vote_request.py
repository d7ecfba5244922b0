# Generated from VoteRequest.json by protocol/codegen.py — do not edit.
"""VoteRequest: API key 52 request, versions 0-2, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class PartitionData(Struct):
    __slots__ = ("partition_index", "replica_epoch", "replica_id", "replica_directory_id", "voter_directory_id", "last_offset_epoch", "last_offset", "pre_vote",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("replica_epoch", "int32", (0, MAX), default=0),
        Field("replica_id", "int32", (0, MAX), default=0),
        Field("replica_directory_id", "uuid", (1, MAX), default=ZERO_UUID, ignorable=True),
        Field("voter_directory_id", "uuid", (1, MAX), default=ZERO_UUID, ignorable=True),
        Field("last_offset_epoch", "int32", (0, MAX), default=0),
        Field("last_offset", "int64", (0, MAX), default=0),
        Field("pre_vote", "bool", (2, MAX), default=False),
    )

    def __init__(self, partition_index=0, replica_epoch=0, replica_id=0, replica_directory_id=ZERO_UUID, voter_directory_id=ZERO_UUID, last_offset_epoch=0, last_offset=0, pre_vote=False):
        self.partition_index = partition_index
        self.replica_epoch = replica_epoch
        self.replica_id = replica_id
        self.replica_directory_id = replica_directory_id
        self.voter_directory_id = voter_directory_id
        self.last_offset_epoch = last_offset_epoch
        self.last_offset = last_offset
        self.pre_vote = pre_vote


class TopicData(Struct):
    __slots__ = ("topic_name", "partitions",)
    FIELDS = (
        Field("topic_name", "string", (0, MAX), default=""),
        Field("partitions", Array(PartitionData), (0, MAX), default=NEW),
    )

    def __init__(self, topic_name="", partitions=NEW):
        self.topic_name = topic_name
        self.partitions = [] if partitions is NEW else partitions


class VoteRequest(Message):
    schema_name = "VoteRequest"
    api_key = 52
    message_type = "request"
    valid_versions = (0, 2)
    flexible_versions = (0, MAX)
    api_listeners = ('controller',)
    PartitionData = PartitionData
    TopicData = TopicData
    __slots__ = ("cluster_id", "voter_id", "topics",)
    FIELDS = (
        Field("cluster_id", "string", (0, MAX), nullable_versions=(0, MAX)),
        Field("voter_id", "int32", (1, MAX), default=-1, ignorable=True),
        Field("topics", Array(TopicData), (0, MAX), default=NEW),
    )

    def __init__(self, cluster_id=None, voter_id=-1, topics=NEW):
        self.cluster_id = cluster_id
        self.voter_id = voter_id
        self.topics = [] if topics is NEW else topics


__all__ = ["VoteRequest"]
