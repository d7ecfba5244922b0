# Generated from UpdateRaftVoterResponse.json by protocol/codegen.py — do not edit.
"""UpdateRaftVoterResponse: API key 82 response, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class CurrentLeader(Struct):
    __slots__ = ("leader_id", "leader_epoch", "host", "port",)
    FIELDS = (
        Field("leader_id", "int32", (0, MAX), default=-1),
        Field("leader_epoch", "int32", (0, MAX), default=-1),
        Field("host", "string", (0, MAX), default=""),
        Field("port", "int32", (0, MAX), default=0),
    )

    def __init__(self, leader_id=-1, leader_epoch=-1, host="", port=0):
        self.leader_id = leader_id
        self.leader_epoch = leader_epoch
        self.host = host
        self.port = port


class UpdateRaftVoterResponse(Message):
    schema_name = "UpdateRaftVoterResponse"
    api_key = 82
    message_type = "response"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    CurrentLeader = CurrentLeader
    __slots__ = ("throttle_time_ms", "error_code", "current_leader",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("current_leader", CurrentLeader, (0, MAX), tagged_versions=(0, MAX), tag=0, default=NEW),
    )

    def __init__(self, throttle_time_ms=0, error_code=0, current_leader=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.current_leader = CurrentLeader() if current_leader is NEW else current_leader


__all__ = ["UpdateRaftVoterResponse"]
