# Generated from FindCoordinatorResponse.json by protocol/codegen.py — do not edit.
"""FindCoordinatorResponse: API key 10 response, versions 0-6, flexible versions 3+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class Coordinator(Struct):
    __slots__ = ("key", "node_id", "host", "port", "error_code", "error_message",)
    FIELDS = (
        Field("key", "string", (4, MAX), default=""),
        Field("node_id", "int32", (4, MAX), default=0),
        Field("host", "string", (4, MAX), default=""),
        Field("port", "int32", (4, MAX), default=0),
        Field("error_code", "int16", (4, MAX), default=0),
        Field("error_message", "string", (4, MAX), nullable_versions=(4, MAX), default="", ignorable=True),
    )

    def __init__(self, key="", node_id=0, host="", port=0, error_code=0, error_message=""):
        self.key = key
        self.node_id = node_id
        self.host = host
        self.port = port
        self.error_code = error_code
        self.error_message = error_message


class FindCoordinatorResponse(Message):
    schema_name = "FindCoordinatorResponse"
    api_key = 10
    message_type = "response"
    valid_versions = (0, 6)
    flexible_versions = (3, MAX)
    Coordinator = Coordinator
    __slots__ = ("throttle_time_ms", "error_code", "error_message", "node_id", "host", "port", "coordinators",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (1, MAX), default=0, ignorable=True),
        Field("error_code", "int16", (0, 3), default=0),
        Field("error_message", "string", (1, 3), nullable_versions=(1, 3), default="", ignorable=True),
        Field("node_id", "int32", (0, 3), default=0),
        Field("host", "string", (0, 3), default=""),
        Field("port", "int32", (0, 3), default=0),
        Field("coordinators", Array(Coordinator), (4, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, error_code=0, error_message="", node_id=0, host="", port=0, coordinators=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message
        self.node_id = node_id
        self.host = host
        self.port = port
        self.coordinators = [] if coordinators is NEW else coordinators


__all__ = ["FindCoordinatorResponse"]
