# Generated from ClientQuotaRecord.json by protocol/codegen.py — do not edit.
"""ClientQuotaRecord: API key 14 metadata, versions 0, flexible versions 0+."""

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


class ClientQuotaRecord(Message):
    schema_name = "ClientQuotaRecord"
    api_key = 14
    message_type = "metadata"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    EntityData = EntityData
    __slots__ = ("entity", "key", "value", "remove",)
    FIELDS = (
        Field("entity", Array(EntityData), (0, MAX), default=NEW),
        Field("key", "string", (0, MAX), default=""),
        Field("value", "float64", (0, MAX), default=0.0),
        Field("remove", "bool", (0, MAX), default=False),
    )

    def __init__(self, entity=NEW, key="", value=0.0, remove=False):
        self.entity = [] if entity is NEW else entity
        self.key = key
        self.value = value
        self.remove = remove


__all__ = ["ClientQuotaRecord"]
