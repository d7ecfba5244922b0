# Generated from GetTelemetrySubscriptionsResponse.json by protocol/codegen.py — do not edit.
"""GetTelemetrySubscriptionsResponse: API key 71 response, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class GetTelemetrySubscriptionsResponse(Message):
    schema_name = "GetTelemetrySubscriptionsResponse"
    api_key = 71
    message_type = "response"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    __slots__ = ("throttle_time_ms", "error_code", "client_instance_id", "subscription_id", "accepted_compression_types", "push_interval_ms", "telemetry_max_bytes", "delta_temporality", "requested_metrics",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("client_instance_id", "uuid", (0, MAX), default=ZERO_UUID),
        Field("subscription_id", "int32", (0, MAX), default=0),
        Field("accepted_compression_types", Array("int8"), (0, MAX), default=NEW),
        Field("push_interval_ms", "int32", (0, MAX), default=0),
        Field("telemetry_max_bytes", "int32", (0, MAX), default=0),
        Field("delta_temporality", "bool", (0, MAX), default=False),
        Field("requested_metrics", Array("string"), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, error_code=0, client_instance_id=ZERO_UUID, subscription_id=0, accepted_compression_types=NEW, push_interval_ms=0, telemetry_max_bytes=0, delta_temporality=False, requested_metrics=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.client_instance_id = client_instance_id
        self.subscription_id = subscription_id
        self.accepted_compression_types = [] if accepted_compression_types is NEW else accepted_compression_types
        self.push_interval_ms = push_interval_ms
        self.telemetry_max_bytes = telemetry_max_bytes
        self.delta_temporality = delta_temporality
        self.requested_metrics = [] if requested_metrics is NEW else requested_metrics


__all__ = ["GetTelemetrySubscriptionsResponse"]
