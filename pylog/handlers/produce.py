"""Produce (key 0): append record batches to partitions.

Every check a partition's records go through is in storage/log_validator.py; this handler
calls its request-level checks and then the partition's append, and answers as Kafka
does, in Kafka's order:

1. A transactional batch in a request without a transactional id fails the whole request
   (TRANSACTIONAL_ID_AUTHORIZATION_FAILED; with one too, until pylog has a transaction
   coordinator), and so does a record set whose first size prefix or magic byte is
   impossible (CORRUPT_MESSAGE with Kafka's message).
2. Per partition, keyed as Kafka keys them (a partition named twice is one entry, the
   records named last): an unknown topic id (v13+, UNKNOWN_TOPIC_ID) or topic or partition
   (UNKNOWN_TOPIC_OR_PARTITION); the records field itself (one whole magic-2 batch, no zstd
   before v7; below v7 a codec id Kafka does not know fails the whole request,
   UNKNOWN_SERVER_ERROR, before anything is appended). Then, for the partitions left, an `acks` other than 0, 1 and -1
   (INVALID_REQUIRED_ACKS, nothing written), or the append: an internal topic
   (INVALID_TOPIC_EXCEPTION: only the broker writes `__consumer_offsets`); a partition this
   broker does not lead (NOT_LEADER_OR_FOLLOWER); acks=-1 with the ISR smaller than the
   effective min.insync.replicas (NOT_ENOUGH_REPLICAS, nothing written,
   `Partition.check_append`); then the append itself, whose validation errors come back as
   Kafka's codes, with the record errors (v8+) and the message Kafka sends for per-record
   errors only.

The answer lists each partition once, in the order of Kafka's maps, not the request's
(pylog/handlers/produce_answer.py).

An append the disk refuses (an OSError: a full disk, an I/O error) is answered
KAFKA_STORAGE_ERROR, retriable, and has written nothing; it is logged once per partition
until the partition appends again (pylog/log_dir_failures.py).

A failed partition answers base offset -1, and the log start offset only where Kafka
reports it (not for a corrupt or oversized batch, nor for a request-level refusal).

acks: 0 gets no response at all; when such a request fails for any partition the
connection is closed instead, as Kafka does, so that the producer refreshes its metadata.
1 is answered once the append is done. -1 (all) waits, for each partition that appended,
until its high watermark passes the appended records or the request's `timeout_ms` is over
(pylog/replication/delayed_produce.py: REQUEST_TIMED_OUT, NOT_ENOUGH_REPLICAS_AFTER_APPEND);
with one replica the high watermark moves at once and nothing waits. Other values:
INVALID_REQUIRED_ACKS.

An idempotent producer's retry of a batch the log already holds is a duplicate: storage
recognises it from the producer's last five batches and pylog answers with the offset the
batch got the first time, writing nothing.

A topic the metadata does not know is never created here, as in Kafka: its partitions get
UNKNOWN_TOPIC_OR_PARTITION. Clients create topics on first use with Metadata
(`allow_auto_topic_creation`), which they send before they produce.

Versions: v13 names topics by id (`topic_id`; the response carries the id): an id the
metadata does not know (the zero id too) gets UNKNOWN_TOPIC_ID for each of its partitions.
Up to v12 topics are named. From v10 a NOT_LEADER_OR_FOLLOWER partition carries the leader
the metadata knows, and the response those leaders' endpoints (pylog/handlers/leader_hints.py).
v11 and v12 change nothing for what pylog serves (v12 is the transaction-v2 producers' version).
"""

from __future__ import annotations

import logging

from protocol.error_codes import ErrorCode
from protocol.messages import ProduceResponse
from protocol.records import TRANSACTIONAL_BIT
from protocol.schema import ZERO_UUID
from pylog.clock import now_ms
from pylog.dispatch import CloseConnection
from pylog.errors import BrokerError, error_code_for, is_known_error
from pylog.handlers.leader_hints import LeaderHints
from pylog.handlers.produce_answer import (
    PartitionKey,
    PartitionResponse,
    answer_order,
    by_topic,
    failure,
    whole_request_failure,
)
from pylog.metadata import INTERNAL_TOPICS
from pylog.replication.delayed_produce import PendingAcks, await_acks
from storage import errors as storage_errors
from storage.log_validator import check_produce_records, first_batch_attributes

