# Generated from OffsetCommitValue.json by protocol/codegen.py — do not edit.
"""OffsetCommitValue: data, versions 0-4, flexible versions 4+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class OffsetCommitValue(Message):
    schema_name = "OffsetCommitValue"
    api_key = None
    message_type = "data"
    valid_versions = (0, 4)
    flexible_versions = (4, MAX)
    __slots__ = ("offset", "leader_epoch", "metadata", "commit_timestamp", "expire_timestamp",)
    FIELDS = (
        Field("offset", "int64", (0, MAX), default=0),
        Field("leader_epoch", "int32", (3, MAX), default=-1, ignorable=True),
        Field("metadata", "string", (0, MAX), default=""),
        Field("commit_timestamp", "int64", (0, MAX), default=0),
        Field("expire_timestamp", "int64", (1, 1), default=-1, ignorable=True),
    )

    def __init__(self, offset=0, leader_epoch=-1, metadata="", commit_timestamp=0, expire_timestamp=-1):
        self.offset = offset
        self.leader_epoch = leader_epoch
        self.metadata = metadata
        self.commit_timestamp = commit_timestamp
        self.expire_timestamp = expire_timestamp


__all__ = ["OffsetCommitValue"]
