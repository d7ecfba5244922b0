# Generated from AlterConfigsRequest.json by protocol/codegen.py — do not edit.
"""AlterConfigsRequest: API key 33 request, versions 0-2, flexible versions 2+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class AlterableConfig(Struct):
    __slots__ = ("name", "value",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("value", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
    )

    def __init__(self, name="", value=""):
        self.name = name
        self.value = value


class AlterConfigsResource(Struct):
    __slots__ = ("resource_type", "resource_name", "configs",)
    FIELDS = (
        Field("resource_type", "int8", (0, MAX), default=0),
        Field("resource_name", "string", (0, MAX), default=""),
        Field("configs", Array(AlterableConfig), (0, MAX), default=NEW),
    )

    def __init__(self, resource_type=0, resource_name="", configs=NEW):
        self.resource_type = resource_type
        self.resource_name = resource_name
        self.configs = [] if configs is NEW else configs


class AlterConfigsRequest(Message):
    schema_name = "AlterConfigsRequest"
    api_key = 33
    message_type = "request"
    valid_versions = (0, 2)
    flexible_versions = (2, MAX)
    api_listeners = ('broker', 'controller')
    AlterConfigsResource = AlterConfigsResource
    AlterableConfig = AlterableConfig
    __slots__ = ("resources", "validate_only",)
    FIELDS = (
        Field("resources", Array(AlterConfigsResource), (0, MAX), default=NEW),
        Field("validate_only", "bool", (0, MAX), default=False),
    )

    def __init__(self, resources=NEW, validate_only=False):
        self.resources = [] if resources is NEW else resources
        self.validate_only = validate_only


__all__ = ["AlterConfigsRequest"]
