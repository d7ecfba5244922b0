# Generated from SnapshotFooterRecord.json by protocol/codegen.py — do not edit.
"""SnapshotFooterRecord: data, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class SnapshotFooterRecord(Message):
    schema_name = "SnapshotFooterRecord"
    api_key = None
    message_type = "data"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    __slots__ = ("version",)
    FIELDS = (
        Field("version", "int16", (0, MAX), default=0),
    )

    def __init__(self, version=0):
        self.version = version


__all__ = ["SnapshotFooterRecord"]
