# Generated from ListPartitionReassignmentsResponse.json by protocol/codegen.py — do not edit.
"""ListPartitionReassignmentsResponse: API key 46 response, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class OngoingPartitionReassignment(Struct):
    __slots__ = ("partition_index", "replicas", "adding_replicas", "removing_replicas",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("replicas", Array("int32"), (0, MAX), default=NEW),
        Field("adding_replicas", Array("int32"), (0, MAX), default=NEW),
        Field("removing_replicas", Array("int32"), (0, MAX), default=NEW),
    )

    def __init__(self, partition_index=0, replicas=NEW, adding_replicas=NEW, removing_replicas=NEW):
        self.partition_index = partition_index
        self.replicas = [] if replicas is NEW else replicas
        self.adding_replicas = [] if adding_replicas is NEW else adding_replicas
        self.removing_replicas = [] if removing_replicas is NEW else removing_replicas


class OngoingTopicReassignment(Struct):
    __slots__ = ("name", "partitions",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("partitions", Array(OngoingPartitionReassignment), (0, MAX), default=NEW),
    )

    def __init__(self, name="", partitions=NEW):
        self.name = name
        self.partitions = [] if partitions is NEW else partitions


class ListPartitionReassignmentsResponse(Message):
    schema_name = "ListPartitionReassignmentsResponse"
    api_key = 46
    message_type = "response"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    OngoingPartitionReassignment = OngoingPartitionReassignment
    OngoingTopicReassignment = OngoingTopicReassignment
    __slots__ = ("throttle_time_ms", "error_code", "error_message", "topics",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
        Field("topics", Array(OngoingTopicReassignment), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, error_code=0, error_message="", topics=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message
        self.topics = [] if topics is NEW else topics


__all__ = ["ListPartitionReassignmentsResponse"]
