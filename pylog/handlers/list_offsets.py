"""ListOffsets (key 2): offsets by time, and the log's ends.

    timestamp -2  earliest: the log start offset
    timestamp -1  latest: the high watermark, or the last stable offset for read_committed;
                  for a follower (replica_id >= 0) the log end offset, as Kafka answers it
    timestamp -3  max timestamp (v7+): the record with the largest timestamp
    timestamp -4  earliest local (v8+): the first offset stored here; without tiered
                  storage, the log start offset, as -2
    timestamp -5  latest tiered (v9+): the last offset in tiered storage, of which pylog
                  has none: offset -1, timestamp -1, leader epoch -1 (Kafka's answer
                  for a log without remote storage)
    timestamp t   the first offset whose record timestamp is >= t, found through the
                  time index (no such record: offset -1)

A partition named more than once is answered once, INVALID_REQUEST, and looked up never.
The answer lists each partition once, in the order of Kafka's maps (`in_kafkas_order`), not
the request's; a topic named with no partition is left out.

A negative timestamp the request's version does not know (or none above) is refused with
UNSUPPORTED_VERSION before anything else is looked at, as Kafka's ReplicaManager does;
v0, which Kafka 4 dropped, takes -1 and -2. v10 adds `timeout_ms`, which bounds Kafka's
wait for tiered storage: nothing here waits.

v0 answers with a list of offsets (`old_style_offsets`); v1+ with one offset and its
timestamp; v4+ with the leader epoch, and checks the epoch the client believes in.
Only the leader answers (`Partition.check_leader`): a follower says NOT_LEADER_OR_FOLLOWER.

An isolation level other than 0 and 1 (v2+) fails the whole request, as Kafka's
`IsolationLevel.forId` makes it fail once any topic is named: every partition asked gets
UNKNOWN_SERVER_ERROR, offset and timestamp -1 (`ListOffsetsRequest.getErrorResponse`).

A lookup by time reads the records of a batch whole. One it cannot read (a compressed
batch kept as it came, whose record lengths only the lenient reading of its append let
pass: storage/log_validator.py) answers INVALID_RECORD for that partition, as Kafka's
does; a failed read of the file, KAFKA_STORAGE_ERROR.
"""

from __future__ import annotations

from collections import Counter

from protocol.error_codes import ErrorCode
from protocol.errors import InvalidRecord
from protocol.java_order import java_string_hashcode, topic_partition_hash
from protocol.messages import ListOffsetsResponse
from protocol.records import TimestampType, iter_records, read_batch_header
from protocol.scala_order import champ_order, mutable_hash_set_order
from pylog.errors import error_code_for
from pylog.partition import NO_LEADER_EPOCH

EARLIEST, LATEST, MAX_TIMESTAMP, EARLIEST_LOCAL, LATEST_TIERED = -2, -1, -3, -4, -5
# the first version that may ask for each special timestamp
SPECIAL_TIMESTAMP_VERSIONS = {EARLIEST: 0, LATEST: 0, MAX_TIMESTAMP: 7, EARLIEST_LOCAL: 8, LATEST_TIERED: 9}
ISOLATION_LEVELS = (0, 1)   # read_uncommitted, read_committed
PartitionResponse = ListOffsetsResponse.ListOffsetsPartitionResponse


def make_handler(broker):
    async def handle(request, context):
        if request.isolation_level not in ISOLATION_LEVELS and request.topics:
            return failed_request(request, ErrorCode.UNKNOWN_SERVER_ERROR)
        named = [(topic.name, p) for topic in request.topics for p in topic.partitions]
        repeated = named_twice(named)
        answers: dict[tuple[str, int], PartitionResponse] = {}
        for name, p in named:
            if (name, p.partition_index) in repeated:
                answers[(name, p.partition_index)] = PartitionResponse(partition_index=p.partition_index,
                                                                       error_code=ErrorCode.INVALID_REQUEST)
            else:
                answers[(name, p.partition_index)] = lookup(broker, name, p, request.isolation_level,
                                                            context.api_version, request.replica_id)
        return ListOffsetsResponse(topics=in_kafkas_order(answers))

    return handle


def named_twice(named: list) -> set[tuple[str, int]]:
    """The (topic, partition) pairs named more than once."""
    if len(named) < 2:
        return set()
    return {key for key, count in Counter((name, p.partition_index) for name, p in named).items() if count > 1}


