# Generated from ElectLeadersResponse.json by protocol/codegen.py — do not edit.
"""ElectLeadersResponse: API key 43 response, versions 0-2, flexible versions 2+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class PartitionResult(Struct):
    __slots__ = ("partition_id", "error_code", "error_message",)
    FIELDS = (
        Field("partition_id", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
    )

    def __init__(self, partition_id=0, error_code=0, error_message=""):
        self.partition_id = partition_id
        self.error_code = error_code
        self.error_message = error_message


class ReplicaElectionResult(Struct):
    __slots__ = ("topic", "partition_result",)
    FIELDS = (
        Field("topic", "string", (0, MAX), default=""),
        Field("partition_result", Array(PartitionResult), (0, MAX), default=NEW),
    )

    def __init__(self, topic="", partition_result=NEW):
        self.topic = topic
        self.partition_result = [] if partition_result is NEW else partition_result


class ElectLeadersResponse(Message):
    schema_name = "ElectLeadersResponse"
    api_key = 43
    message_type = "response"
    valid_versions = (0, 2)
    flexible_versions = (2, MAX)
    PartitionResult = PartitionResult
    ReplicaElectionResult = ReplicaElectionResult
    __slots__ = ("throttle_time_ms", "error_code", "replica_election_results",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (1, MAX), default=0),
        Field("replica_election_results", Array(ReplicaElectionResult), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, error_code=0, replica_election_results=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.replica_election_results = [] if replica_election_results is NEW else replica_election_results


__all__ = ["ElectLeadersResponse"]
