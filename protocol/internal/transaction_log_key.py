# Generated from TransactionLogKey.json by protocol/codegen.py — do not edit.
"""TransactionLogKey: data, versions 0."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class TransactionLogKey(Message):
    schema_name = "TransactionLogKey"
    api_key = None
    message_type = "data"
    valid_versions = (0, 0)
    flexible_versions = None
    __slots__ = ("transactional_id",)
    FIELDS = (
        Field("transactional_id", "string", (0, 0), default=""),
    )

    def __init__(self, transactional_id=""):
        self.transactional_id = transactional_id


__all__ = ["TransactionLogKey"]
