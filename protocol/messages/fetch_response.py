# Generated from FetchResponse.json by protocol/codegen.py — do not edit.
"""FetchResponse: API key 1 response, versions 0-18, flexible versions 12+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class EpochEndOffset(Struct):
    __slots__ = ("epoch", "end_offset",)
    FIELDS = (
        Field("epoch", "int32", (12, MAX), default=-1),
        Field("end_offset", "int64", (12, MAX), default=-1),
    )

    def __init__(self, epoch=-1, end_offset=-1):
        self.epoch = epoch
        self.end_offset = end_offset


class LeaderIdAndEpoch(Struct):
    __slots__ = ("leader_id", "leader_epoch",)
    FIELDS = (
        Field("leader_id", "int32", (12, MAX), default=-1),
        Field("leader_epoch", "int32", (12, MAX), default=-1),
    )

    def __init__(self, leader_id=-1, leader_epoch=-1):
        self.leader_id = leader_id
        self.leader_epoch = leader_epoch


class SnapshotId(Struct):
    __slots__ = ("end_offset", "epoch",)
    FIELDS = (
        Field("end_offset", "int64", (0, MAX), default=-1),
        Field("epoch", "int32", (0, MAX), default=-1),
    )

    def __init__(self, end_offset=-1, epoch=-1):
        self.end_offset = end_offset
        self.epoch = epoch


class AbortedTransaction(Struct):
    __slots__ = ("producer_id", "first_offset",)
    FIELDS = (
        Field("producer_id", "int64", (4, MAX), default=0),
        Field("first_offset", "int64", (4, MAX), default=0),
    )

    def __init__(self, producer_id=0, first_offset=0):
        self.producer_id = producer_id
        self.first_offset = first_offset


class PartitionData(Struct):
    __slots__ = ("partition_index", "error_code", "high_watermark", "last_stable_offset", "log_start_offset", "diverging_epoch", "current_leader", "snapshot_id", "aborted_transactions", "preferred_read_replica", "records",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("high_watermark", "int64", (0, MAX), default=0),
        Field("last_stable_offset", "int64", (4, MAX), default=-1, ignorable=True),
        Field("log_start_offset", "int64", (5, MAX), default=-1, ignorable=True),
        Field("diverging_epoch", EpochEndOffset, (12, MAX), tagged_versions=(12, MAX), tag=0, default=NEW),
        Field("current_leader", LeaderIdAndEpoch, (12, MAX), tagged_versions=(12, MAX), tag=1, default=NEW),
        Field("snapshot_id", SnapshotId, (12, MAX), tagged_versions=(12, MAX), tag=2, default=NEW),
        Field("aborted_transactions", Array(AbortedTransaction), (4, MAX), nullable_versions=(4, MAX), default=NEW, ignorable=True),
        Field("preferred_read_replica", "int32", (11, MAX), default=-1),
        Field("records", "records", (0, MAX), nullable_versions=(0, MAX), default=b""),
    )

    def __init__(self, partition_index=0, error_code=0, high_watermark=0, last_stable_offset=-1, log_start_offset=-1, diverging_epoch=NEW, current_leader=NEW, snapshot_id=NEW, aborted_transactions=NEW, preferred_read_replica=-1, records=b""):
        self.partition_index = partition_index
        self.error_code = error_code
        self.high_watermark = high_watermark
        self.last_stable_offset = last_stable_offset
        self.log_start_offset = log_start_offset
        self.diverging_epoch = EpochEndOffset() if diverging_epoch is NEW else diverging_epoch
        self.current_leader = LeaderIdAndEpoch() if current_leader is NEW else current_leader
        self.snapshot_id = SnapshotId() if snapshot_id is NEW else snapshot_id
        self.aborted_transactions = [] if aborted_transactions is NEW else aborted_transactions
        self.preferred_read_replica = preferred_read_replica
        self.records = records


class FetchableTopicResponse(Struct):
    __slots__ = ("topic", "topic_id", "partitions",)
    FIELDS = (
        Field("topic", "string", (0, 12), default="", ignorable=True),
        Field("topic_id", "uuid", (13, MAX), default=ZERO_UUID, ignorable=True),
        Field("partitions", Array(PartitionData), (0, MAX), default=NEW),
    )

    def __init__(self, topic="", topic_id=ZERO_UUID, partitions=NEW):
        self.topic = topic
        self.topic_id = topic_id
        self.partitions = [] if partitions is NEW else partitions


class NodeEndpoint(Struct):
    __slots__ = ("node_id", "host", "port", "rack",)
    FIELDS = (
        Field("node_id", "int32", (16, MAX), default=0),
        Field("host", "string", (16, MAX), default=""),
        Field("port", "int32", (16, MAX), default=0),
        Field("rack", "string", (16, MAX), nullable_versions=(16, MAX)),
    )

    def __init__(self, node_id=0, host="", port=0, rack=None):
        self.node_id = node_id
        self.host = host
        self.port = port
        self.rack = rack


class FetchResponse(Message):
    schema_name = "FetchResponse"
    api_key = 1
    message_type = "response"
    valid_versions = (0, 18)
    flexible_versions = (12, MAX)
    AbortedTransaction = AbortedTransaction
    EpochEndOffset = EpochEndOffset
    FetchableTopicResponse = FetchableTopicResponse
    LeaderIdAndEpoch = LeaderIdAndEpoch
    NodeEndpoint = NodeEndpoint
    PartitionData = PartitionData
    SnapshotId = SnapshotId
    __slots__ = ("throttle_time_ms", "error_code", "session_id", "responses", "node_endpoints",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (1, MAX), default=0, ignorable=True),
        Field("error_code", "int16", (7, MAX), default=0, ignorable=True),
        Field("session_id", "int32", (7, MAX), default=0),
        Field("responses", Array(FetchableTopicResponse), (0, MAX), default=NEW),
        Field("node_endpoints", Array(NodeEndpoint), (16, MAX), tagged_versions=(16, MAX), tag=0, default=NEW),
    )

    def __init__(self, throttle_time_ms=0, error_code=0, session_id=0, responses=NEW, node_endpoints=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.session_id = session_id
        self.responses = [] if responses is NEW else responses
        self.node_endpoints = [] if node_endpoints is NEW else node_endpoints


__all__ = ["FetchResponse"]
