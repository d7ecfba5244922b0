# Generated from FetchSnapshotRequest.json by protocol/codegen.py — do not edit.
"""FetchSnapshotRequest: API key 59 request, versions 0-1, flexible versions 0+."""

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


class PartitionSnapshot(Struct):
    __slots__ = ("partition", "current_leader_epoch", "snapshot_id", "position", "replica_directory_id",)
    FIELDS = (
        Field("partition", "int32", (0, MAX), default=0),
        Field("current_leader_epoch", "int32", (0, MAX), default=0),
        Field("snapshot_id", SnapshotId, (0, MAX), default=NEW),
        Field("position", "int64", (0, MAX), default=0),
        Field("replica_directory_id", "uuid", (1, MAX), tagged_versions=(1, MAX), tag=0, default=ZERO_UUID, ignorable=True),
    )

    def __init__(self, partition=0, current_leader_epoch=0, snapshot_id=NEW, position=0, replica_directory_id=ZERO_UUID):
        self.partition = partition
        self.current_leader_epoch = current_leader_epoch
        self.snapshot_id = SnapshotId() if snapshot_id is NEW else snapshot_id
        self.position = position
        self.replica_directory_id = replica_directory_id


class TopicSnapshot(Struct):
    __slots__ = ("name", "partitions",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("partitions", Array(PartitionSnapshot), (0, MAX), default=NEW),
    )

    def __init__(self, name="", partitions=NEW):
        self.name = name
        self.partitions = [] if partitions is NEW else partitions


class FetchSnapshotRequest(Message):
    schema_name = "FetchSnapshotRequest"
    api_key = 59
    message_type = "request"
    valid_versions = (0, 1)
    flexible_versions = (0, MAX)
    api_listeners = ('controller',)
    PartitionSnapshot = PartitionSnapshot
    SnapshotId = SnapshotId
    TopicSnapshot = TopicSnapshot
    __slots__ = ("cluster_id", "replica_id", "max_bytes", "topics",)
    FIELDS = (
        Field("cluster_id", "string", (0, MAX), nullable_versions=(0, MAX), tagged_versions=(0, MAX), tag=0),
        Field("replica_id", "int32", (0, MAX), default=-1),
        Field("max_bytes", "int32", (0, MAX), default=2147483647),
        Field("topics", Array(TopicSnapshot), (0, MAX), default=NEW),
    )

    def __init__(self, cluster_id=None, replica_id=-1, max_bytes=2147483647, topics=NEW):
        self.cluster_id = cluster_id
        self.replica_id = replica_id
        self.max_bytes = max_bytes
        self.topics = [] if topics is NEW else topics


__all__ = ["FetchSnapshotRequest"]
