# Generated from WriteTxnMarkersRequest.json by protocol/codegen.py — do not edit.
"""WriteTxnMarkersRequest: API key 27 request, versions 0-1, flexible versions 1+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class WritableTxnMarkerTopic(Struct):
    __slots__ = ("name", "partition_indexes",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("partition_indexes", Array("int32"), (0, MAX), default=NEW),
    )

    def __init__(self, name="", partition_indexes=NEW):
        self.name = name
        self.partition_indexes = [] if partition_indexes is NEW else partition_indexes


class WritableTxnMarker(Struct):
    __slots__ = ("producer_id", "producer_epoch", "transaction_result", "topics", "coordinator_epoch",)
    FIELDS = (
        Field("producer_id", "int64", (0, MAX), default=0),
        Field("producer_epoch", "int16", (0, MAX), default=0),
        Field("transaction_result", "bool", (0, MAX), default=False),
        Field("topics", Array(WritableTxnMarkerTopic), (0, MAX), default=NEW),
        Field("coordinator_epoch", "int32", (0, MAX), default=0),
    )

    def __init__(self, producer_id=0, producer_epoch=0, transaction_result=False, topics=NEW, coordinator_epoch=0):
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch
        self.transaction_result = transaction_result
        self.topics = [] if topics is NEW else topics
        self.coordinator_epoch = coordinator_epoch


class WriteTxnMarkersRequest(Message):
    schema_name = "WriteTxnMarkersRequest"
    api_key = 27
    message_type = "request"
    valid_versions = (0, 1)
    flexible_versions = (1, MAX)
    api_listeners = ('broker',)
    WritableTxnMarker = WritableTxnMarker
    WritableTxnMarkerTopic = WritableTxnMarkerTopic
    __slots__ = ("markers",)
    FIELDS = (
        Field("markers", Array(WritableTxnMarker), (0, MAX), default=NEW),
    )

    def __init__(self, markers=NEW):
        self.markers = [] if markers is NEW else markers


__all__ = ["WriteTxnMarkersRequest"]
