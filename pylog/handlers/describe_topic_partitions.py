"""DescribeTopicPartitions (key 75): topics and their partitions, page by page.

Kafka 4's tools (`kafka-topics.sh --describe`) ask this instead of Metadata. As Kafka's
DescribeTopicPartitionsRequestHandler and KRaftMetadataCache.describeTopicResponse answer:

- The topics asked for (an empty list: every topic), each once, in name order, from the
  cursor's topic on (names sorting before it are left out). With a topic list, the
  cursor's topic must be in it, and a cursor's partition must not be negative: else
  INVALID_REQUEST for every topic asked for.
- At most `response_partition_limit` partitions in the answer (at least 1, at most
  `max.request.partition.size.limit`, Kafka's 2000): where it cuts a topic short,
  `next_cursor` names the topic and partition to ask for next; a topic that did not fit
  at all is named with partition 0. Otherwise `next_cursor` is null.
- Each partition: leader (-1 when it is not alive), leader epoch, replicas, ISR, offline
  replicas, and the eligible leader replicas and last known ELR. pylog does not implement
  ELR (its bootstrap finalizes eligible.leader.replicas.version 0), so both are the empty
  lists Kafka reports for a partition without them.
- An unknown topic asked by name: UNKNOWN_TOPIC_OR_PARTITION, or INVALID_TOPIC_EXCEPTION
  for a name no topic may have; with no topic list, nothing. But a topic named "" asked
  without a cursor fails the whole request with UNKNOWN_SERVER_ERROR, as it fails in Kafka
  4.1 (which reads the null cursor's partition for it). Every topic carries
  `topic_authorized_operations` (pylog/handlers/authorized_operations.py).
"""

from __future__ import annotations

from protocol.error_codes import ErrorCode
from protocol.messages import DescribeTopicPartitionsResponse
from protocol.schema import ZERO_UUID
from pylog.handlers import authorized_operations
from pylog.metadata import INTERNAL_TOPICS, topic_name_problem

MAX_REQUEST_PARTITION_SIZE_LIMIT = 2000
Topic = DescribeTopicPartitionsResponse.DescribeTopicPartitionsResponseTopic
Partition = DescribeTopicPartitionsResponse.DescribeTopicPartitionsResponsePartition


def make_handler(broker):
    async def handle(request, context) -> DescribeTopicPartitionsResponse:
        return describe(broker, request)

    return handle


def describe(broker, request) -> DescribeTopicPartitionsResponse:
    all_topics = not request.topics
    cursor = request.cursor
    start_name = cursor.topic_name if cursor is not None else ""
    if all_topics:
        names = sorted(name for name in broker.metadata.topics if name >= start_name)
    else:
        names = sorted({t.name for t in request.topics if t.name >= start_name})
        if cursor is not None and cursor.topic_name not in names:
            return refused(request)
    if cursor is not None and cursor.partition_index < 0:
        return refused(request)
    if cursor is None and "" in names:
        # Kafka 4.1 takes a topic named like the missing cursor's topic ("") as the cursor's
        # and reads the null cursor's partition: the request fails as a whole
        return refused(request, ErrorCode.UNKNOWN_SERVER_ERROR)
    image = broker.metadata_image()
    alive = {b.broker_id for b in image.brokers.values() if not b.fenced}
    remaining = max(min(MAX_REQUEST_PARTITION_SIZE_LIMIT, request.response_partition_limit), 1)
    topics, next_cursor = [], None
    for name in names:
        if remaining == 0:
            next_cursor = DescribeTopicPartitionsResponse.Cursor(topic_name=name, partition_index=0)
            break
        info = broker.metadata.topics.get(name)
        topic_image = image.topics.get(info.topic_id) if info is not None else None
        if topic_image is None:
            if not all_topics:
                code = ErrorCode.INVALID_TOPIC_EXCEPTION if topic_name_problem(name) else ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
                topics.append(Topic(error_code=code, name=name, topic_id=ZERO_UUID, is_internal=name in INTERNAL_TOPICS,
                                    topic_authorized_operations=authorized_operations.TOPIC))
            continue
        first = cursor.partition_index if cursor is not None and name == cursor.topic_name else 0
        count = len(topic_image.partitions)
        upper = min(count, first + remaining)
        partitions = [describe_partition(index, topic_image.partitions[index], alive)
                      for index in range(first, upper) if index in topic_image.partitions]
        topics.append(Topic(error_code=ErrorCode.NONE, name=name, topic_id=info.topic_id,
                            is_internal=name in INTERNAL_TOPICS, partitions=partitions,
                            topic_authorized_operations=authorized_operations.TOPIC))
        if upper < count:
            next_cursor = DescribeTopicPartitionsResponse.Cursor(topic_name=name, partition_index=upper)
            break
        remaining -= len(partitions)
    return DescribeTopicPartitionsResponse(topics=topics, next_cursor=next_cursor)


def describe_partition(index: int, registration, alive: set[int]) -> Partition:
    return Partition(error_code=ErrorCode.NONE, partition_index=index,
                     leader_id=registration.leader if registration.leader in alive else -1,
                     leader_epoch=registration.leader_epoch, replica_nodes=list(registration.replicas),
                     isr_nodes=list(registration.isr), eligible_leader_replicas=[], last_known_elr=[],
                     offline_replicas=[r for r in registration.replicas if r not in alive])


def refused(request, code: ErrorCode = ErrorCode.INVALID_REQUEST) -> DescribeTopicPartitionsResponse:
    """Kafka's answer to a request that fails whole: the error for every topic asked for."""
    return DescribeTopicPartitionsResponse(next_cursor=None, topics=[
        Topic(error_code=code, name=t.name, is_internal=False) for t in request.topics])
