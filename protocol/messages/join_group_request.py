# Generated from JoinGroupRequest.json by protocol/codegen.py — do not edit.
"""JoinGroupRequest: API key 11 request, versions 0-9, flexible versions 6+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class JoinGroupRequestProtocol(Struct):
    __slots__ = ("name", "metadata",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("metadata", "bytes", (0, MAX), default=b""),
    )

    def __init__(self, name="", metadata=b""):
        self.name = name
        self.metadata = metadata


class JoinGroupRequest(Message):
    schema_name = "JoinGroupRequest"
    api_key = 11
    message_type = "request"
    valid_versions = (0, 9)
    flexible_versions = (6, MAX)
    api_listeners = ('broker',)
    JoinGroupRequestProtocol = JoinGroupRequestProtocol
    __slots__ = ("group_id", "session_timeout_ms", "rebalance_timeout_ms", "member_id", "group_instance_id", "protocol_type", "protocols", "reason",)
    FIELDS = (
        Field("group_id", "string", (0, MAX), default=""),
        Field("session_timeout_ms", "int32", (0, MAX), default=0),
        Field("rebalance_timeout_ms", "int32", (1, MAX), default=-1, ignorable=True),
        Field("member_id", "string", (0, MAX), default=""),
        Field("group_instance_id", "string", (5, MAX), nullable_versions=(5, MAX)),
        Field("protocol_type", "string", (0, MAX), default=""),
        Field("protocols", Array(JoinGroupRequestProtocol), (0, MAX), default=NEW),
        Field("reason", "string", (8, MAX), nullable_versions=(8, MAX), ignorable=True),
    )

    def __init__(self, group_id="", session_timeout_ms=0, rebalance_timeout_ms=-1, member_id="", group_instance_id=None, protocol_type="", protocols=NEW, reason=None):
        self.group_id = group_id
        self.session_timeout_ms = session_timeout_ms
        self.rebalance_timeout_ms = rebalance_timeout_ms
        self.member_id = member_id
        self.group_instance_id = group_instance_id
        self.protocol_type = protocol_type
        self.protocols = [] if protocols is NEW else protocols
        self.reason = reason


__all__ = ["JoinGroupRequest"]
