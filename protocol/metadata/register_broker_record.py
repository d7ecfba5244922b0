# Generated from RegisterBrokerRecord.json by protocol/codegen.py — do not edit.
"""RegisterBrokerRecord: API key 0 metadata, versions 0-3, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class BrokerEndpoint(Struct):
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


class BrokerFeature(Struct):
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


class RegisterBrokerRecord(Message):
    schema_name = "RegisterBrokerRecord"
    api_key = 0
    message_type = "metadata"
    valid_versions = (0, 3)
    flexible_versions = (0, MAX)
    BrokerEndpoint = BrokerEndpoint
    BrokerFeature = BrokerFeature
    __slots__ = ("broker_id", "is_migrating_zk_broker", "incarnation_id", "broker_epoch", "end_points", "features", "rack", "fenced", "in_controlled_shutdown", "log_dirs",)
    FIELDS = (
        Field("broker_id", "int32", (0, MAX), default=0),
        Field("is_migrating_zk_broker", "bool", (2, MAX), default=False),
        Field("incarnation_id", "uuid", (0, MAX), default=ZERO_UUID),
        Field("broker_epoch", "int64", (0, MAX), default=0),
        Field("end_points", Array(BrokerEndpoint), (0, MAX), default=NEW),
        Field("features", Array(BrokerFeature), (0, MAX), default=NEW),
        Field("rack", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
        Field("fenced", "bool", (0, MAX), default=True),
        Field("in_controlled_shutdown", "bool", (1, MAX), default=False),
        Field("log_dirs", Array("uuid"), (3, MAX), tagged_versions=(3, MAX), tag=0, default=NEW),
    )

    def __init__(self, broker_id=0, is_migrating_zk_broker=False, incarnation_id=ZERO_UUID, broker_epoch=0, end_points=NEW, features=NEW, rack="", fenced=True, in_controlled_shutdown=False, log_dirs=NEW):
        self.broker_id = broker_id
        self.is_migrating_zk_broker = is_migrating_zk_broker
        self.incarnation_id = incarnation_id
        self.broker_epoch = broker_epoch
        self.end_points = [] if end_points is NEW else end_points
        self.features = [] if features is NEW else features
        self.rack = rack
        self.fenced = fenced
        self.in_controlled_shutdown = in_controlled_shutdown
        self.log_dirs = [] if log_dirs is NEW else log_dirs


__all__ = ["RegisterBrokerRecord"]
