# Generated from DeleteGroupsRequest.json by protocol/codegen.py — do not edit.
"""DeleteGroupsRequest: API key 42 request, versions 0-2, flexible versions 2+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class DeleteGroupsRequest(Message):
    schema_name = "DeleteGroupsRequest"
    api_key = 42
    message_type = "request"
    valid_versions = (0, 2)
    flexible_versions = (2, MAX)
    api_listeners = ('broker',)
    __slots__ = ("groups_names",)
    FIELDS = (
        Field("groups_names", Array("string"), (0, MAX), default=NEW),
    )

    def __init__(self, groups_names=NEW):
        self.groups_names = [] if groups_names is NEW else groups_names


__all__ = ["DeleteGroupsRequest"]
