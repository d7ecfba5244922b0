# Generated from ListGroupsResponse.json by protocol/codegen.py — do not edit.
"""ListGroupsResponse: API key 16 response, versions 0-5, flexible versions 3+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class ListedGroup(Struct):
    __slots__ = ("group_id", "protocol_type", "group_state", "group_type",)
    FIELDS = (
        Field("group_id", "string", (0, MAX), default=""),
        Field("protocol_type", "string", (0, MAX), default=""),
        Field("group_state", "string", (4, MAX), default="", ignorable=True),
        Field("group_type", "string", (5, MAX), default="", ignorable=True),
    )

    def __init__(self, group_id="", protocol_type="", group_state="", group_type=""):
        self.group_id = group_id
        self.protocol_type = protocol_type
        self.group_state = group_state
        self.group_type = group_type


class ListGroupsResponse(Message):
    schema_name = "ListGroupsResponse"
    api_key = 16
    message_type = "response"
    valid_versions = (0, 5)
    flexible_versions = (3, MAX)
    ListedGroup = ListedGroup
    __slots__ = ("throttle_time_ms", "error_code", "groups",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (1, MAX), default=0, ignorable=True),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("groups", Array(ListedGroup), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, error_code=0, groups=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.groups = [] if groups is NEW else groups


__all__ = ["ListGroupsResponse"]
