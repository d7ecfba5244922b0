# Generated from ApiVersionsResponse.json by protocol/codegen.py — do not edit.
"""ApiVersionsResponse: API key 18 response, versions 0-4, flexible versions 3+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class ApiVersion(Struct):
    __slots__ = ("api_key", "min_version", "max_version",)
    FIELDS = (
        Field("api_key", "int16", (0, MAX), default=0),
        Field("min_version", "int16", (0, MAX), default=0),
        Field("max_version", "int16", (0, MAX), default=0),
    )

    def __init__(self, api_key=0, min_version=0, max_version=0):
        self.api_key = api_key
        self.min_version = min_version
        self.max_version = max_version


class SupportedFeatureKey(Struct):
    __slots__ = ("name", "min_version", "max_version",)
    FIELDS = (
        Field("name", "string", (3, MAX), default=""),
        Field("min_version", "int16", (3, MAX), default=0),
        Field("max_version", "int16", (3, MAX), default=0),
    )

    def __init__(self, name="", min_version=0, max_version=0):
        self.name = name
        self.min_version = min_version
        self.max_version = max_version


class FinalizedFeatureKey(Struct):
    __slots__ = ("name", "max_version_level", "min_version_level",)
    FIELDS = (
        Field("name", "string", (3, MAX), default=""),
        Field("max_version_level", "int16", (3, MAX), default=0),
        Field("min_version_level", "int16", (3, MAX), default=0),
    )

    def __init__(self, name="", max_version_level=0, min_version_level=0):
        self.name = name
        self.max_version_level = max_version_level
        self.min_version_level = min_version_level


class ApiVersionsResponse(Message):
    schema_name = "ApiVersionsResponse"
    api_key = 18
    message_type = "response"
    valid_versions = (0, 4)
    flexible_versions = (3, MAX)
    ApiVersion = ApiVersion
    FinalizedFeatureKey = FinalizedFeatureKey
    SupportedFeatureKey = SupportedFeatureKey
    __slots__ = ("error_code", "api_keys", "throttle_time_ms", "supported_features", "finalized_features_epoch", "finalized_features", "zk_migration_ready",)
    FIELDS = (
        Field("error_code", "int16", (0, MAX), default=0),
        Field("api_keys", Array(ApiVersion), (0, MAX), default=NEW),
        Field("throttle_time_ms", "int32", (1, MAX), default=0, ignorable=True),
        Field("supported_features", Array(SupportedFeatureKey), (3, MAX), tagged_versions=(3, MAX), tag=0, default=NEW, ignorable=True),
        Field("finalized_features_epoch", "int64", (3, MAX), tagged_versions=(3, MAX), tag=1, default=-1, ignorable=True),
        Field("finalized_features", Array(FinalizedFeatureKey), (3, MAX), tagged_versions=(3, MAX), tag=2, default=NEW, ignorable=True),
        Field("zk_migration_ready", "bool", (3, MAX), tagged_versions=(3, MAX), tag=3, default=False, ignorable=True),
    )

    def __init__(self, error_code=0, api_keys=NEW, throttle_time_ms=0, supported_features=NEW, finalized_features_epoch=-1, finalized_features=NEW, zk_migration_ready=False):
        self.error_code = error_code
        self.api_keys = [] if api_keys is NEW else api_keys
        self.throttle_time_ms = throttle_time_ms
        self.supported_features = [] if supported_features is NEW else supported_features
        self.finalized_features_epoch = finalized_features_epoch
        self.finalized_features = [] if finalized_features is NEW else finalized_features
        self.zk_migration_ready = zk_migration_ready


__all__ = ["ApiVersionsResponse"]
