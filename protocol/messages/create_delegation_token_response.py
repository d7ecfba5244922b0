# Generated from CreateDelegationTokenResponse.json by protocol/codegen.py — do not edit.
"""CreateDelegationTokenResponse: API key 38 response, versions 0-3, flexible versions 2+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class CreateDelegationTokenResponse(Message):
    schema_name = "CreateDelegationTokenResponse"
    api_key = 38
    message_type = "response"
    valid_versions = (0, 3)
    flexible_versions = (2, MAX)
    __slots__ = ("error_code", "principal_type", "principal_name", "token_requester_principal_type", "token_requester_principal_name", "issue_timestamp_ms", "expiry_timestamp_ms", "max_timestamp_ms", "token_id", "hmac", "throttle_time_ms",)
    FIELDS = (
        Field("error_code", "int16", (0, MAX), default=0),
        Field("principal_type", "string", (0, MAX), default=""),
        Field("principal_name", "string", (0, MAX), default=""),
        Field("token_requester_principal_type", "string", (3, MAX), default=""),
        Field("token_requester_principal_name", "string", (3, MAX), default=""),
        Field("issue_timestamp_ms", "int64", (0, MAX), default=0),
        Field("expiry_timestamp_ms", "int64", (0, MAX), default=0),
        Field("max_timestamp_ms", "int64", (0, MAX), default=0),
        Field("token_id", "string", (0, MAX), default=""),
        Field("hmac", "bytes", (0, MAX), default=b""),
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
    )

    def __init__(self, error_code=0, principal_type="", principal_name="", token_requester_principal_type="", token_requester_principal_name="", issue_timestamp_ms=0, expiry_timestamp_ms=0, max_timestamp_ms=0, token_id="", hmac=b"", throttle_time_ms=0):
        self.error_code = error_code
        self.principal_type = principal_type
        self.principal_name = principal_name
        self.token_requester_principal_type = token_requester_principal_type
        self.token_requester_principal_name = token_requester_principal_name
        self.issue_timestamp_ms = issue_timestamp_ms
        self.expiry_timestamp_ms = expiry_timestamp_ms
        self.max_timestamp_ms = max_timestamp_ms
        self.token_id = token_id
        self.hmac = hmac
        self.throttle_time_ms = throttle_time_ms


__all__ = ["CreateDelegationTokenResponse"]
