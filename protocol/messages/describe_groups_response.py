# Generated from DescribeGroupsResponse.json by protocol/codegen.py — do not edit.
"""DescribeGroupsResponse: API key 15 response, versions 0-6, flexible versions 5+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class DescribedGroupMember(Struct):
    __slots__ = ("member_id", "group_instance_id", "client_id", "client_host", "member_metadata", "member_assignment",)
    FIELDS = (
        Field("member_id", "string", (0, MAX), default=""),
        Field("group_instance_id", "string", (4, MAX), nullable_versions=(4, MAX), ignorable=True),
        Field("client_id", "string", (0, MAX), default=""),
        Field("client_host", "string", (0, MAX), default=""),
        Field("member_metadata", "bytes", (0, MAX), default=b""),
        Field("member_assignment", "bytes", (0, MAX), default=b""),
    )

    def __init__(self, member_id="", group_instance_id=None, client_id="", client_host="", member_metadata=b"", member_assignment=b""):
        self.member_id = member_id
        self.group_instance_id = group_instance_id
        self.client_id = client_id
        self.client_host = client_host
        self.member_metadata = member_metadata
        self.member_assignment = member_assignment


class DescribedGroup(Struct):
    __slots__ = ("error_code", "error_message", "group_id", "group_state", "protocol_type", "protocol_data", "members", "authorized_operations",)
    FIELDS = (
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (6, MAX), nullable_versions=(6, MAX)),
        Field("group_id", "string", (0, MAX), default=""),
        Field("group_state", "string", (0, MAX), default=""),
        Field("protocol_type", "string", (0, MAX), default=""),
        Field("protocol_data", "string", (0, MAX), default=""),
        Field("members", Array(DescribedGroupMember), (0, MAX), default=NEW),
        Field("authorized_operations", "int32", (3, MAX), default=-2147483648),
    )

    def __init__(self, error_code=0, error_message=None, group_id="", group_state="", protocol_type="", protocol_data="", members=NEW, authorized_operations=-2147483648):
        self.error_code = error_code
        self.error_message = error_message
        self.group_id = group_id
        self.group_state = group_state
        self.protocol_type = protocol_type
        self.protocol_data = protocol_data
        self.members = [] if members is NEW else members
        self.authorized_operations = authorized_operations


class DescribeGroupsResponse(Message):
    schema_name = "DescribeGroupsResponse"
    api_key = 15
    message_type = "response"
    valid_versions = (0, 6)
    flexible_versions = (5, MAX)
    DescribedGroup = DescribedGroup
    DescribedGroupMember = DescribedGroupMember
    __slots__ = ("throttle_time_ms", "groups",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (1, MAX), default=0, ignorable=True),
        Field("groups", Array(DescribedGroup), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, groups=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.groups = [] if groups is NEW else groups


__all__ = ["DescribeGroupsResponse"]
