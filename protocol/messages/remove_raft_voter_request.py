# Generated from RemoveRaftVoterRequest.json by protocol/codegen.py — do not edit.
"""RemoveRaftVoterRequest: API key 81 request, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class RemoveRaftVoterRequest(Message):
    schema_name = "RemoveRaftVoterRequest"
    api_key = 81
    message_type = "request"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    api_listeners = ('broker', 'controller')
    __slots__ = ("cluster_id", "voter_id", "voter_directory_id",)
    FIELDS = (
        Field("cluster_id", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
        Field("voter_id", "int32", (0, MAX), default=0),
        Field("voter_directory_id", "uuid", (0, MAX), default=ZERO_UUID),
    )

    def __init__(self, cluster_id="", voter_id=0, voter_directory_id=ZERO_UUID):
        self.cluster_id = cluster_id
        self.voter_id = voter_id
        self.voter_directory_id = voter_directory_id


__all__ = ["RemoveRaftVoterRequest"]
