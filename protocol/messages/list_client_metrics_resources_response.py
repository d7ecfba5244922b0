# Generated from ListClientMetricsResourcesResponse.json by protocol/codegen.py — do not edit.
"""ListClientMetricsResourcesResponse: API key 74 response, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class ClientMetricsResource(Struct):
    __slots__ = ("name",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
    )

    def __init__(self, name=""):
        self.name = name


class ListClientMetricsResourcesResponse(Message):
    schema_name = "ListClientMetricsResourcesResponse"
    api_key = 74
    message_type = "response"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    ClientMetricsResource = ClientMetricsResource
    __slots__ = ("throttle_time_ms", "error_code", "client_metrics_resources",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("client_metrics_resources", Array(ClientMetricsResource), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, error_code=0, client_metrics_resources=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.client_metrics_resources = [] if client_metrics_resources is NEW else client_metrics_resources


__all__ = ["ListClientMetricsResourcesResponse"]
