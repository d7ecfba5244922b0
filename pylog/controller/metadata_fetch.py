"""The controller's side of a Fetch of `__cluster_metadata`: a broker following the
metadata log (an observer, replica id -1) asks for the batches after its copy's end
(Kafka's `KafkaRaftClient.handleFetchRequest` for a leader).

The request names topic `__cluster_metadata` (v12 and below, by name) or its topic id
(Uuid 0...01, v13 and up), partition 0, a fetch offset and the epoch of the last batch the
follower holds (`last_fetched_epoch`). The answer, per Raft's rules:

- a fetch offset above 0 with no last fetched epoch (-1): INVALID_REQUEST;
- the offset and epoch must match the log: the largest epoch <= last_fetched_epoch that the
  log knows, and the offset where it ends (the epoch cache; the log end and latest epoch
  when the cache knows none). If that epoch differs from the one asked, or ends before the
  fetch offset (a copy ahead of the controller, or that wrote a term the controller does
  not have), the answer carries no records and `diverging_epoch` = (that epoch, that end
  offset); the follower truncates (pylog/metadata_follower.py) and fetches again;
- a fetch offset below the log start: OFFSET_OUT_OF_RANGE (no snapshots are kept, so this
  happens only for a negative offset);
- otherwise the whole batches from the fetch offset, at most `partition_max_bytes` but at
  least one batch. The high watermark is the log end (a quorum of one commits what it has
  fsynced), and `current_leader` is (this controller, its epoch).

Any other topic or partition gets UNKNOWN_TOPIC_OR_PARTITION. The cluster id is not
checked (Kafka answers INCONSISTENT_CLUSTER_ID to a follower of another cluster).

A fetch the log answers (no error, no diverging epoch) from a replica id of 0 or more is
noted in `observers` (pylog/controller/quorum_observers.py): DescribeQuorum lists who
follows the log, how far and when.

`handle_metadata_fetch` adds the long poll: a request whose answer would carry nothing
waits up to `max_wait_ms` for the log to grow. Both run on the controller's event loop,
which owns the MetadataLog.
"""

from __future__ import annotations

from protocol.error_codes import ErrorCode
from protocol.messages import FetchRequest, FetchResponse
from protocol.metadata_log import METADATA_PARTITION, METADATA_TOPIC, METADATA_TOPIC_ID
from pylog.clock import now_ms
from pylog.controller.metadata_log import MetadataLog
from pylog.controller.quorum_observers import QuorumObservers

NO_EPOCH = -1


def answer_metadata_fetch(metadata_log: MetadataLog, request: FetchRequest, *, leader_id: int = -1,
                          observers: QuorumObservers | None = None) -> FetchResponse:
    """The FetchResponse to `request` from `metadata_log` (see the module docstring)."""
    topics = []
    for topic in request.topics:
        is_metadata = topic.topic == METADATA_TOPIC or topic.topic_id == METADATA_TOPIC_ID
        partitions = []
        for partition in topic.partitions:
            if not (is_metadata and partition.partition == METADATA_PARTITION):
                partitions.append(_error(partition.partition, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION))
                continue
            answer = _answer_partition(metadata_log, partition, leader_id)
            if observers is not None and answer.error_code == 0 and answer.diverging_epoch.epoch == NO_EPOCH:
                observers.fetched(request.replica_id, partition.fetch_offset, metadata_log.log_end_offset, now_ms())
            partitions.append(answer)
        topics.append(FetchResponse.FetchableTopicResponse(topic=topic.topic, topic_id=topic.topic_id,
                                                           partitions=partitions))
    return FetchResponse(throttle_time_ms=0, error_code=0, session_id=0, responses=topics)


async def handle_metadata_fetch(metadata_log: MetadataLog, request: FetchRequest, *,
                                leader_id: int = -1, observers: QuorumObservers | None = None) -> FetchResponse:
    """`answer_metadata_fetch`, after waiting up to `max_wait_ms` for data when the answer
    would be empty (no records, no divergence, no error)."""
    response = answer_metadata_fetch(metadata_log, request, leader_id=leader_id, observers=observers)
    if request.max_wait_ms > 0 and _nothing_to_say(response):
        offsets = [p.fetch_offset for t in request.topics for p in t.partitions]
        if offsets:
            await metadata_log.wait_for_append(min(offsets), request.max_wait_ms / 1000)
            response = answer_metadata_fetch(metadata_log, request, leader_id=leader_id, observers=observers)
    return response


def _nothing_to_say(response: FetchResponse) -> bool:
    return all(not p.records and p.error_code == 0 and p.diverging_epoch.epoch == NO_EPOCH
               for t in response.responses for p in t.partitions)


def _answer_partition(metadata_log: MetadataLog, partition, leader_id: int) -> FetchResponse.PartitionData:
    fetch_offset, last_fetched_epoch = partition.fetch_offset, partition.last_fetched_epoch
    if last_fetched_epoch < 0 and fetch_offset > 0:
        return _error(partition.partition, ErrorCode.INVALID_REQUEST)
    if fetch_offset < metadata_log.log_start_offset:
        return _error(partition.partition, ErrorCode.OFFSET_OUT_OF_RANGE)
    answer = FetchResponse.PartitionData(
        partition_index=partition.partition, error_code=0, high_watermark=metadata_log.high_watermark,
        last_stable_offset=metadata_log.high_watermark, log_start_offset=metadata_log.log_start_offset,
        current_leader=FetchResponse.LeaderIdAndEpoch(leader_id=leader_id, leader_epoch=metadata_log.epoch),
        records=b"")
    if not (fetch_offset == 0 and metadata_log.log_start_offset == 0):
        epoch, end_offset = metadata_log.end_offset_for_epoch(last_fetched_epoch)
        if epoch < 0:
            epoch, end_offset = metadata_log.epoch, metadata_log.log_end_offset
        if epoch != last_fetched_epoch or end_offset < fetch_offset:
            answer.diverging_epoch = FetchResponse.EpochEndOffset(epoch=epoch, end_offset=end_offset)
            return answer
    answer.records = metadata_log.read_batches(fetch_offset, partition.partition_max_bytes)
    return answer


def _error(index: int, error: ErrorCode) -> FetchResponse.PartitionData:
    return FetchResponse.PartitionData(partition_index=index, error_code=error, high_watermark=-1,
                                       last_stable_offset=-1, log_start_offset=-1, records=b"")
