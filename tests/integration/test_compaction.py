"""The log cleaner in a running broker (pylog/log_cleaner.py), with real clients.

A compacted topic gets 100,000 updates of 1,000 keys from kafka-python; once the segments
holding them are inactive (`segment.ms` rolls the active one) the cleaner compacts them
in the background while the broker keeps serving, and a consumer reading from the start
sees exactly each key's last value, at the offset it was produced at, and the one record
written after. `__consumer_offsets`, compacted too, keeps only the live offsets, and a
restart loads them.
"""

from __future__ import annotations

import time

import pytest
from kafka import KafkaProducer

from tests.integration.support import WireClient, consume_all, wait_until

KEYS = 1_000
UPDATES = 100_000


@pytest.mark.timeout(150)
def test_a_compacted_topic_keeps_the_last_value_of_every_key(kafka_broker_factory):
    broker = kafka_broker_factory(config={"log.cleaner.backoff.ms": 50})
    topic = "compacted-updates"
    broker.call(lambda: broker.broker.create_topic(topic, 1, {
        "cleanup.policy": "compact", "internal.segment.bytes": str(256 * 1024), "segment.ms": "1000",
        "min.cleanable.dirty.ratio": "0.01"}))
    producer = KafkaProducer(bootstrap_servers=broker.bootstrap_servers, linger_ms=5, batch_size=64 * 1024)
    futures = [producer.send(topic, key=b"key-%04d" % (i % KEYS), value=b"value-%06d" % i) for i in range(UPDATES)]
    producer.flush(timeout=60)
    last_offsets = {}
    for i, future in enumerate(futures):
        last_offsets[b"key-%04d" % (i % KEYS)] = (future.get(timeout=10).offset, b"value-%06d" % i)
    time.sleep(1.1)  # segment.ms: the next append rolls the active segment
    end = producer.send(topic, key=b"end", value=b"after").get(timeout=10).offset
    producer.close(timeout=10)

    # A pass may run before the "end" record rolls the last segment of updates: wait
    # until one has cleaned everything below it (its checkpoint says so).
    wait_until(lambda: broker.call(lambda: broker.broker.log_cleaner.checkpoint.get(topic, 0)) == end, 60,
               "the cleaner to compact the topic up to the last record")
    partition_log = broker.call(lambda: broker.broker.partition(topic, 0).log)
    assert broker.call(lambda: partition_log.size_bytes) < 200 * 1024
    records = consume_all(broker.bootstrap_servers, topic, 0, KEYS + 1, timeout_s=30)
    assert {r.key: (r.offset, r.value) for r in records} == {**last_offsets, b"end": (end, b"after")}
    assert len(records) == KEYS + 1   # nothing else survived
    assert [r.offset for r in records] == sorted(offset for offset, _ in last_offsets.values()) + [end]
    checkpoint = (broker.data_dir / "cleaner-offset-checkpoint").read_text().split("\n")
    assert f"{topic} 0 {end}" in checkpoint


def test_the_cleaner_does_nothing_when_disabled(kafka_broker_factory):
    broker = kafka_broker_factory(config={"log.cleaner.enable": "false", "log.cleaner.backoff.ms": 50})
    broker.call(lambda: broker.broker.create_topic("not-cleaned", 1, {
        "cleanup.policy": "compact", "internal.segment.bytes": str(64 * 1024), "min.cleanable.dirty.ratio": "0.01"}))
    producer = KafkaProducer(bootstrap_servers=broker.bootstrap_servers)
    for i in range(2_000):
        producer.send("not-cleaned", key=b"k%d" % (i % 3), value=b"v" * 50)
    producer.flush(timeout=30)
    producer.close(timeout=10)
    time.sleep(0.5)
    assert broker.call(lambda: broker.broker.log_cleaner.passes) == 0
    assert broker.call(lambda: broker.broker.partition("not-cleaned", 0).log_end_offset) == 2_000
    assert len(consume_all(broker.bootstrap_servers, "not-cleaned", 0, 2_000, timeout_s=30)) == 2_000


