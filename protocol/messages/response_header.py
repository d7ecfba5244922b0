# Generated from ResponseHeader.json by protocol/codegen.py — do not edit.
"""ResponseHeader: header, versions 0-1, flexible versions 1+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class ResponseHeader(Message):
    schema_name = "ResponseHeader"
    api_key = None
    message_type = "header"
    valid_versions = (0, 1)
    flexible_versions = (1, MAX)
    __slots__ = ("correlation_id",)
    FIELDS = (
        Field("correlation_id", "int32", (0, MAX), default=0),
    )

    def __init__(self, correlation_id=0):
        self.correlation_id = correlation_id


__all__ = ["ResponseHeader"]