def in_kafkas_order(answers: dict[tuple[str, int], PartitionResponse]) -> list:
    """The answers as Kafka's ReplicaManager lists them: from a `mutable.HashMap` keyed by
    TopicPartition, grouped by topic (`groupBy`: an immutable `HashMap` of the names, each
    holding a `mutable.HashMap` of its partitions), protocol/scala_order.py."""
    by_topic: dict[str, list[tuple[str, int]]] = {}
    for key in answers:
        by_topic.setdefault(key[0], []).append(key)
    names = champ_order(list(by_topic), [java_string_hashcode(name) for name in by_topic])
    return [ListOffsetsResponse.ListOffsetsTopicResponse(name=name, partitions=[
        answers[key] for key in mutable_hash_set_order(by_topic[name], [topic_partition_hash(*key)
                                                                         for key in by_topic[name]])])
        for name in names]


def failed_request(request, code: ErrorCode) -> ListOffsetsResponse:
    """Kafka's `ListOffsetsRequest.getErrorResponse`: `code` for every partition asked."""
    return ListOffsetsResponse(topics=[ListOffsetsResponse.ListOffsetsTopicResponse(name=topic.name, partitions=[
        PartitionResponse(partition_index=p.partition_index, error_code=code, offset=-1, timestamp=-1)
        for p in topic.partitions]) for topic in request.topics])


def lookup(broker, topic: str, request, isolation_level: int, version: int,
           replica_id: int = -1) -> PartitionResponse:
    index = request.partition_index
    if request.timestamp < 0 and version < SPECIAL_TIMESTAMP_VERSIONS.get(request.timestamp, version + 1):
        return PartitionResponse(partition_index=index, error_code=ErrorCode.UNSUPPORTED_VERSION)
    partition = broker.partition(topic, index)
    if partition is None:
        return PartitionResponse(partition_index=index, error_code=broker.no_partition_error(topic, index))
    epoch = request.current_leader_epoch  # only -1 means "not said" here; -5 is fenced
    epoch_error = partition.check_leader(None if epoch == NO_LEADER_EPOCH else epoch)
    if epoch_error:
        return PartitionResponse(partition_index=index, error_code=epoch_error)
    timestamp, offset = -1, -1
    # a follower (replica id >= 0) reads up to the leader's LEO, a consumer up to what it may see
    end = partition.log_end_offset if replica_id >= 0 else partition.visible_end(isolation_level)
    if request.timestamp in (EARLIEST, EARLIEST_LOCAL):
        offset = partition.log_start_offset
    elif request.timestamp == LATEST:
        offset = end
    else:
        try:
            if request.timestamp == MAX_TIMESTAMP:
                timestamp, offset = max_timestamp(partition)
            elif request.timestamp >= 0:
                found = partition.log.offset_for_timestamp(request.timestamp)
                if found is not None and found.offset < end:
                    timestamp, offset = found.timestamp_ms, found.offset
        except (InvalidRecord, OSError) as exc:   # a batch whose records cannot be read whole; the disk
            return PartitionResponse(partition_index=index, error_code=error_code_for(exc))
    return PartitionResponse(partition_index=index, error_code=ErrorCode.NONE, timestamp=timestamp, offset=offset,
                             leader_epoch=partition.leader_epoch if offset >= 0 else -1,
                             old_style_offsets=[offset] if offset >= 0 else [])


def max_timestamp(partition) -> tuple[int, int]:
    """(timestamp, offset) of the first record carrying the log's largest timestamp.

    Each segment knows its largest timestamp and the last offset of the batch that holds
    it (from its time index); that batch is read and its records scanned for the first
    one with that timestamp, as Kafka does since 3.8 (KAFKA-16310). Per-record work, on
    a path clients rarely take."""
    best = None
    for segment in partition.log.segments:
        found = segment.max_timestamp_so_far
        if found.timestamp_ms >= 0 and (best is None or found.timestamp_ms > best[1].timestamp_ms):
            best = (segment, found)
    if best is None:
        return -1, -1
    segment, found = best
    batch = segment.translate_offset(found.offset)
    if batch is None:
        return found.timestamp_ms, found.offset
    data = segment.read_bytes(batch.position, batch.size_bytes)
    header = read_batch_header(data)
    if header.timestamp_type == TimestampType.LOG_APPEND_TIME:
        return header.max_timestamp, header.base_offset
    for record in iter_records(data):
        if record.timestamp == found.timestamp_ms:
            return record.timestamp, record.offset
    return found.timestamp_ms, found.offset
