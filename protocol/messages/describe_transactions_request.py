# Generated from DescribeTransactionsRequest.json by protocol/codegen.py — do not edit.
"""DescribeTransactionsRequest: API key 65 request, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class DescribeTransactionsRequest(Message):
    schema_name = "DescribeTransactionsRequest"
    api_key = 65
    message_type = "request"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    api_listeners = ('broker',)
    __slots__ = ("transactional_ids",)
    FIELDS = (
        Field("transactional_ids", Array("string"), (0, MAX), default=NEW),
    )

    def __init__(self, transactional_ids=NEW):
        self.transactional_ids = [] if transactional_ids is NEW else transactional_ids


__all__ = ["DescribeTransactionsRequest"]
