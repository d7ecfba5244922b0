# Generated from AlterClientQuotasRequest.json by protocol/codegen.py — do not edit.
"""AlterClientQuotasRequest: API key 49 request, versions 0-1, flexible versions 1+."""

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


class OpData(Struct):
    __slots__ = ("key", "value", "remove",)
    FIELDS = (
        Field("key", "string", (0, MAX), default=""),
        Field("value", "float64", (0, MAX), default=0.0),
        Field("remove", "bool", (0, MAX), default=False),
    )

    def __init__(self, key="", value=0.0, remove=False):
        self.key = key
        self.value = value
        self.remove = remove


class EntryData(Struct):
    __slots__ = ("entity", "ops",)
    FIELDS = (
        Field("entity", Array(EntityData), (0, MAX), default=NEW),
        Field("ops", Array(OpData), (0, MAX), default=NEW),
    )

    def __init__(self, entity=NEW, ops=NEW):
        self.entity = [] if entity is NEW else entity
        self.ops = [] if ops is NEW else ops


class AlterClientQuotasRequest(Message):
    schema_name = "AlterClientQuotasRequest"
    api_key = 49
    message_type = "request"
    valid_versions = (0, 1)
    flexible_versions = (1, MAX)
    api_listeners = ('broker', 'controller')
    EntityData = EntityData
    EntryData = EntryData
    OpData = OpData
    __slots__ = ("entries", "validate_only",)
    FIELDS = (
        Field("entries", Array(EntryData), (0, MAX), default=NEW),
        Field("validate_only", "bool", (0, MAX), default=False),
    )

    def __init__(self, entries=NEW, validate_only=False):
        self.entries = [] if entries is NEW else entries
        self.validate_only = validate_only


__all__ = ["AlterClientQuotasRequest"]
