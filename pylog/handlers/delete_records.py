"""DeleteRecords (key 21, v0-2): move partitions' log start offsets forward.

Per partition, in Kafka's order (KafkaApis.handleDeleteRecordsRequest, then
ReplicaManager.deleteRecordsOnLocalLog and Partition.deleteRecordsOnLeader):

    unknown topic or partition          UNKNOWN_TOPIC_OR_PARTITION (NOT_LEADER_OR_FOLLOWER when
                                        the metadata has it on other brokers only)
    an internal topic                   INVALID_TOPIC_EXCEPTION (__consumer_offsets,
                                        __transaction_state: clients may not delete
                                        records of them)
    cleanup.policy without `delete`     POLICY_VIOLATION
    offset -1                           the high watermark
    other negative offset, or one past  OFFSET_OUT_OF_RANGE
    the high watermark
    at or below the log start offset    nothing moves; the answer is the current start

A success carries the partition's low watermark (with one replica: its log start
offset); a failure carries low_watermark -1. A partition named twice counts once, with
the last offset given (Kafka builds a map). Results are grouped by topic, in the order
the topics first appear.

Durability: pylog writes log-start-offset-checkpoint (fsynced) before it answers a
request that moved any log start, so an acknowledged deletion survives kill -9. (Kafka
writes that checkpoint only every `log.flush.start.offset.checkpoint.interval.ms`,
trusting the other replicas; a single node has none.) The segments below the new start
are removed by retention, not here.

With one replica the low watermark is reached as soon as the log start moves, so
`timeout_ms` has nothing to wait for.
"""

from __future__ import annotations

from protocol.error_codes import ErrorCode
from protocol.messages import DeleteRecordsResponse
from pylog.errors import BrokerError
from pylog.metadata import INTERNAL_TOPICS

INVALID_LOW_WATERMARK = -1

PartitionResult = DeleteRecordsResponse.DeleteRecordsPartitionResult
TopicResult = DeleteRecordsResponse.DeleteRecordsTopicResult


def make_handler(broker):
    async def handle(request, context):
        requested: dict[str, dict[int, int]] = {}
        for topic in request.topics:
            partitions = requested.setdefault(topic.name, {})
            for p in topic.partitions:
                partitions[p.partition_index] = p.offset
        moved = False
        topics = []
        for name, partitions in requested.items():
            results = []
            for index, offset in partitions.items():
                code, low_watermark, changed = delete_records(broker, name, index, offset)
                moved = moved or changed
                results.append(PartitionResult(partition_index=index, low_watermark=low_watermark,
                                               error_code=code))
            topics.append(TopicResult(name=name, partitions=results))
        if moved:
            broker.log_manager.write_log_start_offsets()
        return DeleteRecordsResponse(throttle_time_ms=0, topics=topics)

    return handle


def delete_records(broker, topic: str, index: int, offset: int) -> tuple[int, int, bool]:
    """(error code, low watermark, whether the log start moved) for one partition."""
    partition = broker.partition(topic, index)
    if partition is None:
        return broker.no_partition_error(topic, index), INVALID_LOW_WATERMARK, False
    if topic in INTERNAL_TOPICS:
        return ErrorCode.INVALID_TOPIC_EXCEPTION, INVALID_LOW_WATERMARK, False
    before = partition.log_start_offset
    try:
        low_watermark = partition.delete_records(offset)
    except BrokerError as e:
        return e.code, INVALID_LOW_WATERMARK, False
    return ErrorCode.NONE, low_watermark, low_watermark != before
