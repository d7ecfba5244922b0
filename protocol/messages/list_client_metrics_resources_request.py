# Generated from ListClientMetricsResourcesRequest.json by protocol/codegen.py — do not edit.
"""ListClientMetricsResourcesRequest: API key 74 request, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class ListClientMetricsResourcesRequest(Message):
    schema_name = "ListClientMetricsResourcesRequest"
    api_key = 74
    message_type = "request"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    api_listeners = ('broker',)
    __slots__ = ()
    FIELDS = ()

    def __init__(self):
        pass


__all__ = ["ListClientMetricsResourcesRequest"]
