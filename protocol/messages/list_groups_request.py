# Generated from ListGroupsRequest.json by protocol/codegen.py — do not edit.
"""ListGroupsRequest: API key 16 request, versions 0-5, flexible versions 3+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class ListGroupsRequest(Message):
    schema_name = "ListGroupsRequest"
    api_key = 16
    message_type = "request"
    valid_versions = (0, 5)
    flexible_versions = (3, MAX)
    api_listeners = ('broker',)
    __slots__ = ("states_filter", "types_filter",)
    FIELDS = (
        Field("states_filter", Array("string"), (4, MAX), default=NEW),
        Field("types_filter", Array("string"), (5, MAX), default=NEW),
    )

    def __init__(self, states_filter=NEW, types_filter=NEW):
        self.states_filter = [] if states_filter is NEW else states_filter
        self.types_filter = [] if types_filter is NEW else types_filter


__all__ = ["ListGroupsRequest"]
