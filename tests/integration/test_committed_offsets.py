"""Committed offsets over the wire: OffsetCommit, OffsetFetch, OffsetDelete, `__consumer_offsets`.

- kafka-python, aiokafka and confluent-kafka group consumers commit; the broker is
  restarted (`EmbeddedBroker.restart()`); `committed()` gives the offsets back.
- The commits are in `__consumer_offsets`, partition abs(hashCode(group)) % 50, in Kafka's
  record formats: read with a plain kafka-python consumer and taken apart with `struct`.
- Raw requests for every served version (OffsetCommit v0-9, OffsetFetch v0-9 including the
  v8+ multi-group shape and "all partitions" when topics is null) and for the error codes
  clients hide: UNKNOWN_TOPIC_OR_PARTITION, OFFSET_METADATA_TOO_LARGE, ILLEGAL_GENERATION,
  UNKNOWN_MEMBER_ID, GROUP_ID_NOT_FOUND, GROUP_SUBSCRIBED_TO_TOPIC.

Until `Broker` wires the group coordinator and these APIs itself, `wire_groups` puts them
on the embedded broker (and does nothing once the broker has them).
"""

from __future__ import annotations

import asyncio
import struct
import time

import pytest
from aiokafka import AIOKafkaConsumer
from aiokafka.structs import TopicPartition as AioTopicPartition
from confluent_kafka import Consumer as CkConsumer
from confluent_kafka import TopicPartition as CkTopicPartition
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.structs import OffsetAndMetadata

from protocol.error_codes import ErrorCode
from protocol.messages import (DeleteTopicsRequest, FindCoordinatorRequest, OffsetCommitRequest, OffsetDeleteRequest,
                               OffsetFetchRequest)
from pylog.coordinator import OFFSETS_TOPIC
from pylog.coordinator.group import GroupState
from pylog.testing import EmbeddedBroker
from tests.integration.support import KAFKA_PYTHON_GROUP_CONFIG, KAFKA_PYTHON_GROUP_POLL_MS, WireClient, wait_until

pytestmark = pytest.mark.timeout(120)



def restart(embedded: EmbeddedBroker) -> None:
    embedded.restart()


@pytest.fixture
def embedded(tmp_path):
    # Kafka's own defaults (50 partitions of __consumer_offsets), not a test broker's
    broker = EmbeddedBroker(tmp_path / "data", config={"num.partitions": 2}, test_defaults={})
    broker.start()
    broker.wait_for_group_coordinator()   # raw requests below skip FindCoordinator
    yield broker
    broker.stop()


def produce(bootstrap: str, topic: str, per_partition: int, partitions: int = 2) -> None:
    producer = KafkaProducer(bootstrap_servers=bootstrap)
    for p in range(partitions):
        for i in range(per_partition):
            producer.send(topic, f"{topic}-{p}-{i}".encode(), partition=p)
    producer.flush()
    producer.close()


def java_hash(text: str) -> int:
    h = 0
    for (unit,) in struct.iter_unpack(">H", text.encode("utf-16-be")):
        h = (h * 31 + unit) % 2 ** 32
    return h - 2 ** 32 if h >= 2 ** 31 else h


def store_of(embedded):
    return embedded.broker.offset_store


# ---------------------------------------------------------------------------------------
# real clients, with a restart


def test_kafka_python_group_commits_survive_a_restart(embedded):
    produce(embedded.bootstrap_servers, "kp-orders", 10)
    consumer = KafkaConsumer("kp-orders", bootstrap_servers=embedded.bootstrap_servers, group_id="kp-group",
                             enable_auto_commit=False, auto_offset_reset="earliest", **KAFKA_PYTHON_GROUP_CONFIG)
    seen = []
    deadline = time.monotonic() + 30
    while len(seen) < 20 and time.monotonic() < deadline:
        for records in consumer.poll(timeout_ms=KAFKA_PYTHON_GROUP_POLL_MS).values():
            seen.extend(records)
    assert len(seen) == 20
    consumer.commit()
    consumer.commit({TopicPartition("kp-orders", 1): OffsetAndMetadata(7, "half", -1)})
    consumer.close()

    restart(embedded)
    reader = KafkaConsumer(bootstrap_servers=embedded.bootstrap_servers, group_id="kp-group", enable_auto_commit=False,
                           **KAFKA_PYTHON_GROUP_CONFIG)
    try:
        assert reader.committed(TopicPartition("kp-orders", 0)) == 10
        committed = reader.committed(TopicPartition("kp-orders", 1), metadata=True)
        assert (committed.offset, committed.metadata) == (7, "half")
        # a new member of the group resumes from the committed offsets
        reader.subscribe(["kp-orders"])
        resumed = []
        deadline = time.monotonic() + 30
        while len(resumed) < 3 and time.monotonic() < deadline:
            for records in reader.poll(timeout_ms=KAFKA_PYTHON_GROUP_POLL_MS).values():
                resumed.extend(records)
        assert sorted((r.partition, r.offset) for r in resumed) == [(1, 7), (1, 8), (1, 9)]
    finally:
        reader.close()


