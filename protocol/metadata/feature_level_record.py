# Generated from FeatureLevelRecord.json by protocol/codegen.py — do not edit.
"""FeatureLevelRecord: API key 12 metadata, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class FeatureLevelRecord(Message):
    schema_name = "FeatureLevelRecord"
    api_key = 12
    message_type = "metadata"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    __slots__ = ("name", "feature_level",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("feature_level", "int16", (0, MAX), default=0),
    )

    def __init__(self, name="", feature_level=0):
        self.name = name
        self.feature_level = feature_level


__all__ = ["FeatureLevelRecord"]
