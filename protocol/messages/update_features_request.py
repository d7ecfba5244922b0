# Generated from UpdateFeaturesRequest.json by protocol/codegen.py — do not edit.
"""UpdateFeaturesRequest: API key 57 request, versions 0-2, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class FeatureUpdateKey(Struct):
    __slots__ = ("feature", "max_version_level", "allow_downgrade", "upgrade_type",)
    FIELDS = (
        Field("feature", "string", (0, MAX), default=""),
        Field("max_version_level", "int16", (0, MAX), default=0),
        Field("allow_downgrade", "bool", (0, 0), default=False),
        Field("upgrade_type", "int8", (1, MAX), default=1),
    )

    def __init__(self, feature="", max_version_level=0, allow_downgrade=False, upgrade_type=1):
        self.feature = feature
        self.max_version_level = max_version_level
        self.allow_downgrade = allow_downgrade
        self.upgrade_type = upgrade_type


class UpdateFeaturesRequest(Message):
    schema_name = "UpdateFeaturesRequest"
    api_key = 57
    message_type = "request"
    valid_versions = (0, 2)
    flexible_versions = (0, MAX)
    api_listeners = ('broker', 'controller')
    FeatureUpdateKey = FeatureUpdateKey
    __slots__ = ("timeout_ms", "feature_updates", "validate_only",)
    FIELDS = (
        Field("timeout_ms", "int32", (0, MAX), default=60000),
        Field("feature_updates", Array(FeatureUpdateKey), (0, MAX), default=NEW),
        Field("validate_only", "bool", (1, MAX), default=False),
    )

    def __init__(self, timeout_ms=60000, feature_updates=NEW, validate_only=False):
        self.timeout_ms = timeout_ms
        self.feature_updates = [] if feature_updates is NEW else feature_updates
        self.validate_only = validate_only


__all__ = ["UpdateFeaturesRequest"]
