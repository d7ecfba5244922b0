# Generated from DescribeConfigsResponse.json by protocol/codegen.py — do not edit.
"""DescribeConfigsResponse: API key 32 response, versions 0-4, flexible versions 4+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class DescribeConfigsSynonym(Struct):
    __slots__ = ("name", "value", "source",)
    FIELDS = (
        Field("name", "string", (1, MAX), default=""),
        Field("value", "string", (1, MAX), nullable_versions=(0, MAX), default=""),
        Field("source", "int8", (1, MAX), default=0),
    )

    def __init__(self, name="", value="", source=0):
        self.name = name
        self.value = value
        self.source = source


class DescribeConfigsResourceResult(Struct):
    __slots__ = ("name", "value", "read_only", "is_default", "config_source", "is_sensitive", "synonyms", "config_type", "documentation",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("value", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
        Field("read_only", "bool", (0, MAX), default=False),
        Field("is_default", "bool", (0, 0), default=False),
        Field("config_source", "int8", (1, MAX), default=-1, ignorable=True),
        Field("is_sensitive", "bool", (0, MAX), default=False),
        Field("synonyms", Array(DescribeConfigsSynonym), (1, MAX), default=NEW, ignorable=True),
        Field("config_type", "int8", (3, MAX), default=0, ignorable=True),
        Field("documentation", "string", (3, MAX), nullable_versions=(0, MAX), default="", ignorable=True),
    )

    def __init__(self, name="", value="", read_only=False, is_default=False, config_source=-1, is_sensitive=False, synonyms=NEW, config_type=0, documentation=""):
        self.name = name
        self.value = value
        self.read_only = read_only
        self.is_default = is_default
        self.config_source = config_source
        self.is_sensitive = is_sensitive
        self.synonyms = [] if synonyms is NEW else synonyms
        self.config_type = config_type
        self.documentation = documentation


class DescribeConfigsResult(Struct):
    __slots__ = ("error_code", "error_message", "resource_type", "resource_name", "configs",)
    FIELDS = (
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
        Field("resource_type", "int8", (0, MAX), default=0),
        Field("resource_name", "string", (0, MAX), default=""),
        Field("configs", Array(DescribeConfigsResourceResult), (0, MAX), default=NEW),
    )

    def __init__(self, error_code=0, error_message="", resource_type=0, resource_name="", configs=NEW):
        self.error_code = error_code
        self.error_message = error_message
        self.resource_type = resource_type
        self.resource_name = resource_name
        self.configs = [] if configs is NEW else configs


class DescribeConfigsResponse(Message):
    schema_name = "DescribeConfigsResponse"
    api_key = 32
    message_type = "response"
    valid_versions = (0, 4)
    flexible_versions = (4, MAX)
    DescribeConfigsResourceResult = DescribeConfigsResourceResult
    DescribeConfigsResult = DescribeConfigsResult
    DescribeConfigsSynonym = DescribeConfigsSynonym
    __slots__ = ("throttle_time_ms", "results",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("results", Array(DescribeConfigsResult), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, results=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.results = [] if results is NEW else results


__all__ = ["DescribeConfigsResponse"]
