# Generated from BrokerRegistrationChangeRecord.json by protocol/codegen.py — do not edit.
"""BrokerRegistrationChangeRecord: API key 17 metadata, versions 0-2, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class BrokerRegistrationChangeRecord(Message):
    schema_name = "BrokerRegistrationChangeRecord"
    api_key = 17
    message_type = "metadata"
    valid_versions = (0, 2)
    flexible_versions = (0, MAX)
    __slots__ = ("broker_id", "broker_epoch", "fenced", "in_controlled_shutdown", "log_dirs",)
    FIELDS = (
        Field("broker_id", "int32", (0, MAX), default=0),
        Field("broker_epoch", "int64", (0, MAX), default=0),
        Field("fenced", "int8", (0, MAX), tagged_versions=(0, MAX), tag=0, default=0),
        Field("in_controlled_shutdown", "int8", (1, MAX), tagged_versions=(1, MAX), tag=1, default=0),
        Field("log_dirs", Array("uuid"), (2, MAX), tagged_versions=(2, MAX), tag=2, default=NEW),
    )

    def __init__(self, broker_id=0, broker_epoch=0, fenced=0, in_controlled_shutdown=0, log_dirs=NEW):
        self.broker_id = broker_id
        self.broker_epoch = broker_epoch
        self.fenced = fenced
        self.in_controlled_shutdown = in_controlled_shutdown
        self.log_dirs = [] if log_dirs is NEW else log_dirs


__all__ = ["BrokerRegistrationChangeRecord"]
