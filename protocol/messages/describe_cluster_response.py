# Generated from DescribeClusterResponse.json by protocol/codegen.py — do not edit.
"""DescribeClusterResponse: API key 60 response, versions 0-2, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class DescribeClusterBroker(Struct):
    __slots__ = ("broker_id", "host", "port", "rack", "is_fenced",)
    FIELDS = (
        Field("broker_id", "int32", (0, MAX), default=0),
        Field("host", "string", (0, MAX), default=""),
        Field("port", "int32", (0, MAX), default=0),
        Field("rack", "string", (0, MAX), nullable_versions=(0, MAX)),
        Field("is_fenced", "bool", (2, MAX), default=False),
    )

    def __init__(self, broker_id=0, host="", port=0, rack=None, is_fenced=False):
        self.broker_id = broker_id
        self.host = host
        self.port = port
        self.rack = rack
        self.is_fenced = is_fenced


class DescribeClusterResponse(Message):
    schema_name = "DescribeClusterResponse"
    api_key = 60
    message_type = "response"
    valid_versions = (0, 2)
    flexible_versions = (0, MAX)
    DescribeClusterBroker = DescribeClusterBroker
    __slots__ = ("throttle_time_ms", "error_code", "error_message", "endpoint_type", "cluster_id", "controller_id", "brokers", "cluster_authorized_operations",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX)),
        Field("endpoint_type", "int8", (1, MAX), default=1),
        Field("cluster_id", "string", (0, MAX), default=""),
        Field("controller_id", "int32", (0, MAX), default=-1),
        Field("brokers", Array(DescribeClusterBroker), (0, MAX), default=NEW),
        Field("cluster_authorized_operations", "int32", (0, MAX), default=-2147483648),
    )

    def __init__(self, throttle_time_ms=0, error_code=0, error_message=None, endpoint_type=1, cluster_id="", controller_id=-1, brokers=NEW, cluster_authorized_operations=-2147483648):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message
        self.endpoint_type = endpoint_type
        self.cluster_id = cluster_id
        self.controller_id = controller_id
        self.brokers = [] if brokers is NEW else brokers
        self.cluster_authorized_operations = cluster_authorized_operations


__all__ = ["DescribeClusterResponse"]
