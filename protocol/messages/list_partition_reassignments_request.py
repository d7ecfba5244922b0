# Generated from ListPartitionReassignmentsRequest.json by protocol/codegen.py — do not edit.
"""ListPartitionReassignmentsRequest: API key 46 request, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class ListPartitionReassignmentsTopics(Struct):
    __slots__ = ("name", "partition_indexes",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("partition_indexes", Array("int32"), (0, MAX), default=NEW),
    )

    def __init__(self, name="", partition_indexes=NEW):
        self.name = name
        self.partition_indexes = [] if partition_indexes is NEW else partition_indexes


class ListPartitionReassignmentsRequest(Message):
    schema_name = "ListPartitionReassignmentsRequest"
    api_key = 46
    message_type = "request"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    api_listeners = ('broker', 'controller')
    ListPartitionReassignmentsTopics = ListPartitionReassignmentsTopics
    __slots__ = ("timeout_ms", "topics",)
    FIELDS = (
        Field("timeout_ms", "int32", (0, MAX), default=60000),
        Field("topics", Array(ListPartitionReassignmentsTopics), (0, MAX), nullable_versions=(0, MAX)),
    )

    def __init__(self, timeout_ms=60000, topics=None):
        self.timeout_ms = timeout_ms
        self.topics = topics


__all__ = ["ListPartitionReassignmentsRequest"]
