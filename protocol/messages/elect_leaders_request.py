# Generated from ElectLeadersRequest.json by protocol/codegen.py — do not edit.
"""ElectLeadersRequest: API key 43 request, versions 0-2, flexible versions 2+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class TopicPartitions(Struct):
    __slots__ = ("topic", "partitions",)
    FIELDS = (
        Field("topic", "string", (0, MAX), default=""),
        Field("partitions", Array("int32"), (0, MAX), default=NEW),
    )

    def __init__(self, topic="", partitions=NEW):
        self.topic = topic
        self.partitions = [] if partitions is NEW else partitions


class ElectLeadersRequest(Message):
    schema_name = "ElectLeadersRequest"
    api_key = 43
    message_type = "request"
    valid_versions = (0, 2)
    flexible_versions = (2, MAX)
    api_listeners = ('broker', 'controller')
    TopicPartitions = TopicPartitions
    __slots__ = ("election_type", "topic_partitions", "timeout_ms",)
    FIELDS = (
        Field("election_type", "int8", (1, MAX), default=0),
        Field("topic_partitions", Array(TopicPartitions), (0, MAX), nullable_versions=(0, MAX), default=NEW),
        Field("timeout_ms", "int32", (0, MAX), default=60000),
    )

    def __init__(self, election_type=0, topic_partitions=NEW, timeout_ms=60000):
        self.election_type = election_type
        self.topic_partitions = [] if topic_partitions is NEW else topic_partitions
        self.timeout_ms = timeout_ms


__all__ = ["ElectLeadersRequest"]
