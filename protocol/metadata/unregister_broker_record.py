# Generated from UnregisterBrokerRecord.json by protocol/codegen.py — do not edit.
"""UnregisterBrokerRecord: API key 1 metadata, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class UnregisterBrokerRecord(Message):
    schema_name = "UnregisterBrokerRecord"
    api_key = 1
    message_type = "metadata"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    __slots__ = ("broker_id", "broker_epoch",)
    FIELDS = (
        Field("broker_id", "int32", (0, MAX), default=0),
        Field("broker_epoch", "int64", (0, MAX), default=0),
    )

    def __init__(self, broker_id=0, broker_epoch=0):
        self.broker_id = broker_id
        self.broker_epoch = broker_epoch


__all__ = ["UnregisterBrokerRecord"]
