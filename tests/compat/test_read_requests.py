"""Fetch, ListOffsets and OffsetForLeaderEpoch, drawn at random, against the reference Kafka
holding the same log.

The same batches (fixed timestamps, some out of order, some gzip, some too large for the
16 KiB segments and refused by both) are produced to a two-partition topic on both brokers,
and partition 1's log start is moved into a batch with DeleteRecords. Then requests drawn
from a fixed seed go to both: every version Kafka 4.1 serves, fetch offsets around the log
start, the high watermark and inside batches, byte limits from 0 to unlimited, current and
last fetched leader epochs that match, are ahead or are unknown, both isolation levels,
timestamps before, inside and after the log, and the special ones (-1 to -5). Every answer
field must be the same, the record bytes byte for byte.
"""

from __future__ import annotations

import random
import time

import pytest

from protocol.messages import (
    CreateTopicsRequest,
    DeleteRecordsRequest,
    FetchRequest,
    ListOffsetsRequest,
    MetadataRequest,
    OffsetForLeaderEpochRequest,
    ProduceRequest,
)
from protocol.records import Compression, build_batch
from tests.compat.conftest import unique
from tests.integration.support import WireClient

SEED = 16
REQUESTS = 600
BASE_TS = 1_700_000_000_000
DELETED_TO = 37   # partition 1's new log start: inside a batch


def batches_of(rng: random.Random) -> dict[int, list[bytes]]:
    found, timestamp = {}, BASE_TS
    for partition in (0, 1):
        found[partition] = []
        for i in range(rng.randint(60, 120)):
            records = []
            for j in range(rng.choice([1, 1, 2, 5, 10, 30])):
                timestamp += rng.choice([1, 5, 10, 0, -3, 100])
                key = b"k%d" % rng.randrange(20) if rng.random() < 0.5 else None
                records.append((key, bytes([97 + (i + j) % 26]) * rng.choice([0, 10, 100, 500, 2000]), [], timestamp))
            codec = rng.choice([Compression.NONE] * 4 + [Compression.GZIP])
            found[partition].append(build_batch(records, compression=codec, timestamp_ms=timestamp))
    return found


def produce(client, topic: str, partition: int, batch: bytes):
    request = ProduceRequest(acks=-1, timeout_ms=5000, topic_data=[ProduceRequest.TopicProduceData(
        name=topic, partition_data=[ProduceRequest.PartitionProduceData(index=partition, records=batch)])])
    deadline = time.monotonic() + 30
    while True:
        answer = client.request(0, 9, request).responses[0].partition_responses[0]
        if answer.error_code not in (3, 6) or time.monotonic() > deadline:   # a new topic's leader starting
            return answer.error_code, answer.base_offset
        time.sleep(0.1)


def setup(client, topic: str, batches: dict[int, list[bytes]]) -> tuple[dict, tuple, bytes]:
    """The topic filled, partition 1's start moved: what each produce answered, by partition,
    what DeleteRecords answered, and the topic id."""
    Topic, Config = CreateTopicsRequest.CreatableTopic, CreateTopicsRequest.CreatableTopicConfig
    client.request(19, 5, CreateTopicsRequest(timeout_ms=30_000, topics=[Topic(
        name=topic, num_partitions=2, replication_factor=1, configs=[
            Config(name="internal.segment.bytes", value="16384"), Config(name="index.interval.bytes", value="1000")])]))
    produced = {partition: [produce(client, topic, partition, batch) for batch in batches[partition]]
                for partition in (0, 1)}
    Deleted, At = DeleteRecordsRequest.DeleteRecordsTopic, DeleteRecordsRequest.DeleteRecordsPartition
    (deleted,) = client.request(21, 2, DeleteRecordsRequest(timeout_ms=5000, topics=[Deleted(
        name=topic, partitions=[At(partition_index=1, offset=DELETED_TO)])])).topics[0].partitions
    (described,) = client.request(3, 12, MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name=topic)])).topics
    return produced, (deleted.error_code, deleted.low_watermark), described.topic_id


def log_end_offset(client, topic: str, partition: int) -> int:
    Topic, Partition = ListOffsetsRequest.ListOffsetsTopic, ListOffsetsRequest.ListOffsetsPartition
    return client.request(2, 5, ListOffsetsRequest(replica_id=-1, isolation_level=0, topics=[Topic(
        name=topic, partitions=[Partition(partition_index=partition, timestamp=-1)])])).topics[0].partitions[0].offset


