# Generated from SyncGroupRequest.json by protocol/codegen.py — do not edit.
"""SyncGroupRequest: API key 14 request, versions 0-5, flexible versions 4+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class SyncGroupRequestAssignment(Struct):
    __slots__ = ("member_id", "assignment",)
    FIELDS = (
        Field("member_id", "string", (0, MAX), default=""),
        Field("assignment", "bytes", (0, MAX), default=b""),
    )

    def __init__(self, member_id="", assignment=b""):
        self.member_id = member_id
        self.assignment = assignment


class SyncGroupRequest(Message):
    schema_name = "SyncGroupRequest"
    api_key = 14
    message_type = "request"
    valid_versions = (0, 5)
    flexible_versions = (4, MAX)
    api_listeners = ('broker',)
    SyncGroupRequestAssignment = SyncGroupRequestAssignment
    __slots__ = ("group_id", "generation_id", "member_id", "group_instance_id", "protocol_type", "protocol_name", "assignments",)
    FIELDS = (
        Field("group_id", "string", (0, MAX), default=""),
        Field("generation_id", "int32", (0, MAX), default=0),
        Field("member_id", "string", (0, MAX), default=""),
        Field("group_instance_id", "string", (3, MAX), nullable_versions=(3, MAX)),
        Field("protocol_type", "string", (5, MAX), nullable_versions=(5, MAX), ignorable=True),
        Field("protocol_name", "string", (5, MAX), nullable_versions=(5, MAX), ignorable=True),
        Field("assignments", Array(SyncGroupRequestAssignment), (0, MAX), default=NEW),
    )

    def __init__(self, group_id="", generation_id=0, member_id="", group_instance_id=None, protocol_type=None, protocol_name=None, assignments=NEW):
        self.group_id = group_id
        self.generation_id = generation_id
        self.member_id = member_id
        self.group_instance_id = group_instance_id
        self.protocol_type = protocol_type
        self.protocol_name = protocol_name
        self.assignments = [] if assignments is NEW else assignments


__all__ = ["SyncGroupRequest"]
