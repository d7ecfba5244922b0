"""OffsetForLeaderEpoch (key 23): where did a leader epoch end?

Consumers (librdkafka ≥ 2.1, kafka-python) ask this after a leader change to check that
their position is still on the log (KIP-320). The answer is the end offset of the
largest epoch at or below the one asked about. A single pylog node has only epoch 0,
which began at offset 0 and is still going, so: epoch 0 ends at the log end offset;
an epoch below 0 is unknown (-1, -1).
"""

from __future__ import annotations

from protocol.error_codes import ErrorCode
from protocol.messages import OffsetForLeaderEpochResponse
from pylog.handlers.fetch import check_leader_epoch

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
        return EpochEndOffset(partition=request.partition, error_code=ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
    epoch_error = check_leader_epoch(partition, request.current_leader_epoch)
    if epoch_error:
        return EpochEndOffset(partition=request.partition, error_code=epoch_error)
    if request.leader_epoch < 0:
        return EpochEndOffset(partition=request.partition, leader_epoch=-1, end_offset=-1)
    return EpochEndOffset(partition=request.partition, leader_epoch=partition.leader_epoch,
                          end_offset=partition.log_end_offset)