def test_commits_are_in_consumer_offsets_in_kafkas_format(embedded):
    produce(embedded.bootstrap_servers, "fmt-topic", 5)
    consumer = KafkaConsumer("fmt-topic", bootstrap_servers=embedded.bootstrap_servers, group_id="fmt-group",
                             enable_auto_commit=False, auto_offset_reset="earliest", client_id="fmt-client",
                             **KAFKA_PYTHON_GROUP_CONFIG)
    deadline = time.monotonic() + 30
    total = 0
    while total < 10 and time.monotonic() < deadline:
        total += sum(len(r) for r in consumer.poll(timeout_ms=KAFKA_PYTHON_GROUP_POLL_MS).values())
    consumer.commit({TopicPartition("fmt-topic", 0): OffsetAndMetadata(3, "meta-0", -1),
                     TopicPartition("fmt-topic", 1): OffsetAndMetadata(5, "", -1)})
    consumer.close()

    partition = abs(java_hash("fmt-group")) % 50
    assert embedded.broker.metadata.topics[OFFSETS_TOPIC].num_partitions == 50
    reader = KafkaConsumer(bootstrap_servers=embedded.bootstrap_servers, enable_auto_commit=False,
                           auto_offset_reset="earliest")
    tp = TopicPartition(OFFSETS_TOPIC, partition)
    reader.assign([tp])
    end = reader.end_offsets([tp])[tp]
    records = []
    deadline = time.monotonic() + 30
    while (not records or records[-1].offset < end - 1) and time.monotonic() < deadline:
        for batch in reader.poll(timeout_ms=500).values():
            records.extend(batch)
    reader.close()

    offsets, groups = {}, {}
    for record in records:
        key_version, = struct.unpack_from(">h", record.key)
        if key_version == 1:
            (glen,), pos = struct.unpack_from(">h", record.key, 2), 4
            group = record.key[pos:pos + glen].decode()
            pos += glen
            (tlen,) = struct.unpack_from(">h", record.key, pos)
            topic = record.key[pos + 2:pos + 2 + tlen].decode()
            (index,) = struct.unpack_from(">i", record.key, pos + 2 + tlen)
            assert pos + 6 + tlen == len(record.key)
            # OffsetCommitValue v4, flexible: a compact string (length + 1, one byte here)
            # and an empty tagged-field section (Kafka writes no topic id for commits by name)
            version, offset, epoch, mlen_plus_one = struct.unpack_from(">hqiB", record.value)
            assert version == 4
            mlen = mlen_plus_one - 1
            metadata = record.value[15:15 + mlen].decode()
            (commit_ts,) = struct.unpack_from(">q", record.value, 15 + mlen)
            assert record.value[15 + mlen + 8:] == b"\x00"
            assert abs(commit_ts - record.timestamp) < 1000
            offsets[(group, topic, index)] = (offset, epoch, metadata)
        else:
            assert key_version == 2
            (glen,) = struct.unpack_from(">h", record.key, 2)
            groups[record.key[4:4 + glen].decode()] = record.value
    assert offsets[("fmt-group", "fmt-topic", 0)] == (3, -1, "meta-0")
    assert offsets[("fmt-group", "fmt-topic", 1)] == (5, -1, "")
    # the group's metadata: the last record is the Empty group the consumer left behind
    value = groups["fmt-group"]
    version, plen = struct.unpack_from(">hh", value)
    assert version == 3 and value[4:4 + plen] == b"consumer"
    generation, = struct.unpack_from(">i", value, 4 + plen)
    assert generation >= 1
    members, = struct.unpack_from(">i", value, len(value) - 4)
    assert members == 0


