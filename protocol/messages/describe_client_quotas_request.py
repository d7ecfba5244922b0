# Generated from DescribeClientQuotasRequest.json by protocol/codegen.py — do not edit.
"""DescribeClientQuotasRequest: API key 48 request, versions 0-1, flexible versions 1+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class ComponentData(Struct):
    __slots__ = ("entity_type", "match_type", "match",)
    FIELDS = (
        Field("entity_type", "string", (0, MAX), default=""),
        Field("match_type", "int8", (0, MAX), default=0),
        Field("match", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
    )

    def __init__(self, entity_type="", match_type=0, match=""):
        self.entity_type = entity_type
        self.match_type = match_type
        self.match = match


class DescribeClientQuotasRequest(Message):
    schema_name = "DescribeClientQuotasRequest"
    api_key = 48
    message_type = "request"
    valid_versions = (0, 1)
    flexible_versions = (1, MAX)
    api_listeners = ('broker',)
    ComponentData = ComponentData
    __slots__ = ("components", "strict",)
    FIELDS = (
        Field("components", Array(ComponentData), (0, MAX), default=NEW),
        Field("strict", "bool", (0, MAX), default=False),
    )

    def __init__(self, components=NEW, strict=False):
        self.components = [] if components is NEW else components
        self.strict = strict


__all__ = ["DescribeClientQuotasRequest"]
