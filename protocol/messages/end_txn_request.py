# Generated from EndTxnRequest.json by protocol/codegen.py — do not edit.
"""EndTxnRequest: API key 26 request, versions 0-5, flexible versions 3+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class EndTxnRequest(Message):
    schema_name = "EndTxnRequest"
    api_key = 26
    message_type = "request"
    valid_versions = (0, 5)
    flexible_versions = (3, MAX)
    api_listeners = ('broker',)
    __slots__ = ("transactional_id", "producer_id", "producer_epoch", "committed",)
    FIELDS = (
        Field("transactional_id", "string", (0, MAX), default=""),
        Field("producer_id", "int64", (0, MAX), default=0),
        Field("producer_epoch", "int16", (0, MAX), default=0),
        Field("committed", "bool", (0, MAX), default=False),
    )

    def __init__(self, transactional_id="", producer_id=0, producer_epoch=0, committed=False):
        self.transactional_id = transactional_id
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch
        self.committed = committed


__all__ = ["EndTxnRequest"]