@pytest.mark.timeout(120)
def test_consumer_offsets_is_compacted_and_a_restart_loads_the_live_offsets(tmp_path):
    from pylog.coordinator.offsets import CommittedOffset
    from pylog.testing import EmbeddedBroker

    config = {"offsets.topic.num.partitions": 1, "log.cleaner.backoff.ms": 50}
    broker = EmbeddedBroker(tmp_path / "data", config=config).start()
    try:
        store = broker.broker.offset_store

        broker.wait_for_group_coordinator()
        # small segments, so that the cleaner has some to clean: Kafka's test-only size, set
        # on the topic (offsets.topic.segment.bytes below 1 MiB makes a topic Kafka refuses)
        with WireClient(broker.bootstrap_servers) as wire:
            wire.incremental_alter_topic_configs("__consumer_offsets", {"internal.segment.bytes": str(64 * 1024)})
        wait_until(lambda: broker.call(
            lambda: broker.broker.partition("__consumer_offsets", 0).log.config.max_segment_bytes) == 64 * 1024,
            10, "the offsets topic to take its small segments")

        def commit_many() -> None:
            for n in range(20_000):
                store.commit(f"group-{n % 10}", {("orders", p): CommittedOffset(n) for p in range(3)})

        broker.call(commit_many)
        offsets_log = broker.call(lambda: broker.broker.partition("__consumer_offsets", 0).log)
        written = broker.call(lambda: offsets_log.size_bytes)
        wait_until(lambda: broker.call(lambda: offsets_log.size_bytes) < written // 4, 60,
                   "the cleaner to compact __consumer_offsets")
        expected = broker.call(lambda: {f"group-{g}": store.committed(f"group-{g}") for g in range(10)})
    finally:
        broker.stop()
    again = EmbeddedBroker(tmp_path / "data", config=config).start()
    try:
        again.wait_for_group_coordinator()   # the partition is loaded as this broker is elected
        store = again.broker.offset_store
        assert again.call(lambda: {f"group-{g}": store.committed(f"group-{g}") for g in range(10)}) == expected
        assert expected["group-9"][("orders", 2)].offset == 19_999
    finally:
        again.stop()


def test_compact_delete_topics_get_their_retention_from_the_cleaner(kafka_broker_factory):
    """Kafka's retention task leaves compacted logs alone; its cleaner thread applies
    retention to `compact,delete` ones between cleanings. pylog's do the same."""
    from protocol.records import build_batch
    from tests.pylog.wire import RawClient
    from tests.pylog.test_produce_validation import produce

    broker = kafka_broker_factory(config={"log.cleaner.backoff.ms": 50, "log.retention.check.interval.ms": 50})
    now_ms = int(time.time() * 1000)
    for topic, policy in (("compact-delete", "compact,delete"), ("compact-only", "compact")):
        broker.call(lambda topic=topic, policy=policy: broker.broker.create_topic(topic, 1, {
            "cleanup.policy": policy, "internal.segment.bytes": "1024", "retention.ms": "60000",
            "min.cleanable.dirty.ratio": "0.99"}))
        client = RawClient(broker.bootstrap_servers)
        for i in range(30):  # distinct keys, an hour old: nothing to compact, all past retention.ms
            assert produce(client, topic, build_batch([(b"k%d" % i, bytes(200))], timestamp_ms=now_ms - 3_600_000)).error_code == 0
        assert produce(client, topic, build_batch([(b"new", b"v")], timestamp_ms=now_ms)).error_code == 0
        client.close()
    start = lambda topic: broker.call(lambda: broker.broker.partition(topic, 0).log_start_offset)  # noqa: E731
    wait_until(lambda: start("compact-delete") > 0, 20, "the cleaner's retention of the compact,delete topic")
    time.sleep(0.3)
    assert start("compact-only") == 0
