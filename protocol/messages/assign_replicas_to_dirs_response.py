# Generated from AssignReplicasToDirsResponse.json by protocol/codegen.py — do not edit.
"""AssignReplicasToDirsResponse: API key 73 response, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class PartitionData(Struct):
    __slots__ = ("partition_index", "error_code",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
    )

    def __init__(self, partition_index=0, error_code=0):
        self.partition_index = partition_index
        self.error_code = error_code


class TopicData(Struct):
    __slots__ = ("topic_id", "partitions",)
    FIELDS = (
        Field("topic_id", "uuid", (0, MAX), default=ZERO_UUID),
        Field("partitions", Array(PartitionData), (0, MAX), default=NEW),
    )

    def __init__(self, topic_id=ZERO_UUID, partitions=NEW):
        self.topic_id = topic_id
        self.partitions = [] if partitions is NEW else partitions


class DirectoryData(Struct):
    __slots__ = ("id", "topics",)
    FIELDS = (
        Field("id", "uuid", (0, MAX), default=ZERO_UUID),
        Field("topics", Array(TopicData), (0, MAX), default=NEW),
    )

    def __init__(self, id=ZERO_UUID, topics=NEW):
        self.id = id
        self.topics = [] if topics is NEW else topics


class AssignReplicasToDirsResponse(Message):
    schema_name = "AssignReplicasToDirsResponse"
    api_key = 73
    message_type = "response"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    DirectoryData = DirectoryData
    PartitionData = PartitionData
    TopicData = TopicData
    __slots__ = ("throttle_time_ms", "error_code", "directories",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("directories", Array(DirectoryData), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, error_code=0, directories=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.directories = [] if directories is NEW else directories


__all__ = ["AssignReplicasToDirsResponse"]