def draw(rng: random.Random, ends: dict[int, int]) -> tuple:
    kind, partition = rng.choice(["fetch", "fetch", "fetch", "list", "list", "epoch"]), rng.choice([0, 1, 1])
    end = ends[partition]
    if kind == "fetch":
        offset = rng.choice([0, 1, DELETED_TO - 1, DELETED_TO, DELETED_TO + 1, end - 1, end, end + 1, -1,
                             rng.randrange(end + 1), rng.randrange(end + 1), rng.randrange(end + 1)])
        return (kind, rng.randint(4, 17), partition, offset,
                rng.choice([0, 1, 61, 100, 1000, 5000, 16384, 1 << 20, 2**31 - 1]),
                rng.choice([0, 1, 500, 10_000, 1 << 20, 50 << 20]), rng.choice([-1, -1, 0, 0, 1, 2]),
                rng.choice([0, 1]), rng.choice([-1, -1, 0, 1]))
    if kind == "list":
        timestamp = rng.choice([-1, -2, -3, -4, -5, BASE_TS - 1, BASE_TS, BASE_TS + rng.randrange(20_000),
                                BASE_TS + rng.randrange(2000), 2**62])
        return kind, rng.randint(1, 10), partition, timestamp, rng.choice([-1, -1, 0, 1]), rng.choice([0, 1])
    return (kind, rng.randint(2, 4), partition, rng.choice([-1, 0, 0, 1, 5]), rng.choice([-1, -1, 0, 1]),
            rng.choice([-1, -2, 1]))


def ask(client, topic: str, topic_id, asked: tuple) -> tuple:
    kind, version, partition = asked[:3]
    if kind == "fetch":
        offset, partition_max, max_bytes, leader_epoch, isolation, last_epoch = asked[3:]
        request = FetchRequest(replica_id=-1, max_wait_ms=0, min_bytes=0, max_bytes=max_bytes, isolation_level=isolation,
                               topics=[FetchRequest.FetchTopic(topic=topic, topic_id=topic_id, partitions=[
                                   FetchRequest.FetchPartition(partition=partition, fetch_offset=offset,
                                                               partition_max_bytes=partition_max,
                                                               current_leader_epoch=leader_epoch,
                                                               last_fetched_epoch=last_epoch)])])
        answer = client.request(1, version, request)
        data = answer.responses[0].partitions[0]
        return (answer.error_code, data.error_code, data.high_watermark, data.last_stable_offset,
                data.log_start_offset, (data.diverging_epoch.epoch, data.diverging_epoch.end_offset),
                (data.current_leader.leader_id, data.current_leader.leader_epoch),
                None if data.aborted_transactions is None else len(data.aborted_transactions),
                data.preferred_read_replica, None if data.records is None else bytes(data.records))
    if kind == "list":
        timestamp, leader_epoch, isolation = asked[3:]
        Topic, Partition = ListOffsetsRequest.ListOffsetsTopic, ListOffsetsRequest.ListOffsetsPartition
        data = client.request(2, version, ListOffsetsRequest(replica_id=-1, isolation_level=isolation, topics=[Topic(
            name=topic, partitions=[Partition(partition_index=partition, timestamp=timestamp,
                                              current_leader_epoch=leader_epoch)])])).topics[0].partitions[0]
        return data.error_code, data.timestamp, data.offset, data.leader_epoch
    leader_epoch, current_epoch, replica_id = asked[3:]
    Topic, Partition = OffsetForLeaderEpochRequest.OffsetForLeaderTopic, OffsetForLeaderEpochRequest.OffsetForLeaderPartition
    data = client.request(23, version, OffsetForLeaderEpochRequest(replica_id=replica_id, topics=[Topic(
        topic=topic, partitions=[Partition(partition=partition, leader_epoch=leader_epoch,
                                           current_leader_epoch=current_epoch)])])).topics[0].partitions[0]
    return data.error_code, data.leader_epoch, data.end_offset


@pytest.fixture(scope="module")
def answers(both):
    topic, batches = unique("read-requests"), batches_of(random.Random(SEED))
    found = {}
    for name, broker in both.items():
        with WireClient(broker.bootstrap_servers, timeout_s=30) as client:
            produced, deleted, topic_id = setup(client, topic, batches)
            ends = {partition: log_end_offset(client, topic, partition) for partition in (0, 1)}
            rng = random.Random(SEED)
            asked = [draw(rng, ends) for _ in range(REQUESTS)]
            found[name] = {"produced": (produced, deleted),
                           "answers": [(request, ask(client, topic, topic_id, request)) for request in asked]}
    return found


def test_the_same_log_answers_every_read_as_kafka(answers, compat_table):
    pylog, kafka = answers["pylog"], answers["kafka"]
    assert pylog["produced"] == kafka["produced"]
    produced, deleted = kafka["produced"]
    assert any(code != 0 for answers in produced.values() for code, _ in answers)   # larger than a segment: refused
    assert deleted == (0, DELETED_TO)
    differing = [(asked, ours, theirs) for (asked, ours), (_, theirs) in zip(pylog["answers"], kafka["answers"])
                 if ours != theirs]
    compat_table.record("tool", f"{REQUESTS} random Fetch/ListOffsets/OffsetForLeaderEpoch", f"{REQUESTS} answers",
                        f"{REQUESTS} answers", "same" if not differing else f"{len(differing)} differ")
    assert differing == []
    fetched = [answer for (asked, answer) in kafka["answers"] if asked[0] == "fetch"]
    assert any(answer[-1] for answer in fetched) and any(answer[1] == 1 for answer in fetched)   # records, and refusals
    assert any(answer[5] != (-1, -1) for answer in fetched)   # a diverging epoch answered
