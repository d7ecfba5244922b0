# Generated from ShareAcknowledgeResponse.json by protocol/codegen.py — do not edit.
"""ShareAcknowledgeResponse: API key 79 response, versions 0-1, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class LeaderIdAndEpoch(Struct):
    __slots__ = ("leader_id", "leader_epoch",)
    FIELDS = (
        Field("leader_id", "int32", (0, MAX), default=0),
        Field("leader_epoch", "int32", (0, MAX), default=0),
    )

    def __init__(self, leader_id=0, leader_epoch=0):
        self.leader_id = leader_id
        self.leader_epoch = leader_epoch


class PartitionData(Struct):
    __slots__ = ("partition_index", "error_code", "error_message", "current_leader",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX)),
        Field("current_leader", LeaderIdAndEpoch, (0, MAX), default=NEW),
    )

    def __init__(self, partition_index=0, error_code=0, error_message=None, current_leader=NEW):
        self.partition_index = partition_index
        self.error_code = error_code
        self.error_message = error_message
        self.current_leader = LeaderIdAndEpoch() if current_leader is NEW else current_leader


class ShareAcknowledgeTopicResponse(Struct):
    __slots__ = ("topic_id", "partitions",)
    FIELDS = (
        Field("topic_id", "uuid", (0, MAX), default=ZERO_UUID, ignorable=True),
        Field("partitions", Array(PartitionData), (0, MAX), default=NEW),
    )

    def __init__(self, topic_id=ZERO_UUID, partitions=NEW):
        self.topic_id = topic_id
        self.partitions = [] if partitions is NEW else partitions


class NodeEndpoint(Struct):
    __slots__ = ("node_id", "host", "port", "rack",)
    FIELDS = (
        Field("node_id", "int32", (0, MAX), default=0),
        Field("host", "string", (0, MAX), default=""),
        Field("port", "int32", (0, MAX), default=0),
        Field("rack", "string", (0, MAX), nullable_versions=(0, MAX)),
    )

    def __init__(self, node_id=0, host="", port=0, rack=None):
        self.node_id = node_id
        self.host = host
        self.port = port
        self.rack = rack


class ShareAcknowledgeResponse(Message):
    schema_name = "ShareAcknowledgeResponse"
    api_key = 79
    message_type = "response"
    valid_versions = (0, 1)
    flexible_versions = (0, MAX)
    LeaderIdAndEpoch = LeaderIdAndEpoch
    NodeEndpoint = NodeEndpoint
    PartitionData = PartitionData
    ShareAcknowledgeTopicResponse = ShareAcknowledgeTopicResponse
    __slots__ = ("throttle_time_ms", "error_code", "error_message", "responses", "node_endpoints",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0, ignorable=True),
        Field("error_code", "int16", (0, MAX), default=0, ignorable=True),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX)),
        Field("responses", Array(ShareAcknowledgeTopicResponse), (0, MAX), default=NEW),
        Field("node_endpoints", Array(NodeEndpoint), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, error_code=0, error_message=None, responses=NEW, node_endpoints=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message
        self.responses = [] if responses is NEW else responses
        self.node_endpoints = [] if node_endpoints is NEW else node_endpoints


__all__ = ["ShareAcknowledgeResponse"]