log = logging.getLogger("pylog.produce")

TOPIC_ID_VERSION = 13       # topics named by id
LEADER_HINT_VERSION = 10    # KIP-951: current_leader and node_endpoints

# Kafka answers these without the partition's log start offset (-1).
_NO_LOG_START_OFFSET = (storage_errors.CorruptBatch, storage_errors.RecordTooLarge,
                        storage_errors.RecordBatchTooLarge)


def make_handler(broker):
    async def handle(request, context):
        version = context.api_version
        acks = request.acks
        refusal = refuse_whole_request(request)
        if refusal is not None:
            code, message = refusal
            if acks == 0:
                raise CloseConnection(f"acks=0 produce request refused with {code.name}")
            return whole_request_failure(request, code, message)
        named = partitions_named(broker, request, version)
        if named.fails_whole:
            if acks == 0:
                raise CloseConnection("acks=0 produce request refused with UNKNOWN_SERVER_ERROR")
            return whole_request_failure(request, ErrorCode.UNKNOWN_SERVER_ERROR, None)
        now = now_ms()
        appended: dict[PartitionKey, PartitionResponse] = {}
        waiting: list[tuple[PartitionResponse, PendingAcks]] = []
        for key, records in named.to_append.items():
            if acks not in (0, 1, -1):
                appended[key] = failure(key.index, ErrorCode.INVALID_REQUIRED_ACKS)
                continue
            appended[key], pending = append_partition(broker, key.topic, key.index, records, now, acks)
            if pending is not None:
                waiting.append((appended[key], pending))
        entries = answer_order(appended, named.unknown, named.refused)
        failed = [f"{key.topic or key.topic_id}-{key.index}: {ErrorCode(result.error_code).name}"
                  for key, result in entries if result.error_code != ErrorCode.NONE]
        if acks == 0:
            if failed:
                raise CloseConnection("error during an acks=0 produce request (" + ", ".join(failed) + ")")
            return None
        if waiting:
            await await_acks(broker.waiters, [pending for _, pending in waiting], request.timeout_ms)
            for result, pending in waiting:
                result.error_code = pending.error
        hints = LeaderHints(broker) if version >= LEADER_HINT_VERSION else None
        if hints is not None:
            for key, result in entries:
                if result.error_code == ErrorCode.NOT_LEADER_OR_FOLLOWER:
                    result.current_leader.leader_id, result.current_leader.leader_epoch = hints.hint(key.topic,
                                                                                                     key.index)
        node_endpoints = [ProduceResponse.NodeEndpoint(node_id=node_id, host=host, port=port, rack=rack)
                          for node_id, host, port, rack in (hints.endpoints() if hints is not None else ())]
        return ProduceResponse(responses=by_topic(entries), node_endpoints=node_endpoints)

    return handle


def refuse_whole_request(request) -> tuple[ErrorCode, str | None] | None:
    """Kafka's pass over every partition's first batch before anything else."""
    transactional = False
    for topic_data in request.topic_data:
        for data in topic_data.partition_data:
            try:
                attributes = first_batch_attributes(data.records or b"")
            except storage_errors.CorruptBatch as exc:
                return ErrorCode.CORRUPT_MESSAGE, exc.detail
            transactional = transactional or bool(attributes is not None and attributes & TRANSACTIONAL_BIT)
    if transactional:
        # Kafka's answer without a transactional id; with one, pylog has no transaction
        # coordinator yet, so no producer can have begun the transaction either.
        return ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, None
    return None


def topic_names(broker, request, version: int) -> list[str | None]:
    """The name of each topic of the request (None: an id the metadata does not know)."""
    if version < TOPIC_ID_VERSION:
        return [topic_data.name for topic_data in request.topic_data]
    return [broker.metadata.topic_name_by_id(topic_data.topic_id) for topic_data in request.topic_data]


