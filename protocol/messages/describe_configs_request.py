# Generated from DescribeConfigsRequest.json by protocol/codegen.py — do not edit.
"""DescribeConfigsRequest: API key 32 request, versions 0-4, flexible versions 4+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class DescribeConfigsResource(Struct):
    __slots__ = ("resource_type", "resource_name", "configuration_keys",)
    FIELDS = (
        Field("resource_type", "int8", (0, MAX), default=0),
        Field("resource_name", "string", (0, MAX), default=""),
        Field("configuration_keys", Array("string"), (0, MAX), nullable_versions=(0, MAX), default=NEW),
    )

    def __init__(self, resource_type=0, resource_name="", configuration_keys=NEW):
        self.resource_type = resource_type
        self.resource_name = resource_name
        self.configuration_keys = [] if configuration_keys is NEW else configuration_keys


class DescribeConfigsRequest(Message):
    schema_name = "DescribeConfigsRequest"
    api_key = 32
    message_type = "request"
    valid_versions = (0, 4)
    flexible_versions = (4, MAX)
    api_listeners = ('broker', 'controller')
    DescribeConfigsResource = DescribeConfigsResource
    __slots__ = ("resources", "include_synonyms", "include_documentation",)
    FIELDS = (
        Field("resources", Array(DescribeConfigsResource), (0, MAX), default=NEW),
        Field("include_synonyms", "bool", (1, MAX), default=False),
        Field("include_documentation", "bool", (3, MAX), default=False),
    )

    def __init__(self, resources=NEW, include_synonyms=False, include_documentation=False):
        self.resources = [] if resources is NEW else resources
        self.include_synonyms = include_synonyms
        self.include_documentation = include_documentation


__all__ = ["DescribeConfigsRequest"]
