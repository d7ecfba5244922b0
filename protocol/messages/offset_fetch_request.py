# Generated from OffsetFetchRequest.json by protocol/codegen.py — do not edit.
"""OffsetFetchRequest: API key 9 request, versions 0-10, flexible versions 6+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class OffsetFetchRequestTopic(Struct):
    __slots__ = ("name", "partition_indexes",)
    FIELDS = (
        Field("name", "string", (0, 7), default=""),
        Field("partition_indexes", Array("int32"), (0, 7), default=NEW),
    )

    def __init__(self, name="", partition_indexes=NEW):
        self.name = name
        self.partition_indexes = [] if partition_indexes is NEW else partition_indexes


class OffsetFetchRequestTopics(Struct):
    __slots__ = ("name", "topic_id", "partition_indexes",)
    FIELDS = (
        Field("name", "string", (8, 9), default="", ignorable=True),
        Field("topic_id", "uuid", (10, MAX), default=ZERO_UUID, ignorable=True),
        Field("partition_indexes", Array("int32"), (8, MAX), default=NEW),
    )

    def __init__(self, name="", topic_id=ZERO_UUID, partition_indexes=NEW):
        self.name = name
        self.topic_id = topic_id
        self.partition_indexes = [] if partition_indexes is NEW else partition_indexes


class OffsetFetchRequestGroup(Struct):
    __slots__ = ("group_id", "member_id", "member_epoch", "topics",)
    FIELDS = (
        Field("group_id", "string", (8, MAX), default=""),
        Field("member_id", "string", (9, MAX), nullable_versions=(9, MAX), ignorable=True),
        Field("member_epoch", "int32", (9, MAX), default=-1, ignorable=True),
        Field("topics", Array(OffsetFetchRequestTopics), (8, MAX), nullable_versions=(8, MAX), default=NEW),
    )

    def __init__(self, group_id="", member_id=None, member_epoch=-1, topics=NEW):
        self.group_id = group_id
        self.member_id = member_id
        self.member_epoch = member_epoch
        self.topics = [] if topics is NEW else topics


class OffsetFetchRequest(Message):
    schema_name = "OffsetFetchRequest"
    api_key = 9
    message_type = "request"
    valid_versions = (0, 10)
    flexible_versions = (6, MAX)
    latest_version_unstable = True
    api_listeners = ('broker',)
    OffsetFetchRequestGroup = OffsetFetchRequestGroup
    OffsetFetchRequestTopic = OffsetFetchRequestTopic
    OffsetFetchRequestTopics = OffsetFetchRequestTopics
    __slots__ = ("group_id", "topics", "groups", "require_stable",)
    FIELDS = (
        Field("group_id", "string", (0, 7), default=""),
        Field("topics", Array(OffsetFetchRequestTopic), (0, 7), nullable_versions=(2, 7), default=NEW),
        Field("groups", Array(OffsetFetchRequestGroup), (8, MAX), default=NEW),
        Field("require_stable", "bool", (7, MAX), default=False),
    )

    def __init__(self, group_id="", topics=NEW, groups=NEW, require_stable=False):
        self.group_id = group_id
        self.topics = [] if topics is NEW else topics
        self.groups = [] if groups is NEW else groups
        self.require_stable = require_stable


__all__ = ["OffsetFetchRequest"]
