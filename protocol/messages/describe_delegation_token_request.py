# Generated from DescribeDelegationTokenRequest.json by protocol/codegen.py — do not edit.
"""DescribeDelegationTokenRequest: API key 41 request, versions 0-3, flexible versions 2+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class DescribeDelegationTokenOwner(Struct):
    __slots__ = ("principal_type", "principal_name",)
    FIELDS = (
        Field("principal_type", "string", (0, MAX), default=""),
        Field("principal_name", "string", (0, MAX), default=""),
    )

    def __init__(self, principal_type="", principal_name=""):
        self.principal_type = principal_type
        self.principal_name = principal_name


class DescribeDelegationTokenRequest(Message):
    schema_name = "DescribeDelegationTokenRequest"
    api_key = 41
    message_type = "request"
    valid_versions = (0, 3)
    flexible_versions = (2, MAX)
    api_listeners = ('broker', 'controller')
    DescribeDelegationTokenOwner = DescribeDelegationTokenOwner
    __slots__ = ("owners",)
    FIELDS = (
        Field("owners", Array(DescribeDelegationTokenOwner), (0, MAX), nullable_versions=(0, MAX), default=NEW),
    )

    def __init__(self, owners=NEW):
        self.owners = [] if owners is NEW else owners


__all__ = ["DescribeDelegationTokenRequest"]
