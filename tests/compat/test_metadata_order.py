"""The order of a Metadata answer, against the reference Kafka: Kafka's KafkaApis and
KRaftMetadataCache pass topics and partitions through Scala sets, so its answers list
topics and partitions in those sets' orders (protocol/scala_order.py), and each name asked
once. On a fresh pair of brokers with the same 40 topics (some with more partitions than a
set's first table holds, two grown by CreatePartitions): every topic, names asked (up to
four, more, with unknown ones and with repeats) and topic ids asked (known and unknown)."""

from __future__ import annotations

import random
import time
import uuid

from protocol.messages import CreatePartitionsRequest, CreateTopicsRequest, MetadataRequest
from tests.compat.conftest import each_of_a_fresh_pair
from tests.integration.support import WireClient

RNG = random.Random(41)
NAMES = [f"{RNG.choice(['t', 'topic-', 'orders.', 'x_'])}{i}{RNG.choice(['', 'a', 'zz'])}" for i in range(40)]
PARTITIONS = {name: RNG.choice([1, 2, 3, 7, 13, 30]) for name in NAMES}
GROWN = {NAMES[0]: 40, NAMES[1]: 17}
UNKNOWN = ["nope", "zz-unknown", "bad name", "u5"]
ASKED = [RNG.sample(NAMES + UNKNOWN, k) for k in (1, 2, 4, 5, 6, 9, 20)] + [
    [NAMES[2], NAMES[2], "nope", "nope"], [NAMES[3], "nope", NAMES[3], NAMES[4], NAMES[5], NAMES[6], "u5"]]
UNKNOWN_IDS = [uuid.UUID(int=RNG.getrandbits(128)) for _ in range(3)]
BY_ID = [(RNG.sample(NAMES, k), UNKNOWN_IDS[:u]) for k, u in ((1, 1), (3, 0), (4, 2), (8, 3))]


def metadata(client, version: int, names):
    answer = client.request(3, version, MetadataRequest(
        topics=None if names is None else [MetadataRequest.MetadataRequestTopic(name=n) for n in names],
        allow_auto_topic_creation=False))
    return [(t.name, t.error_code, [p.partition_index for p in t.partitions]) for t in answer.topics]


def scenario(broker) -> list:
    with WireClient(broker.bootstrap_servers, timeout_s=60) as client:
        client.request(19, 7, CreateTopicsRequest(timeout_ms=30_000, topics=[
            CreateTopicsRequest.CreatableTopic(name=n, num_partitions=PARTITIONS[n], replication_factor=1)
            for n in NAMES]))
        client.request(37, 3, CreatePartitionsRequest(timeout_ms=30_000, topics=[
            CreatePartitionsRequest.CreatePartitionsTopic(name=n, count=c, assignments=None)
            for n, c in GROWN.items()]))
        deadline = time.monotonic() + 30   # a broker's metadata follows its controller's a little later
        while time.monotonic() < deadline:
            counts = {name: len(partitions) for name, _, partitions in metadata(client, 12, None)}
            if all(counts.get(n) == GROWN.get(n, PARTITIONS[n]) for n in NAMES):
                break
            time.sleep(0.2)
        found = [metadata(client, version, None) for version in (4, 12)]
        found += [metadata(client, version, names) for names in ASKED for version in (4, 12)]
        ids = {t.name: t.topic_id for t in client.request(3, 12, MetadataRequest(topics=None)).topics}
        for names, unknown in BY_ID:
            asked = [ids[n] for n in names] + unknown
            answer = client.request(3, 12, MetadataRequest(topics=[
                MetadataRequest.MetadataRequestTopic(name=None, topic_id=i) for i in asked]))
            found.append([(t.name or str(t.topic_id), t.error_code, [p.partition_index for p in t.partitions])
                          for t in answer.topics])
    return found


def test_metadata_answers_in_kafkas_order(tmp_path, compat_table):
    answers = each_of_a_fresh_pair(tmp_path, scenario)
    compat_table.assert_same("Metadata: the order of topics and partitions", answers)
    every_topic = answers["kafka"][0]
    assert [name for name, _, _ in every_topic if not name.startswith("__")] != sorted(NAMES)   # not sorted
    assert any(partitions != sorted(partitions) for _, _, partitions in every_topic)
