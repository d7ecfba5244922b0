"""Requests that list partitions, answered in Kafka's order, against the reference Kafka:
Fetch (v12 by name; v13 and v17 by id, an unknown id among them), ListOffsets (v1, v7,
v9), OffsetForLeaderEpoch v4 and DescribeProducers v0, with partitions drawn at random (a
fixed seed): topics named once with their partitions in any order, or named again and
again, partitions named twice, partitions and topics that do not exist.

- Fetch keeps the request's order (Kafka's LinkedHashMap): a partition named twice is
  answered once; unknown partitions come last, an unknown topic id before an unknown
  partition;
- ListOffsets answers from Kafka's maps (a topic's partitions in a `mutable.HashMap`'s
  order, the topics in an immutable `HashMap`'s), a partition named twice once, with
  INVALID_REQUEST;
- OffsetForLeaderEpoch and DescribeProducers keep the request's order, repeats included.

Every field is compared but topic ids, record bytes and the offsets and epochs that depend
on when each broker's partitions got their leader.
"""

from __future__ import annotations

import random
import time
import uuid

from protocol.messages import (
    DescribeProducersRequest,
    FetchRequest,
    ListOffsetsRequest,
    OffsetForLeaderEpochRequest,
)
from protocol.records import build_batch
from protocol.schema import ZERO_UUID
from tests.compat.answers import plain, topics_with_records
from tests.compat.conftest import unique
from tests.integration.support import WireClient

PARTITIONS = 3
UNKNOWN_ID = uuid.UUID(int=77)
SKIPPED = ("throttle_time_ms", "topic_id", "records", "node_endpoints", "high_watermark", "last_stable_offset",
           "log_start_offset", "leader_epoch", "current_leader", "preferred_read_replica", "diverging_epoch",
           "snapshot_id", "aborted_transactions", "timestamp")


def fetch(plan, ids):
    return FetchRequest(replica_id=-1, max_wait_ms=0, min_bytes=1, max_bytes=1 << 20, isolation_level=0,
                        session_id=0, session_epoch=-1, forgotten_topics_data=[], rack_id="", topics=[
                            FetchRequest.FetchTopic(topic=topic, topic_id=ids.get(topic, UNKNOWN_ID) if ids else ZERO_UUID,
                                                    partitions=[FetchRequest.FetchPartition(
                                                        partition=i, current_leader_epoch=-1, fetch_offset=0,
                                                        last_fetched_epoch=-1, log_start_offset=-1,
                                                        partition_max_bytes=1 << 16) for i in indexes])
                            for topic, indexes in plan])


def list_offsets(plan):
    return ListOffsetsRequest(replica_id=-1, isolation_level=0, timeout_ms=1000, topics=[
        ListOffsetsRequest.ListOffsetsTopic(name=topic, partitions=[ListOffsetsRequest.ListOffsetsPartition(
            partition_index=i, current_leader_epoch=-1, timestamp=-1) for i in indexes]) for topic, indexes in plan])


def leader_epochs(plan):
    return OffsetForLeaderEpochRequest(replica_id=-1, topics=[OffsetForLeaderEpochRequest.OffsetForLeaderTopic(
        topic=topic, partitions=[OffsetForLeaderEpochRequest.OffsetForLeaderPartition(
            partition=i, current_leader_epoch=-1, leader_epoch=0) for i in indexes]) for topic, indexes in plan])


def producers(plan):
    return DescribeProducersRequest(topics=[DescribeProducersRequest.TopicRequest(name=topic, partition_indexes=indexes)
                                            for topic, indexes in plan])


def plans(names: list[str]) -> list[list[tuple[str, list[int]]]]:
    rng = random.Random(43)
    drawn = []
    for n in range(60):
        picks = [(rng.choice(names + ["no-such-topic"]), rng.randrange(PARTITIONS + 1))
                 for _ in range(rng.randrange(1, 10))]
        if n % 2:   # each topic named once, its partitions together (as clients ask)
            grouped: dict[str, list[int]] = {}
            for topic, index in picks:
                grouped.setdefault(topic, []).append(index)
            drawn.append(list(grouped.items()))
        else:
            drawn.append([(topic, [index]) for topic, index in picks])
    return drawn


def test_partition_lists_are_answered_in_kafkas_order(both):
    names = [unique("listed") for _ in range(6)]
    record = build_batch([(b"k", b"v")], timestamp_ms=int(time.time() * 1000))
    answers = {}
    for broker, server in both.items():
        found = answers[broker] = []
        with WireClient(server.bootstrap_servers) as client:
            ids = topics_with_records(client, names, PARTITIONS, record)
            for plan in plans(names):
                found.append(plain(client.request(1, 12, fetch(plan, None)), SKIPPED))
                found.append(plain(client.request(1, 13, fetch(plan, ids)), SKIPPED))
                found.append(plain(client.request(1, 17, fetch(plan, ids)), SKIPPED))
                for version in (1, 7, 9):
                    found.append(plain(client.request(2, version, list_offsets(plan)), SKIPPED))
                found.append(plain(client.request(23, 4, leader_epochs(plan)), SKIPPED))
                found.append(plain(client.request(61, 0, producers(plan)), SKIPPED))
    assert answers["pylog"] == answers["kafka"]
