"""Restart with the same data directory: topics, records, offsets and producer state are back.

Topics: auto-created ones (ids, partition counts), one created through the admin API
with config overrides (still reported by DescribeConfigs and still in force), and one
created and deleted (it stays deleted).

Two ways to restart: `EmbeddedBroker.restart()` in process, and a `pylog serve` subprocess
stopped with SIGTERM (clean) or SIGKILL (unclean) and started again.

Producer state is checked from the outside: the broker must still recognise the last
batch of the idempotent kafka-python producer (resent byte for byte, it is answered
with its original offset and not appended), accept that producer's next sequence, and
refuse a sequence gap with OUT_OF_ORDER_SEQUENCE_NUMBER. The in-process broker is also
looked at from the inside (the partition log's producer state entry).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import pytest
from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import ConfigResource, ConfigResourceType, NewTopic

from protocol.error_codes import ErrorCode
from protocol.messages import CreateTopicsRequest
from protocol.records import build_batch, stamp_base_offset, stamp_partition_leader_epoch
from tests.integration.support import (
    ServeProcess,
    WireClient,
    assert_contiguous_batches,
    consume_all,
    partition_dir,
    stored_batches,
    stored_records,
)

# Record timestamps: recent, because a producer whose last batch's timestamp is older than
# producer.id.expiration.ms (1 day) is forgotten when the log loads (Kafka's rule too).
T0 = (int(time.time()) - 3600) * 1000
TOPICS = ("restart-a", "restart-b")
PARTITIONS = 2
PER_PARTITION = 400
SMALL_SEGMENTS = {"internal.segment.bytes": "8192"}   # Kafka's test-only segment size: the logs roll


@dataclass
class Snapshot:
    """What a client can see of the broker, to compare before and after a restart."""

    topic_ids: dict = field(default_factory=dict)
    partitions: dict = field(default_factory=dict)
    beginning: dict = field(default_factory=dict)
    end: dict = field(default_factory=dict)
    by_time: dict = field(default_factory=dict)
    records: dict = field(default_factory=dict)       # (topic, p) -> [(offset, key, value, timestamp)]
    producers: dict = field(default_factory=dict)     # (topic, p) -> (pid, epoch, last seq, last batch)


def produce_records(bootstrap_servers: str, start: int, count: int) -> dict:
    """kafka-python, default settings (idempotent, acks=all), small batches so that the
    logs roll; record i of a partition has timestamp T0 + 10 * i. Returns what was
    acknowledged: (topic, p) -> [(offset, key, value, timestamp)]."""
    producer = KafkaProducer(bootstrap_servers=bootstrap_servers, batch_size=2048)
    futures = []
    for i in range(start, start + count):
        for topic in TOPICS:
            for p in range(PARTITIONS):
                key, value = b"%s-%d" % (topic.encode(), i), b"value-%d-%d-" % (p, i) + b"." * (i % 40)
                futures.append(((topic, p), key, value, T0 + 10 * i,
                                producer.send(topic, key=key, value=value, partition=p, timestamp_ms=T0 + 10 * i)))
        if i % 50 == 49:
            producer.flush(timeout=30)
    producer.flush(timeout=60)
    acknowledged: dict = {}
    for tp, key, value, timestamp, future in futures:
        acknowledged.setdefault(tp, []).append((future.get(timeout=10).offset, key, value, timestamp))
    producer.close(timeout=10)
    return acknowledged


def look(bootstrap_servers: str, data_dir, expected_records: dict) -> Snapshot:
    """Everything a client sees, plus the producer facts in the stored batches."""
    snapshot = Snapshot()
    with WireClient(bootstrap_servers) as wire:
        metadata = wire.metadata(list(TOPICS))
    for topic in metadata.topics:
        assert topic.error_code == 0, (topic.name, topic.error_code)
        snapshot.topic_ids[topic.name] = topic.topic_id
        snapshot.partitions[topic.name] = sorted(p.partition_index for p in topic.partitions)
    consumer = KafkaConsumer(bootstrap_servers=bootstrap_servers)
    try:
        tps = [TopicPartition(t, p) for t in TOPICS for p in range(PARTITIONS)]
        snapshot.beginning = {(tp.topic, tp.partition): o for tp, o in consumer.beginning_offsets(tps).items()}
        snapshot.end = {(tp.topic, tp.partition): o for tp, o in consumer.end_offsets(tps).items()}
        for target in (T0 - 5, T0, T0 + 5, T0 + 1234, T0 + 10 * (PER_PARTITION - 1), T0 + 10**8):
            found = consumer.offsets_for_times({tp: target for tp in tps})
            snapshot.by_time[target] = {(tp.topic, tp.partition): None if f is None else (f.offset, f.timestamp)
                                        for tp, f in found.items()}
    finally:
        consumer.close()
    for tp, expected in expected_records.items():
        records = consume_all(bootstrap_servers, *tp, len(expected))
        snapshot.records[tp] = [(r.offset, r.key, r.value, r.timestamp) for r in records]
        batches = stored_batches(data_dir, *tp)
        assert assert_contiguous_batches(batches) == snapshot.end[tp]
        last = batches[-1][2]
        snapshot.producers[tp] = (last.producer_id, last.producer_epoch, last.last_sequence, batches[-1][3])
    return snapshot


def check_same(before: Snapshot, after: Snapshot, expected_records: dict) -> None:
    assert after.topic_ids == before.topic_ids, "topic ids changed"
    assert after.partitions == before.partitions == {t: list(range(PARTITIONS)) for t in TOPICS}
    assert after.beginning == before.beginning
    assert after.end == before.end == {tp: len(records) for tp, records in expected_records.items()}
    assert after.by_time == before.by_time
    assert after.records == before.records == expected_records
    assert after.producers == before.producers


def check_producer_state(bootstrap_servers: str, snapshot: Snapshot) -> None:
    """From outside: the broker still knows each partition's last idempotent batch."""
    with WireClient(bootstrap_servers) as wire:
        for tp, (pid, epoch, last_sequence, last_batch) in snapshot.producers.items():
            assert pid >= 0, "expected an idempotent producer's batch"
            end = snapshot.end[tp]
            # A retry of the last batch: the original offset, nothing appended.
            retry = bytearray(last_batch)
            original_base_offset = int.from_bytes(retry[:8], "big")
            stamp_base_offset(retry, 0, 0)
            stamp_partition_leader_epoch(retry, 0, -1)
            response = wire.produce(*tp, bytes(retry))
            assert (response.error_code, response.base_offset) == (ErrorCode.NONE, original_base_offset), (
                f"{tp}: retry of the last batch (pid {pid}, epoch {epoch}, last sequence {last_sequence}) "
                f"answered {response}")
            # A gap after the last sequence: refused.
            gap = build_batch([(b"gap", b"gap")], timestamp_ms=T0, producer_id=pid, producer_epoch=epoch,
                              base_sequence=last_sequence + 3)
            response = wire.produce(*tp, gap)
            assert response.error_code == ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, (
                f"{tp}: sequence gap answered {response}")
            # The next sequence: appended at the end.
            following = build_batch([(b"next", b"next")], timestamp_ms=T0, producer_id=pid, producer_epoch=epoch,
                                    base_sequence=last_sequence + 1)
            response = wire.produce(*tp, following)
            assert (response.error_code, response.base_offset) == (ErrorCode.NONE, end), (
                f"{tp}: next sequence answered {response}")


