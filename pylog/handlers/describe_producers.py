"""DescribeProducers (key 61): the idempotent producers a partition's log knows.

`kafka-transactions.sh describe-producers` and the Admin client's `describeProducers` ask
it. As Kafka's KafkaApis.handleDescribeProducersRequest answers:

- Per topic: a name no topic may have gets its validation error (INVALID_TOPIC_EXCEPTION
  with Kafka's message), a topic the metadata lacks UNKNOWN_TOPIC_OR_PARTITION (with the
  code's default message, as Kafka's ApiError carries it), for each of the partitions asked.
- Per partition hosted here, leader or follower (Kafka reads the local log either way):
  every producer in the log's producer state, in the order of Kafka's HashMap of them
  (storage/producer_state.py): its epoch, last sequence, last timestamp, coordinator epoch
  and the first offset of its open transaction (-1: none). A partition not hosted here:
  NOT_LEADER_OR_FOLLOWER when the metadata has it (`Broker.no_partition_error`), else
  UNKNOWN_TOPIC_OR_PARTITION.
"""

from __future__ import annotations

from protocol.error_codes import ErrorCode
from protocol.messages import DescribeProducersResponse
from pylog.metadata import topic_name_problem

PartitionResponse = DescribeProducersResponse.PartitionResponse


def make_handler(broker):
    async def handle(request, context) -> DescribeProducersResponse:
        topics = []
        for topic in request.topics:
            problem = topic_name_problem(topic.name)
            if problem is not None:
                error = (ErrorCode.INVALID_TOPIC_EXCEPTION, problem)
            elif topic.name not in broker.metadata.topics:
                error = (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.message)
            else:
                error = None
            partitions = [PartitionResponse(partition_index=index, error_code=error[0], error_message=error[1])
                          if error is not None else describe_partition(broker, topic.name, index)
                          for index in topic.partition_indexes]
            topics.append(DescribeProducersResponse.TopicResponse(name=topic.name, partitions=partitions))
        return DescribeProducersResponse(topics=topics)

    return handle


def describe_partition(broker, topic: str, index: int) -> PartitionResponse:
    partition = broker.partition(topic, index)
    if partition is None:
        return PartitionResponse(partition_index=index, error_code=broker.no_partition_error(topic, index))
    producers = [DescribeProducersResponse.ProducerState(
        producer_id=producer_id, producer_epoch=entry.producer_epoch, last_sequence=entry.last_sequence,
        last_timestamp=entry.last_timestamp_ms, coordinator_epoch=entry.coordinator_epoch,
        current_txn_start_offset=-1 if entry.current_txn_first_offset is None else entry.current_txn_first_offset)
        for producer_id, entry in partition.log.producers_in_kafkas_order()]
    return PartitionResponse(partition_index=index, error_code=ErrorCode.NONE, error_message=None,
                             active_producers=producers)
