# Generated from BrokerHeartbeatRequest.json by protocol/codegen.py — do not edit.
"""BrokerHeartbeatRequest: API key 63 request, versions 0-1, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class BrokerHeartbeatRequest(Message):
    schema_name = "BrokerHeartbeatRequest"
    api_key = 63
    message_type = "request"
    valid_versions = (0, 1)
    flexible_versions = (0, MAX)
    api_listeners = ('controller',)
    __slots__ = ("broker_id", "broker_epoch", "current_metadata_offset", "want_fence", "want_shut_down", "offline_log_dirs",)
    FIELDS = (
        Field("broker_id", "int32", (0, MAX), default=0),
        Field("broker_epoch", "int64", (0, MAX), default=-1),
        Field("current_metadata_offset", "int64", (0, MAX), default=0),
        Field("want_fence", "bool", (0, MAX), default=False),
        Field("want_shut_down", "bool", (0, MAX), default=False),
        Field("offline_log_dirs", Array("uuid"), (1, MAX), tagged_versions=(1, MAX), tag=0, default=NEW),
    )

    def __init__(self, broker_id=0, broker_epoch=-1, current_metadata_offset=0, want_fence=False, want_shut_down=False, offline_log_dirs=NEW):
        self.broker_id = broker_id
        self.broker_epoch = broker_epoch
        self.current_metadata_offset = current_metadata_offset
        self.want_fence = want_fence
        self.want_shut_down = want_shut_down
        self.offline_log_dirs = [] if offline_log_dirs is NEW else offline_log_dirs


__all__ = ["BrokerHeartbeatRequest"]
