# Generated from BeginQuorumEpochResponse.json by protocol/codegen.py — do not edit.
"""BeginQuorumEpochResponse: API key 53 response, versions 0-1, flexible versions 1+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class PartitionData(Struct):
    __slots__ = ("partition_index", "error_code", "leader_id", "leader_epoch",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("leader_id", "int32", (0, MAX), default=0),
        Field("leader_epoch", "int32", (0, MAX), default=0),
    )

    def __init__(self, partition_index=0, error_code=0, leader_id=0, leader_epoch=0):
        self.partition_index = partition_index
        self.error_code = error_code
        self.leader_id = leader_id
        self.leader_epoch = leader_epoch


class TopicData(Struct):
    __slots__ = ("topic_name", "partitions",)
    FIELDS = (
        Field("topic_name", "string", (0, MAX), default=""),
        Field("partitions", Array(PartitionData), (0, MAX), default=NEW),
    )

    def __init__(self, topic_name="", partitions=NEW):
        self.topic_name = topic_name
        self.partitions = [] if partitions is NEW else partitions


class NodeEndpoint(Struct):
    __slots__ = ("node_id", "host", "port",)
    FIELDS = (
        Field("node_id", "int32", (1, MAX), default=0),
        Field("host", "string", (1, MAX), default=""),
        Field("port", "uint16", (1, MAX), default=0),
    )

    def __init__(self, node_id=0, host="", port=0):
        self.node_id = node_id
        self.host = host
        self.port = port


class BeginQuorumEpochResponse(Message):
    schema_name = "BeginQuorumEpochResponse"
    api_key = 53
    message_type = "response"
    valid_versions = (0, 1)
    flexible_versions = (1, MAX)
    NodeEndpoint = NodeEndpoint
    PartitionData = PartitionData
    TopicData = TopicData
    __slots__ = ("error_code", "topics", "node_endpoints",)
    FIELDS = (
        Field("error_code", "int16", (0, MAX), default=0),
        Field("topics", Array(TopicData), (0, MAX), default=NEW),
        Field("node_endpoints", Array(NodeEndpoint), (1, MAX), tagged_versions=(1, MAX), tag=0, default=NEW),
    )

    def __init__(self, error_code=0, topics=NEW, node_endpoints=NEW):
        self.error_code = error_code
        self.topics = [] if topics is NEW else topics
        self.node_endpoints = [] if node_endpoints is NEW else node_endpoints


__all__ = ["BeginQuorumEpochResponse"]
