# Generated from UnfenceBrokerRecord.json by protocol/codegen.py — do not edit.
"""UnfenceBrokerRecord: API key 8 metadata, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class UnfenceBrokerRecord(Message):
    schema_name = "UnfenceBrokerRecord"
    api_key = 8
    message_type = "metadata"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    __slots__ = ("id", "epoch",)
    FIELDS = (
        Field("id", "int32", (0, MAX), default=0),
        Field("epoch", "int64", (0, MAX), default=0),
    )

    def __init__(self, id=0, epoch=0):
        self.id = id
        self.epoch = epoch


__all__ = ["UnfenceBrokerRecord"]
