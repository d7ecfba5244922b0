# Generated from ProducerIdsRecord.json by protocol/codegen.py — do not edit.
"""ProducerIdsRecord: API key 15 metadata, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class ProducerIdsRecord(Message):
    schema_name = "ProducerIdsRecord"
    api_key = 15
    message_type = "metadata"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    __slots__ = ("broker_id", "broker_epoch", "next_producer_id",)
    FIELDS = (
        Field("broker_id", "int32", (0, MAX), default=0),
        Field("broker_epoch", "int64", (0, MAX), default=-1),
        Field("next_producer_id", "int64", (0, MAX), default=0),
    )

    def __init__(self, broker_id=0, broker_epoch=-1, next_producer_id=0):
        self.broker_id = broker_id
        self.broker_epoch = broker_epoch
        self.next_producer_id = next_producer_id


__all__ = ["ProducerIdsRecord"]
