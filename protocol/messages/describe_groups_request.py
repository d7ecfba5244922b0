# Generated from DescribeGroupsRequest.json by protocol/codegen.py — do not edit.
"""DescribeGroupsRequest: API key 15 request, versions 0-6, flexible versions 5+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class DescribeGroupsRequest(Message):
    schema_name = "DescribeGroupsRequest"
    api_key = 15
    message_type = "request"
    valid_versions = (0, 6)
    flexible_versions = (5, MAX)
    api_listeners = ('broker',)
    __slots__ = ("groups", "include_authorized_operations",)
    FIELDS = (
        Field("groups", Array("string"), (0, MAX), default=NEW),
        Field("include_authorized_operations", "bool", (3, MAX), default=False),
    )

    def __init__(self, groups=NEW, include_authorized_operations=False):
        self.groups = [] if groups is NEW else groups
        self.include_authorized_operations = include_authorized_operations


__all__ = ["DescribeGroupsRequest"]
