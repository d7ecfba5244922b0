# Generated from DeleteGroupsResponse.json by protocol/codegen.py — do not edit.
"""DeleteGroupsResponse: API key 42 response, versions 0-2, flexible versions 2+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class DeletableGroupResult(Struct):
    __slots__ = ("group_id", "error_code",)
    FIELDS = (
        Field("group_id", "string", (0, MAX), default=""),
        Field("error_code", "int16", (0, MAX), default=0),
    )

    def __init__(self, group_id="", error_code=0):
        self.group_id = group_id
        self.error_code = error_code


class DeleteGroupsResponse(Message):
    schema_name = "DeleteGroupsResponse"
    api_key = 42
    message_type = "response"
    valid_versions = (0, 2)
    flexible_versions = (2, MAX)
    DeletableGroupResult = DeletableGroupResult
    __slots__ = ("throttle_time_ms", "results",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("results", Array(DeletableGroupResult), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, results=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.results = [] if results is NEW else results


__all__ = ["DeleteGroupsResponse"]
