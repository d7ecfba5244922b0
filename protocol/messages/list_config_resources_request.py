# Generated from ListConfigResourcesRequest.json by protocol/codegen.py — do not edit.
"""ListConfigResourcesRequest: API key 74 request, versions 0-1, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class ListConfigResourcesRequest(Message):
    schema_name = "ListConfigResourcesRequest"
    api_key = 74
    message_type = "request"
    valid_versions = (0, 1)
    flexible_versions = (0, MAX)
    api_listeners = ('broker',)
    __slots__ = ("resource_types",)
    FIELDS = (
        Field("resource_types", Array("int8"), (1, MAX), default=NEW),
    )

    def __init__(self, resource_types=NEW):
        self.resource_types = [] if resource_types is NEW else resource_types


__all__ = ["ListConfigResourcesRequest"]
