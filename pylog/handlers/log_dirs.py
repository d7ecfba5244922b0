"""DescribeLogDirs (key 35, v1-4): the data directory and the partition logs in it.

pylog has one data directory (`log.dirs`), so the answer has one result: its absolute
path, and per hosted partition log (internal topics included, as in Kafka) the bytes of
its segments' `.log` files, an offset lag of max(HW - LEO, 0) (always 0 on one node)
and is_future false (pylog has no future logs). `topics` null asks for every log; a
list asks for those partitions, and the ones not hosted are left out (Kafka's rule:
no error, no entry); a topic left with no partition is left out too. v4+ carry the
volume's total and usable bytes (statvfs: blocks and blocks available to unprivileged
users, times the fragment size, as Java's FileStore reports them); a directory that
cannot be read answers KAFKA_STORAGE_ERROR for that result.

The order is Kafka's (ReplicaManager.describeLogDirs): the directory's logs as its
LogManager's `ConcurrentHashMap` of them iterates (`java_order.concurrent_hash_map_order`,
the logs taken in the order this broker opened them), grouped by topic with Scala's
`groupBy`, an immutable HashMap whose order is that of every topic in the directory, asked
for or not (`scala_order.champ_order`); each topic's partitions in the map's order. Kafka's
map never shrinks: after topics are deleted its table may be larger than the logs left need,
which is not followed here.
"""

from __future__ import annotations

import os

from protocol.error_codes import ErrorCode
from protocol.java_order import concurrent_hash_map_order, java_string_hashcode, topic_partition_hash
from protocol.messages import DescribeLogDirsResponse
from protocol.scala_order import champ_order


Result = DescribeLogDirsResponse.DescribeLogDirsResult
Topic = DescribeLogDirsResponse.DescribeLogDirsTopic
PartitionInfo = DescribeLogDirsResponse.DescribeLogDirsPartition


def make_handler(broker):
    async def handle(request, context):
        wanted = None if request.topics is None else {
            (topic.topic, index) for topic in request.topics for index in topic.partitions}
        return DescribeLogDirsResponse(throttle_time_ms=0, error_code=ErrorCode.NONE,
                                       results=[describe_dir(broker, wanted)])

    return handle


def describe_dir(broker, wanted: set[tuple[str, int]] | None) -> Result:
    path = str(broker.log_dir.absolute())
    try:
        volume = os.statvfs(path)
    except OSError:
        return Result(error_code=ErrorCode.KAFKA_STORAGE_ERROR, log_dir=path)
    logs = list(broker.log_manager.logs.items())
    by_topic: dict[str, list[PartitionInfo]] = {}   # every topic of the directory: it decides the order
    for position in concurrent_hash_map_order(topic_partition_hash(topic, index) for (topic, index), _ in logs):
        (topic, index), partition_log = logs[position]
        infos = by_topic.setdefault(topic, [])
        if wanted is not None and (topic, index) not in wanted:
            continue
        partition = broker.partition(topic, index)
        high_watermark = partition.high_watermark if partition is not None else partition_log.log_end_offset
        infos.append(PartitionInfo(
            partition_index=index, partition_size=partition_log.size_bytes,
            offset_lag=max(high_watermark - partition_log.log_end_offset, 0), is_future_key=False))
    names = list(by_topic)
    return Result(error_code=ErrorCode.NONE, log_dir=path,
                  topics=[Topic(name=name, partitions=by_topic[name])
                          for name in champ_order(names, [java_string_hashcode(name) for name in names])
                          if by_topic[name]],
                  total_bytes=volume.f_blocks * volume.f_frsize,
                  usable_bytes=volume.f_bavail * volume.f_frsize)
