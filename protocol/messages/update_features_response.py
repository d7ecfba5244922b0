# Generated from UpdateFeaturesResponse.json by protocol/codegen.py — do not edit.
"""UpdateFeaturesResponse: API key 57 response, versions 0-2, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class UpdatableFeatureResult(Struct):
    __slots__ = ("feature", "error_code", "error_message",)
    FIELDS = (
        Field("feature", "string", (0, MAX), default=""),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
    )

    def __init__(self, feature="", error_code=0, error_message=""):
        self.feature = feature
        self.error_code = error_code
        self.error_message = error_message


class UpdateFeaturesResponse(Message):
    schema_name = "UpdateFeaturesResponse"
    api_key = 57
    message_type = "response"
    valid_versions = (0, 2)
    flexible_versions = (0, MAX)
    UpdatableFeatureResult = UpdatableFeatureResult
    __slots__ = ("throttle_time_ms", "error_code", "error_message", "results",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
        Field("results", Array(UpdatableFeatureResult), (0, 1), default=NEW, ignorable=True),
    )

    def __init__(self, throttle_time_ms=0, error_code=0, error_message="", results=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message
        self.results = [] if results is NEW else results


__all__ = ["UpdateFeaturesResponse"]
