# Generated from DescribeClientQuotasResponse.json by protocol/codegen.py — do not edit.
"""DescribeClientQuotasResponse: API key 48 response, versions 0-1, flexible versions 1+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class EntityData(Struct):
    __slots__ = ("entity_type", "entity_name",)
    FIELDS = (
        Field("entity_type", "string", (0, MAX), default=""),
        Field("entity_name", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
    )

    def __init__(self, entity_type="", entity_name=""):
        self.entity_type = entity_type
        self.entity_name = entity_name


class ValueData(Struct):
    __slots__ = ("key", "value",)
    FIELDS = (
        Field("key", "string", (0, MAX), default=""),
        Field("value", "float64", (0, MAX), default=0.0),
    )

    def __init__(self, key="", value=0.0):
        self.key = key
        self.value = value


class EntryData(Struct):
    __slots__ = ("entity", "values",)
    FIELDS = (
        Field("entity", Array(EntityData), (0, MAX), default=NEW),
        Field("values", Array(ValueData), (0, MAX), default=NEW),
    )

    def __init__(self, entity=NEW, values=NEW):
        self.entity = [] if entity is NEW else entity
        self.values = [] if values is NEW else values


class DescribeClientQuotasResponse(Message):
    schema_name = "DescribeClientQuotasResponse"
    api_key = 48
    message_type = "response"
    valid_versions = (0, 1)
    flexible_versions = (1, MAX)
    EntityData = EntityData
    EntryData = EntryData
    ValueData = ValueData
    __slots__ = ("throttle_time_ms", "error_code", "error_message", "entries",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
        Field("entries", Array(EntryData), (0, MAX), nullable_versions=(0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, error_code=0, error_message="", entries=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message
        self.entries = [] if entries is NEW else entries


__all__ = ["DescribeClientQuotasResponse"]
