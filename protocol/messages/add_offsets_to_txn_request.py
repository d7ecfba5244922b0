# Generated from AddOffsetsToTxnRequest.json by protocol/codegen.py — do not edit.
"""AddOffsetsToTxnRequest: API key 25 request, versions 0-4, flexible versions 3+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class AddOffsetsToTxnRequest(Message):
    schema_name = "AddOffsetsToTxnRequest"
    api_key = 25
    message_type = "request"
    valid_versions = (0, 4)
    flexible_versions = (3, MAX)
    api_listeners = ('broker',)
    __slots__ = ("transactional_id", "producer_id", "producer_epoch", "group_id",)
    FIELDS = (
        Field("transactional_id", "string", (0, MAX), default=""),
        Field("producer_id", "int64", (0, MAX), default=0),
        Field("producer_epoch", "int16", (0, MAX), default=0),
        Field("group_id", "string", (0, MAX), default=""),
    )

    def __init__(self, transactional_id="", producer_id=0, producer_epoch=0, group_id=""):
        self.transactional_id = transactional_id
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch
        self.group_id = group_id


__all__ = ["AddOffsetsToTxnRequest"]