def test_aiokafka_commit_and_committed_across_a_restart(embedded):
    produce(embedded.bootstrap_servers, "aio-topic", 6)

    async def consume_and_commit():
        consumer = AIOKafkaConsumer("aio-topic", bootstrap_servers=embedded.bootstrap_servers, group_id="aio-group",
                                    enable_auto_commit=False, auto_offset_reset="earliest")
        await consumer.start()
        try:
            seen = 0
            deadline = time.monotonic() + 30
            while seen < 12 and time.monotonic() < deadline:
                batches = await consumer.getmany(timeout_ms=500)
                seen += sum(len(b) for b in batches.values())
            assert seen == 12
            await consumer.commit({AioTopicPartition("aio-topic", 0): 4, AioTopicPartition("aio-topic", 1): 6})
            return await consumer.committed(AioTopicPartition("aio-topic", 0))
        finally:
            await consumer.stop()

    async def committed():
        consumer = AIOKafkaConsumer(bootstrap_servers=embedded.bootstrap_servers, group_id="aio-group",
                                    enable_auto_commit=False)
        await consumer.start()
        try:
            return [await consumer.committed(AioTopicPartition("aio-topic", p)) for p in (0, 1)]
        finally:
            await consumer.stop()

    assert asyncio.run(consume_and_commit()) == 4
    restart(embedded)
    assert asyncio.run(committed()) == [4, 6]


def test_confluent_kafka_commit_and_committed_across_a_restart(embedded):
    produce(embedded.bootstrap_servers, "ck-topic", 6)
    consumer = CkConsumer({"bootstrap.servers": embedded.bootstrap_servers, "group.id": "ck-group",
                           "enable.auto.commit": False, "auto.offset.reset": "earliest"})
    consumer.subscribe(["ck-topic"])
    seen = []
    deadline = time.monotonic() + 30
    while len(seen) < 12 and time.monotonic() < deadline:
        message = consumer.poll(0.5)
        if message is not None and not message.error():
            seen.append(message)
    assert len(seen) == 12
    consumer.commit(offsets=[CkTopicPartition("ck-topic", 0, 2), CkTopicPartition("ck-topic", 1, 6)],
                    asynchronous=False)
    consumer.close()

    restart(embedded)
    reader = CkConsumer({"bootstrap.servers": embedded.bootstrap_servers, "group.id": "ck-group",
                         "enable.auto.commit": False})
    try:
        result = reader.committed([CkTopicPartition("ck-topic", 0), CkTopicPartition("ck-topic", 1)], timeout=20)
        assert [(tp.partition, tp.offset) for tp in result] == [(0, 2), (1, 6)]
    finally:
        reader.close()


def test_simple_consumer_commits_without_a_group(embedded):
    """assign() + commit: generation -1, no member id (a "simple" group)."""
    produce(embedded.bootstrap_servers, "simple-topic", 3)
    consumer = KafkaConsumer(bootstrap_servers=embedded.bootstrap_servers, group_id="simple-group",
                             enable_auto_commit=False)
    tp = TopicPartition("simple-topic", 0)
    consumer.assign([tp])
    consumer.commit({tp: OffsetAndMetadata(2, None, -1)})
    assert consumer.committed(tp) == 2
    consumer.close()
    restart(embedded)
    consumer = KafkaConsumer(bootstrap_servers=embedded.bootstrap_servers, group_id="simple-group",
                             enable_auto_commit=False)
    assert consumer.committed(tp) == 2
    consumer.close()


# ---------------------------------------------------------------------------------------
# raw requests: versions and error codes


Commit = OffsetCommitRequest
CommitTopic = OffsetCommitRequest.OffsetCommitRequestTopic
CommitPartition = OffsetCommitRequest.OffsetCommitRequestPartition
FetchTopic = OffsetFetchRequest.OffsetFetchRequestTopic
FetchGroup = OffsetFetchRequest.OffsetFetchRequestGroup
FetchTopics = OffsetFetchRequest.OffsetFetchRequestTopics


