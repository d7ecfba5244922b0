# Generated from DeleteTopicsResponse.json by protocol/codegen.py — do not edit.
"""DeleteTopicsResponse: API key 20 response, versions 0-6, flexible versions 4+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class DeletableTopicResult(Struct):
    __slots__ = ("name", "topic_id", "error_code", "error_message",)
    FIELDS = (
        Field("name", "string", (0, MAX), nullable_versions=(6, MAX), default=""),
        Field("topic_id", "uuid", (6, MAX), default=ZERO_UUID, ignorable=True),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (5, MAX), nullable_versions=(5, MAX), ignorable=True),
    )

    def __init__(self, name="", topic_id=ZERO_UUID, error_code=0, error_message=None):
        self.name = name
        self.topic_id = topic_id
        self.error_code = error_code
        self.error_message = error_message


class DeleteTopicsResponse(Message):
    schema_name = "DeleteTopicsResponse"
    api_key = 20
    message_type = "response"
    valid_versions = (0, 6)
    flexible_versions = (4, MAX)
    DeletableTopicResult = DeletableTopicResult
    __slots__ = ("throttle_time_ms", "responses",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (1, MAX), default=0, ignorable=True),
        Field("responses", Array(DeletableTopicResult), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, responses=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.responses = [] if responses is NEW else responses


__all__ = ["DeleteTopicsResponse"]
