# Generated from EndQuorumEpochRequest.json by protocol/codegen.py — do not edit.
"""EndQuorumEpochRequest: API key 54 request, versions 0-1, flexible versions 1+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class ReplicaInfo(Struct):
    __slots__ = ("candidate_id", "candidate_directory_id",)
    FIELDS = (
        Field("candidate_id", "int32", (1, MAX), default=0),
        Field("candidate_directory_id", "uuid", (1, MAX), default=ZERO_UUID),
    )

    def __init__(self, candidate_id=0, candidate_directory_id=ZERO_UUID):
        self.candidate_id = candidate_id
        self.candidate_directory_id = candidate_directory_id


class PartitionData(Struct):
    __slots__ = ("partition_index", "leader_id", "leader_epoch", "preferred_successors", "preferred_candidates",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("leader_id", "int32", (0, MAX), default=0),
        Field("leader_epoch", "int32", (0, MAX), default=0),
        Field("preferred_successors", Array("int32"), (0, 0), default=NEW, ignorable=True),
        Field("preferred_candidates", Array(ReplicaInfo), (1, MAX), default=NEW, ignorable=True),
    )

    def __init__(self, partition_index=0, leader_id=0, leader_epoch=0, preferred_successors=NEW, preferred_candidates=NEW):
        self.partition_index = partition_index
        self.leader_id = leader_id
        self.leader_epoch = leader_epoch
        self.preferred_successors = [] if preferred_successors is NEW else preferred_successors
        self.preferred_candidates = [] if preferred_candidates is NEW else preferred_candidates


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


class EndQuorumEpochRequest(Message):
    schema_name = "EndQuorumEpochRequest"
    api_key = 54
    message_type = "request"
    valid_versions = (0, 1)
    flexible_versions = (1, MAX)
    api_listeners = ('controller',)
    LeaderEndpoint = LeaderEndpoint
    PartitionData = PartitionData
    ReplicaInfo = ReplicaInfo
    TopicData = TopicData
    __slots__ = ("cluster_id", "topics", "leader_endpoints",)
    FIELDS = (
        Field("cluster_id", "string", (0, MAX), nullable_versions=(0, MAX)),
        Field("topics", Array(TopicData), (0, MAX), default=NEW),
        Field("leader_endpoints", Array(LeaderEndpoint), (1, MAX), default=NEW, ignorable=True),
    )

    def __init__(self, cluster_id=None, topics=NEW, leader_endpoints=NEW):
        self.cluster_id = cluster_id
        self.topics = [] if topics is NEW else topics
        self.leader_endpoints = [] if leader_endpoints is NEW else leader_endpoints


__all__ = ["EndQuorumEpochRequest"]