def commit_request(group, offsets, generation=-1, member_id="", retention=-1, instance_id=None):
    topics = {}
    for (topic, partition), (offset, metadata, epoch, timestamp) in offsets.items():
        topics.setdefault(topic, []).append(CommitPartition(partition_index=partition, committed_offset=offset,
                                                            committed_leader_epoch=epoch, commit_timestamp=timestamp,
                                                            committed_metadata=metadata))
    return Commit(group_id=group, generation_id_or_member_epoch=generation, member_id=member_id,
                  group_instance_id=instance_id, retention_time_ms=retention,
                  topics=[CommitTopic(name=t, partitions=ps) for t, ps in topics.items()])


def commit_errors(response):
    return {(t.name, p.partition_index): ErrorCode(p.error_code) for t in response.topics for p in t.partitions}


def fetch_single(client, version, group, topics):
    request = OffsetFetchRequest(group_id=group, topics=None if topics is None else [
        FetchTopic(name=t, partition_indexes=ps) for t, ps in topics.items()])
    response = client.request(9, version, request)
    if version >= 2:
        assert response.error_code == 0
    return {(t.name, p.partition_index): (p.committed_offset, p.metadata, p.committed_leader_epoch, p.error_code)
            for t in response.topics for p in t.partitions}


@pytest.mark.parametrize("version", range(0, 10))
def test_offset_commit_and_fetch_at_every_version(embedded, version):
    embedded.call(lambda: embedded.broker.create_topic("raw", 2))
    group = f"raw-v{version}"
    with WireClient(embedded.bootstrap_servers) as client:
        response = client.request(8, version, commit_request(group, {("raw", 0): (5, "m5", 3, -1),
                                                                     ("raw", 1): (6, None, -1, -1)}))
        assert commit_errors(response) == {("raw", 0): ErrorCode.NONE, ("raw", 1): ErrorCode.NONE}
        for fetch_version in range(0, 10):
            if fetch_version >= 8:
                request = OffsetFetchRequest(groups=[FetchGroup(group_id=group, topics=[
                    FetchTopics(name="raw", partition_indexes=[0, 1, 2])])])
                (answer,) = client.request(9, fetch_version, request).groups
                assert (answer.group_id, answer.error_code) == (group, 0)
                got = {(t.name, p.partition_index): (p.committed_offset, p.metadata, p.committed_leader_epoch,
                                                     p.error_code) for t in answer.topics for p in t.partitions}
            else:
                got = fetch_single(client, fetch_version, group, {"raw": [0, 1, 2]})
            epoch = 3 if version >= 6 and fetch_version >= 5 else -1
            assert got == {("raw", 0): (5, "m5", epoch, 0), ("raw", 1): (6, "", -1, 0), ("raw", 2): (-1, "", -1, 0)}


def test_offset_commit_errors(embedded):
    embedded.call(lambda: embedded.broker.create_topic("errs", 1))
    with WireClient(embedded.bootstrap_servers) as client:
        response = client.request(8, 8, commit_request("errs-group", {
            ("errs", 0): (1, "ok", -1, -1),
            ("errs", 5): (1, "", -1, -1),                 # no such partition
            ("nope", 0): (1, "", -1, -1),                 # no such topic
        }))
        assert commit_errors(response) == {("errs", 0): ErrorCode.NONE,
                                           ("errs", 5): ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                                           ("nope", 0): ErrorCode.UNKNOWN_TOPIC_OR_PARTITION}
        embedded.call(lambda: embedded.broker.create_topic("errs2", 2))
        response = client.request(8, 8, commit_request("errs-group", {
            ("errs2", 0): (9, "x" * 4097, -1, -1),       # offset.metadata.max.bytes = 4096
            ("errs2", 1): (9, "y" * 4096, -1, -1),
        }))
        assert commit_errors(response) == {("errs2", 0): ErrorCode.OFFSET_METADATA_TOO_LARGE,
                                           ("errs2", 1): ErrorCode.NONE}
        assert fetch_single(client, 7, "errs-group", {"errs2": [0, 1]}) == {
            ("errs2", 0): (-1, "", -1, 0), ("errs2", 1): (9, "y" * 4096, -1, 0)}
        # a generation of a group the coordinator never had
        response = client.request(8, 8, commit_request("no-such-group", {("errs", 0): (1, "", -1, -1)},
                                                       generation=3, member_id="m-1"))
        assert commit_errors(response) == {("errs", 0): ErrorCode.ILLEGAL_GENERATION}
        response = client.request(8, 9, commit_request("no-such-group", {("errs", 0): (1, "", -1, -1)},
                                                       generation=3, member_id="m-1"))
        assert commit_errors(response) == {("errs", 0): ErrorCode.GROUP_ID_NOT_FOUND}    # from v9
        assert fetch_single(client, 7, "no-such-group", {"errs": [0]}) == {("errs", 0): (-1, "", -1, 0)}


