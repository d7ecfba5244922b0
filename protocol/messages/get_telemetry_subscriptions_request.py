# Generated from GetTelemetrySubscriptionsRequest.json by protocol/codegen.py — do not edit.
"""GetTelemetrySubscriptionsRequest: API key 71 request, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class GetTelemetrySubscriptionsRequest(Message):
    schema_name = "GetTelemetrySubscriptionsRequest"
    api_key = 71
    message_type = "request"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    api_listeners = ('broker',)
    __slots__ = ("client_instance_id",)
    FIELDS = (
        Field("client_instance_id", "uuid", (0, MAX), default=ZERO_UUID),
    )

    def __init__(self, client_instance_id=ZERO_UUID):
        self.client_instance_id = client_instance_id


__all__ = ["GetTelemetrySubscriptionsRequest"]
