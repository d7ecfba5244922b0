# Generated from ListTransactionsResponse.json by protocol/codegen.py — do not edit.
"""ListTransactionsResponse: API key 66 response, versions 0-2, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class TransactionState(Struct):
    __slots__ = ("transactional_id", "producer_id", "transaction_state",)
    FIELDS = (
        Field("transactional_id", "string", (0, MAX), default=""),
        Field("producer_id", "int64", (0, MAX), default=0),
        Field("transaction_state", "string", (0, MAX), default=""),
    )

    def __init__(self, transactional_id="", producer_id=0, transaction_state=""):
        self.transactional_id = transactional_id
        self.producer_id = producer_id
        self.transaction_state = transaction_state


class ListTransactionsResponse(Message):
    schema_name = "ListTransactionsResponse"
    api_key = 66
    message_type = "response"
    valid_versions = (0, 2)
    flexible_versions = (0, MAX)
    TransactionState = TransactionState
    __slots__ = ("throttle_time_ms", "error_code", "unknown_state_filters", "transaction_states",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("unknown_state_filters", Array("string"), (0, MAX), default=NEW),
        Field("transaction_states", Array(TransactionState), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, error_code=0, unknown_state_filters=NEW, transaction_states=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.unknown_state_filters = [] if unknown_state_filters is NEW else unknown_state_filters
        self.transaction_states = [] if transaction_states is NEW else transaction_states


__all__ = ["ListTransactionsResponse"]
