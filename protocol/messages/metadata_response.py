# Generated from MetadataResponse.json by protocol/codegen.py — do not edit.
"""MetadataResponse: API key 3 response, versions 0-13, flexible versions 9+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class MetadataResponseBroker(Struct):
    __slots__ = ("node_id", "host", "port", "rack",)
    FIELDS = (
        Field("node_id", "int32", (0, MAX), default=0),
        Field("host", "string", (0, MAX), default=""),
        Field("port", "int32", (0, MAX), default=0),
        Field("rack", "string", (1, MAX), nullable_versions=(1, MAX), ignorable=True),
    )

    def __init__(self, node_id=0, host="", port=0, rack=None):
        self.node_id = node_id
        self.host = host
        self.port = port
        self.rack = rack


class MetadataResponsePartition(Struct):
    __slots__ = ("error_code", "partition_index", "leader_id", "leader_epoch", "replica_nodes", "isr_nodes", "offline_replicas",)
    FIELDS = (
        Field("error_code", "int16", (0, MAX), default=0),
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("leader_id", "int32", (0, MAX), default=0),
        Field("leader_epoch", "int32", (7, MAX), default=-1, ignorable=True),
        Field("replica_nodes", Array("int32"), (0, MAX), default=NEW),
        Field("isr_nodes", Array("int32"), (0, MAX), default=NEW),
        Field("offline_replicas", Array("int32"), (5, MAX), default=NEW, ignorable=True),
    )

    def __init__(self, error_code=0, partition_index=0, leader_id=0, leader_epoch=-1, replica_nodes=NEW, isr_nodes=NEW, offline_replicas=NEW):
        self.error_code = error_code
        self.partition_index = partition_index
        self.leader_id = leader_id
        self.leader_epoch = leader_epoch
        self.replica_nodes = [] if replica_nodes is NEW else replica_nodes
        self.isr_nodes = [] if isr_nodes is NEW else isr_nodes
        self.offline_replicas = [] if offline_replicas is NEW else offline_replicas


class MetadataResponseTopic(Struct):
    __slots__ = ("error_code", "name", "topic_id", "is_internal", "partitions", "topic_authorized_operations",)
    FIELDS = (
        Field("error_code", "int16", (0, MAX), default=0),
        Field("name", "string", (0, MAX), nullable_versions=(12, MAX), default=""),
        Field("topic_id", "uuid", (10, MAX), default=ZERO_UUID, ignorable=True),
        Field("is_internal", "bool", (1, MAX), default=False, ignorable=True),
        Field("partitions", Array(MetadataResponsePartition), (0, MAX), default=NEW),
        Field("topic_authorized_operations", "int32", (8, MAX), default=-2147483648),
    )

    def __init__(self, error_code=0, name="", topic_id=ZERO_UUID, is_internal=False, partitions=NEW, topic_authorized_operations=-2147483648):
        self.error_code = error_code
        self.name = name
        self.topic_id = topic_id
        self.is_internal = is_internal
        self.partitions = [] if partitions is NEW else partitions
        self.topic_authorized_operations = topic_authorized_operations


class MetadataResponse(Message):
    schema_name = "MetadataResponse"
    api_key = 3
    message_type = "response"
    valid_versions = (0, 13)
    flexible_versions = (9, MAX)
    MetadataResponseBroker = MetadataResponseBroker
    MetadataResponsePartition = MetadataResponsePartition
    MetadataResponseTopic = MetadataResponseTopic
    __slots__ = ("throttle_time_ms", "brokers", "cluster_id", "controller_id", "topics", "cluster_authorized_operations", "error_code",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (3, MAX), default=0, ignorable=True),
        Field("brokers", Array(MetadataResponseBroker), (0, MAX), default=NEW),
        Field("cluster_id", "string", (2, MAX), nullable_versions=(2, MAX), ignorable=True),
        Field("controller_id", "int32", (1, MAX), default=-1, ignorable=True),
        Field("topics", Array(MetadataResponseTopic), (0, MAX), default=NEW),
        Field("cluster_authorized_operations", "int32", (8, 10), default=-2147483648),
        Field("error_code", "int16", (13, MAX), default=0, ignorable=True),
    )

    def __init__(self, throttle_time_ms=0, brokers=NEW, cluster_id=None, controller_id=-1, topics=NEW, cluster_authorized_operations=-2147483648, error_code=0):
        self.throttle_time_ms = throttle_time_ms
        self.brokers = [] if brokers is NEW else brokers
        self.cluster_id = cluster_id
        self.controller_id = controller_id
        self.topics = [] if topics is NEW else topics
        self.cluster_authorized_operations = cluster_authorized_operations
        self.error_code = error_code


__all__ = ["MetadataResponse"]
