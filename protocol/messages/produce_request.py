# Generated from ProduceRequest.json by protocol/codegen.py — do not edit.
"""ProduceRequest: API key 0 request, versions 0-13, flexible versions 9+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class PartitionProduceData(Struct):
    __slots__ = ("index", "records",)
    FIELDS = (
        Field("index", "int32", (0, MAX), default=0),
        Field("records", "records", (0, MAX), nullable_versions=(0, MAX), default=b""),
    )

    def __init__(self, index=0, records=b""):
        self.index = index
        self.records = records


class TopicProduceData(Struct):
    __slots__ = ("name", "topic_id", "partition_data",)
    FIELDS = (
        Field("name", "string", (0, 12), default="", ignorable=True),
        Field("topic_id", "uuid", (13, MAX), default=ZERO_UUID, ignorable=True),
        Field("partition_data", Array(PartitionProduceData), (0, MAX), default=NEW),
    )

    def __init__(self, name="", topic_id=ZERO_UUID, partition_data=NEW):
        self.name = name
        self.topic_id = topic_id
        self.partition_data = [] if partition_data is NEW else partition_data


class ProduceRequest(Message):
    schema_name = "ProduceRequest"
    api_key = 0
    message_type = "request"
    valid_versions = (0, 13)
    flexible_versions = (9, MAX)
    api_listeners = ('broker',)
    PartitionProduceData = PartitionProduceData
    TopicProduceData = TopicProduceData
    __slots__ = ("transactional_id", "acks", "timeout_ms", "topic_data",)
    FIELDS = (
        Field("transactional_id", "string", (3, MAX), nullable_versions=(3, MAX)),
        Field("acks", "int16", (0, MAX), default=0),
        Field("timeout_ms", "int32", (0, MAX), default=0),
        Field("topic_data", Array(TopicProduceData), (0, MAX), default=NEW),
    )

    def __init__(self, transactional_id=None, acks=0, timeout_ms=0, topic_data=NEW):
        self.transactional_id = transactional_id
        self.acks = acks
        self.timeout_ms = timeout_ms
        self.topic_data = [] if topic_data is NEW else topic_data


__all__ = ["ProduceRequest"]
