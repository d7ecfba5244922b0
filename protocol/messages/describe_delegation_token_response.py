# Generated from DescribeDelegationTokenResponse.json by protocol/codegen.py — do not edit.
"""DescribeDelegationTokenResponse: API key 41 response, versions 0-3, flexible versions 2+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class DescribedDelegationTokenRenewer(Struct):
    __slots__ = ("principal_type", "principal_name",)
    FIELDS = (
        Field("principal_type", "string", (0, MAX), default=""),
        Field("principal_name", "string", (0, MAX), default=""),
    )

    def __init__(self, principal_type="", principal_name=""):
        self.principal_type = principal_type
        self.principal_name = principal_name


class DescribedDelegationToken(Struct):
    __slots__ = ("principal_type", "principal_name", "token_requester_principal_type", "token_requester_principal_name", "issue_timestamp", "expiry_timestamp", "max_timestamp", "token_id", "hmac", "renewers",)
    FIELDS = (
        Field("principal_type", "string", (0, MAX), default=""),
        Field("principal_name", "string", (0, MAX), default=""),
        Field("token_requester_principal_type", "string", (3, MAX), default=""),
        Field("token_requester_principal_name", "string", (3, MAX), default=""),
        Field("issue_timestamp", "int64", (0, MAX), default=0),
        Field("expiry_timestamp", "int64", (0, MAX), default=0),
        Field("max_timestamp", "int64", (0, MAX), default=0),
        Field("token_id", "string", (0, MAX), default=""),
        Field("hmac", "bytes", (0, MAX), default=b""),
        Field("renewers", Array(DescribedDelegationTokenRenewer), (0, MAX), default=NEW),
    )

    def __init__(self, principal_type="", principal_name="", token_requester_principal_type="", token_requester_principal_name="", issue_timestamp=0, expiry_timestamp=0, max_timestamp=0, token_id="", hmac=b"", renewers=NEW):
        self.principal_type = principal_type
        self.principal_name = principal_name
        self.token_requester_principal_type = token_requester_principal_type
        self.token_requester_principal_name = token_requester_principal_name
        self.issue_timestamp = issue_timestamp
        self.expiry_timestamp = expiry_timestamp
        self.max_timestamp = max_timestamp
        self.token_id = token_id
        self.hmac = hmac
        self.renewers = [] if renewers is NEW else renewers


class DescribeDelegationTokenResponse(Message):
    schema_name = "DescribeDelegationTokenResponse"
    api_key = 41
    message_type = "response"
    valid_versions = (0, 3)
    flexible_versions = (2, MAX)
    DescribedDelegationToken = DescribedDelegationToken
    DescribedDelegationTokenRenewer = DescribedDelegationTokenRenewer
    __slots__ = ("error_code", "tokens", "throttle_time_ms",)
    FIELDS = (
        Field("error_code", "int16", (0, MAX), default=0),
        Field("tokens", Array(DescribedDelegationToken), (0, MAX), default=NEW),
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
    )

    def __init__(self, error_code=0, tokens=NEW, throttle_time_ms=0):
        self.error_code = error_code
        self.tokens = [] if tokens is NEW else tokens
        self.throttle_time_ms = throttle_time_ms


__all__ = ["DescribeDelegationTokenResponse"]
