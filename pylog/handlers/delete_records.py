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
the last offset given (Kafka builds a map); a topic named with no partition is not in the
answer.

Order, Kafka's (`kafkas_order`, protocol/scala_order.py): KafkaApis keeps the partitions in
Scala maps keyed by TopicPartition and groups them by topic (`groupBy`, an immutable
`HashMap`: the topics come in its trie's order). When some partition is in the metadata,
the results are one `mutable.HashMap` and each topic's partitions come in a `mutable.HashMap`'s
order; when none is, they are an immutable `Map` built from a `mutable.HashMap` of them (the
order that one iterates in, for up to four; a trie's, for more, each topic's partitions
then in a trie of their own).

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
from protocol.java_order import java_string_hashcode, topic_partition_hash
from protocol.messages import DeleteRecordsResponse
from protocol.scala_order import SMALL_SET_MAX, champ_order, mutable_hash_set_order
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
        results = {}
        for name, partitions in requested.items():
            for index, offset in partitions.items():
                code, low_watermark, changed = delete_records(broker, name, index, offset)
                moved = moved or changed
                results[name, index] = PartitionResult(partition_index=index, low_watermark=low_watermark,
                                                       error_code=code)
        if moved:
            broker.log_manager.write_log_start_offsets()
        any_in_metadata = any(broker.in_metadata(topic, index) for topic, index in results)
        return DeleteRecordsResponse(throttle_time_ms=0, topics=[
            TopicResult(name=name, partitions=[results[name, index] for index in indexes])
            for name, indexes in kafkas_order(list(results), any_in_metadata)])

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


def kafkas_order(partitions: list[tuple[str, int]], any_in_metadata: bool) -> list[tuple[str, list[int]]]:
    """The (topic, partition indexes) of the answer, in Kafka's order (see the module
    docstring); `partitions` distinct, as asked."""
    def hashes(tps):
        return [topic_partition_hash(topic, index) for topic, index in tps]

    merged = mutable_hash_set_order(partitions, hashes(partitions))
    inner = mutable_hash_set_order if any_in_metadata else lambda tps, _hashes: tps   # as merged
    if not any_in_metadata and len(merged) > SMALL_SET_MAX:
        merged = champ_order(merged, hashes(merged))
        inner = champ_order
    by_topic: dict[str, list[tuple[str, int]]] = {}
    for tp in merged:
        by_topic.setdefault(tp[0], []).append(tp)
    names = list(by_topic)
    return [(name, [index for _, index in inner(by_topic[name], hashes(by_topic[name]))])
            for name in champ_order(names, [java_string_hashcode(name) for name in names])]
