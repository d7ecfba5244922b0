# Generated from DeleteAclsResponse.json by protocol/codegen.py — do not edit.
"""DeleteAclsResponse: API key 31 response, versions 0-3, flexible versions 2+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class DeleteAclsMatchingAcl(Struct):
    __slots__ = ("error_code", "error_message", "resource_type", "resource_name", "pattern_type", "principal", "host", "operation", "permission_type",)
    FIELDS = (
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
        Field("resource_type", "int8", (0, MAX), default=0),
        Field("resource_name", "string", (0, MAX), default=""),
        Field("pattern_type", "int8", (1, MAX), default=3),
        Field("principal", "string", (0, MAX), default=""),
        Field("host", "string", (0, MAX), default=""),
        Field("operation", "int8", (0, MAX), default=0),
        Field("permission_type", "int8", (0, MAX), default=0),
    )

    def __init__(self, error_code=0, error_message="", resource_type=0, resource_name="", pattern_type=3, principal="", host="", operation=0, permission_type=0):
        self.error_code = error_code
        self.error_message = error_message
        self.resource_type = resource_type
        self.resource_name = resource_name
        self.pattern_type = pattern_type
        self.principal = principal
        self.host = host
        self.operation = operation
        self.permission_type = permission_type


class DeleteAclsFilterResult(Struct):
    __slots__ = ("error_code", "error_message", "matching_acls",)
    FIELDS = (
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
        Field("matching_acls", Array(DeleteAclsMatchingAcl), (0, MAX), default=NEW),
    )

    def __init__(self, error_code=0, error_message="", matching_acls=NEW):
        self.error_code = error_code
        self.error_message = error_message
        self.matching_acls = [] if matching_acls is NEW else matching_acls


class DeleteAclsResponse(Message):
    schema_name = "DeleteAclsResponse"
    api_key = 31
    message_type = "response"
    valid_versions = (0, 3)
    flexible_versions = (2, MAX)
    DeleteAclsFilterResult = DeleteAclsFilterResult
    DeleteAclsMatchingAcl = DeleteAclsMatchingAcl
    __slots__ = ("throttle_time_ms", "filter_results",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("filter_results", Array(DeleteAclsFilterResult), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, filter_results=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.filter_results = [] if filter_results is NEW else filter_results


__all__ = ["DeleteAclsResponse"]
