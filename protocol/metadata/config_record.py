# Generated from ConfigRecord.json by protocol/codegen.py — do not edit.
"""ConfigRecord: API key 4 metadata, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class ConfigRecord(Message):
    schema_name = "ConfigRecord"
    api_key = 4
    message_type = "metadata"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    __slots__ = ("resource_type", "resource_name", "name", "value",)
    FIELDS = (
        Field("resource_type", "int8", (0, MAX), default=0),
        Field("resource_name", "string", (0, MAX), default=""),
        Field("name", "string", (0, MAX), default=""),
        Field("value", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
    )

    def __init__(self, resource_type=0, resource_name="", name="", value=""):
        self.resource_type = resource_type
        self.resource_name = resource_name
        self.name = name
        self.value = value


__all__ = ["ConfigRecord"]
