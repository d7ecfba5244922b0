"""Fetch (key 1): read record batches, waiting for data when asked to.

For each requested partition, in request order: check the leader epoch the client
believes in (v9+: older → FENCED_LEADER_EPOCH, newer → UNKNOWN_LEADER_EPOCH), then read
from the fetch offset up to the high watermark (the last stable offset for
read_committed), at most `partition_max_bytes` and what is left of the response's
`max_bytes`. The read starts at the batch that holds the fetch offset; the client skips
the records before it. The first partition with data always gets at least one whole
batch, even a batch larger than the limits, so a consumer can never get stuck (KIP-74).

Long polling: if the response holds fewer than `min_bytes` and `max_wait_ms` is not
over, the request parks on the partitions it reads until an append arrives or the time
is up, then reads again. Other connections are served meanwhile.

Record bytes are copied from the segment files as stored: no batch is decoded or
re-encoded. Fetch sessions (KIP-227) are declined politely: the answer always carries
session id 0, which tells the client to send full requests.
"""

from __future__ import annotations

import time

from protocol.error_codes import ErrorCode
from protocol.messages import FetchResponse
from pylog.errors import error_code_for

PartitionData = FetchResponse.PartitionData


def make_handler(broker):
    async def handle(request, context):
        deadline = time.monotonic() + max(request.max_wait_ms, 0) / 1000
        keys = [(t.topic, p.partition) for t in request.topics for p in t.partitions]
        while True:
            response, total_bytes = read_all(broker, request)
            remaining = deadline - time.monotonic()
            if total_bytes >= request.min_bytes or remaining <= 0 or not keys:
                return response
            await broker.waiters.wait(keys, remaining)

    return handle


def read_all(broker, request) -> tuple[FetchResponse, int]:
    budget = request.max_bytes
    total = 0
    topics = []
    for topic_request in request.topics:
        partitions = []
        for partition_request in topic_request.partitions:
            data, size = read_partition(broker, topic_request.topic, partition_request, request.isolation_level,
                                        budget, first=(total == 0))
            partitions.append(data)
            total += size
            budget = max(budget - size, 0)
        topics.append(FetchResponse.FetchableTopicResponse(topic=topic_request.topic, partitions=partitions))
    return FetchResponse(error_code=0, session_id=0, responses=topics), total


def read_partition(broker, topic: str, request, isolation_level: int, budget: int, first: bool):
    partition = broker.partition(topic, request.partition)
    index = request.partition
    if partition is None:
        return PartitionData(partition_index=index, error_code=ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                             high_watermark=-1, last_stable_offset=-1, log_start_offset=-1, records=None), 0
    epoch_error = check_leader_epoch(partition, request.current_leader_epoch)
    if epoch_error:
        return offsets_only(partition, index, epoch_error), 0
    max_bytes = min(request.partition_max_bytes, budget)
    try:
        result = partition.read(request.fetch_offset, max_bytes, isolation_level, min_one_batch=first)
    except Exception as exc:
        return offsets_only(partition, index, error_code_for(exc)), 0
    records = result.read_bytes() if result.size_bytes else b""
    data = offsets_only(partition, index, ErrorCode.NONE)
    data.records = records
    return data, len(records)


def offsets_only(partition, index: int, code: int) -> PartitionData:
    return PartitionData(partition_index=index, error_code=code, high_watermark=partition.high_watermark,
                         last_stable_offset=partition.last_stable_offset,
                         log_start_offset=partition.log_start_offset, aborted_transactions=None,
                         records=b"")


def check_leader_epoch(partition, current_leader_epoch: int) -> int:
    """FENCED_LEADER_EPOCH for a client behind us, UNKNOWN_LEADER_EPOCH for one ahead."""
    if current_leader_epoch < 0 or current_leader_epoch == partition.leader_epoch:
        return ErrorCode.NONE
    if current_leader_epoch < partition.leader_epoch:
        return ErrorCode.FENCED_LEADER_EPOCH
    return ErrorCode.UNKNOWN_LEADER_EPOCH
