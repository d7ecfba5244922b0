# Generated from WriteTxnMarkersResponse.json by protocol/codegen.py — do not edit.
"""WriteTxnMarkersResponse: API key 27 response, versions 0-1, flexible versions 1+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class WritableTxnMarkerPartitionResult(Struct):
    __slots__ = ("partition_index", "error_code",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
    )

    def __init__(self, partition_index=0, error_code=0):
        self.partition_index = partition_index
        self.error_code = error_code


class WritableTxnMarkerTopicResult(Struct):
    __slots__ = ("name", "partitions",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("partitions", Array(WritableTxnMarkerPartitionResult), (0, MAX), default=NEW),
    )

    def __init__(self, name="", partitions=NEW):
        self.name = name
        self.partitions = [] if partitions is NEW else partitions


class WritableTxnMarkerResult(Struct):
    __slots__ = ("producer_id", "topics",)
    FIELDS = (
        Field("producer_id", "int64", (0, MAX), default=0),
        Field("topics", Array(WritableTxnMarkerTopicResult), (0, MAX), default=NEW),
    )

    def __init__(self, producer_id=0, topics=NEW):
        self.producer_id = producer_id
        self.topics = [] if topics is NEW else topics


class WriteTxnMarkersResponse(Message):
    schema_name = "WriteTxnMarkersResponse"
    api_key = 27
    message_type = "response"
    valid_versions = (0, 1)
    flexible_versions = (1, MAX)
    WritableTxnMarkerPartitionResult = WritableTxnMarkerPartitionResult
    WritableTxnMarkerResult = WritableTxnMarkerResult
    WritableTxnMarkerTopicResult = WritableTxnMarkerTopicResult
    __slots__ = ("markers",)
    FIELDS = (
        Field("markers", Array(WritableTxnMarkerResult), (0, MAX), default=NEW),
    )

    def __init__(self, markers=NEW):
        self.markers = [] if markers is NEW else markers


__all__ = ["WriteTxnMarkersResponse"]
