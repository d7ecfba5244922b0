# Generated from DescribeUserScramCredentialsResponse.json by protocol/codegen.py — do not edit.
"""DescribeUserScramCredentialsResponse: API key 50 response, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class CredentialInfo(Struct):
    __slots__ = ("mechanism", "iterations",)
    FIELDS = (
        Field("mechanism", "int8", (0, MAX), default=0),
        Field("iterations", "int32", (0, MAX), default=0),
    )

    def __init__(self, mechanism=0, iterations=0):
        self.mechanism = mechanism
        self.iterations = iterations


class DescribeUserScramCredentialsResult(Struct):
    __slots__ = ("user", "error_code", "error_message", "credential_infos",)
    FIELDS = (
        Field("user", "string", (0, MAX), default=""),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
        Field("credential_infos", Array(CredentialInfo), (0, MAX), default=NEW),
    )

    def __init__(self, user="", error_code=0, error_message="", credential_infos=NEW):
        self.user = user
        self.error_code = error_code
        self.error_message = error_message
        self.credential_infos = [] if credential_infos is NEW else credential_infos


class DescribeUserScramCredentialsResponse(Message):
    schema_name = "DescribeUserScramCredentialsResponse"
    api_key = 50
    message_type = "response"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    CredentialInfo = CredentialInfo
    DescribeUserScramCredentialsResult = DescribeUserScramCredentialsResult
    __slots__ = ("throttle_time_ms", "error_code", "error_message", "results",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
        Field("results", Array(DescribeUserScramCredentialsResult), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, error_code=0, error_message="", results=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message
        self.results = [] if results is NEW else results


__all__ = ["DescribeUserScramCredentialsResponse"]