def add_raw_appends(expected_records: dict, before: Snapshot) -> None:
    """`check_producer_state` appended one record per partition; note it."""
    for tp in expected_records:
        expected_records[tp].append((before.end[tp], b"next", b"next", T0))


ADMIN_TOPIC, DELETED_TOPIC = "restart-admin", "restart-deleted"
ADMIN_CONFIGS = {"retention.ms": "123456789", "max.message.bytes": "5000"}


def admin_setup(bootstrap_servers: str) -> None:
    """The topics `produce_records` writes, with small segments; a topic created with configs
    through the admin API, and one created and deleted."""
    admin = KafkaAdminClient(bootstrap_servers=bootstrap_servers, request_timeout_ms=10_000)
    try:
        admin.create_topics([NewTopic(topic, num_partitions=PARTITIONS, replication_factor=1,
                                      topic_configs=SMALL_SEGMENTS) for topic in TOPICS])
        admin.create_topics([NewTopic(ADMIN_TOPIC, num_partitions=3, replication_factor=1,
                                      topic_configs=ADMIN_CONFIGS),
                             NewTopic(DELETED_TOPIC, num_partitions=1, replication_factor=1)])
        producer = KafkaProducer(bootstrap_servers=bootstrap_servers)
        for p in range(3):
            producer.send(ADMIN_TOPIC, value=b"admin-%d" % p, partition=p).get(timeout=30)
        producer.send(DELETED_TOPIC, value=b"doomed").get(timeout=30)
        producer.close(timeout=10)
        admin.delete_topics([DELETED_TOPIC])
    finally:
        admin.close()


