# Generated from DescribeAclsResponse.json by protocol/codegen.py — do not edit.
"""DescribeAclsResponse: API key 29 response, versions 0-3, flexible versions 2+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class AclDescription(Struct):
    __slots__ = ("principal", "host", "operation", "permission_type",)
    FIELDS = (
        Field("principal", "string", (0, MAX), default=""),
        Field("host", "string", (0, MAX), default=""),
        Field("operation", "int8", (0, MAX), default=0),
        Field("permission_type", "int8", (0, MAX), default=0),
    )

    def __init__(self, principal="", host="", operation=0, permission_type=0):
        self.principal = principal
        self.host = host
        self.operation = operation
        self.permission_type = permission_type


class DescribeAclsResource(Struct):
    __slots__ = ("resource_type", "resource_name", "pattern_type", "acls",)
    FIELDS = (
        Field("resource_type", "int8", (0, MAX), default=0),
        Field("resource_name", "string", (0, MAX), default=""),
        Field("pattern_type", "int8", (1, MAX), default=3),
        Field("acls", Array(AclDescription), (0, MAX), default=NEW),
    )

    def __init__(self, resource_type=0, resource_name="", pattern_type=3, acls=NEW):
        self.resource_type = resource_type
        self.resource_name = resource_name
        self.pattern_type = pattern_type
        self.acls = [] if acls is NEW else acls


class DescribeAclsResponse(Message):
    schema_name = "DescribeAclsResponse"
    api_key = 29
    message_type = "response"
    valid_versions = (0, 3)
    flexible_versions = (2, MAX)
    AclDescription = AclDescription
    DescribeAclsResource = DescribeAclsResource
    __slots__ = ("throttle_time_ms", "error_code", "error_message", "resources",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
        Field("resources", Array(DescribeAclsResource), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, error_code=0, error_message="", resources=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message
        self.resources = [] if resources is NEW else resources


__all__ = ["DescribeAclsResponse"]
