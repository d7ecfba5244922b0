# Generated from ShareAcknowledgeRequest.json by protocol/codegen.py — do not edit.
"""ShareAcknowledgeRequest: API key 79 request, versions 0-1, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class AcknowledgementBatch(Struct):
    __slots__ = ("first_offset", "last_offset", "acknowledge_types",)
    FIELDS = (
        Field("first_offset", "int64", (0, MAX), default=0),
        Field("last_offset", "int64", (0, MAX), default=0),
        Field("acknowledge_types", Array("int8"), (0, MAX), default=NEW),
    )

    def __init__(self, first_offset=0, last_offset=0, acknowledge_types=NEW):
        self.first_offset = first_offset
        self.last_offset = last_offset
        self.acknowledge_types = [] if acknowledge_types is NEW else acknowledge_types


class AcknowledgePartition(Struct):
    __slots__ = ("partition_index", "acknowledgement_batches",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("acknowledgement_batches", Array(AcknowledgementBatch), (0, MAX), default=NEW),
    )

    def __init__(self, partition_index=0, acknowledgement_batches=NEW):
        self.partition_index = partition_index
        self.acknowledgement_batches = [] if acknowledgement_batches is NEW else acknowledgement_batches


class AcknowledgeTopic(Struct):
    __slots__ = ("topic_id", "partitions",)
    FIELDS = (
        Field("topic_id", "uuid", (0, MAX), default=ZERO_UUID),
        Field("partitions", Array(AcknowledgePartition), (0, MAX), default=NEW),
    )

    def __init__(self, topic_id=ZERO_UUID, partitions=NEW):
        self.topic_id = topic_id
        self.partitions = [] if partitions is NEW else partitions


class ShareAcknowledgeRequest(Message):
    schema_name = "ShareAcknowledgeRequest"
    api_key = 79
    message_type = "request"
    valid_versions = (0, 1)
    flexible_versions = (0, MAX)
    api_listeners = ('broker',)
    AcknowledgePartition = AcknowledgePartition
    AcknowledgeTopic = AcknowledgeTopic
    AcknowledgementBatch = AcknowledgementBatch
    __slots__ = ("group_id", "member_id", "share_session_epoch", "topics",)
    FIELDS = (
        Field("group_id", "string", (0, MAX), nullable_versions=(0, MAX)),
        Field("member_id", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
        Field("share_session_epoch", "int32", (0, MAX), default=0),
        Field("topics", Array(AcknowledgeTopic), (0, MAX), default=NEW),
    )

    def __init__(self, group_id=None, member_id="", share_session_epoch=0, topics=NEW):
        self.group_id = group_id
        self.member_id = member_id
        self.share_session_epoch = share_session_epoch
        self.topics = [] if topics is NEW else topics


__all__ = ["ShareAcknowledgeRequest"]
