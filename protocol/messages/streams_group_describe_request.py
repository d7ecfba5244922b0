# Generated from StreamsGroupDescribeRequest.json by protocol/codegen.py — do not edit.
"""StreamsGroupDescribeRequest: API key 89 request, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class StreamsGroupDescribeRequest(Message):
    schema_name = "StreamsGroupDescribeRequest"
    api_key = 89
    message_type = "request"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    latest_version_unstable = True
    api_listeners = ('broker',)
    __slots__ = ("group_ids", "include_authorized_operations",)
    FIELDS = (
        Field("group_ids", Array("string"), (0, MAX), default=NEW),
        Field("include_authorized_operations", "bool", (0, MAX), default=False),
    )

    def __init__(self, group_ids=NEW, include_authorized_operations=False):
        self.group_ids = [] if group_ids is NEW else group_ids
        self.include_authorized_operations = include_authorized_operations


__all__ = ["StreamsGroupDescribeRequest"]
