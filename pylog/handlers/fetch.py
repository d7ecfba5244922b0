"""Fetch (key 1): read record batches, waiting for data when asked to.

Two kinds of fetchers, told apart by `replica_id` (v4-14; from v15 `replica_state`, which
carries the follower's broker epoch too):

Consumers (replica_id < 0). For each requested partition, in request order: only the
leader answers, after checking the leader epoch the client believes in (v9+,
`Partition.check_leader`: FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH, then
NOT_LEADER_OR_FOLLOWER on a follower) and, when the fetch names a `last_fetched_epoch`,
the same diverging-epoch check as a follower's (below); then read from the fetch offset up
to the high watermark (the last stable offset for read_committed), at most
`partition_max_bytes` and what is left of the response's `max_bytes`. A read_committed
answer lists its aborted transactions (an empty list: pylog has none), a
read_uncommitted one none (null), as Kafka's. The broker's `fetch.max.bytes` (55 MiB) caps the
request's `max_bytes` and `min_bytes`, for consumers and followers alike (Kafka's
KafkaApis.handleFetchRequest; a v0-v2 request, which has no `max_bytes`, gets just the cap).

Followers (replica_id >= 0, a broker's replica fetcher), Kafka's Partition.fetchRecords:
the same epoch and leadership checks, then the replica must be one of the partition's
(else UNKNOWN_LEADER_EPOCH when the fetch named a leader epoch, a replica this leader may
not know of yet, or NOT_LEADER_OR_FOLLOWER); `last_fetched_epoch` (v12) is checked
against this leader's epoch cache (`Partition.diverging_epoch`): a follower whose epoch
ended here before its fetch offset, or that this leader does not have, gets
`diverging_epoch` (epoch, end offset) and no records, and truncates; an epoch the cache
cannot place is OFFSET_OUT_OF_RANGE. Otherwise the read goes up to the log end offset
(not the HW), and the fetch offset is reported to the replication state as the
follower's LEO (`Partition.follower_fetched`): the HW may rise (parked fetches and acks=-1
produces wake), and an ISR expansion goes to the AlterPartition manager. The response's
high watermark is the leader's, after this fetch moved it.

Order of the answer, as Kafka's: the partitions read (or refused by their replica, e.g.
NOT_LEADER_OR_FOLLOWER) in the request's order, then those the metadata does not know
(UNKNOWN_TOPIC_ID, UNKNOWN_TOPIC_OR_PARTITION); consecutive partitions of one topic share a
topic entry, so a topic may appear twice.

The read starts at the batch that holds the fetch offset; the client skips the records
before it. The first partition with data always gets at least one whole batch, even a
batch larger than the limits, so a consumer can never get stuck (KIP-74). A partition with
an error carries no records and no offsets (high watermark, last stable offset and log
start offset -1), as Kafka answers it.

Long polling: if the response holds fewer than `min_bytes`, no partition read has an
error and `max_wait_ms` is not over, the request parks on the partitions it reads until an
append arrives (or a HW rise, a leadership change), a topic it reads is deleted, or the
time is up, then reads again. Other connections are served meanwhile. A partition read
with an error (OFFSET_OUT_OF_RANGE, a leader-epoch error, NOT_LEADER_OR_FOLLOWER, a
diverging epoch ...) makes the answer go out at once, as Kafka's does: waiting would not
change the error, and the client needs it to act. A partition the metadata does not know
(UNKNOWN_TOPIC_ID, UNKNOWN_TOPIC_OR_PARTITION) is not read: as in Kafka, it does not end
the wait for the others, and only a request that reads no partition is answered at once.

Record bytes are sent from the segment files as stored: no batch is decoded or re-encoded,
and none is read into Python while the socket keeps up (`os.sendfile`,
pylog/frame_writer.py). Fetch sessions (KIP-227) are declined politely: the answer always
carries session id 0, which tells the client to send full requests. So an incremental
request (v7+, a session epoch other than 0 and -1) names a session that does not exist and
gets FETCH_SESSION_ID_NOT_FOUND with no partition, as Kafka answers an unknown session.

Requests refused whole, as Kafka refuses them (`refusal`), in its order:
- a session id outside the ranges of Kafka's eight session-cache shards, in an incremental
  request or, unless 0, in a full one: Kafka's lookup of the shard (`session_id` divided by
  the range, `Int.MaxValue / 8`) throws, and the whole request fails UNKNOWN_SERVER_ERROR;
- an incremental request: FETCH_SESSION_ID_NOT_FOUND (above);
- an isolation level other than 0 and 1, once any partition is to be read (a consumer's in
  the metadata, a follower's of a known topic): UNKNOWN_SERVER_ERROR, from Kafka's
  `IsolationLevel.forId`.
A request that fails whole is answered in Kafka's `FetchRequest.getErrorResponse` shape: the
error at the top (v7+) and, below v13, in every partition named, each echoed as asked.
A partition the metadata does not know is answered as Kafka's KafkaApis answers it,
`FetchResponse.partitionResponse`: with an empty (not null) list of aborted transactions,
where the partitions that reach a log carry null for read_uncommitted.

The answer keeps the request's order, as Kafka's LinkedHashMap of the partitions named
does: a partition named twice is answered once, in its first place, for its last entry;
partitions the metadata does not know come after the others, for a consumer those of an
unknown topic id first (Kafka finds them in a pass of their own), for a follower in the
request's order; a partition is grouped with the one before it when they share a topic.
Kafka 4.1.1 tells topics apart by name where the id is the zero id, and a zero id names no
topic: from v13, an answer where any partition follows one of the zero id throws while
Kafka groups it (`FetchResponse.matchingTopic`), and the request fails whole,
UNKNOWN_SERVER_ERROR, as pylog answers it too.

Versions: from v13 topics are named by id (`topic_id`, in the request and the answer): an
id the metadata does not know (the zero id too) gets UNKNOWN_TOPIC_ID for each of its
partitions. From v16 a partition refused with NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH
carries the leader the metadata knows, and the answer those leaders' endpoints
(pylog/handlers/leader_hints.py). v17's replica directory id and v18's high watermark
field (both for followers) change nothing here. pylog's own replica fetchers send v12.
"""

