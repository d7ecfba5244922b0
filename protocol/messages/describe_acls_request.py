# Generated from DescribeAclsRequest.json by protocol/codegen.py — do not edit.
"""DescribeAclsRequest: API key 29 request, versions 0-3, flexible versions 2+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class DescribeAclsRequest(Message):
    schema_name = "DescribeAclsRequest"
    api_key = 29
    message_type = "request"
    valid_versions = (0, 3)
    flexible_versions = (2, MAX)
    api_listeners = ('broker', 'controller')
    __slots__ = ("resource_type_filter", "resource_name_filter", "pattern_type_filter", "principal_filter", "host_filter", "operation", "permission_type",)
    FIELDS = (
        Field("resource_type_filter", "int8", (0, MAX), default=0),
        Field("resource_name_filter", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
        Field("pattern_type_filter", "int8", (1, MAX), default=3),
        Field("principal_filter", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
        Field("host_filter", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
        Field("operation", "int8", (0, MAX), default=0),
        Field("permission_type", "int8", (0, MAX), default=0),
    )

    def __init__(self, resource_type_filter=0, resource_name_filter="", pattern_type_filter=3, principal_filter="", host_filter="", operation=0, permission_type=0):
        self.resource_type_filter = resource_type_filter
        self.resource_name_filter = resource_name_filter
        self.pattern_type_filter = pattern_type_filter
        self.principal_filter = principal_filter
        self.host_filter = host_filter
        self.operation = operation
        self.permission_type = permission_type


__all__ = ["DescribeAclsRequest"]
