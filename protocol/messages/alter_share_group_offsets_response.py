# Generated from AlterShareGroupOffsetsResponse.json by protocol/codegen.py — do not edit.
"""AlterShareGroupOffsetsResponse: API key 91 response, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class AlterShareGroupOffsetsResponsePartition(Struct):
    __slots__ = ("partition_index", "error_code", "error_message",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX)),
    )

    def __init__(self, partition_index=0, error_code=0, error_message=None):
        self.partition_index = partition_index
        self.error_code = error_code
        self.error_message = error_message


class AlterShareGroupOffsetsResponseTopic(Struct):
    __slots__ = ("topic_name", "topic_id", "partitions",)
    FIELDS = (
        Field("topic_name", "string", (0, MAX), default=""),
        Field("topic_id", "uuid", (0, MAX), default=ZERO_UUID),
        Field("partitions", Array(AlterShareGroupOffsetsResponsePartition), (0, MAX), default=NEW),
    )

    def __init__(self, topic_name="", topic_id=ZERO_UUID, partitions=NEW):
        self.topic_name = topic_name
        self.topic_id = topic_id
        self.partitions = [] if partitions is NEW else partitions


class AlterShareGroupOffsetsResponse(Message):
    schema_name = "AlterShareGroupOffsetsResponse"
    api_key = 91
    message_type = "response"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    AlterShareGroupOffsetsResponsePartition = AlterShareGroupOffsetsResponsePartition
    AlterShareGroupOffsetsResponseTopic = AlterShareGroupOffsetsResponseTopic
    __slots__ = ("throttle_time_ms", "error_code", "error_message", "responses",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX)),
        Field("responses", Array(AlterShareGroupOffsetsResponseTopic), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, error_code=0, error_message=None, responses=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message
        self.responses = [] if responses is NEW else responses


__all__ = ["AlterShareGroupOffsetsResponse"]
