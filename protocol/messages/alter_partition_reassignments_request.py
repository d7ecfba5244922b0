# Generated from AlterPartitionReassignmentsRequest.json by protocol/codegen.py — do not edit.
"""AlterPartitionReassignmentsRequest: API key 45 request, versions 0-1, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class ReassignablePartition(Struct):
    __slots__ = ("partition_index", "replicas",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("replicas", Array("int32"), (0, MAX), nullable_versions=(0, MAX)),
    )

    def __init__(self, partition_index=0, replicas=None):
        self.partition_index = partition_index
        self.replicas = replicas


class ReassignableTopic(Struct):
    __slots__ = ("name", "partitions",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("partitions", Array(ReassignablePartition), (0, MAX), default=NEW),
    )

    def __init__(self, name="", partitions=NEW):
        self.name = name
        self.partitions = [] if partitions is NEW else partitions


class AlterPartitionReassignmentsRequest(Message):
    schema_name = "AlterPartitionReassignmentsRequest"
    api_key = 45
    message_type = "request"
    valid_versions = (0, 1)
    flexible_versions = (0, MAX)
    api_listeners = ('broker', 'controller')
    ReassignablePartition = ReassignablePartition
    ReassignableTopic = ReassignableTopic
    __slots__ = ("timeout_ms", "allow_replication_factor_change", "topics",)
    FIELDS = (
        Field("timeout_ms", "int32", (0, MAX), default=60000),
        Field("allow_replication_factor_change", "bool", (1, MAX), default=True),
        Field("topics", Array(ReassignableTopic), (0, MAX), default=NEW),
    )

    def __init__(self, timeout_ms=60000, allow_replication_factor_change=True, topics=NEW):
        self.timeout_ms = timeout_ms
        self.allow_replication_factor_change = allow_replication_factor_change
        self.topics = [] if topics is NEW else topics


__all__ = ["AlterPartitionReassignmentsRequest"]
