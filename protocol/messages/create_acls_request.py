# Generated from CreateAclsRequest.json by protocol/codegen.py — do not edit.
"""CreateAclsRequest: API key 30 request, versions 0-3, flexible versions 2+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class AclCreation(Struct):
    __slots__ = ("resource_type", "resource_name", "resource_pattern_type", "principal", "host", "operation", "permission_type",)
    FIELDS = (
        Field("resource_type", "int8", (0, MAX), default=0),
        Field("resource_name", "string", (0, MAX), default=""),
        Field("resource_pattern_type", "int8", (1, MAX), default=3),
        Field("principal", "string", (0, MAX), default=""),
        Field("host", "string", (0, MAX), default=""),
        Field("operation", "int8", (0, MAX), default=0),
        Field("permission_type", "int8", (0, MAX), default=0),
    )

    def __init__(self, resource_type=0, resource_name="", resource_pattern_type=3, principal="", host="", operation=0, permission_type=0):
        self.resource_type = resource_type
        self.resource_name = resource_name
        self.resource_pattern_type = resource_pattern_type
        self.principal = principal
        self.host = host
        self.operation = operation
        self.permission_type = permission_type


class CreateAclsRequest(Message):
    schema_name = "CreateAclsRequest"
    api_key = 30
    message_type = "request"
    valid_versions = (0, 3)
    flexible_versions = (2, MAX)
    api_listeners = ('broker', 'controller')
    AclCreation = AclCreation
    __slots__ = ("creations",)
    FIELDS = (
        Field("creations", Array(AclCreation), (0, MAX), default=NEW),
    )

    def __init__(self, creations=NEW):
        self.creations = [] if creations is NEW else creations


__all__ = ["CreateAclsRequest"]
