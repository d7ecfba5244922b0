# Generated from ConsumerProtocolSubscription.json by protocol/codegen.py — do not edit.
"""ConsumerProtocolSubscription: data, versions 0-3."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class TopicPartition(Struct):
    __slots__ = ("topic", "partitions",)
    FIELDS = (
        Field("topic", "string", (1, MAX), default=""),
        Field("partitions", Array("int32"), (1, MAX), default=NEW),
    )

    def __init__(self, topic="", partitions=NEW):
        self.topic = topic
        self.partitions = [] if partitions is NEW else partitions


class ConsumerProtocolSubscription(Message):
    schema_name = "ConsumerProtocolSubscription"
    api_key = None
    message_type = "data"
    valid_versions = (0, 3)
    flexible_versions = None
    TopicPartition = TopicPartition
    __slots__ = ("topics", "user_data", "owned_partitions", "generation_id", "rack_id",)
    FIELDS = (
        Field("topics", Array("string"), (0, MAX), default=NEW),
        Field("user_data", "bytes", (0, MAX), nullable_versions=(0, MAX)),
        Field("owned_partitions", Array(TopicPartition), (1, MAX), default=NEW, ignorable=True),
        Field("generation_id", "int32", (2, MAX), default=-1, ignorable=True),
        Field("rack_id", "string", (3, MAX), nullable_versions=(3, MAX), ignorable=True),
    )

    def __init__(self, topics=NEW, user_data=None, owned_partitions=NEW, generation_id=-1, rack_id=None):
        self.topics = [] if topics is NEW else topics
        self.user_data = user_data
        self.owned_partitions = [] if owned_partitions is NEW else owned_partitions
        self.generation_id = generation_id
        self.rack_id = rack_id


__all__ = ["ConsumerProtocolSubscription"]
