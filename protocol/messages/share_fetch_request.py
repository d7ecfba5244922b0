# Generated from ShareFetchRequest.json by protocol/codegen.py — do not edit.
"""ShareFetchRequest: API key 78 request, versions 0-1, flexible versions 0+."""

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


class FetchPartition(Struct):
    __slots__ = ("partition_index", "partition_max_bytes", "acknowledgement_batches",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("partition_max_bytes", "int32", (0, 0), default=0),
        Field("acknowledgement_batches", Array(AcknowledgementBatch), (0, MAX), default=NEW),
    )

    def __init__(self, partition_index=0, partition_max_bytes=0, acknowledgement_batches=NEW):
        self.partition_index = partition_index
        self.partition_max_bytes = partition_max_bytes
        self.acknowledgement_batches = [] if acknowledgement_batches is NEW else acknowledgement_batches


class FetchTopic(Struct):
    __slots__ = ("topic_id", "partitions",)
    FIELDS = (
        Field("topic_id", "uuid", (0, MAX), default=ZERO_UUID, ignorable=True),
        Field("partitions", Array(FetchPartition), (0, MAX), default=NEW),
    )

    def __init__(self, topic_id=ZERO_UUID, partitions=NEW):
        self.topic_id = topic_id
        self.partitions = [] if partitions is NEW else partitions


class ForgottenTopic(Struct):
    __slots__ = ("topic_id", "partitions",)
    FIELDS = (
        Field("topic_id", "uuid", (0, MAX), default=ZERO_UUID, ignorable=True),
        Field("partitions", Array("int32"), (0, MAX), default=NEW),
    )

    def __init__(self, topic_id=ZERO_UUID, partitions=NEW):
        self.topic_id = topic_id
        self.partitions = [] if partitions is NEW else partitions


class ShareFetchRequest(Message):
    schema_name = "ShareFetchRequest"
    api_key = 78
    message_type = "request"
    valid_versions = (0, 1)
    flexible_versions = (0, MAX)
    api_listeners = ('broker',)
    AcknowledgementBatch = AcknowledgementBatch
    FetchPartition = FetchPartition
    FetchTopic = FetchTopic
    ForgottenTopic = ForgottenTopic
    __slots__ = ("group_id", "member_id", "share_session_epoch", "max_wait_ms", "min_bytes", "max_bytes", "max_records", "batch_size", "topics", "forgotten_topics_data",)
    FIELDS = (
        Field("group_id", "string", (0, MAX), nullable_versions=(0, MAX)),
        Field("member_id", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
        Field("share_session_epoch", "int32", (0, MAX), default=0),
        Field("max_wait_ms", "int32", (0, MAX), default=0),
        Field("min_bytes", "int32", (0, MAX), default=0),
        Field("max_bytes", "int32", (0, MAX), default=2147483647, ignorable=True),
        Field("max_records", "int32", (1, MAX), default=0),
        Field("batch_size", "int32", (1, MAX), default=0),
        Field("topics", Array(FetchTopic), (0, MAX), default=NEW),
        Field("forgotten_topics_data", Array(ForgottenTopic), (0, MAX), default=NEW),
    )

    def __init__(self, group_id=None, member_id="", share_session_epoch=0, max_wait_ms=0, min_bytes=0, max_bytes=2147483647, max_records=0, batch_size=0, topics=NEW, forgotten_topics_data=NEW):
        self.group_id = group_id
        self.member_id = member_id
        self.share_session_epoch = share_session_epoch
        self.max_wait_ms = max_wait_ms
        self.min_bytes = min_bytes
        self.max_bytes = max_bytes
        self.max_records = max_records
        self.batch_size = batch_size
        self.topics = [] if topics is NEW else topics
        self.forgotten_topics_data = [] if forgotten_topics_data is NEW else forgotten_topics_data


__all__ = ["ShareFetchRequest"]
