# Generated from IncrementalAlterConfigsResponse.json by protocol/codegen.py — do not edit.
"""IncrementalAlterConfigsResponse: API key 44 response, versions 0-1, flexible versions 1+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class AlterConfigsResourceResponse(Struct):
    __slots__ = ("error_code", "error_message", "resource_type", "resource_name",)
    FIELDS = (
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
        Field("resource_type", "int8", (0, MAX), default=0),
        Field("resource_name", "string", (0, MAX), default=""),
    )

    def __init__(self, error_code=0, error_message="", resource_type=0, resource_name=""):
        self.error_code = error_code
        self.error_message = error_message
        self.resource_type = resource_type
        self.resource_name = resource_name


class IncrementalAlterConfigsResponse(Message):
    schema_name = "IncrementalAlterConfigsResponse"
    api_key = 44
    message_type = "response"
    valid_versions = (0, 1)
    flexible_versions = (1, MAX)
    AlterConfigsResourceResponse = AlterConfigsResourceResponse
    __slots__ = ("throttle_time_ms", "responses",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("responses", Array(AlterConfigsResourceResponse), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, responses=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.responses = [] if responses is NEW else responses


__all__ = ["IncrementalAlterConfigsResponse"]
