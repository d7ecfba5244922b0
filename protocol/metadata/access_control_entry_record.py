# Generated from AccessControlEntryRecord.json by protocol/codegen.py — do not edit.
"""AccessControlEntryRecord: API key 18 metadata, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class AccessControlEntryRecord(Message):
    schema_name = "AccessControlEntryRecord"
    api_key = 18
    message_type = "metadata"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    __slots__ = ("id", "resource_type", "resource_name", "pattern_type", "principal", "host", "operation", "permission_type",)
    FIELDS = (
        Field("id", "uuid", (0, MAX), default=ZERO_UUID),
        Field("resource_type", "int8", (0, MAX), default=0),
        Field("resource_name", "string", (0, MAX), default=""),
        Field("pattern_type", "int8", (0, MAX), default=0),
        Field("principal", "string", (0, MAX), default=""),
        Field("host", "string", (0, MAX), default=""),
        Field("operation", "int8", (0, MAX), default=0),
        Field("permission_type", "int8", (0, MAX), default=0),
    )

    def __init__(self, id=ZERO_UUID, resource_type=0, resource_name="", pattern_type=0, principal="", host="", operation=0, permission_type=0):
        self.id = id
        self.resource_type = resource_type
        self.resource_name = resource_name
        self.pattern_type = pattern_type
        self.principal = principal
        self.host = host
        self.operation = operation
        self.permission_type = permission_type


__all__ = ["AccessControlEntryRecord"]
