# Generated from ControllerRegistrationRequest.json by protocol/codegen.py — do not edit.
"""ControllerRegistrationRequest: API key 70 request, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class Listener(Struct):
    __slots__ = ("name", "host", "port", "security_protocol",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("host", "string", (0, MAX), default=""),
        Field("port", "uint16", (0, MAX), default=0),
        Field("security_protocol", "int16", (0, MAX), default=0),
    )

    def __init__(self, name="", host="", port=0, security_protocol=0):
        self.name = name
        self.host = host
        self.port = port
        self.security_protocol = security_protocol


class Feature(Struct):
    __slots__ = ("name", "min_supported_version", "max_supported_version",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("min_supported_version", "int16", (0, MAX), default=0),
        Field("max_supported_version", "int16", (0, MAX), default=0),
    )

    def __init__(self, name="", min_supported_version=0, max_supported_version=0):
        self.name = name
        self.min_supported_version = min_supported_version
        self.max_supported_version = max_supported_version


class ControllerRegistrationRequest(Message):
    schema_name = "ControllerRegistrationRequest"
    api_key = 70
    message_type = "request"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    api_listeners = ('controller',)
    Feature = Feature
    Listener = Listener
    __slots__ = ("controller_id", "incarnation_id", "zk_migration_ready", "listeners", "features",)
    FIELDS = (
        Field("controller_id", "int32", (0, MAX), default=0),
        Field("incarnation_id", "uuid", (0, MAX), default=ZERO_UUID),
        Field("zk_migration_ready", "bool", (0, MAX), default=False),
        Field("listeners", Array(Listener), (0, MAX), default=NEW),
        Field("features", Array(Feature), (0, MAX), default=NEW),
    )

    def __init__(self, controller_id=0, incarnation_id=ZERO_UUID, zk_migration_ready=False, listeners=NEW, features=NEW):
        self.controller_id = controller_id
        self.incarnation_id = incarnation_id
        self.zk_migration_ready = zk_migration_ready
        self.listeners = [] if listeners is NEW else listeners
        self.features = [] if features is NEW else features


__all__ = ["ControllerRegistrationRequest"]
