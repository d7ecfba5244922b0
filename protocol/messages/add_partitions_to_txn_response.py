# Generated from AddPartitionsToTxnResponse.json by protocol/codegen.py — do not edit.
"""AddPartitionsToTxnResponse: API key 24 response, versions 0-5, flexible versions 3+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class AddPartitionsToTxnPartitionResult(Struct):
    __slots__ = ("partition_index", "partition_error_code",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("partition_error_code", "int16", (0, MAX), default=0),
    )

    def __init__(self, partition_index=0, partition_error_code=0):
        self.partition_index = partition_index
        self.partition_error_code = partition_error_code


class AddPartitionsToTxnTopicResult(Struct):
    __slots__ = ("name", "results_by_partition",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("results_by_partition", Array(AddPartitionsToTxnPartitionResult), (0, MAX), default=NEW),
    )

    def __init__(self, name="", results_by_partition=NEW):
        self.name = name
        self.results_by_partition = [] if results_by_partition is NEW else results_by_partition


class AddPartitionsToTxnResult(Struct):
    __slots__ = ("transactional_id", "topic_results",)
    FIELDS = (
        Field("transactional_id", "string", (4, MAX), default=""),
        Field("topic_results", Array(AddPartitionsToTxnTopicResult), (4, MAX), default=NEW),
    )

    def __init__(self, transactional_id="", topic_results=NEW):
        self.transactional_id = transactional_id
        self.topic_results = [] if topic_results is NEW else topic_results


class AddPartitionsToTxnResponse(Message):
    schema_name = "AddPartitionsToTxnResponse"
    api_key = 24
    message_type = "response"
    valid_versions = (0, 5)
    flexible_versions = (3, MAX)
    AddPartitionsToTxnPartitionResult = AddPartitionsToTxnPartitionResult
    AddPartitionsToTxnResult = AddPartitionsToTxnResult
    AddPartitionsToTxnTopicResult = AddPartitionsToTxnTopicResult
    __slots__ = ("throttle_time_ms", "error_code", "results_by_transaction", "results_by_topic_v3_and_below",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (4, MAX), default=0, ignorable=True),
        Field("results_by_transaction", Array(AddPartitionsToTxnResult), (4, MAX), default=NEW),
        Field("results_by_topic_v3_and_below", Array(AddPartitionsToTxnTopicResult), (0, 3), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, error_code=0, results_by_transaction=NEW, results_by_topic_v3_and_below=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.results_by_transaction = [] if results_by_transaction is NEW else results_by_transaction
        self.results_by_topic_v3_and_below = [] if results_by_topic_v3_and_below is NEW else results_by_topic_v3_and_below


__all__ = ["AddPartitionsToTxnResponse"]
