# Generated from TxnOffsetCommitRequest.json by protocol/codegen.py — do not edit.
"""TxnOffsetCommitRequest: API key 28 request, versions 0-5, flexible versions 3+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class TxnOffsetCommitRequestPartition(Struct):
    __slots__ = ("partition_index", "committed_offset", "committed_leader_epoch", "committed_metadata",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("committed_offset", "int64", (0, MAX), default=0),
        Field("committed_leader_epoch", "int32", (2, MAX), default=-1, ignorable=True),
        Field("committed_metadata", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
    )

    def __init__(self, partition_index=0, committed_offset=0, committed_leader_epoch=-1, committed_metadata=""):
        self.partition_index = partition_index
        self.committed_offset = committed_offset
        self.committed_leader_epoch = committed_leader_epoch
        self.committed_metadata = committed_metadata


class TxnOffsetCommitRequestTopic(Struct):
    __slots__ = ("name", "partitions",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("partitions", Array(TxnOffsetCommitRequestPartition), (0, MAX), default=NEW),
    )

    def __init__(self, name="", partitions=NEW):
        self.name = name
        self.partitions = [] if partitions is NEW else partitions


class TxnOffsetCommitRequest(Message):
    schema_name = "TxnOffsetCommitRequest"
    api_key = 28
    message_type = "request"
    valid_versions = (0, 5)
    flexible_versions = (3, MAX)
    api_listeners = ('broker',)
    TxnOffsetCommitRequestPartition = TxnOffsetCommitRequestPartition
    TxnOffsetCommitRequestTopic = TxnOffsetCommitRequestTopic
    __slots__ = ("transactional_id", "group_id", "producer_id", "producer_epoch", "generation_id", "member_id", "group_instance_id", "topics",)
    FIELDS = (
        Field("transactional_id", "string", (0, MAX), default=""),
        Field("group_id", "string", (0, MAX), default=""),
        Field("producer_id", "int64", (0, MAX), default=0),
        Field("producer_epoch", "int16", (0, MAX), default=0),
        Field("generation_id", "int32", (3, MAX), default=-1),
        Field("member_id", "string", (3, MAX), default=""),
        Field("group_instance_id", "string", (3, MAX), nullable_versions=(3, MAX)),
        Field("topics", Array(TxnOffsetCommitRequestTopic), (0, MAX), default=NEW),
    )

    def __init__(self, transactional_id="", group_id="", producer_id=0, producer_epoch=0, generation_id=-1, member_id="", group_instance_id=None, topics=NEW):
        self.transactional_id = transactional_id
        self.group_id = group_id
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch
        self.generation_id = generation_id
        self.member_id = member_id
        self.group_instance_id = group_instance_id
        self.topics = [] if topics is NEW else topics


__all__ = ["TxnOffsetCommitRequest"]
