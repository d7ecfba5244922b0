# Generated from CreateAclsResponse.json by protocol/codegen.py — do not edit.
"""CreateAclsResponse: API key 30 response, versions 0-3, flexible versions 2+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class AclCreationResult(Struct):
    __slots__ = ("error_code", "error_message",)
    FIELDS = (
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
    )

    def __init__(self, error_code=0, error_message=""):
        self.error_code = error_code
        self.error_message = error_message


class CreateAclsResponse(Message):
    schema_name = "CreateAclsResponse"
    api_key = 30
    message_type = "response"
    valid_versions = (0, 3)
    flexible_versions = (2, MAX)
    AclCreationResult = AclCreationResult
    __slots__ = ("throttle_time_ms", "results",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("results", Array(AclCreationResult), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, results=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.results = [] if results is NEW else results


__all__ = ["CreateAclsResponse"]
