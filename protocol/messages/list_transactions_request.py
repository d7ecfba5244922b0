# Generated from ListTransactionsRequest.json by protocol/codegen.py — do not edit.
"""ListTransactionsRequest: API key 66 request, versions 0-2, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class ListTransactionsRequest(Message):
    schema_name = "ListTransactionsRequest"
    api_key = 66
    message_type = "request"
    valid_versions = (0, 2)
    flexible_versions = (0, MAX)
    api_listeners = ('broker',)
    __slots__ = ("state_filters", "producer_id_filters", "duration_filter", "transactional_id_pattern",)
    FIELDS = (
        Field("state_filters", Array("string"), (0, MAX), default=NEW),
        Field("producer_id_filters", Array("int64"), (0, MAX), default=NEW),
        Field("duration_filter", "int64", (1, MAX), default=-1),
        Field("transactional_id_pattern", "string", (2, MAX), nullable_versions=(2, MAX)),
    )

    def __init__(self, state_filters=NEW, producer_id_filters=NEW, duration_filter=-1, transactional_id_pattern=None):
        self.state_filters = [] if state_filters is NEW else state_filters
        self.producer_id_filters = [] if producer_id_filters is NEW else producer_id_filters
        self.duration_filter = duration_filter
        self.transactional_id_pattern = transactional_id_pattern


__all__ = ["ListTransactionsRequest"]
