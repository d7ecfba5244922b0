# Generated from AlterUserScramCredentialsRequest.json by protocol/codegen.py — do not edit.
"""AlterUserScramCredentialsRequest: API key 51 request, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class ScramCredentialDeletion(Struct):
    __slots__ = ("name", "mechanism",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("mechanism", "int8", (0, MAX), default=0),
    )

    def __init__(self, name="", mechanism=0):
        self.name = name
        self.mechanism = mechanism


class ScramCredentialUpsertion(Struct):
    __slots__ = ("name", "mechanism", "iterations", "salt", "salted_password",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("mechanism", "int8", (0, MAX), default=0),
        Field("iterations", "int32", (0, MAX), default=0),
        Field("salt", "bytes", (0, MAX), default=b""),
        Field("salted_password", "bytes", (0, MAX), default=b""),
    )

    def __init__(self, name="", mechanism=0, iterations=0, salt=b"", salted_password=b""):
        self.name = name
        self.mechanism = mechanism
        self.iterations = iterations
        self.salt = salt
        self.salted_password = salted_password


class AlterUserScramCredentialsRequest(Message):
    schema_name = "AlterUserScramCredentialsRequest"
    api_key = 51
    message_type = "request"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    api_listeners = ('broker', 'controller')
    ScramCredentialDeletion = ScramCredentialDeletion
    ScramCredentialUpsertion = ScramCredentialUpsertion
    __slots__ = ("deletions", "upsertions",)
    FIELDS = (
        Field("deletions", Array(ScramCredentialDeletion), (0, MAX), default=NEW),
        Field("upsertions", Array(ScramCredentialUpsertion), (0, MAX), default=NEW),
    )

    def __init__(self, deletions=NEW, upsertions=NEW):
        self.deletions = [] if deletions is NEW else deletions
        self.upsertions = [] if upsertions is NEW else upsertions


__all__ = ["AlterUserScramCredentialsRequest"]
