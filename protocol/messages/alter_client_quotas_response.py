# Generated from AlterClientQuotasResponse.json by protocol/codegen.py — do not edit.
"""AlterClientQuotasResponse: API key 49 response, versions 0-1, flexible versions 1+."""

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


class EntryData(Struct):
    __slots__ = ("error_code", "error_message", "entity",)
    FIELDS = (
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
        Field("entity", Array(EntityData), (0, MAX), default=NEW),
    )

    def __init__(self, error_code=0, error_message="", entity=NEW):
        self.error_code = error_code
        self.error_message = error_message
        self.entity = [] if entity is NEW else entity


class AlterClientQuotasResponse(Message):
    schema_name = "AlterClientQuotasResponse"
    api_key = 49
    message_type = "response"
    valid_versions = (0, 1)
    flexible_versions = (1, MAX)
    EntityData = EntityData
    EntryData = EntryData
    __slots__ = ("throttle_time_ms", "entries",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("entries", Array(EntryData), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, entries=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.entries = [] if entries is NEW else entries


__all__ = ["AlterClientQuotasResponse"]
