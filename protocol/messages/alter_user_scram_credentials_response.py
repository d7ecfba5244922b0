# Generated from AlterUserScramCredentialsResponse.json by protocol/codegen.py — do not edit.
"""AlterUserScramCredentialsResponse: API key 51 response, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class AlterUserScramCredentialsResult(Struct):
    __slots__ = ("user", "error_code", "error_message",)
    FIELDS = (
        Field("user", "string", (0, MAX), default=""),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
    )

    def __init__(self, user="", error_code=0, error_message=""):
        self.user = user
        self.error_code = error_code
        self.error_message = error_message


class AlterUserScramCredentialsResponse(Message):
    schema_name = "AlterUserScramCredentialsResponse"
    api_key = 51
    message_type = "response"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    AlterUserScramCredentialsResult = AlterUserScramCredentialsResult
    __slots__ = ("throttle_time_ms", "results",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("results", Array(AlterUserScramCredentialsResult), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, results=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.results = [] if results is NEW else results


__all__ = ["AlterUserScramCredentialsResponse"]
