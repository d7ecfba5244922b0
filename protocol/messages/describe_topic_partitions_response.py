# Generated from DescribeTopicPartitionsResponse.json by protocol/codegen.py — do not edit.
"""DescribeTopicPartitionsResponse: API key 75 response, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class DescribeTopicPartitionsResponsePartition(Struct):
    __slots__ = ("error_code", "partition_index", "leader_id", "leader_epoch", "replica_nodes", "isr_nodes", "eligible_leader_replicas", "last_known_elr", "offline_replicas",)
    FIELDS = (
        Field("error_code", "int16", (0, MAX), default=0),
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("leader_id", "int32", (0, MAX), default=0),
        Field("leader_epoch", "int32", (0, MAX), default=-1, ignorable=True),
        Field("replica_nodes", Array("int32"), (0, MAX), default=NEW),
        Field("isr_nodes", Array("int32"), (0, MAX), default=NEW),
        Field("eligible_leader_replicas", Array("int32"), (0, MAX), nullable_versions=(0, MAX)),
        Field("last_known_elr", Array("int32"), (0, MAX), nullable_versions=(0, MAX)),
        Field("offline_replicas", Array("int32"), (0, MAX), default=NEW, ignorable=True),
    )

    def __init__(self, error_code=0, partition_index=0, leader_id=0, leader_epoch=-1, replica_nodes=NEW, isr_nodes=NEW, eligible_leader_replicas=None, last_known_elr=None, offline_replicas=NEW):
        self.error_code = error_code
        self.partition_index = partition_index
        self.leader_id = leader_id
        self.leader_epoch = leader_epoch
        self.replica_nodes = [] if replica_nodes is NEW else replica_nodes
        self.isr_nodes = [] if isr_nodes is NEW else isr_nodes
        self.eligible_leader_replicas = eligible_leader_replicas
        self.last_known_elr = last_known_elr
        self.offline_replicas = [] if offline_replicas is NEW else offline_replicas


class DescribeTopicPartitionsResponseTopic(Struct):
    __slots__ = ("error_code", "name", "topic_id", "is_internal", "partitions", "topic_authorized_operations",)
    FIELDS = (
        Field("error_code", "int16", (0, MAX), default=0),
        Field("name", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
        Field("topic_id", "uuid", (0, MAX), default=ZERO_UUID, ignorable=True),
        Field("is_internal", "bool", (0, MAX), default=False, ignorable=True),
        Field("partitions", Array(DescribeTopicPartitionsResponsePartition), (0, MAX), default=NEW),
        Field("topic_authorized_operations", "int32", (0, MAX), default=-2147483648),
    )

    def __init__(self, error_code=0, name="", topic_id=ZERO_UUID, is_internal=False, partitions=NEW, topic_authorized_operations=-2147483648):
        self.error_code = error_code
        self.name = name
        self.topic_id = topic_id
        self.is_internal = is_internal
        self.partitions = [] if partitions is NEW else partitions
        self.topic_authorized_operations = topic_authorized_operations


class Cursor(Struct):
    __slots__ = ("topic_name", "partition_index",)
    FIELDS = (
        Field("topic_name", "string", (0, MAX), default=""),
        Field("partition_index", "int32", (0, MAX), default=0),
    )

    def __init__(self, topic_name="", partition_index=0):
        self.topic_name = topic_name
        self.partition_index = partition_index


class DescribeTopicPartitionsResponse(Message):
    schema_name = "DescribeTopicPartitionsResponse"
    api_key = 75
    message_type = "response"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    Cursor = Cursor
    DescribeTopicPartitionsResponsePartition = DescribeTopicPartitionsResponsePartition
    DescribeTopicPartitionsResponseTopic = DescribeTopicPartitionsResponseTopic
    __slots__ = ("throttle_time_ms", "topics", "next_cursor",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0, ignorable=True),
        Field("topics", Array(DescribeTopicPartitionsResponseTopic), (0, MAX), default=NEW),
        Field("next_cursor", Cursor, (0, MAX), nullable_versions=(0, MAX)),
    )

    def __init__(self, throttle_time_ms=0, topics=NEW, next_cursor=None):
        self.throttle_time_ms = throttle_time_ms
        self.topics = [] if topics is NEW else topics
        self.next_cursor = next_cursor


__all__ = ["DescribeTopicPartitionsResponse"]
