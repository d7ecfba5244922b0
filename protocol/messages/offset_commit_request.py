# Generated from OffsetCommitRequest.json by protocol/codegen.py — do not edit.
"""OffsetCommitRequest: API key 8 request, versions 0-10, flexible versions 8+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class OffsetCommitRequestPartition(Struct):
    __slots__ = ("partition_index", "committed_offset", "committed_leader_epoch", "commit_timestamp", "committed_metadata",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("committed_offset", "int64", (0, MAX), default=0),
        Field("committed_leader_epoch", "int32", (6, MAX), default=-1, ignorable=True),
        Field("commit_timestamp", "int64", (1, 1), default=-1),
        Field("committed_metadata", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
    )

    def __init__(self, partition_index=0, committed_offset=0, committed_leader_epoch=-1, commit_timestamp=-1, committed_metadata=""):
        self.partition_index = partition_index
        self.committed_offset = committed_offset
        self.committed_leader_epoch = committed_leader_epoch
        self.commit_timestamp = commit_timestamp
        self.committed_metadata = committed_metadata


class OffsetCommitRequestTopic(Struct):
    __slots__ = ("name", "topic_id", "partitions",)
    FIELDS = (
        Field("name", "string", (0, 9), default="", ignorable=True),
        Field("topic_id", "uuid", (10, MAX), default=ZERO_UUID, ignorable=True),
        Field("partitions", Array(OffsetCommitRequestPartition), (0, MAX), default=NEW),
    )

    def __init__(self, name="", topic_id=ZERO_UUID, partitions=NEW):
        self.name = name
        self.topic_id = topic_id
        self.partitions = [] if partitions is NEW else partitions


class OffsetCommitRequest(Message):
    schema_name = "OffsetCommitRequest"
    api_key = 8
    message_type = "request"
    valid_versions = (0, 10)
    flexible_versions = (8, MAX)
    latest_version_unstable = True
    api_listeners = ('broker',)
    OffsetCommitRequestPartition = OffsetCommitRequestPartition
    OffsetCommitRequestTopic = OffsetCommitRequestTopic
    __slots__ = ("group_id", "generation_id_or_member_epoch", "member_id", "group_instance_id", "retention_time_ms", "topics",)
    FIELDS = (
        Field("group_id", "string", (0, MAX), default=""),
        Field("generation_id_or_member_epoch", "int32", (1, MAX), default=-1, ignorable=True),
        Field("member_id", "string", (1, MAX), default="", ignorable=True),
        Field("group_instance_id", "string", (7, MAX), nullable_versions=(7, MAX)),
        Field("retention_time_ms", "int64", (2, 4), default=-1, ignorable=True),
        Field("topics", Array(OffsetCommitRequestTopic), (0, MAX), default=NEW),
    )

    def __init__(self, group_id="", generation_id_or_member_epoch=-1, member_id="", group_instance_id=None, retention_time_ms=-1, topics=NEW):
        self.group_id = group_id
        self.generation_id_or_member_epoch = generation_id_or_member_epoch
        self.member_id = member_id
        self.group_instance_id = group_instance_id
        self.retention_time_ms = retention_time_ms
        self.topics = [] if topics is NEW else topics


__all__ = ["OffsetCommitRequest"]
