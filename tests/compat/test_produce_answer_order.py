"""Which partitions a Produce answer lists, in which order, and what a partition named twice
appends, against the reference Kafka (pylog/handlers/produce_answer.py).

- A request failing whole (a transactional batch without a transactional id, a size prefix
  below 14, a codec id Kafka does not know below v7) is answered as `getErrorResponse`
  builds it, every partition named once: the same answer, every field, on both brokers.
- Any other answer lists each partition once, in the order of Kafka's maps keyed by
  TopicIdPartition, which hash the topic's id: each broker has ids of its own, so each
  broker's answer is checked against `answer_order` computed with its own ids (for Kafka,
  that checks the model; for pylog, that it follows it), and the outcomes are compared
  partition by partition. Requests are drawn at random (a fixed seed): partitions named
  twice, unknown topics and partitions, empty records fields, acks -1, 1 and 2, topics by
  name (v9) and by id (v13, an unknown id among them), after one record in every partition
  (Kafka's partitions take a moment to get their leader). Then every partition's log end
  offset is the same on both brokers: a partition named twice was appended once.
"""

from __future__ import annotations

import random
import struct
import time
import uuid

import pytest

from protocol.error_codes import ErrorCode
from protocol.messages import ListOffsetsRequest, ProduceRequest
from protocol.records import build_batch
from protocol.schema import ZERO_UUID
from pylog.handlers.produce_answer import PartitionKey, answer_order, by_topic, failure
from tests.compat.answers import plain, topics_with_records
from tests.compat.conftest import unique
from tests.integration.support import WireClient
from tests.pylog.batch_shapes import raw_batch, record_bytes

PARTITIONS = 3
NOW_MS = int(time.time() * 1000)
GOOD = build_batch([(b"k", b"v")], timestamp_ms=NOW_MS)


def produce(entries, acks=-1, by_id=None):
    """One topic entry per (topic, partition, records); `by_id` maps names to the ids named."""
    return ProduceRequest(acks=acks, timeout_ms=5000, topic_data=[ProduceRequest.TopicProduceData(
        name=topic if by_id is None else "", topic_id=by_id[topic] if by_id is not None else ZERO_UUID,
        partition_data=[ProduceRequest.PartitionProduceData(index=index, records=records)])
        for topic, index, records in entries])


@pytest.fixture(scope="module")
def topics(both):
    names = [unique("order") for _ in range(6)]
    ids, starts = {}, {}
    for broker, server in both.items():
        with WireClient(server.bootstrap_servers) as client:
            ids[broker] = topics_with_records(client, names, PARTITIONS, GOOD)
            starts[broker] = log_ends(client, names)
    return names, ids, starts


def log_ends(client: WireClient, names: list[str]) -> dict[tuple[str, int], int]:
    ends = client.request(2, 7, ListOffsetsRequest(replica_id=-1, isolation_level=0, topics=[
        ListOffsetsRequest.ListOffsetsTopic(name=name, partitions=[ListOffsetsRequest.ListOffsetsPartition(
            partition_index=i, timestamp=-1) for i in range(PARTITIONS)]) for name in names]))
    return {(t.name, p.partition_index): p.offset for t in ends.topics for p in t.partitions}


def test_whole_request_failures_are_answered_alike(both, topics):
    names = topics[0]
    transactional = raw_batch(record_bytes(0), records_count=1, last_offset_delta=0, base_timestamp=NOW_MS,
                              attributes=0x10, producer_id=5, producer_epoch=0, base_sequence=0)
    tiny = struct.pack(">qi", 0, 10) + bytes(10)
    codec5 = raw_batch(record_bytes(0), records_count=1, last_offset_delta=0, base_timestamp=NOW_MS, attributes=5)
    answers = {}
    for broker, server in both.items():
        found = answers[broker] = []
        with WireClient(server.bootstrap_servers) as client:
            for bad, version, acks in ((transactional, 9, -1), (tiny, 9, -1), (codec5, 3, -1), (codec5, 6, 1),
                                       (codec5, 3, 2)):
                entries = [(name, index, GOOD) for name in names for index in (2, 0, 1)]
                entries[7:7] = [(names[3], 1, bad), ("no-such-topic", 0, GOOD), (names[0], 0, GOOD)]
                found.append(plain(client.request(0, version, produce(entries, acks))))
    assert answers["pylog"] == answers["kafka"]
    assert all(len(answer["responses"]) == len(names) + 1 for answer in answers["kafka"])


def expected_order(entries, ids, version, acks):
    """The answer `answer_order` gives for `entries`, with a broker's topic ids."""
    appended, unknown, refused = {}, {}, {}
    for topic, index, records in entries:
        known = topic in ids
        if version < 13:
            key = PartitionKey(ids.get(topic, ZERO_UUID), topic, index)
        else:
            key = PartitionKey(ids[topic] if known else UNKNOWN_ID, topic if known else "", index)
        if version >= 13 and not known:
            unknown[key] = failure(index, ErrorCode.UNKNOWN_TOPIC_ID)
        elif not known or index >= PARTITIONS:
            unknown[key] = failure(index, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
        elif not records:
            refused[key] = failure(index, ErrorCode.INVALID_RECORD)
        else:
            appended[key] = failure(index, ErrorCode.NONE if acks in (-1, 1) else ErrorCode.INVALID_REQUIRED_ACKS)
    return [(topic.name, topic.topic_id, p.index, p.error_code)
            for topic in by_topic(answer_order(appended, unknown, refused)) for p in topic.partition_responses]


UNKNOWN_ID = uuid.UUID(int=0x1234)


def test_answers_follow_kafkas_maps_and_a_partition_named_twice_appends_once(both, topics):
    names, ids, starts = topics
    rng = random.Random(16)
    plans = []
    for _ in range(40):
        entries = []
        for _ in range(rng.randrange(1, 12)):
            topic = rng.choice(names + ["no-such-topic"])
            entries.append((topic, rng.randrange(PARTITIONS + 1), b"" if rng.random() < 0.1 else GOOD))
        plans.append((entries, rng.choice((-1, -1, 1, 2)), rng.choice((9, 13))))
    outcomes = {}
    for broker, server in both.items():
        found = outcomes[broker] = []
        start = starts[broker]
        named = {topic_id: name for name, topic_id in ids[broker].items()}
        with WireClient(server.bootstrap_servers) as client:
            for entries, acks, version in plans:
                by_id = {**ids[broker], "no-such-topic": UNKNOWN_ID} if version >= 13 else None
                answer = client.request(0, version, produce(entries, acks, by_id))
                partitions = [(t, p) for t in answer.responses for p in t.partition_responses]
                listed = [(t.name if version < 13 else "", t.topic_id if version >= 13 else None, p.index, p.error_code)
                          for t, p in partitions]
                expected = expected_order(entries, ids[broker], version, acks)
                if version < 13:
                    expected = [(name, None, index, code) for name, _, index, code in expected]
                else:
                    expected = [("", topic_id, index, code) for _, topic_id, index, code in expected]
                assert listed == expected, (broker, entries, acks, version)
                # outcomes, base offsets counted from the partition's end before the plans
                outcome = []
                for t, p in partitions:
                    name = t.name if version < 13 else named.get(t.topic_id, "?")
                    base = p.base_offset - start[(name, p.index)] if p.base_offset >= 0 else p.base_offset
                    outcome.append((name, p.index, p.error_code, base))
                found.append(sorted(outcome))
            ends = log_ends(client, names)
            found.append(sorted((key, end - start[key]) for key, end in ends.items()))
    assert outcomes["pylog"] == outcomes["kafka"]
