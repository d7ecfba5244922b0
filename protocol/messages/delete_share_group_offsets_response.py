# Generated from DeleteShareGroupOffsetsResponse.json by protocol/codegen.py — do not edit.
"""DeleteShareGroupOffsetsResponse: API key 92 response, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class DeleteShareGroupOffsetsResponseTopic(Struct):
    __slots__ = ("topic_name", "topic_id", "error_code", "error_message",)
    FIELDS = (
        Field("topic_name", "string", (0, MAX), default=""),
        Field("topic_id", "uuid", (0, MAX), default=ZERO_UUID),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX)),
    )

    def __init__(self, topic_name="", topic_id=ZERO_UUID, error_code=0, error_message=None):
        self.topic_name = topic_name
        self.topic_id = topic_id
        self.error_code = error_code
        self.error_message = error_message


class DeleteShareGroupOffsetsResponse(Message):
    schema_name = "DeleteShareGroupOffsetsResponse"
    api_key = 92
    message_type = "response"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    DeleteShareGroupOffsetsResponseTopic = DeleteShareGroupOffsetsResponseTopic
    __slots__ = ("throttle_time_ms", "error_code", "error_message", "responses",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX)),
        Field("responses", Array(DeleteShareGroupOffsetsResponseTopic), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, error_code=0, error_message=None, responses=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message
        self.responses = [] if responses is NEW else responses


__all__ = ["DeleteShareGroupOffsetsResponse"]
