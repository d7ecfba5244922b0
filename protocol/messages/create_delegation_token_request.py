# Generated from CreateDelegationTokenRequest.json by protocol/codegen.py — do not edit.
"""CreateDelegationTokenRequest: API key 38 request, versions 0-3, flexible versions 2+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class CreatableRenewers(Struct):
    __slots__ = ("principal_type", "principal_name",)
    FIELDS = (
        Field("principal_type", "string", (0, MAX), default=""),
        Field("principal_name", "string", (0, MAX), default=""),
    )

    def __init__(self, principal_type="", principal_name=""):
        self.principal_type = principal_type
        self.principal_name = principal_name


class CreateDelegationTokenRequest(Message):
    schema_name = "CreateDelegationTokenRequest"
    api_key = 38
    message_type = "request"
    valid_versions = (0, 3)
    flexible_versions = (2, MAX)
    api_listeners = ('broker', 'controller')
    CreatableRenewers = CreatableRenewers
    __slots__ = ("owner_principal_type", "owner_principal_name", "renewers", "max_lifetime_ms",)
    FIELDS = (
        Field("owner_principal_type", "string", (3, MAX), nullable_versions=(3, MAX), default=""),
        Field("owner_principal_name", "string", (3, MAX), nullable_versions=(3, MAX), default=""),
        Field("renewers", Array(CreatableRenewers), (0, MAX), default=NEW),
        Field("max_lifetime_ms", "int64", (0, MAX), default=0),
    )

    def __init__(self, owner_principal_type="", owner_principal_name="", renewers=NEW, max_lifetime_ms=0):
        self.owner_principal_type = owner_principal_type
        self.owner_principal_name = owner_principal_name
        self.renewers = [] if renewers is NEW else renewers
        self.max_lifetime_ms = max_lifetime_ms


__all__ = ["CreateDelegationTokenRequest"]
