# Generated from KRaftVersionRecord.json by protocol/codegen.py — do not edit.
"""KRaftVersionRecord: data, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class KRaftVersionRecord(Message):
    schema_name = "KRaftVersionRecord"
    api_key = None
    message_type = "data"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    __slots__ = ("version", "k_raft_version",)
    FIELDS = (
        Field("version", "int16", (0, MAX), default=0),
        Field("k_raft_version", "int16", (0, MAX), default=0),
    )

    def __init__(self, version=0, k_raft_version=0):
        self.version = version
        self.k_raft_version = k_raft_version


__all__ = ["KRaftVersionRecord"]
