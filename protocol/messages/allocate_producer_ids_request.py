# Generated from AllocateProducerIdsRequest.json by protocol/codegen.py — do not edit.
"""AllocateProducerIdsRequest: API key 67 request, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class AllocateProducerIdsRequest(Message):
    schema_name = "AllocateProducerIdsRequest"
    api_key = 67
    message_type = "request"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    api_listeners = ('controller',)
    __slots__ = ("broker_id", "broker_epoch",)
    FIELDS = (
        Field("broker_id", "int32", (0, MAX), default=0),
        Field("broker_epoch", "int64", (0, MAX), default=-1),
    )

    def __init__(self, broker_id=0, broker_epoch=-1):
        self.broker_id = broker_id
        self.broker_epoch = broker_epoch


__all__ = ["AllocateProducerIdsRequest"]