def test_v1_commit_timestamp_and_v2_retention_are_stored(embedded):
    embedded.call(lambda: embedded.broker.create_topic("ts", 1))
    with WireClient(embedded.bootstrap_servers) as client:
        client.request(8, 1, commit_request("ts-v1", {("ts", 0): (4, "", -1, 1234567)}))
        before = int(time.time() * 1000)
        client.request(8, 2, commit_request("ts-v2", {("ts", 0): (5, "", -1, -1)}, retention=60_000))
    store = store_of(embedded)
    v1 = embedded.call(store.committed, "ts-v1")[("ts", 0)]
    assert (v1.offset, v1.commit_timestamp_ms, v1.expire_timestamp_ms) == (4, 1234567, -1)
    v2 = embedded.call(store.committed, "ts-v2")[("ts", 0)]
    assert v2.offset == 5 and v2.expire_timestamp_ms - v2.commit_timestamp_ms == 60_000
    assert before - 1000 <= v2.commit_timestamp_ms <= int(time.time() * 1000)


def test_a_retention_that_overflows_wraps_as_javas_long_sum(embedded):
    # Kafka adds the retention to its clock in a Java long: near Long.MAX_VALUE the expire
    # timestamp wraps to a past time, which is stored (value v1) and expires the offset
    embedded.call(lambda: embedded.broker.create_topic("wrap", 1))
    retention = (1 << 63) - 2
    with WireClient(embedded.bootstrap_servers) as client:
        response = client.request(8, 2, commit_request("wrap-v2", {("wrap", 0): (5, "", -1, -1)}, retention=retention))
        assert commit_errors(response) == {("wrap", 0): ErrorCode.NONE}
        assert fetch_single(client, 2, "wrap-v2", {"wrap": [0]})[("wrap", 0)][0] == 5   # still served
    stored = embedded.call(store_of(embedded).committed, "wrap-v2")[("wrap", 0)]
    assert stored.expire_timestamp_ms == stored.commit_timestamp_ms + retention - (1 << 64) < 0


def test_offset_fetch_all_partitions_and_several_groups(embedded):
    embedded.call(lambda: embedded.broker.create_topic("a", 2))
    embedded.call(lambda: embedded.broker.create_topic("b", 1))
    with WireClient(embedded.bootstrap_servers) as client:
        client.request(8, 8, commit_request("g1", {("b", 0): (3, "", -1, -1), ("a", 1): (2, "", -1, -1),
                                                   ("a", 0): (1, "", -1, -1)}))
        client.request(8, 8, commit_request("g2", {("a", 0): (7, "", -1, -1)}))
        for version in (2, 5, 7):
            assert fetch_single(client, version, "g1", None) == {
                ("a", 0): (1, "", -1, 0), ("a", 1): (2, "", -1, 0), ("b", 0): (3, "", -1, 0)}
        request = OffsetFetchRequest(groups=[FetchGroup(group_id="g1", topics=None),
                                             FetchGroup(group_id="g2", topics=[FetchTopics(name="a",
                                                                                           partition_indexes=[0, 1])]),
                                             FetchGroup(group_id="unknown", topics=None)],
                                     require_stable=True)
        response = client.request(9, 8, request)
        answers = {g.group_id: (g.error_code, {(t.name, p.partition_index): p.committed_offset
                                               for t in g.topics for p in t.partitions}) for g in response.groups}
        assert answers == {"g1": (0, {("a", 0): 1, ("a", 1): 2, ("b", 0): 3}),
                           "g2": (0, {("a", 0): 7, ("a", 1): -1}),
                           "unknown": (0, {})}


