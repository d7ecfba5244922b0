# Generated from InitializeShareGroupStateResponse.json by protocol/codegen.py — do not edit.
"""InitializeShareGroupStateResponse: API key 83 response, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class PartitionResult(Struct):
    __slots__ = ("partition", "error_code", "error_message",)
    FIELDS = (
        Field("partition", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX)),
    )

    def __init__(self, partition=0, error_code=0, error_message=None):
        self.partition = partition
        self.error_code = error_code
        self.error_message = error_message


class InitializeStateResult(Struct):
    __slots__ = ("topic_id", "partitions",)
    FIELDS = (
        Field("topic_id", "uuid", (0, MAX), default=ZERO_UUID),
        Field("partitions", Array(PartitionResult), (0, MAX), default=NEW),
    )

    def __init__(self, topic_id=ZERO_UUID, partitions=NEW):
        self.topic_id = topic_id
        self.partitions = [] if partitions is NEW else partitions


class InitializeShareGroupStateResponse(Message):
    schema_name = "InitializeShareGroupStateResponse"
    api_key = 83
    message_type = "response"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    InitializeStateResult = InitializeStateResult
    PartitionResult = PartitionResult
    __slots__ = ("results",)
    FIELDS = (
        Field("results", Array(InitializeStateResult), (0, MAX), default=NEW),
    )

    def __init__(self, results=NEW):
        self.results = [] if results is NEW else results


__all__ = ["InitializeShareGroupStateResponse"]
