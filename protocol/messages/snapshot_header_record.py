# Generated from SnapshotHeaderRecord.json by protocol/codegen.py — do not edit.
"""SnapshotHeaderRecord: data, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class SnapshotHeaderRecord(Message):
    schema_name = "SnapshotHeaderRecord"
    api_key = None
    message_type = "data"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    __slots__ = ("version", "last_contained_log_timestamp",)
    FIELDS = (
        Field("version", "int16", (0, MAX), default=0),
        Field("last_contained_log_timestamp", "int64", (0, MAX), default=0),
    )

    def __init__(self, version=0, last_contained_log_timestamp=0):
        self.version = version
        self.last_contained_log_timestamp = last_contained_log_timestamp


__all__ = ["SnapshotHeaderRecord"]
