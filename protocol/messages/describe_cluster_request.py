# Generated from DescribeClusterRequest.json by protocol/codegen.py — do not edit.
"""DescribeClusterRequest: API key 60 request, versions 0-2, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class DescribeClusterRequest(Message):
    schema_name = "DescribeClusterRequest"
    api_key = 60
    message_type = "request"
    valid_versions = (0, 2)
    flexible_versions = (0, MAX)
    api_listeners = ('broker', 'controller')
    __slots__ = ("include_cluster_authorized_operations", "endpoint_type", "include_fenced_brokers",)
    FIELDS = (
        Field("include_cluster_authorized_operations", "bool", (0, MAX), default=False),
        Field("endpoint_type", "int8", (1, MAX), default=1),
        Field("include_fenced_brokers", "bool", (2, MAX), default=False),
    )

    def __init__(self, include_cluster_authorized_operations=False, endpoint_type=1, include_fenced_brokers=False):
        self.include_cluster_authorized_operations = include_cluster_authorized_operations
        self.endpoint_type = endpoint_type
        self.include_fenced_brokers = include_fenced_brokers


__all__ = ["DescribeClusterRequest"]
