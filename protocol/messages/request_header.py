# Generated from RequestHeader.json by protocol/codegen.py — do not edit.
"""RequestHeader: header, versions 0-2, flexible versions 2+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class RequestHeader(Message):
    schema_name = "RequestHeader"
    api_key = None
    message_type = "header"
    valid_versions = (0, 2)
    flexible_versions = (2, MAX)
    __slots__ = ("request_api_key", "request_api_version", "correlation_id", "client_id",)
    FIELDS = (
        Field("request_api_key", "int16", (0, MAX), default=0),
        Field("request_api_version", "int16", (0, MAX), default=0),
        Field("correlation_id", "int32", (0, MAX), default=0),
        Field("client_id", "string", (1, MAX), nullable_versions=(1, MAX), default="", ignorable=True, flexible_versions=None),
    )

    def __init__(self, request_api_key=0, request_api_version=0, correlation_id=0, client_id=""):
        self.request_api_key = request_api_key
        self.request_api_version = request_api_version
        self.correlation_id = correlation_id
        self.client_id = client_id


__all__ = ["RequestHeader"]
