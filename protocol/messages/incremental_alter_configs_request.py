# Generated from IncrementalAlterConfigsRequest.json by protocol/codegen.py — do not edit.
"""IncrementalAlterConfigsRequest: API key 44 request, versions 0-1, flexible versions 1+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class AlterableConfig(Struct):
    __slots__ = ("name", "config_operation", "value",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("config_operation", "int8", (0, MAX), default=0),
        Field("value", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
    )

    def __init__(self, name="", config_operation=0, value=""):
        self.name = name
        self.config_operation = config_operation
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


class IncrementalAlterConfigsRequest(Message):
    schema_name = "IncrementalAlterConfigsRequest"
    api_key = 44
    message_type = "request"
    valid_versions = (0, 1)
    flexible_versions = (1, MAX)
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


__all__ = ["IncrementalAlterConfigsRequest"]
