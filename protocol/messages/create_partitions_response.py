# Generated from CreatePartitionsResponse.json by protocol/codegen.py — do not edit.
"""CreatePartitionsResponse: API key 37 response, versions 0-3, flexible versions 2+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class CreatePartitionsTopicResult(Struct):
    __slots__ = ("name", "error_code", "error_message",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX)),
    )

    def __init__(self, name="", error_code=0, error_message=None):
        self.name = name
        self.error_code = error_code
        self.error_message = error_message


class CreatePartitionsResponse(Message):
    schema_name = "CreatePartitionsResponse"
    api_key = 37
    message_type = "response"
    valid_versions = (0, 3)
    flexible_versions = (2, MAX)
    CreatePartitionsTopicResult = CreatePartitionsTopicResult
    __slots__ = ("throttle_time_ms", "results",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("results", Array(CreatePartitionsTopicResult), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, results=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.results = [] if results is NEW else results


__all__ = ["CreatePartitionsResponse"]
