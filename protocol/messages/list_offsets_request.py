# Generated from ListOffsetsRequest.json by protocol/codegen.py — do not edit.
"""ListOffsetsRequest: API key 2 request, versions 0-10, flexible versions 6+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class ListOffsetsPartition(Struct):
    __slots__ = ("partition_index", "current_leader_epoch", "timestamp", "max_num_offsets",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("current_leader_epoch", "int32", (4, MAX), default=-1, ignorable=True),
        Field("timestamp", "int64", (0, MAX), default=0),
        Field("max_num_offsets", "int32", (0, 0), default=1),
    )

    def __init__(self, partition_index=0, current_leader_epoch=-1, timestamp=0, max_num_offsets=1):
        self.partition_index = partition_index
        self.current_leader_epoch = current_leader_epoch
        self.timestamp = timestamp
        self.max_num_offsets = max_num_offsets


class ListOffsetsTopic(Struct):
    __slots__ = ("name", "partitions",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("partitions", Array(ListOffsetsPartition), (0, MAX), default=NEW),
    )

    def __init__(self, name="", partitions=NEW):
        self.name = name
        self.partitions = [] if partitions is NEW else partitions


class ListOffsetsRequest(Message):
    schema_name = "ListOffsetsRequest"
    api_key = 2
    message_type = "request"
    valid_versions = (0, 10)
    flexible_versions = (6, MAX)
    api_listeners = ('broker',)
    ListOffsetsPartition = ListOffsetsPartition
    ListOffsetsTopic = ListOffsetsTopic
    __slots__ = ("replica_id", "isolation_level", "topics", "timeout_ms",)
    FIELDS = (
        Field("replica_id", "int32", (0, MAX), default=0),
        Field("isolation_level", "int8", (2, MAX), default=0),
        Field("topics", Array(ListOffsetsTopic), (0, MAX), default=NEW),
        Field("timeout_ms", "int32", (10, MAX), default=0, ignorable=True),
    )

    def __init__(self, replica_id=0, isolation_level=0, topics=NEW, timeout_ms=0):
        self.replica_id = replica_id
        self.isolation_level = isolation_level
        self.topics = [] if topics is NEW else topics
        self.timeout_ms = timeout_ms


__all__ = ["ListOffsetsRequest"]
