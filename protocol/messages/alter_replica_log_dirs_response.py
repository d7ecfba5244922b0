# Generated from AlterReplicaLogDirsResponse.json by protocol/codegen.py — do not edit.
"""AlterReplicaLogDirsResponse: API key 34 response, versions 0-2, flexible versions 2+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class AlterReplicaLogDirPartitionResult(Struct):
    __slots__ = ("partition_index", "error_code",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
    )

    def __init__(self, partition_index=0, error_code=0):
        self.partition_index = partition_index
        self.error_code = error_code


class AlterReplicaLogDirTopicResult(Struct):
    __slots__ = ("topic_name", "partitions",)
    FIELDS = (
        Field("topic_name", "string", (0, MAX), default=""),
        Field("partitions", Array(AlterReplicaLogDirPartitionResult), (0, MAX), default=NEW),
    )

    def __init__(self, topic_name="", partitions=NEW):
        self.topic_name = topic_name
        self.partitions = [] if partitions is NEW else partitions


class AlterReplicaLogDirsResponse(Message):
    schema_name = "AlterReplicaLogDirsResponse"
    api_key = 34
    message_type = "response"
    valid_versions = (0, 2)
    flexible_versions = (2, MAX)
    AlterReplicaLogDirPartitionResult = AlterReplicaLogDirPartitionResult
    AlterReplicaLogDirTopicResult = AlterReplicaLogDirTopicResult
    __slots__ = ("throttle_time_ms", "results",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("results", Array(AlterReplicaLogDirTopicResult), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, results=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.results = [] if results is NEW else results


__all__ = ["AlterReplicaLogDirsResponse"]
