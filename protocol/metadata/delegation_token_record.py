# Generated from DelegationTokenRecord.json by protocol/codegen.py — do not edit.
"""DelegationTokenRecord: API key 10 metadata, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class DelegationTokenRecord(Message):
    schema_name = "DelegationTokenRecord"
    api_key = 10
    message_type = "metadata"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    __slots__ = ("owner", "requester", "renewers", "issue_timestamp", "max_timestamp", "expiration_timestamp", "token_id",)
    FIELDS = (
        Field("owner", "string", (0, MAX), default=""),
        Field("requester", "string", (0, MAX), default=""),
        Field("renewers", Array("string"), (0, MAX), default=NEW),
        Field("issue_timestamp", "int64", (0, MAX), default=0),
        Field("max_timestamp", "int64", (0, MAX), default=0),
        Field("expiration_timestamp", "int64", (0, MAX), default=0),
        Field("token_id", "string", (0, MAX), default=""),
    )

    def __init__(self, owner="", requester="", renewers=NEW, issue_timestamp=0, max_timestamp=0, expiration_timestamp=0, token_id=""):
        self.owner = owner
        self.requester = requester
        self.renewers = [] if renewers is NEW else renewers
        self.issue_timestamp = issue_timestamp
        self.max_timestamp = max_timestamp
        self.expiration_timestamp = expiration_timestamp
        self.token_id = token_id


__all__ = ["DelegationTokenRecord"]