def admin_check(bootstrap_servers: str, data_dir) -> None:
    admin = KafkaAdminClient(bootstrap_servers=bootstrap_servers, request_timeout_ms=10_000)
    try:
        topics = set(admin.list_topics())
        assert ADMIN_TOPIC in topics and DELETED_TOPIC not in topics, topics
        configs = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, ADMIN_TOPIC)])
        values = {name: entry["value"] for name, entry in configs["topic"][ADMIN_TOPIC].items()}
        assert {name: values.get(name) for name in ADMIN_CONFIGS} == ADMIN_CONFIGS
    finally:
        admin.close()
    assert not partition_dir(data_dir, DELETED_TOPIC, 0).exists()
    for p in range(3):
        assert [r.value for r in consume_all(bootstrap_servers, ADMIN_TOPIC, p, 1)] == [b"admin-%d" % p]
    # The topic's max.message.bytes override is in force, not just reported.
    now = int(time.time() * 1000)
    with WireClient(bootstrap_servers) as wire:
        big = wire.produce(ADMIN_TOPIC, 0, build_batch([(None, b"x" * 6000)], timestamp_ms=now))
        assert big.error_code == ErrorCode.MESSAGE_TOO_LARGE, big
        small = wire.produce(ADMIN_TOPIC, 1, build_batch([(None, b"y" * 100)], timestamp_ms=now))
        assert small.error_code == ErrorCode.NONE, small


def state_entry(embedded, tp, producer_id):
    """The storage producer-state entry of `producer_id` in partition `tp` (inside view)."""
    def get():
        log = embedded.broker.partitions[tp].log
        return log.producer_state.get(producer_id)
    return embedded.call(get)


@pytest.mark.timeout(150)
def test_embedded_restart(kafka_broker_factory):
    broker = kafka_broker_factory()
    admin_setup(broker.bootstrap_servers)
    expected = produce_records(broker.bootstrap_servers, 0, PER_PARTITION)
    before = look(broker.bootstrap_servers, broker.data_dir, expected)
    assert all(len(set(path for path, _, _, _ in stored_batches(broker.data_dir, *tp))) > 1 for tp in expected), \
        "expected every log to have rolled"

    broker.restart()
    after = look(broker.bootstrap_servers, broker.data_dir, expected)
    check_same(before, after, expected)
    admin_check(broker.bootstrap_servers, broker.data_dir)
    for tp, (pid, epoch, last_sequence, last_batch) in before.producers.items():
        entry = state_entry(broker, tp, pid)
        assert entry is not None, f"{tp}: no producer state for producer {pid} after the restart"
        assert (entry.producer_epoch, entry.last_sequence) == (epoch, last_sequence)
        assert entry.last_data_offset == before.end[tp] - 1
    check_producer_state(broker.bootstrap_servers, before)
    add_raw_appends(expected, before)

    # A new producer after the restart gets a new producer id (ids are never reused),
    # and a second restart brings back both producers' state.
    more = produce_records(broker.bootstrap_servers, PER_PARTITION, 100)
    for tp, records in more.items():
        expected[tp].extend(records)
    second = look(broker.bootstrap_servers, broker.data_dir, expected)
    old_ids = {pid for pid, _, _, _ in before.producers.values()}
    assert not old_ids & {pid for pid, _, _, _ in second.producers.values()}, "a producer id was reused"
    broker.restart()
    third = look(broker.bootstrap_servers, broker.data_dir, expected)
    check_same(second, third, expected)
    check_producer_state(broker.bootstrap_servers, second)


@pytest.mark.timeout(150)
def test_serve_sigterm_and_kill_restart(serve_factory):
    serve = serve_factory().start()
    admin_setup(serve.bootstrap_servers)
    expected = produce_records(serve.bootstrap_servers, 0, PER_PARTITION)
    before = look(serve.bootstrap_servers, serve.data_dir, expected)

    assert serve.stop() == 0, serve.log_text()
    for tp in expected:
        # A clean shutdown leaves a producer snapshot at the log end offset (Kafka's layout).
        snapshot = partition_dir(serve.data_dir, *tp) / f"{before.end[tp]:020d}.snapshot"
        assert snapshot.exists(), f"no {snapshot.name} in {snapshot.parent.name}: " \
                                  f"{sorted(p.name for p in snapshot.parent.iterdir())}"
    serve.start()
    after = look(serve.bootstrap_servers, serve.data_dir, expected)
    check_same(before, after, expected)
    admin_check(serve.bootstrap_servers, serve.data_dir)
    check_producer_state(serve.bootstrap_servers, before)
    add_raw_appends(expected, before)

    # Unclean: kill -9, then the state must come back from snapshots plus the log.
    more = produce_records(serve.bootstrap_servers, PER_PARTITION, 100)
    for tp, records in more.items():
        expected[tp].extend(records)
    second = look(serve.bootstrap_servers, serve.data_dir, expected)
    serve.kill()
    serve.start()
    third = look(serve.bootstrap_servers, serve.data_dir, expected)
    check_same(second, third, expected)
    check_producer_state(serve.bootstrap_servers, second)
    admin_check(serve.bootstrap_servers, serve.data_dir)
    assert serve.stop() == 0, serve.log_text()


