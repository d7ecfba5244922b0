# Generated from DescribeUserScramCredentialsRequest.json by protocol/codegen.py — do not edit.
"""DescribeUserScramCredentialsRequest: API key 50 request, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class UserName(Struct):
    __slots__ = ("name",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
    )

    def __init__(self, name=""):
        self.name = name


class DescribeUserScramCredentialsRequest(Message):
    schema_name = "DescribeUserScramCredentialsRequest"
    api_key = 50
    message_type = "request"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    api_listeners = ('broker', 'controller')
    UserName = UserName
    __slots__ = ("users",)
    FIELDS = (
        Field("users", Array(UserName), (0, MAX), nullable_versions=(0, MAX), default=NEW),
    )

    def __init__(self, users=NEW):
        self.users = [] if users is NEW else users


__all__ = ["DescribeUserScramCredentialsRequest"]
