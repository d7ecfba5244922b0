"""OffsetForLeaderEpoch (key 23): where did a leader epoch end?

Consumers (librdkafka ≥ 2.1, kafka-python) ask this after a leader change to check that
their position is still on the log (KIP-320); followers ask it to find where their log
diverges from the leader's. The answer is the largest epoch at or below the one asked
about and where it ended, from the log's leader-epoch cache
(`Partition.end_offset_for_epoch`, storage/leader_epoch_cache.py): the latest epoch ends
at the log end offset, a later epoch ends where the next one starts, an epoch older than
every entry ends where the first entry starts, and one the log has never seen (above
the latest, or -1) gets UNDEFINED_EPOCH_OFFSET (leader epoch -1, end offset -1). The
epoch the client believes current is checked first, and only the leader answers
(`Partition.check_leader`: NOT_LEADER_OR_FOLLOWER on a follower, as Kafka's does for every
requester but its debugging id).
"""

from __future__ import annotations

from protocol.messages import OffsetForLeaderEpochResponse
from pylog.partition import NO_LEADER_EPOCH

EpochEndOffset = OffsetForLeaderEpochResponse.EpochEndOffset


def make_handler(broker):
    async def handle(request, context):
        topics = []
        for topic in request.topics:
            results = [end_of_epoch(broker, topic.topic, p) for p in topic.partitions]
            topics.append(OffsetForLeaderEpochResponse.OffsetForLeaderTopicResult(topic=topic.topic,
                                                                                  partitions=results))
        return OffsetForLeaderEpochResponse(topics=topics)

    return handle


def end_of_epoch(broker, topic: str, request) -> EpochEndOffset:
    partition = broker.partition(topic, request.partition)
    if partition is None:
        return EpochEndOffset(partition=request.partition, error_code=broker.no_partition_error(topic, request.partition))
    epoch = request.current_leader_epoch  # only -1 means "not said" here; -5 is fenced
    epoch_error = partition.check_leader(None if epoch == NO_LEADER_EPOCH else epoch)
    if epoch_error:
        return EpochEndOffset(partition=request.partition, error_code=epoch_error)
    leader_epoch, end_offset = partition.end_offset_for_epoch(request.leader_epoch)
    return EpochEndOffset(partition=request.partition, leader_epoch=leader_epoch, end_offset=end_offset)
