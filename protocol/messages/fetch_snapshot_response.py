# Generated from FetchSnapshotResponse.json by protocol/codegen.py — do not edit.
"""FetchSnapshotResponse: API key 59 response, versions 0-1, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class SnapshotId(Struct):
    __slots__ = ("end_offset", "epoch",)
    FIELDS = (
        Field("end_offset", "int64", (0, MAX), default=0),
        Field("epoch", "int32", (0, MAX), default=0),
    )

    def __init__(self, end_offset=0, epoch=0):
        self.end_offset = end_offset
        self.epoch = epoch


class LeaderIdAndEpoch(Struct):
    __slots__ = ("leader_id", "leader_epoch",)
    FIELDS = (
        Field("leader_id", "int32", (0, MAX), default=0),
        Field("leader_epoch", "int32", (0, MAX), default=0),
    )

    def __init__(self, leader_id=0, leader_epoch=0):
        self.leader_id = leader_id
        self.leader_epoch = leader_epoch


class PartitionSnapshot(Struct):
    __slots__ = ("index", "error_code", "snapshot_id", "current_leader", "size", "position", "unaligned_records",)
    FIELDS = (
        Field("index", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("snapshot_id", SnapshotId, (0, MAX), default=NEW),
        Field("current_leader", LeaderIdAndEpoch, (0, MAX), tagged_versions=(0, MAX), tag=0, default=NEW),
        Field("size", "int64", (0, MAX), default=0),
        Field("position", "int64", (0, MAX), default=0),
        Field("unaligned_records", "records", (0, MAX), default=b""),
    )

    def __init__(self, index=0, error_code=0, snapshot_id=NEW, current_leader=NEW, size=0, position=0, unaligned_records=b""):
        self.index = index
        self.error_code = error_code
        self.snapshot_id = SnapshotId() if snapshot_id is NEW else snapshot_id
        self.current_leader = LeaderIdAndEpoch() if current_leader is NEW else current_leader
        self.size = size
        self.position = position
        self.unaligned_records = unaligned_records


class TopicSnapshot(Struct):
    __slots__ = ("name", "partitions",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("partitions", Array(PartitionSnapshot), (0, MAX), default=NEW),
    )

    def __init__(self, name="", partitions=NEW):
        self.name = name
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


class FetchSnapshotResponse(Message):
    schema_name = "FetchSnapshotResponse"
    api_key = 59
    message_type = "response"
    valid_versions = (0, 1)
    flexible_versions = (0, MAX)
    LeaderIdAndEpoch = LeaderIdAndEpoch
    NodeEndpoint = NodeEndpoint
    PartitionSnapshot = PartitionSnapshot
    SnapshotId = SnapshotId
    TopicSnapshot = TopicSnapshot
    __slots__ = ("throttle_time_ms", "error_code", "topics", "node_endpoints",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0, ignorable=True),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("topics", Array(TopicSnapshot), (0, MAX), default=NEW),
        Field("node_endpoints", Array(NodeEndpoint), (1, MAX), tagged_versions=(1, MAX), tag=0, default=NEW),
    )

    def __init__(self, throttle_time_ms=0, error_code=0, topics=NEW, node_endpoints=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.topics = [] if topics is NEW else topics
        self.node_endpoints = [] if node_endpoints is NEW else node_endpoints


__all__ = ["FetchSnapshotResponse"]