from __future__ import annotations

import time

from protocol.error_codes import ErrorCode
from protocol.file_range import FileRange
from protocol.messages import FetchResponse
from protocol.schema import ZERO_UUID
from pylog.clock import now_ms
from pylog.errors import error_code_for
from pylog.handlers.leader_hints import LeaderHints

PartitionData = FetchResponse.PartitionData

SESSION_VERSION = 7        # fetch sessions (KIP-227): session_id, session_epoch, a top-level error
FULL_EPOCHS = (0, -1)      # a full request: open a session (0) or fetch without one (-1)
SESSION_SHARDS = 8         # Kafka's fetch-session cache: 8 shards ...
SESSION_ID_RANGE = (2**31 - 1) // SESSION_SHARDS   # ... of this many session ids each
ISOLATION_LEVELS = (0, 1)  # read_uncommitted, read_committed

TOPIC_ID_VERSION = 13      # topics named by id
REPLICA_STATE_VERSION = 15  # replica_state instead of replica_id
LEADER_HINT_VERSION = 16   # KIP-951: current_leader and node_endpoints
HINTED_ERRORS = (ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.FENCED_LEADER_EPOCH)


def make_handler(broker):
    async def handle(request, context):
        version = context.api_version
        refused = refusal(broker, request, version)
        if refused is not None:
            return refused
        deadline = time.monotonic() + max(request.max_wait_ms, 0) / 1000
        max_bytes = min(request.max_bytes, broker.config["fetch.max.bytes"])
        min_bytes = min(request.min_bytes, max_bytes)
        names = topic_names(broker, request, version)
        keys = [(name, p.partition) for t, name in zip(request.topics, names) if name is not None
                for p in t.partitions]
        while True:
            response, total_bytes, answer_now = read_all(broker, request, names, version, max_bytes)
            remaining = deadline - time.monotonic()
            if total_bytes >= min_bytes or answer_now or remaining <= 0:
                return response
            await broker.waiters.wait(keys, remaining)

    return handle


def refusal(broker, request, version: int) -> FetchResponse | None:
    """The answer to a request Kafka refuses whole, or None (the module's docstring)."""
    if version >= SESSION_VERSION:
        full = request.session_epoch in FULL_EPOCHS
        if (not full or request.session_id != 0) and not (
                -SESSION_ID_RANGE < request.session_id < SESSION_SHARDS * SESSION_ID_RANGE):
            return failed_request(request, version, ErrorCode.UNKNOWN_SERVER_ERROR)
        if not full:
            return FetchResponse(error_code=ErrorCode.FETCH_SESSION_ID_NOT_FOUND, session_id=0)
    if request.isolation_level not in ISOLATION_LEVELS and any(
            name is not None and (replica(request, version)[0] >= 0 or broker.in_metadata(name, p.partition))
            for t, name in zip(request.topics, topic_names(broker, request, version)) for p in t.partitions):
        return failed_request(request, version, ErrorCode.UNKNOWN_SERVER_ERROR)
    return None


def failed_request(request, version: int, code: ErrorCode) -> FetchResponse:
    """Kafka's `FetchRequest.getErrorResponse`: `code` at the top and, below v13, in every
    partition named, topics as the request gives them."""
    topics = [] if version >= TOPIC_ID_VERSION else [
        FetchResponse.FetchableTopicResponse(topic=t.topic, topic_id=t.topic_id,
                                             partitions=[unknown_partition(p.partition, code) for p in t.partitions])
        for t in request.topics]
    return FetchResponse(error_code=code, session_id=request.session_id, responses=topics)


