# Generated from BeginQuorumEpochRequest.json by protocol/codegen.py — do not edit.
"""BeginQuorumEpochRequest: API key 53 request, versions 0-1, flexible versions 1+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class PartitionData(Struct):
    __slots__ = ("partition_index", "voter_directory_id", "leader_id", "leader_epoch",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("voter_directory_id", "uuid", (1, MAX), default=ZERO_UUID, ignorable=True),
        Field("leader_id", "int32", (0, MAX), default=0),
        Field("leader_epoch", "int32", (0, MAX), default=0),
    )

    def __init__(self, partition_index=0, voter_directory_id=ZERO_UUID, leader_id=0, leader_epoch=0):
        self.partition_index = partition_index
        self.voter_directory_id = voter_directory_id
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


class LeaderEndpoint(Struct):
    __slots__ = ("name", "host", "port",)
    FIELDS = (
        Field("name", "string", (1, MAX), default=""),
        Field("host", "string", (1, MAX), default=""),
        Field("port", "uint16", (1, MAX), default=0),
    )

    def __init__(self, name="", host="", port=0):
        self.name = name
        self.host = host
        self.port = port


class BeginQuorumEpochRequest(Message):
    schema_name = "BeginQuorumEpochRequest"
    api_key = 53
    message_type = "request"
    valid_versions = (0, 1)
    flexible_versions = (1, MAX)
    api_listeners = ('controller',)
    LeaderEndpoint = LeaderEndpoint
    PartitionData = PartitionData
    TopicData = TopicData
    __slots__ = ("cluster_id", "voter_id", "topics", "leader_endpoints",)
    FIELDS = (
        Field("cluster_id", "string", (0, MAX), nullable_versions=(0, MAX)),
        Field("voter_id", "int32", (1, MAX), default=-1, ignorable=True),
        Field("topics", Array(TopicData), (0, MAX), default=NEW),
        Field("leader_endpoints", Array(LeaderEndpoint), (1, MAX), default=NEW, ignorable=True),
    )

    def __init__(self, cluster_id=None, voter_id=-1, topics=NEW, leader_endpoints=NEW):
        self.cluster_id = cluster_id
        self.voter_id = voter_id
        self.topics = [] if topics is NEW else topics
        self.leader_endpoints = [] if leader_endpoints is NEW else leader_endpoints


__all__ = ["BeginQuorumEpochRequest"]
