# Generated from RenewDelegationTokenRequest.json by protocol/codegen.py — do not edit.
"""RenewDelegationTokenRequest: API key 39 request, versions 0-2, flexible versions 2+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class RenewDelegationTokenRequest(Message):
    schema_name = "RenewDelegationTokenRequest"
    api_key = 39
    message_type = "request"
    valid_versions = (0, 2)
    flexible_versions = (2, MAX)
    api_listeners = ('broker', 'controller')
    __slots__ = ("hmac", "renew_period_ms",)
    FIELDS = (
        Field("hmac", "bytes", (0, MAX), default=b""),
        Field("renew_period_ms", "int64", (0, MAX), default=0),
    )

    def __init__(self, hmac=b"", renew_period_ms=0):
        self.hmac = hmac
        self.renew_period_ms = renew_period_ms


__all__ = ["RenewDelegationTokenRequest"]