def topic_names(broker, request, version: int) -> list[str | None]:
    """The name of each topic the request names (by id from v13; None for an unknown id)."""
    return [t.topic if version < TOPIC_ID_VERSION else broker.metadata.topic_name_by_id(t.topic_id)
            for t in request.topics]


def replica(request, version: int) -> tuple[int, int]:
    """(replica id, broker epoch) of the fetcher: a follower's id is >= 0, a consumer's < 0."""
    if version >= REPLICA_STATE_VERSION:
        return request.replica_state.replica_id, request.replica_state.replica_epoch
    return request.replica_id, -1


def read_all(broker, request, names: list[str | None], version: int,
             max_bytes: int) -> tuple[FetchResponse, int, bool]:
    """The response (at most `max_bytes` of records, but for a first batch larger than that),
    the record bytes in it, and whether to answer at once rather than wait for records: a
    partition read has an error (or a diverging epoch: the follower must act on it at once),
    or no partition is read. Partitions the metadata does not know do not end the wait:
    Kafka waits for the partitions it reads and adds those to the answer it then sends."""
    budget = max_bytes
    total = 0
    answer_now = False
    read_any = False
    topics = []
    replica_id, broker_epoch = replica(request, version)
    hints = LeaderHints(broker) if version >= LEADER_HINT_VERSION else None
    now = now_ms()
    refused = []   # (name, topic id, answer): what the metadata does not know, answered last
    # Kafka's LinkedHashMap of the partitions named: a partition named again keeps its first
    # place and takes its last entry
    named = {(topic_request.topic_id, name, partition_request.partition): (topic_request, partition_request)
             for topic_request, name in zip(request.topics, names) for partition_request in topic_request.partitions}
    for (_, name, index), (topic_request, partition_request) in named.items():
        if name is None:
            refused.append((name, topic_request.topic_id, unknown_partition(index, ErrorCode.UNKNOWN_TOPIC_ID)))
            continue
        partition = broker.partition(name, index)
        if partition is None:
            code = broker.no_partition_error(name, index)
            if code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
                refused.append((name, topic_request.topic_id, unknown_partition(index, code)))
                continue
            data, size = failed(index, code), 0
        elif replica_id >= 0:
            data, size = read_for_follower(broker, partition, partition_request, replica_id, broker_epoch,
                                           budget, first=(total == 0), now=now)
        else:
            data, size = read_partition(partition, partition_request,
                                        request.isolation_level, budget, first=(total == 0))
        if hints is not None and data.error_code in HINTED_ERRORS:
            data.current_leader.leader_id, data.current_leader.leader_epoch = hints.hint(name, data.partition_index)
        _add(topics, name, topic_request.topic_id, data)
        read_any = True
        answer_now = answer_now or data.error_code != ErrorCode.NONE or is_diverging(data)
        total += size
        budget = max(budget - size, 0)
    if replica_id < 0:   # a consumer's unknown topic ids come first: Kafka finds them in a pass of their own
        refused.sort(key=lambda entry: entry[2].error_code != ErrorCode.UNKNOWN_TOPIC_ID)
    answer_now = answer_now or not read_any
    if version >= TOPIC_ID_VERSION and any(topic_id == ZERO_UUID for _, topic_id, _ in refused[:-1]):
        # Kafka fails while it builds the answer, after the wait as before it
        return failed_request(request, version, ErrorCode.UNKNOWN_SERVER_ERROR), total, answer_now
    for name, topic_id, data in refused:
        _add(topics, name, topic_id, data)
    node_endpoints = [FetchResponse.NodeEndpoint(node_id=node_id, host=host, port=port, rack=rack)
                      for node_id, host, port, rack in (hints.endpoints() if hints is not None else ())]
    return FetchResponse(error_code=0, session_id=0, responses=topics, node_endpoints=node_endpoints), total, answer_now


def _add(topics: list, name: str | None, topic_id, data: PartitionData) -> None:
    """Append a partition's answer: to the last topic entry when it is the same topic, else
    in a new one (as Kafka's FetchResponse groups its ordered partitions)."""
    if topics and topics[-1].topic == (name or "") and topics[-1].topic_id == topic_id:
        topics[-1].partitions.append(data)
    else:
        topics.append(FetchResponse.FetchableTopicResponse(topic=name or "", topic_id=topic_id, partitions=[data]))


def is_diverging(data: PartitionData) -> bool:
    """Whether a partition's answer carries a diverging epoch (Kafka's FetchResponse.isDivergingEpoch)."""
    return data.diverging_epoch.epoch >= 0 or data.diverging_epoch.end_offset >= 0


