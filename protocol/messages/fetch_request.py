# Generated from FetchRequest.json by protocol/codegen.py — do not edit.
"""FetchRequest: API key 1 request, versions 0-18, flexible versions 12+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class ReplicaState(Struct):
    __slots__ = ("replica_id", "replica_epoch",)
    FIELDS = (
        Field("replica_id", "int32", (15, MAX), default=-1),
        Field("replica_epoch", "int64", (15, MAX), default=-1),
    )

    def __init__(self, replica_id=-1, replica_epoch=-1):
        self.replica_id = replica_id
        self.replica_epoch = replica_epoch


class FetchPartition(Struct):
    __slots__ = ("partition", "current_leader_epoch", "fetch_offset", "last_fetched_epoch", "log_start_offset", "partition_max_bytes", "replica_directory_id", "high_watermark",)
    FIELDS = (
        Field("partition", "int32", (0, MAX), default=0),
        Field("current_leader_epoch", "int32", (9, MAX), default=-1, ignorable=True),
        Field("fetch_offset", "int64", (0, MAX), default=0),
        Field("last_fetched_epoch", "int32", (12, MAX), default=-1),
        Field("log_start_offset", "int64", (5, MAX), default=-1, ignorable=True),
        Field("partition_max_bytes", "int32", (0, MAX), default=0),
        Field("replica_directory_id", "uuid", (17, MAX), tagged_versions=(17, MAX), tag=0, default=ZERO_UUID, ignorable=True),
        Field("high_watermark", "int64", (18, MAX), tagged_versions=(18, MAX), tag=1, default=9223372036854775807, ignorable=True),
    )

    def __init__(self, partition=0, current_leader_epoch=-1, fetch_offset=0, last_fetched_epoch=-1, log_start_offset=-1, partition_max_bytes=0, replica_directory_id=ZERO_UUID, high_watermark=9223372036854775807):
        self.partition = partition
        self.current_leader_epoch = current_leader_epoch
        self.fetch_offset = fetch_offset
        self.last_fetched_epoch = last_fetched_epoch
        self.log_start_offset = log_start_offset
        self.partition_max_bytes = partition_max_bytes
        self.replica_directory_id = replica_directory_id
        self.high_watermark = high_watermark


class FetchTopic(Struct):
    __slots__ = ("topic", "topic_id", "partitions",)
    FIELDS = (
        Field("topic", "string", (0, 12), default="", ignorable=True),
        Field("topic_id", "uuid", (13, MAX), default=ZERO_UUID, ignorable=True),
        Field("partitions", Array(FetchPartition), (0, MAX), default=NEW),
    )

    def __init__(self, topic="", topic_id=ZERO_UUID, partitions=NEW):
        self.topic = topic
        self.topic_id = topic_id
        self.partitions = [] if partitions is NEW else partitions


class ForgottenTopic(Struct):
    __slots__ = ("topic", "topic_id", "partitions",)
    FIELDS = (
        Field("topic", "string", (7, 12), default="", ignorable=True),
        Field("topic_id", "uuid", (13, MAX), default=ZERO_UUID, ignorable=True),
        Field("partitions", Array("int32"), (7, MAX), default=NEW),
    )

    def __init__(self, topic="", topic_id=ZERO_UUID, partitions=NEW):
        self.topic = topic
        self.topic_id = topic_id
        self.partitions = [] if partitions is NEW else partitions


class FetchRequest(Message):
    schema_name = "FetchRequest"
    api_key = 1
    message_type = "request"
    valid_versions = (0, 18)
    flexible_versions = (12, MAX)
    api_listeners = ('broker', 'controller')
    FetchPartition = FetchPartition
    FetchTopic = FetchTopic
    ForgottenTopic = ForgottenTopic
    ReplicaState = ReplicaState
    __slots__ = ("cluster_id", "replica_id", "replica_state", "max_wait_ms", "min_bytes", "max_bytes", "isolation_level", "session_id", "session_epoch", "topics", "forgotten_topics_data", "rack_id",)
    FIELDS = (
        Field("cluster_id", "string", (12, MAX), nullable_versions=(12, MAX), tagged_versions=(12, MAX), tag=0, ignorable=True),
        Field("replica_id", "int32", (0, 14), default=-1),
        Field("replica_state", ReplicaState, (15, MAX), tagged_versions=(15, MAX), tag=1, default=NEW),
        Field("max_wait_ms", "int32", (0, MAX), default=0),
        Field("min_bytes", "int32", (0, MAX), default=0),
        Field("max_bytes", "int32", (3, MAX), default=2147483647, ignorable=True),
        Field("isolation_level", "int8", (4, MAX), default=0, ignorable=True),
        Field("session_id", "int32", (7, MAX), default=0, ignorable=True),
        Field("session_epoch", "int32", (7, MAX), default=-1, ignorable=True),
        Field("topics", Array(FetchTopic), (0, MAX), default=NEW),
        Field("forgotten_topics_data", Array(ForgottenTopic), (7, MAX), default=NEW),
        Field("rack_id", "string", (11, MAX), default="", ignorable=True),
    )

    def __init__(self, cluster_id=None, replica_id=-1, replica_state=NEW, max_wait_ms=0, min_bytes=0, max_bytes=2147483647, isolation_level=0, session_id=0, session_epoch=-1, topics=NEW, forgotten_topics_data=NEW, rack_id=""):
        self.cluster_id = cluster_id
        self.replica_id = replica_id
        self.replica_state = ReplicaState() if replica_state is NEW else replica_state
        self.max_wait_ms = max_wait_ms
        self.min_bytes = min_bytes
        self.max_bytes = max_bytes
        self.isolation_level = isolation_level
        self.session_id = session_id
        self.session_epoch = session_epoch
        self.topics = [] if topics is NEW else topics
        self.forgotten_topics_data = [] if forgotten_topics_data is NEW else forgotten_topics_data
        self.rack_id = rack_id


__all__ = ["FetchRequest"]
