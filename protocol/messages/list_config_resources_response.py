# Generated from ListConfigResourcesResponse.json by protocol/codegen.py — do not edit.
"""ListConfigResourcesResponse: API key 74 response, versions 0-1, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class ConfigResource(Struct):
    __slots__ = ("resource_name", "resource_type",)
    FIELDS = (
        Field("resource_name", "string", (0, MAX), default=""),
        Field("resource_type", "int8", (1, MAX), default=16, ignorable=True),
    )

    def __init__(self, resource_name="", resource_type=16):
        self.resource_name = resource_name
        self.resource_type = resource_type


class ListConfigResourcesResponse(Message):
    schema_name = "ListConfigResourcesResponse"
    api_key = 74
    message_type = "response"
    valid_versions = (0, 1)
    flexible_versions = (0, MAX)
    ConfigResource = ConfigResource
    __slots__ = ("throttle_time_ms", "error_code", "config_resources",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("config_resources", Array(ConfigResource), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, error_code=0, config_resources=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.config_resources = [] if config_resources is NEW else config_resources


__all__ = ["ListConfigResourcesResponse"]
