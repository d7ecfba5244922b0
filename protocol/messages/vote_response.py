# Generated from VoteResponse.json by protocol/codegen.py — do not edit.
"""VoteResponse: API key 52 response, versions 0-2, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class PartitionData(Struct):
    __slots__ = ("partition_index", "error_code", "leader_id", "leader_epoch", "vote_granted",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("leader_id", "int32", (0, MAX), default=0),
        Field("leader_epoch", "int32", (0, MAX), default=0),
        Field("vote_granted", "bool", (0, MAX), default=False),
    )

    def __init__(self, partition_index=0, error_code=0, leader_id=0, leader_epoch=0, vote_granted=False):
        self.partition_index = partition_index
        self.error_code = error_code
        self.leader_id = leader_id
        self.leader_epoch = leader_epoch
        self.vote_granted = vote_granted


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


class VoteResponse(Message):
    schema_name = "VoteResponse"
    api_key = 52
    message_type = "response"
    valid_versions = (0, 2)
    flexible_versions = (0, MAX)
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


__all__ = ["VoteResponse"]
