# Generated from SyncGroupResponse.json by protocol/codegen.py — do not edit.
"""SyncGroupResponse: API key 14 response, versions 0-5, flexible versions 4+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class SyncGroupResponse(Message):
    schema_name = "SyncGroupResponse"
    api_key = 14
    message_type = "response"
    valid_versions = (0, 5)
    flexible_versions = (4, MAX)
    __slots__ = ("throttle_time_ms", "error_code", "protocol_type", "protocol_name", "assignment",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (1, MAX), default=0, ignorable=True),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("protocol_type", "string", (5, MAX), nullable_versions=(5, MAX), ignorable=True),
        Field("protocol_name", "string", (5, MAX), nullable_versions=(5, MAX), ignorable=True),
        Field("assignment", "bytes", (0, MAX), default=b""),
    )

    def __init__(self, throttle_time_ms=0, error_code=0, protocol_type=None, protocol_name=None, assignment=b""):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.protocol_type = protocol_type
        self.protocol_name = protocol_name
        self.assignment = assignment


__all__ = ["SyncGroupResponse"]