@pytest.mark.timeout(120)
def test_connected_clients_carry_on_across_a_restart(kafka_broker_factory):
    """A kafka-python producer (idempotent) and consumer stay open while the broker
    restarts: they reconnect, the producer's next batches follow its sequence (its state
    is back), the consumer goes on from its position, nothing is lost or doubled."""
    broker = kafka_broker_factory()
    topic = "restart-live"
    producer = KafkaProducer(bootstrap_servers=broker.bootstrap_servers, reconnect_backoff_ms=50,
                             retry_backoff_ms=50)
    consumer = KafkaConsumer(bootstrap_servers=broker.bootstrap_servers, auto_offset_reset="earliest",
                             enable_auto_commit=False, reconnect_backoff_ms=50)
    tp = TopicPartition(topic, 0)
    values, consumed, offsets = [], [], []

    def produce(count: int) -> None:
        start = len(values)
        futures = []
        for i in range(start, start + count):
            values.append(b"live-%05d" % i)
            futures.append(producer.send(topic, value=values[-1], partition=0))
        producer.flush(timeout=60)
        offsets.extend(f.get(timeout=30).offset for f in futures)

    def consume() -> None:
        deadline = time.monotonic() + 60
        while len(consumed) < len(values):
            assert time.monotonic() < deadline, f"consumed {len(consumed)} of {len(values)}"
            for batch in consumer.poll(timeout_ms=200).values():
                consumed.extend(r.value for r in batch)

    try:
        produce(500)
        consumer.assign([tp])
        consume()
        for _ in range(2):
            broker.restart()
            produce(500)
            consume()
    finally:
        producer.close(timeout=10)
        consumer.close()
    assert offsets == list(range(len(values)))
    assert consumed == values
    assert [r.value for r in stored_records(broker.data_dir, topic, 0)] == values
    assert len({h.producer_id for _, _, h, _ in stored_batches(broker.data_dir, topic, 0)}) == 1


@pytest.mark.timeout(120)
def test_every_start_moves_the_leader_epoch_up_by_two_as_a_single_kraft_node_does(tmp_path):
    """Measured on Kafka 4.1.1 (one combined node): a partition created at leader epoch 0
    is at 2 after a clean restart and at 4 after a kill -9 and a start; the batches
    written meanwhile carry those epochs and `leader-epoch-checkpoint` records where each
    began (`0 0`, `2 3`, `4 6`). A partition added while the broker runs starts at 0."""
    serve = ServeProcess(tmp_path / "data")

    def produce_three() -> None:
        with WireClient(serve.bootstrap_servers) as client:
            for i in range(3):
                batch = build_batch([(b"k", b"v%d" % i)], timestamp_ms=int(time.time() * 1000))
                assert client.produce("epochs", 0, batch).error_code == 0

    serve.start()
    with WireClient(serve.bootstrap_servers) as client:
        create = CreateTopicsRequest(topics=[CreateTopicsRequest.CreatableTopic(
            name="epochs", num_partitions=1, replication_factor=1)], timeout_ms=10_000)
        assert client.request(19, 4, create).topics[0].error_code == 0
    produce_three()
    assert serve.stop() == 0
    serve.start()
    produce_three()
    serve.kill()
    serve.start()
    produce_three()
    with WireClient(serve.bootstrap_servers) as client:
        partition = next(p for t in client.metadata(["epochs"]).topics for p in t.partitions)
    assert partition.leader_epoch == 4
    assert serve.stop() == 0

    epochs = [(header.base_offset, header.partition_leader_epoch)
              for _, _, header, _ in stored_batches(serve.data_dir, "epochs", 0)]
    assert epochs == [(0, 0), (1, 0), (2, 0), (3, 2), (4, 2), (5, 2), (6, 4), (7, 4), (8, 4)]
    assert (serve.data_dir / "epochs-0" / "leader-epoch-checkpoint").read_text() == "0\n3\n0 0\n2 3\n4 6\n"
