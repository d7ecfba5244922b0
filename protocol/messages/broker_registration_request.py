# Generated from BrokerRegistrationRequest.json by protocol/codegen.py — do not edit.
"""BrokerRegistrationRequest: API key 62 request, versions 0-4, flexible versions 0+."""

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


class BrokerRegistrationRequest(Message):
    schema_name = "BrokerRegistrationRequest"
    api_key = 62
    message_type = "request"
    valid_versions = (0, 4)
    flexible_versions = (0, MAX)
    api_listeners = ('controller',)
    Feature = Feature
    Listener = Listener
    __slots__ = ("broker_id", "cluster_id", "incarnation_id", "listeners", "features", "rack", "is_migrating_zk_broker", "log_dirs", "previous_broker_epoch",)
    FIELDS = (
        Field("broker_id", "int32", (0, MAX), default=0),
        Field("cluster_id", "string", (0, MAX), default=""),
        Field("incarnation_id", "uuid", (0, MAX), default=ZERO_UUID),
        Field("listeners", Array(Listener), (0, MAX), default=NEW),
        Field("features", Array(Feature), (0, MAX), default=NEW),
        Field("rack", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
        Field("is_migrating_zk_broker", "bool", (1, MAX), default=False),
        Field("log_dirs", Array("uuid"), (2, MAX), default=NEW, ignorable=True),
        Field("previous_broker_epoch", "int64", (3, MAX), default=-1, ignorable=True),
    )

    def __init__(self, broker_id=0, cluster_id="", incarnation_id=ZERO_UUID, listeners=NEW, features=NEW, rack="", is_migrating_zk_broker=False, log_dirs=NEW, previous_broker_epoch=-1):
        self.broker_id = broker_id
        self.cluster_id = cluster_id
        self.incarnation_id = incarnation_id
        self.listeners = [] if listeners is NEW else listeners
        self.features = [] if features is NEW else features
        self.rack = rack
        self.is_migrating_zk_broker = is_migrating_zk_broker
        self.log_dirs = [] if log_dirs is NEW else log_dirs
        self.previous_broker_epoch = previous_broker_epoch


__all__ = ["BrokerRegistrationRequest"]
