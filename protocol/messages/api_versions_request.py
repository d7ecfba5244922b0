# Generated from ApiVersionsRequest.json by protocol/codegen.py — do not edit.
"""ApiVersionsRequest: API key 18 request, versions 0-4, flexible versions 3+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class ApiVersionsRequest(Message):
    schema_name = "ApiVersionsRequest"
    api_key = 18
    message_type = "request"
    valid_versions = (0, 4)
    flexible_versions = (3, MAX)
    api_listeners = ('broker', 'controller')
    __slots__ = ("client_software_name", "client_software_version",)
    FIELDS = (
        Field("client_software_name", "string", (3, MAX), default="", ignorable=True),
        Field("client_software_version", "string", (3, MAX), default="", ignorable=True),
    )

    def __init__(self, client_software_name="", client_software_version=""):
        self.client_software_name = client_software_name
        self.client_software_version = client_software_version


__all__ = ["ApiVersionsRequest"]
