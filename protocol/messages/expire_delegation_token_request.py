# Generated from ExpireDelegationTokenRequest.json by protocol/codegen.py — do not edit.
"""ExpireDelegationTokenRequest: API key 40 request, versions 0-2, flexible versions 2+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class ExpireDelegationTokenRequest(Message):
    schema_name = "ExpireDelegationTokenRequest"
    api_key = 40
    message_type = "request"
    valid_versions = (0, 2)
    flexible_versions = (2, MAX)
    api_listeners = ('broker', 'controller')
    __slots__ = ("hmac", "expiry_time_period_ms",)
    FIELDS = (
        Field("hmac", "bytes", (0, MAX), default=b""),
        Field("expiry_time_period_ms", "int64", (0, MAX), default=0),
    )

    def __init__(self, hmac=b"", expiry_time_period_ms=0):
        self.hmac = hmac
        self.expiry_time_period_ms = expiry_time_period_ms


__all__ = ["ExpireDelegationTokenRequest"]
