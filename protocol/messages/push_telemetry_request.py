# Generated from PushTelemetryRequest.json by protocol/codegen.py — do not edit.
"""PushTelemetryRequest: API key 72 request, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class PushTelemetryRequest(Message):
    schema_name = "PushTelemetryRequest"
    api_key = 72
    message_type = "request"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    api_listeners = ('broker',)
    __slots__ = ("client_instance_id", "subscription_id", "terminating", "compression_type", "metrics",)
    FIELDS = (
        Field("client_instance_id", "uuid", (0, MAX), default=ZERO_UUID),
        Field("subscription_id", "int32", (0, MAX), default=0),
        Field("terminating", "bool", (0, MAX), default=False),
        Field("compression_type", "int8", (0, MAX), default=0),
        Field("metrics", "bytes", (0, MAX), default=b""),
    )

    def __init__(self, client_instance_id=ZERO_UUID, subscription_id=0, terminating=False, compression_type=0, metrics=b""):
        self.client_instance_id = client_instance_id
        self.subscription_id = subscription_id
        self.terminating = terminating
        self.compression_type = compression_type
        self.metrics = metrics


__all__ = ["PushTelemetryRequest"]