class PartitionsNamed:
    """Kafka's per-partition pass, as maps keyed by partition (a partition named again takes
    its last entry): the records to append, the partitions the metadata lacks, the
    partitions whose records field is refused; or `fails_whole`: a records field Kafka's
    check throws on (a codec id it does not know, below v7), which fails the whole request
    before anything is appended."""

    __slots__ = ("to_append", "unknown", "refused", "fails_whole")

    def __init__(self) -> None:
        self.to_append: dict[PartitionKey, memoryview | bytes] = {}
        self.unknown: dict[PartitionKey, PartitionResponse] = {}
        self.refused: dict[PartitionKey, PartitionResponse] = {}
        self.fails_whole = False


def partitions_named(broker, request, version: int) -> PartitionsNamed:
    named = PartitionsNamed()
    for topic_data, name in zip(request.topic_data, topic_names(broker, request, version)):
        if version < TOPIC_ID_VERSION:
            info = broker.metadata.topics.get(name)
            topic_id = info.topic_id if info is not None else ZERO_UUID
        else:
            topic_id = topic_data.topic_id
        for data in topic_data.partition_data:
            key = PartitionKey(topic_id, name or "", data.index)
            if name is None:
                named.unknown[key] = failure(data.index, ErrorCode.UNKNOWN_TOPIC_ID)
                continue
            if not broker.in_metadata(name, data.index):
                named.unknown[key] = failure(data.index, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
                continue
            records = data.records or b""
            try:
                batch_bytes = check_produce_records(records, version)
            except storage_errors.UnreadableBatch:
                named.fails_whole = True
                return named
            except storage_errors.StorageError as exc:
                named.refused[key] = failure(data.index, error_code_for(exc))
                continue
            if batch_bytes < len(records):
                records = memoryview(records)[:batch_bytes]  # a partial batch after it: Kafka drops those bytes
            named.to_append[key] = records
    return named


def append_partition(broker, topic: str, index: int, records, now: int,
                     acks: int) -> tuple[PartitionResponse, PendingAcks | None]:
    """The partition's answer, and for acks=-1 after a successful append what it waits for."""
    partition = broker.partition(topic, index)
    if partition is None:
        return failure(index, broker.no_partition_error(topic, index)), None
    if topic in INTERNAL_TOPICS:
        return failure(index, ErrorCode.INVALID_TOPIC_EXCEPTION), None
    try:
        partition.check_append(acks)
    except BrokerError as exc:   # Kafka tells no log start offset with these
        return failure(index, exc.code), None
    try:
        info = partition.append(records, now)
    except Exception as exc:
        code = error_code_for(exc)
        if isinstance(exc, OSError):
            broker.log_dir_failures.failed(topic, index, exc)
        elif not is_known_error(exc):
            log.exception("append to %s-%d failed", topic, index)
        else:
            log.debug("append to %s-%d refused: %s", topic, index, exc)
        if isinstance(exc, storage_errors.InvalidRecords):
            return failure(index, code, log_start_offset=partition.log_start_offset,
                           message=exc.kafka_message, record_errors=exc.record_errors), None
        start = -1 if isinstance(exc, _NO_LOG_START_OFFSET) else partition.log_start_offset
        return failure(index, code, log_start_offset=start), None
    if broker.log_dir_failures.failing:
        broker.log_dir_failures.succeeded(topic, index)
    # A retried batch the log already holds (idempotent producer) comes back as a duplicate
    # with the offsets it got the first time: the same answer, nothing written twice.
    result = PartitionResponse(index=index, error_code=ErrorCode.NONE, base_offset=info.first_offset,
                               log_append_time_ms=info.log_append_time_ms, log_start_offset=info.log_start_offset)
    pending = None
    if acks == -1:
        pending = PendingAcks(partition, info.last_offset + 1,
                              is_open=lambda: broker.partition(topic, index) is partition)
    return result, pending
