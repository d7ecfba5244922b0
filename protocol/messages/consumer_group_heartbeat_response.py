# Generated from ConsumerGroupHeartbeatResponse.json by protocol/codegen.py — do not edit.
"""ConsumerGroupHeartbeatResponse: API key 68 response, versions 0-1, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class TopicPartitions(Struct):
    __slots__ = ("topic_id", "partitions",)
    FIELDS = (
        Field("topic_id", "uuid", (0, MAX), default=ZERO_UUID),
        Field("partitions", Array("int32"), (0, MAX), default=NEW),
    )

    def __init__(self, topic_id=ZERO_UUID, partitions=NEW):
        self.topic_id = topic_id
        self.partitions = [] if partitions is NEW else partitions


class Assignment(Struct):
    __slots__ = ("topic_partitions",)
    FIELDS = (
        Field("topic_partitions", Array(TopicPartitions), (0, MAX), default=NEW),
    )

    def __init__(self, topic_partitions=NEW):
        self.topic_partitions = [] if topic_partitions is NEW else topic_partitions


class ConsumerGroupHeartbeatResponse(Message):
    schema_name = "ConsumerGroupHeartbeatResponse"
    api_key = 68
    message_type = "response"
    valid_versions = (0, 1)
    flexible_versions = (0, MAX)
    Assignment = Assignment
    TopicPartitions = TopicPartitions
    __slots__ = ("throttle_time_ms", "error_code", "error_message", "member_id", "member_epoch", "heartbeat_interval_ms", "assignment",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX)),
        Field("member_id", "string", (0, MAX), nullable_versions=(0, MAX)),
        Field("member_epoch", "int32", (0, MAX), default=0),
        Field("heartbeat_interval_ms", "int32", (0, MAX), default=0),
        Field("assignment", Assignment, (0, MAX), nullable_versions=(0, MAX)),
    )

    def __init__(self, throttle_time_ms=0, error_code=0, error_message=None, member_id=None, member_epoch=0, heartbeat_interval_ms=0, assignment=None):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message
        self.member_id = member_id
        self.member_epoch = member_epoch
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.assignment = assignment


__all__ = ["ConsumerGroupHeartbeatResponse"]