def test_member_checks_of_an_active_group(embedded):
    produce(embedded.bootstrap_servers, "active", 2)
    consumer = KafkaConsumer("active", bootstrap_servers=embedded.bootstrap_servers, group_id="active-group",
                             enable_auto_commit=False, auto_offset_reset="earliest", **KAFKA_PYTHON_GROUP_CONFIG)
    try:
        deadline = time.monotonic() + 30
        while not consumer.assignment() and time.monotonic() < deadline:
            consumer.poll(timeout_ms=KAFKA_PYTHON_GROUP_POLL_MS)
        assert consumer.assignment()
        with WireClient(embedded.bootstrap_servers) as client:
            # only members commit into a group that has members
            response = client.request(8, 8, commit_request("active-group", {("active", 0): (1, "", -1, -1)}))
            assert commit_errors(response) == {("active", 0): ErrorCode.UNKNOWN_MEMBER_ID}
            response = client.request(8, 8, commit_request("active-group", {("active", 0): (1, "", -1, -1)},
                                                           generation=1, member_id="not-a-member"))
            assert commit_errors(response) == {("active", 0): ErrorCode.UNKNOWN_MEMBER_ID}
            member_id, generation = embedded.call(member_and_generation, embedded, "active-group")
            response = client.request(8, 8, commit_request("active-group", {("active", 0): (1, "", -1, -1)},
                                                           generation=generation + 1, member_id=member_id))
            assert commit_errors(response) == {("active", 0): ErrorCode.ILLEGAL_GENERATION}
            response = client.request(8, 8, commit_request("active-group", {("active", 0): (1, "", -1, -1)},
                                                           generation=generation, member_id=member_id))
            assert commit_errors(response) == {("active", 0): ErrorCode.NONE}
    finally:
        consumer.close()


def member_and_generation(embedded, group_id):
    """(the only member's id, the generation) of a group (call on the broker's loop)."""
    group = embedded.broker.group_coordinator.group(group_id)
    (member_id,) = group.members
    return member_id, group.generation_id


def delete_request(group, offsets):
    topics = {}
    for topic, partition in offsets:
        topics.setdefault(topic, []).append(OffsetDeleteRequest.OffsetDeleteRequestPartition(partition_index=partition))
    return OffsetDeleteRequest(group_id=group, topics=[
        OffsetDeleteRequest.OffsetDeleteRequestTopic(name=t, partitions=ps) for t, ps in topics.items()])


def delete_errors(response):
    return {(t.name, p.partition_index): ErrorCode(p.error_code) for t in response.topics for p in t.partitions}


def test_offset_delete(embedded):
    produce(embedded.bootstrap_servers, "subscribed", 2)
    embedded.call(lambda: embedded.broker.create_topic("other", 1))
    with WireClient(embedded.bootstrap_servers) as client:
        response = client.request(47, 0, delete_request("never-seen", [("other", 0)]))
        assert (ErrorCode(response.error_code), response.topics) == (ErrorCode.GROUP_ID_NOT_FOUND, [])

        # an Empty (simple) group: every partition goes
        client.request(8, 8, commit_request("simple", {("other", 0): (1, "", -1, -1),
                                                       ("subscribed", 0): (1, "", -1, -1)}))
        response = client.request(47, 0, delete_request("simple", [("other", 0), ("subscribed", 1),
                                                                   ("missing", 0)]))
        assert response.error_code == 0
        assert delete_errors(response) == {("other", 0): ErrorCode.NONE, ("subscribed", 1): ErrorCode.NONE,
                                           ("missing", 0): ErrorCode.UNKNOWN_TOPIC_OR_PARTITION}
        assert fetch_single(client, 7, "simple", None) == {("subscribed", 0): (1, "", -1, 0)}

        # a Stable group: the topics its members subscribe to stay
        consumer = KafkaConsumer("subscribed", bootstrap_servers=embedded.bootstrap_servers, group_id="stable",
                                 enable_auto_commit=False, auto_offset_reset="earliest", **KAFKA_PYTHON_GROUP_CONFIG)
        try:
            wait_until(lambda: consumer.poll(timeout_ms=KAFKA_PYTHON_GROUP_POLL_MS) is not None
                       and consumer.assignment(), 30,
                       "an assignment")
            consumer.commit({TopicPartition("subscribed", 0): OffsetAndMetadata(1, "", -1)})
            wait_until(lambda: embedded.call(embedded.broker.group_coordinator.group_state, "stable")
                       is GroupState.STABLE, 30, "a Stable group")
            member_id, generation = embedded.call(member_and_generation, embedded, "stable")
            client.request(8, 8, commit_request("stable", {("other", 0): (1, "", -1, -1)},
                                                generation=generation, member_id=member_id))
            response = client.request(47, 0, delete_request("stable", [("subscribed", 0), ("other", 0)]))
            assert response.error_code == 0
            assert delete_errors(response) == {("subscribed", 0): ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC,
                                               ("other", 0): ErrorCode.NONE}
            assert fetch_single(client, 7, "stable", None) == {("subscribed", 0): (1, "", -1, 0)}
        finally:
            consumer.close()


