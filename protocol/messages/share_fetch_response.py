# Generated from ShareFetchResponse.json by protocol/codegen.py — do not edit.
"""ShareFetchResponse: API key 78 response, versions 0-1, flexible versions 0+."""

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


class AcquiredRecords(Struct):
    __slots__ = ("first_offset", "last_offset", "delivery_count",)
    FIELDS = (
        Field("first_offset", "int64", (0, MAX), default=0),
        Field("last_offset", "int64", (0, MAX), default=0),
        Field("delivery_count", "int16", (0, MAX), default=0),
    )

    def __init__(self, first_offset=0, last_offset=0, delivery_count=0):
        self.first_offset = first_offset
        self.last_offset = last_offset
        self.delivery_count = delivery_count


class PartitionData(Struct):
    __slots__ = ("partition_index", "error_code", "error_message", "acknowledge_error_code", "acknowledge_error_message", "current_leader", "records", "acquired_records",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX)),
        Field("acknowledge_error_code", "int16", (0, MAX), default=0),
        Field("acknowledge_error_message", "string", (0, MAX), nullable_versions=(0, MAX)),
        Field("current_leader", LeaderIdAndEpoch, (0, MAX), default=NEW),
        Field("records", "records", (0, MAX), nullable_versions=(0, 0), default=b""),
        Field("acquired_records", Array(AcquiredRecords), (0, MAX), default=NEW),
    )

    def __init__(self, partition_index=0, error_code=0, error_message=None, acknowledge_error_code=0, acknowledge_error_message=None, current_leader=NEW, records=b"", acquired_records=NEW):
        self.partition_index = partition_index
        self.error_code = error_code
        self.error_message = error_message
        self.acknowledge_error_code = acknowledge_error_code
        self.acknowledge_error_message = acknowledge_error_message
        self.current_leader = LeaderIdAndEpoch() if current_leader is NEW else current_leader
        self.records = records
        self.acquired_records = [] if acquired_records is NEW else acquired_records


class ShareFetchableTopicResponse(Struct):
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


class ShareFetchResponse(Message):
    schema_name = "ShareFetchResponse"
    api_key = 78
    message_type = "response"
    valid_versions = (0, 1)
    flexible_versions = (0, MAX)
    AcquiredRecords = AcquiredRecords
    LeaderIdAndEpoch = LeaderIdAndEpoch
    NodeEndpoint = NodeEndpoint
    PartitionData = PartitionData
    ShareFetchableTopicResponse = ShareFetchableTopicResponse
    __slots__ = ("throttle_time_ms", "error_code", "error_message", "acquisition_lock_timeout_ms", "responses", "node_endpoints",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0, ignorable=True),
        Field("error_code", "int16", (0, MAX), default=0, ignorable=True),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX)),
        Field("acquisition_lock_timeout_ms", "int32", (1, MAX), default=0),
        Field("responses", Array(ShareFetchableTopicResponse), (0, MAX), default=NEW),
        Field("node_endpoints", Array(NodeEndpoint), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, error_code=0, error_message=None, acquisition_lock_timeout_ms=0, responses=NEW, node_endpoints=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message
        self.acquisition_lock_timeout_ms = acquisition_lock_timeout_ms
        self.responses = [] if responses is NEW else responses
        self.node_endpoints = [] if node_endpoints is NEW else node_endpoints


__all__ = ["ShareFetchResponse"]
