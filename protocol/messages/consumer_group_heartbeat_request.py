# Generated from ConsumerGroupHeartbeatRequest.json by protocol/codegen.py — do not edit.
"""ConsumerGroupHeartbeatRequest: API key 68 request, versions 0-1, flexible versions 0+."""

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


class ConsumerGroupHeartbeatRequest(Message):
    schema_name = "ConsumerGroupHeartbeatRequest"
    api_key = 68
    message_type = "request"
    valid_versions = (0, 1)
    flexible_versions = (0, MAX)
    api_listeners = ('broker',)
    TopicPartitions = TopicPartitions
    __slots__ = ("group_id", "member_id", "member_epoch", "instance_id", "rack_id", "rebalance_timeout_ms", "subscribed_topic_names", "subscribed_topic_regex", "server_assignor", "topic_partitions",)
    FIELDS = (
        Field("group_id", "string", (0, MAX), default=""),
        Field("member_id", "string", (0, MAX), default=""),
        Field("member_epoch", "int32", (0, MAX), default=0),
        Field("instance_id", "string", (0, MAX), nullable_versions=(0, MAX)),
        Field("rack_id", "string", (0, MAX), nullable_versions=(0, MAX)),
        Field("rebalance_timeout_ms", "int32", (0, MAX), default=-1),
        Field("subscribed_topic_names", Array("string"), (0, MAX), nullable_versions=(0, MAX)),
        Field("subscribed_topic_regex", "string", (1, MAX), nullable_versions=(1, MAX)),
        Field("server_assignor", "string", (0, MAX), nullable_versions=(0, MAX)),
        Field("topic_partitions", Array(TopicPartitions), (0, MAX), nullable_versions=(0, MAX)),
    )

    def __init__(self, group_id="", member_id="", member_epoch=0, instance_id=None, rack_id=None, rebalance_timeout_ms=-1, subscribed_topic_names=None, subscribed_topic_regex=None, server_assignor=None, topic_partitions=None):
        self.group_id = group_id
        self.member_id = member_id
        self.member_epoch = member_epoch
        self.instance_id = instance_id
        self.rack_id = rack_id
        self.rebalance_timeout_ms = rebalance_timeout_ms
        self.subscribed_topic_names = subscribed_topic_names
        self.subscribed_topic_regex = subscribed_topic_regex
        self.server_assignor = server_assignor
        self.topic_partitions = topic_partitions


__all__ = ["ConsumerGroupHeartbeatRequest"]