def test_offset_delete_lists_the_partitions_the_metadata_lacks_first(embedded):
    """Kafka's KafkaApis answers the unknown topics and partitions itself, then merges the
    coordinator's answer in (OffsetDeleteResponse.Builder.merge): those come first, a topic
    the coordinator answered joins the refused entry of its name, and with nothing refused a
    topic named twice keeps its two entries. The answers are Kafka 4.1.1's to these requests."""
    embedded.call(lambda: embedded.broker.create_topic("two", 2))
    embedded.call(lambda: embedded.broker.create_topic("one", 1))
    Topic, Partition = OffsetDeleteRequest.OffsetDeleteRequestTopic, OffsetDeleteRequest.OffsetDeleteRequestPartition

    def delete(*topics):
        response = client.request(47, 0, OffsetDeleteRequest(group_id="ordered", topics=[
            Topic(name=name, partitions=[Partition(partition_index=i) for i in indexes]) for name, indexes in topics]))
        assert response.error_code == 0
        return [(t.name, [(p.partition_index, p.error_code) for p in t.partitions]) for t in response.topics]

    with WireClient(embedded.bootstrap_servers) as client:
        client.request(8, 8, commit_request("ordered", {("one", 0): (1, "", -1, -1), ("two", 1): (1, "", -1, -1)}))
        assert delete(("one", [0, 5]), ("missing", [0]), ("two", [1])) == [
            ("one", [(5, 3), (0, 0)]), ("missing", [(0, 3)]), ("two", [(1, 0)])]
        assert delete(("two", [0]), ("one", [0]), ("two", [1])) == [
            ("two", [(0, 0)]), ("one", [(0, 0)]), ("two", [(1, 0)])]
        assert delete(("two", [0, 7]), ("one", [0]), ("two", [1])) == [
            ("two", [(7, 3), (0, 0), (1, 0)]), ("one", [(0, 0)])]
        assert delete(("two", [9])) == [("two", [(9, 3)])]
        assert delete(("missing", [])) == [("missing", [])]


# ---------------------------------------------------------------------------------------
# topic deletion


def delete_topic(client, name: str) -> None:
    from protocol.messages import DeleteTopicsRequest

    (result,) = client.request(20, 4, DeleteTopicsRequest(topic_names=[name], timeout_ms=30_000)).responses
    assert (result.name, result.error_code) == (name, 0)


def create_topic(client, name: str, partitions: int) -> None:
    from protocol.messages import CreateTopicsRequest

    request = CreateTopicsRequest(timeout_ms=30_000, topics=[CreateTopicsRequest.CreatableTopic(
        name=name, num_partitions=partitions, replication_factor=1)])
    (result,) = client.request(19, 5, request).topics
    assert (result.name, result.error_code) == (name, 0)


def offsets_records(embedded, group: str) -> list[tuple[tuple, bytes | None]]:
    """(decoded key, value) of the group's partition of __consumer_offsets, in log order."""
    from pylog.coordinator.offsets import decode_versioned
    from protocol.internal.offset_commit_key import OffsetCommitKey
    from tests.integration.support import stored_records

    records = []
    for record in stored_records(embedded.data_dir, OFFSETS_TOPIC, abs(java_hash(group)) % 50):
        if struct.unpack_from(">h", record.key)[0] == 1:
            _, key = decode_versioned(OffsetCommitKey, record.key)
            records.append(((key.group, key.topic, key.partition), record.value))
    return records