READ_COMMITTED = 1   # isolation_level


def _said(epoch: int) -> int | None:
    """Fetch takes any negative epoch for "not said" (Kafka's FetchRequest.optionalEpoch)."""
    return epoch if epoch >= 0 else None


def read_partition(partition, request, isolation_level: int, budget: int, first: bool):
    index = request.partition
    epoch_error = partition.check_leader(_said(request.current_leader_epoch))
    if epoch_error:
        return failed(index, epoch_error), 0
    max_bytes = min(request.partition_max_bytes, budget)
    try:
        data = diverged(partition, index, request)
        if data is not None:
            return data, 0
        result = partition.read(request.fetch_offset, max_bytes, isolation_level, min_one_batch=first)
    except Exception as exc:
        return failed(index, error_code_for(exc)), 0
    # read_committed answers list the aborted transactions the records hold: none in pylog
    return answered(partition, index, result, [] if isolation_level == READ_COMMITTED else None)


def diverged(partition, index: int, request) -> PartitionData | None:
    """The answer to a fetch whose `last_fetched_epoch` (v12+, a follower's or a consumer's
    alike, as in Kafka's Partition.readRecords) ended here before the fetch offset, or is
    unknown to this leader: the epoch and end offset to truncate to, no records. None when
    the fetch does not name an epoch or its log agrees; OFFSET_OUT_OF_RANGE raised when the
    epoch cache cannot tell (`Partition.diverging_epoch`)."""
    if request.last_fetched_epoch < 0:
        return None
    diverging = partition.diverging_epoch(request.fetch_offset, request.last_fetched_epoch)
    if diverging is None:
        return None
    epoch, end_offset = diverging
    return PartitionData(partition_index=index, error_code=ErrorCode.NONE,
                         high_watermark=partition.high_watermark,
                         last_stable_offset=partition.last_stable_offset,
                         log_start_offset=partition.log_start_offset,
                         diverging_epoch=FetchResponse.EpochEndOffset(epoch=epoch, end_offset=end_offset),
                         aborted_transactions=None, records=b"")


def read_for_follower(broker, partition, request, replica_id: int, broker_epoch: int, budget: int, first: bool,
                      now: int):
    index = request.partition
    current_leader_epoch = _said(request.current_leader_epoch)
    error = partition.check_follower_fetch(replica_id, current_leader_epoch)
    if error:
        return failed(index, error), 0
    try:
        data = diverged(partition, index, request)
        if data is not None:
            return data, 0
        result = partition.read_for_follower(request.fetch_offset, min(request.partition_max_bytes, budget),
                                             min_one_batch=first)
    except Exception as exc:
        return failed(index, error_code_for(exc)), 0
    outcome = partition.follower_fetched(replica_id, request.fetch_offset, request.log_start_offset,
                                         broker_epoch=broker_epoch, now_ms=now,
                                         sent_leader_epoch=current_leader_epoch is not None)
    if outcome.error:
        return failed(index, outcome.error), 0
    if outcome.alter_partition is not None:
        broker.alter_partition_manager.submit(partition, outcome.alter_partition)
    return answered(partition, index, result)


def answered(partition, index: int, result, aborted_transactions: list | None = None):
    """The partition's answer; its records stay in the segment file until they are sent
    (protocol/file_range.py, pylog/frame_writer.py). A read whose limit cut its first batch
    answers no records, as Kafka's ReplicaManager replaces such a read for every Fetch
    version pylog serves (a client makes no progress with a part of a batch), and, as that
    replacement carries no list of aborted transactions, null where read_committed asked
    for one."""
    if result.first_batch_incomplete:
        size, aborted_transactions = 0, None
    else:
        size = result.size_bytes
    records = FileRange(result.fd, result.position, size) if size else b""
    return PartitionData(partition_index=index, error_code=ErrorCode.NONE, high_watermark=partition.high_watermark,
                         last_stable_offset=partition.last_stable_offset,
                         log_start_offset=partition.log_start_offset, aborted_transactions=aborted_transactions,
                         records=records), size


def unknown_partition(index: int, code: int) -> PartitionData:
    """A partition answered without reaching a log (Kafka's `FetchResponse.partitionResponse`):
    no offsets, no records, and an empty list of aborted transactions."""
    return PartitionData(partition_index=index, error_code=code, high_watermark=-1, last_stable_offset=-1,
                         log_start_offset=-1, aborted_transactions=[], records=b"")


def failed(index: int, code: int) -> PartitionData:
    """A partition that could not be read: Kafka tells none of its offsets (-1) and no records."""
    return PartitionData(partition_index=index, error_code=code, high_watermark=-1, last_stable_offset=-1,
                         log_start_offset=-1, aborted_transactions=None, records=b"")
