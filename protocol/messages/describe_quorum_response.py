# Generated from DescribeQuorumResponse.json by protocol/codegen.py — do not edit.
"""DescribeQuorumResponse: API key 55 response, versions 0-2, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class ReplicaState(Struct):
    __slots__ = ("replica_id", "replica_directory_id", "log_end_offset", "last_fetch_timestamp", "last_caught_up_timestamp",)
    FIELDS = (
        Field("replica_id", "int32", (0, MAX), default=0),
        Field("replica_directory_id", "uuid", (2, MAX), default=ZERO_UUID),
        Field("log_end_offset", "int64", (0, MAX), default=0),
        Field("last_fetch_timestamp", "int64", (1, MAX), default=-1, ignorable=True),
        Field("last_caught_up_timestamp", "int64", (1, MAX), default=-1, ignorable=True),
    )

    def __init__(self, replica_id=0, replica_directory_id=ZERO_UUID, log_end_offset=0, last_fetch_timestamp=-1, last_caught_up_timestamp=-1):
        self.replica_id = replica_id
        self.replica_directory_id = replica_directory_id
        self.log_end_offset = log_end_offset
        self.last_fetch_timestamp = last_fetch_timestamp
        self.last_caught_up_timestamp = last_caught_up_timestamp


class PartitionData(Struct):
    __slots__ = ("partition_index", "error_code", "error_message", "leader_id", "leader_epoch", "high_watermark", "current_voters", "observers",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (2, MAX), nullable_versions=(2, MAX), default="", ignorable=True),
        Field("leader_id", "int32", (0, MAX), default=0),
        Field("leader_epoch", "int32", (0, MAX), default=0),
        Field("high_watermark", "int64", (0, MAX), default=0),
        Field("current_voters", Array(ReplicaState), (0, MAX), default=NEW),
        Field("observers", Array(ReplicaState), (0, MAX), default=NEW),
    )

    def __init__(self, partition_index=0, error_code=0, error_message="", leader_id=0, leader_epoch=0, high_watermark=0, current_voters=NEW, observers=NEW):
        self.partition_index = partition_index
        self.error_code = error_code
        self.error_message = error_message
        self.leader_id = leader_id
        self.leader_epoch = leader_epoch
        self.high_watermark = high_watermark
        self.current_voters = [] if current_voters is NEW else current_voters
        self.observers = [] if observers is NEW else observers


class TopicData(Struct):
    __slots__ = ("topic_name", "partitions",)
    FIELDS = (
        Field("topic_name", "string", (0, MAX), default=""),
        Field("partitions", Array(PartitionData), (0, MAX), default=NEW),
    )

    def __init__(self, topic_name="", partitions=NEW):
        self.topic_name = topic_name
        self.partitions = [] if partitions is NEW else partitions


class Listener(Struct):
    __slots__ = ("name", "host", "port",)
    FIELDS = (
        Field("name", "string", (2, MAX), default=""),
        Field("host", "string", (2, MAX), default=""),
        Field("port", "uint16", (2, MAX), default=0),
    )

    def __init__(self, name="", host="", port=0):
        self.name = name
        self.host = host
        self.port = port


class Node(Struct):
    __slots__ = ("node_id", "listeners",)
    FIELDS = (
        Field("node_id", "int32", (2, MAX), default=0),
        Field("listeners", Array(Listener), (2, MAX), default=NEW),
    )

    def __init__(self, node_id=0, listeners=NEW):
        self.node_id = node_id
        self.listeners = [] if listeners is NEW else listeners


class DescribeQuorumResponse(Message):
    schema_name = "DescribeQuorumResponse"
    api_key = 55
    message_type = "response"
    valid_versions = (0, 2)
    flexible_versions = (0, MAX)
    Listener = Listener
    Node = Node
    PartitionData = PartitionData
    ReplicaState = ReplicaState
    TopicData = TopicData
    __slots__ = ("error_code", "error_message", "topics", "nodes",)
    FIELDS = (
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (2, MAX), nullable_versions=(2, MAX), default="", ignorable=True),
        Field("topics", Array(TopicData), (0, MAX), default=NEW),
        Field("nodes", Array(Node), (2, MAX), default=NEW),
    )

    def __init__(self, error_code=0, error_message="", topics=NEW, nodes=NEW):
        self.error_code = error_code
        self.error_message = error_message
        self.topics = [] if topics is NEW else topics
        self.nodes = [] if nodes is NEW else nodes


__all__ = ["DescribeQuorumResponse"]
