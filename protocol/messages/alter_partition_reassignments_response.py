# Generated from AlterPartitionReassignmentsResponse.json by protocol/codegen.py — do not edit.
"""AlterPartitionReassignmentsResponse: API key 45 response, versions 0-1, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class ReassignablePartitionResponse(Struct):
    __slots__ = ("partition_index", "error_code", "error_message",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
    )

    def __init__(self, partition_index=0, error_code=0, error_message=""):
        self.partition_index = partition_index
        self.error_code = error_code
        self.error_message = error_message


class ReassignableTopicResponse(Struct):
    __slots__ = ("name", "partitions",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("partitions", Array(ReassignablePartitionResponse), (0, MAX), default=NEW),
    )

    def __init__(self, name="", partitions=NEW):
        self.name = name
        self.partitions = [] if partitions is NEW else partitions


class AlterPartitionReassignmentsResponse(Message):
    schema_name = "AlterPartitionReassignmentsResponse"
    api_key = 45
    message_type = "response"
    valid_versions = (0, 1)
    flexible_versions = (0, MAX)
    ReassignablePartitionResponse = ReassignablePartitionResponse
    ReassignableTopicResponse = ReassignableTopicResponse
    __slots__ = ("throttle_time_ms", "allow_replication_factor_change", "error_code", "error_message", "responses",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("allow_replication_factor_change", "bool", (1, MAX), default=True, ignorable=True),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
        Field("responses", Array(ReassignableTopicResponse), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, allow_replication_factor_change=True, error_code=0, error_message="", responses=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.allow_replication_factor_change = allow_replication_factor_change
        self.error_code = error_code
        self.error_message = error_message
        self.responses = [] if responses is NEW else responses


__all__ = ["AlterPartitionReassignmentsResponse"]
