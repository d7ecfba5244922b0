# Generated from AddRaftVoterRequest.json by protocol/codegen.py — do not edit.
"""AddRaftVoterRequest: API key 80 request, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class Listener(Struct):
    __slots__ = ("name", "host", "port",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("host", "string", (0, MAX), default=""),
        Field("port", "uint16", (0, MAX), default=0),
    )

    def __init__(self, name="", host="", port=0):
        self.name = name
        self.host = host
        self.port = port


class AddRaftVoterRequest(Message):
    schema_name = "AddRaftVoterRequest"
    api_key = 80
    message_type = "request"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    api_listeners = ('broker', 'controller')
    Listener = Listener
    __slots__ = ("cluster_id", "timeout_ms", "voter_id", "voter_directory_id", "listeners",)
    FIELDS = (
        Field("cluster_id", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
        Field("timeout_ms", "int32", (0, MAX), default=0),
        Field("voter_id", "int32", (0, MAX), default=0),
        Field("voter_directory_id", "uuid", (0, MAX), default=ZERO_UUID),
        Field("listeners", Array(Listener), (0, MAX), default=NEW),
    )

    def __init__(self, cluster_id="", timeout_ms=0, voter_id=0, voter_directory_id=ZERO_UUID, listeners=NEW):
        self.cluster_id = cluster_id
        self.timeout_ms = timeout_ms
        self.voter_id = voter_id
        self.voter_directory_id = voter_directory_id
        self.listeners = [] if listeners is NEW else listeners


__all__ = ["AddRaftVoterRequest"]
