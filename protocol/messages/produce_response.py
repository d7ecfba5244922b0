# Generated from ProduceResponse.json by protocol/codegen.py — do not edit.
"""ProduceResponse: API key 0 response, versions 0-13, flexible versions 9+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class BatchIndexAndErrorMessage(Struct):
    __slots__ = ("batch_index", "batch_index_error_message",)
    FIELDS = (
        Field("batch_index", "int32", (8, MAX), default=0),
        Field("batch_index_error_message", "string", (8, MAX), nullable_versions=(8, MAX)),
    )

    def __init__(self, batch_index=0, batch_index_error_message=None):
        self.batch_index = batch_index
        self.batch_index_error_message = batch_index_error_message


class LeaderIdAndEpoch(Struct):
    __slots__ = ("leader_id", "leader_epoch",)
    FIELDS = (
        Field("leader_id", "int32", (10, MAX), default=-1),
        Field("leader_epoch", "int32", (10, MAX), default=-1),
    )

    def __init__(self, leader_id=-1, leader_epoch=-1):
        self.leader_id = leader_id
        self.leader_epoch = leader_epoch


class PartitionProduceResponse(Struct):
    __slots__ = ("index", "error_code", "base_offset", "log_append_time_ms", "log_start_offset", "record_errors", "error_message", "current_leader",)
    FIELDS = (
        Field("index", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("base_offset", "int64", (0, MAX), default=0),
        Field("log_append_time_ms", "int64", (2, MAX), default=-1, ignorable=True),
        Field("log_start_offset", "int64", (5, MAX), default=-1, ignorable=True),
        Field("record_errors", Array(BatchIndexAndErrorMessage), (8, MAX), default=NEW, ignorable=True),
        Field("error_message", "string", (8, MAX), nullable_versions=(8, MAX), ignorable=True),
        Field("current_leader", LeaderIdAndEpoch, (10, MAX), tagged_versions=(10, MAX), tag=0, default=NEW),
    )

    def __init__(self, index=0, error_code=0, base_offset=0, log_append_time_ms=-1, log_start_offset=-1, record_errors=NEW, error_message=None, current_leader=NEW):
        self.index = index
        self.error_code = error_code
        self.base_offset = base_offset
        self.log_append_time_ms = log_append_time_ms
        self.log_start_offset = log_start_offset
        self.record_errors = [] if record_errors is NEW else record_errors
        self.error_message = error_message
        self.current_leader = LeaderIdAndEpoch() if current_leader is NEW else current_leader


class TopicProduceResponse(Struct):
    __slots__ = ("name", "topic_id", "partition_responses",)
    FIELDS = (
        Field("name", "string", (0, 12), default="", ignorable=True),
        Field("topic_id", "uuid", (13, MAX), default=ZERO_UUID, ignorable=True),
        Field("partition_responses", Array(PartitionProduceResponse), (0, MAX), default=NEW),
    )

    def __init__(self, name="", topic_id=ZERO_UUID, partition_responses=NEW):
        self.name = name
        self.topic_id = topic_id
        self.partition_responses = [] if partition_responses is NEW else partition_responses


class NodeEndpoint(Struct):
    __slots__ = ("node_id", "host", "port", "rack",)
    FIELDS = (
        Field("node_id", "int32", (10, MAX), default=0),
        Field("host", "string", (10, MAX), default=""),
        Field("port", "int32", (10, MAX), default=0),
        Field("rack", "string", (10, MAX), nullable_versions=(10, MAX)),
    )

    def __init__(self, node_id=0, host="", port=0, rack=None):
        self.node_id = node_id
        self.host = host
        self.port = port
        self.rack = rack


class ProduceResponse(Message):
    schema_name = "ProduceResponse"
    api_key = 0
    message_type = "response"
    valid_versions = (0, 13)
    flexible_versions = (9, MAX)
    BatchIndexAndErrorMessage = BatchIndexAndErrorMessage
    LeaderIdAndEpoch = LeaderIdAndEpoch
    NodeEndpoint = NodeEndpoint
    PartitionProduceResponse = PartitionProduceResponse
    TopicProduceResponse = TopicProduceResponse
    __slots__ = ("responses", "throttle_time_ms", "node_endpoints",)
    FIELDS = (
        Field("responses", Array(TopicProduceResponse), (0, MAX), default=NEW),
        Field("throttle_time_ms", "int32", (1, MAX), default=0, ignorable=True),
        Field("node_endpoints", Array(NodeEndpoint), (10, MAX), tagged_versions=(10, MAX), tag=0, default=NEW),
    )

    def __init__(self, responses=NEW, throttle_time_ms=0, node_endpoints=NEW):
        self.responses = [] if responses is NEW else responses
        self.throttle_time_ms = throttle_time_ms
        self.node_endpoints = [] if node_endpoints is NEW else node_endpoints


__all__ = ["ProduceResponse"]
