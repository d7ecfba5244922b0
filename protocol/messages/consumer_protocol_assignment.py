# Generated from ConsumerProtocolAssignment.json by protocol/codegen.py — do not edit.
"""ConsumerProtocolAssignment: data, versions 0-3."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class TopicPartition(Struct):
    __slots__ = ("topic", "partitions",)
    FIELDS = (
        Field("topic", "string", (0, MAX), default=""),
        Field("partitions", Array("int32"), (0, MAX), default=NEW),
    )

    def __init__(self, topic="", partitions=NEW):
        self.topic = topic
        self.partitions = [] if partitions is NEW else partitions


class ConsumerProtocolAssignment(Message):
    schema_name = "ConsumerProtocolAssignment"
    api_key = None
    message_type = "data"
    valid_versions = (0, 3)
    flexible_versions = None
    TopicPartition = TopicPartition
    __slots__ = ("assigned_partitions", "user_data",)
    FIELDS = (
        Field("assigned_partitions", Array(TopicPartition), (0, MAX), default=NEW),
        Field("user_data", "bytes", (0, MAX), nullable_versions=(0, MAX)),
    )

    def __init__(self, assigned_partitions=NEW, user_data=None):
        self.assigned_partitions = [] if assigned_partitions is NEW else assigned_partitions
        self.user_data = user_data


__all__ = ["ConsumerProtocolAssignment"]