def test_a_deleted_and_recreated_topic_does_not_resume_at_old_offsets(embedded):
    """Kafka: the broker tells the group coordinator about deleted partitions, which writes
    tombstones for every group's offsets of them (OffsetMetadataManager.onPartitionsDeleted)."""
    with WireClient(embedded.bootstrap_servers) as client:
        create_topic(client, "reborn", 2)
        create_topic(client, "other", 1)
        client.request(8, 8, commit_request("g-simple", {("reborn", 0): (5, "a", -1, -1), ("reborn", 1): (6, "", -1, -1),
                                                         ("other", 0): (7, "kept", -1, -1)}))
        client.request(8, 8, commit_request("g-second", {("reborn", 1): (9, "", -1, -1)}))
        assert fetch_single(client, 7, "g-simple", {"reborn": [0, 1]}) == {("reborn", 0): (5, "a", -1, 0),
                                                                         ("reborn", 1): (6, "", -1, 0)}
        delete_topic(client, "reborn")
        create_topic(client, "reborn", 2)
        unknown = (-1, "", -1, 0)
        assert fetch_single(client, 7, "g-simple", {"reborn": [0, 1]}) == {("reborn", 0): unknown,
                                                                         ("reborn", 1): unknown}
        assert fetch_single(client, 7, "g-second", {"reborn": [1]}) == {("reborn", 1): unknown}
        assert fetch_single(client, 7, "g-simple", None) == {("other", 0): (7, "kept", -1, 0)}

    # the tombstones are in __consumer_offsets: one for each offset the groups had
    assert offsets_records(embedded, "g-simple")[-2:] == [(("g-simple", "reborn", 0), None),
                                                          (("g-simple", "reborn", 1), None)]
    assert offsets_records(embedded, "g-second")[-1] == (("g-second", "reborn", 1), None)

    restart(embedded)     # the load replays the tombstones: the old offsets stay gone
    with WireClient(embedded.bootstrap_servers) as client:
        assert fetch_single(client, 7, "g-simple", None) == {("other", 0): (7, "kept", -1, 0)}
        assert fetch_single(client, 7, "g-second", None) == {}


def test_deleting_the_offsets_topic_takes_its_groups_with_it(tmp_path, caplog):
    # Kafka's broker resigns every partition of a deleted __consumer_offsets: its groups are
    # given up (NOT_COORDINATOR), and the topic FindCoordinator creates again starts empty
    # (tests/compat/test_offsets_topic_deleted.py shows Kafka doing the same)
    broker = EmbeddedBroker(tmp_path / "data")   # a test broker: 5 partitions of __consumer_offsets
    broker.start()
    try:
        broker.call(lambda: broker.broker.create_topic("orders", 1))
        broker.call(lambda: broker.broker.create_topic("other", 1))
        with WireClient(broker.bootstrap_servers) as client:
            assert client.request(10, 3, FindCoordinatorRequest(key="g", key_type=0)).error_code == 0
            assert commit_errors(client.request(8, 8, commit_request(
                "g", {("orders", 0): (7, "", -1, -1), ("other", 0): (3, "", -1, -1)}))) == {
                ("orders", 0): ErrorCode.NONE, ("other", 0): ErrorCode.NONE}
            assert fetch_single(client, 7, "g", {"orders": [0]})[("orders", 0)][0] == 7

            def delete(topic):
                (result,) = client.request(20, 4, DeleteTopicsRequest(topic_names=[topic], timeout_ms=30_000)).responses
                assert result.error_code == 0

            delete(OFFSETS_TOPIC)
            response = client.request(9, 7, OffsetFetchRequest(group_id="g", topics=None))
            assert response.error_code == ErrorCode.NOT_COORDINATOR
            assert broker.call(lambda: broker.broker.offset_store.group_ids()) == set()
            with caplog.at_level("WARNING"):
                delete("other")   # its offsets went with the groups: nothing to write, nothing fails
            assert [r for r in caplog.records if r.levelname in ("WARNING", "ERROR")] == []
            assert client.request(10, 3, FindCoordinatorRequest(key="g", key_type=0)).error_code == 0
            assert fetch_single(client, 7, "g", {"orders": [0]})[("orders", 0)][0] == -1
            # the new topic's partitions were elected from epoch 0: the group is served again
            assert commit_errors(client.request(8, 8, commit_request("g", {("orders", 0): (9, "", -1, -1)}))) == {
                ("orders", 0): ErrorCode.NONE}
            assert fetch_single(client, 7, "g", {"orders": [0]})[("orders", 0)][0] == 9
    finally:
        broker.stop()
