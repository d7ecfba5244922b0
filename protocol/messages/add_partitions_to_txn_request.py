# Generated from AddPartitionsToTxnRequest.json by protocol/codegen.py — do not edit.
"""AddPartitionsToTxnRequest: API key 24 request, versions 0-5, flexible versions 3+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class AddPartitionsToTxnTopic(Struct):
    __slots__ = ("name", "partitions",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("partitions", Array("int32"), (0, MAX), default=NEW),
    )

    def __init__(self, name="", partitions=NEW):
        self.name = name
        self.partitions = [] if partitions is NEW else partitions


class AddPartitionsToTxnTransaction(Struct):
    __slots__ = ("transactional_id", "producer_id", "producer_epoch", "verify_only", "topics",)
    FIELDS = (
        Field("transactional_id", "string", (4, MAX), default=""),
        Field("producer_id", "int64", (4, MAX), default=0),
        Field("producer_epoch", "int16", (4, MAX), default=0),
        Field("verify_only", "bool", (4, MAX), default=False),
        Field("topics", Array(AddPartitionsToTxnTopic), (4, MAX), default=NEW),
    )

    def __init__(self, transactional_id="", producer_id=0, producer_epoch=0, verify_only=False, topics=NEW):
        self.transactional_id = transactional_id
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch
        self.verify_only = verify_only
        self.topics = [] if topics is NEW else topics


class AddPartitionsToTxnRequest(Message):
    schema_name = "AddPartitionsToTxnRequest"
    api_key = 24
    message_type = "request"
    valid_versions = (0, 5)
    flexible_versions = (3, MAX)
    api_listeners = ('broker',)
    AddPartitionsToTxnTopic = AddPartitionsToTxnTopic
    AddPartitionsToTxnTransaction = AddPartitionsToTxnTransaction
    __slots__ = ("transactions", "v3_and_below_transactional_id", "v3_and_below_producer_id", "v3_and_below_producer_epoch", "v3_and_below_topics",)
    FIELDS = (
        Field("transactions", Array(AddPartitionsToTxnTransaction), (4, MAX), default=NEW),
        Field("v3_and_below_transactional_id", "string", (0, 3), default=""),
        Field("v3_and_below_producer_id", "int64", (0, 3), default=0),
        Field("v3_and_below_producer_epoch", "int16", (0, 3), default=0),
        Field("v3_and_below_topics", Array(AddPartitionsToTxnTopic), (0, 3), default=NEW),
    )

    def __init__(self, transactions=NEW, v3_and_below_transactional_id="", v3_and_below_producer_id=0, v3_and_below_producer_epoch=0, v3_and_below_topics=NEW):
        self.transactions = [] if transactions is NEW else transactions
        self.v3_and_below_transactional_id = v3_and_below_transactional_id
        self.v3_and_below_producer_id = v3_and_below_producer_id
        self.v3_and_below_producer_epoch = v3_and_below_producer_epoch
        self.v3_and_below_topics = [] if v3_and_below_topics is NEW else v3_and_below_topics


__all__ = ["AddPartitionsToTxnRequest"]
