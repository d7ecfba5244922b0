"""confluent-kafka (librdkafka 2.16) against a real pylog broker.

The producer runs through a `KafkaProxy` (the broker advertises the proxy's address) so
the test knows the exact bytes of every batch librdkafka sent, and can check that the
broker stored and serves compressed batches unchanged: same bytes except the 8-byte base
offset and the 4-byte partition leader epoch, which the broker stamps (both outside the
CRC), hence the same CRC.
"""

from __future__ import annotations

import time

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, Producer, TopicPartition

from tests.integration.support import (
    assert_contiguous_batches,
    assert_stored_and_served_unchanged,
    consume_all,
    stored_batches,
)


def produce(bootstrap_servers: str, topic: str, count: int, **config) -> list[tuple[int, int, bytes]]:
    """Produce `count` records; return (partition, offset, value) of each delivery, in order."""
    delivered: dict[int, tuple] = {}
    errors = []

    def on_delivery(i):
        def callback(err, message):
            if err is not None:
                errors.append((i, err))
            else:
                delivered[i] = (message.partition(), message.offset(), message.value())
        return callback

    producer = Producer({"bootstrap.servers": bootstrap_servers, "linger.ms": 50, **config})
    for i in range(count):
        value = b"confluent-%06d-" % i + b"payload " * (i % 7)
        producer.produce(topic, value=value, key=b"k%d" % (i % 10), partition=0,
                         headers=[("i", str(i).encode()), ("empty", b"")], on_delivery=on_delivery(i))
        producer.poll(0)
    remaining = producer.flush(60)
    assert remaining == 0, f"{remaining} records not delivered in 60 s"
    assert not errors, errors[:5]
    return [delivered[i] for i in range(count)]


def consume(bootstrap_servers: str, topic: str, count: int, timeout_s: float = 60, **config):
    """Read `count` records of partition 0 with a confluent-kafka consumer (default
    isolation.level, i.e. read_committed; CRC-32C of every batch checked)."""
    consumer = Consumer({"bootstrap.servers": bootstrap_servers, "group.id": f"g-{topic}",
                         "enable.auto.commit": False, "check.crcs": True, **config})
    try:
        consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
        messages = []
        deadline = time.monotonic() + timeout_s
        while len(messages) < count:
            assert time.monotonic() < deadline, f"read {len(messages)} of {count} in {timeout_s} s"
            message = consumer.poll(0.5)
            if message is None:
                continue
            if message.error():
                assert message.error().code() == KafkaError._PARTITION_EOF, message.error()
                continue
            messages.append(message)
        return messages
    finally:
        consumer.close()


@pytest.mark.timeout(90)
def test_round_trip_read_committed_default(kafka_broker):
    """librdkafka's consumer reads read_committed by default: with no transactions the last
    stable offset is the high watermark, so it must see every record."""
    topic = "ck-round-trip"
    deliveries = produce(kafka_broker.bootstrap_servers, topic, 3000)
    assert [offset for _, offset, _ in deliveries] == list(range(3000))
    messages = consume(kafka_broker.bootstrap_servers, topic, 3000)
    assert [(m.offset(), m.value()) for m in messages] == [(o, v) for _, o, v in deliveries]
    for i, message in enumerate(messages):
        assert message.key() == b"k%d" % (i % 10)
        assert message.headers() == [("i", str(i).encode()), ("empty", b"")]
    # Explicit read_committed and read_uncommitted agree with the default.
    for level in ("read_committed", "read_uncommitted"):
        again = consume(kafka_broker.bootstrap_servers, topic, 3000, **{"isolation.level": level})
        assert [m.value() for m in again] == [v for _, _, v in deliveries]


@pytest.mark.timeout(90)
def test_idempotent_producer_round_trip(kafka_broker):
    """enable.idempotence: librdkafka's InitProducerId, sequences per batch, acks=all."""
    topic = "ck-idempotent"
    deliveries = produce(kafka_broker.bootstrap_servers, topic, 2000, **{"enable.idempotence": True})
    assert [offset for _, offset, _ in deliveries] == list(range(2000))
    batches = stored_batches(kafka_broker.data_dir, topic, 0)
    assert assert_contiguous_batches(batches) == 2000
    assert all(h.producer_id >= 0 and h.base_sequence == h.base_offset for _, _, h, _ in batches)
    messages = consume(kafka_broker.bootstrap_servers, topic, 2000)
    assert [m.value() for m in messages] == [v for _, _, v in deliveries]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("codec", ["lz4", "zstd", "gzip", "snappy", "none"])
def test_compressed_batches_stored_and_served_unchanged(kafka_broker_factory, kafka_proxy, codec):
    """librdkafka compresses each batch with the configured codec, the broker keeps it.

    (librdkafka turns its LZ4 feature on only when the broker advertises FindCoordinator
    (rdkafka_feature.c: RD_KAFKA_FEATURE_LZ4 depends on FindCoordinator v0); without it,
    compression.type=lz4 silently sends uncompressed batches, which this test reports.)
    """
    broker = kafka_broker_factory(config={"advertised.listeners": f"PLAINTEXT://127.0.0.1:{kafka_proxy.port}"})
    kafka_proxy.start(broker.bootstrap_servers)
    topic = f"ck-codec-{codec}"
    count = 5000
    deliveries = produce(kafka_proxy.bootstrap_servers, topic, count,
                         **{"compression.type": codec, "batch.num.messages": 700})
    assert [offset for _, offset, _ in deliveries] == list(range(count))
    values = [v for _, _, v in deliveries]

    assert_stored_and_served_unchanged(kafka_proxy, broker, topic, codec, values)

    # And the clients decode them: librdkafka (read_committed default) and kafka-python,
    # which checks every batch's CRC (check_crcs=True by default).
    assert [m.value() for m in consume(broker.bootstrap_servers, topic, count)] == values
    assert [r.value for r in consume_all(broker.bootstrap_servers, topic, 0, count)] == values


@pytest.mark.timeout(60)
def test_watermarks_and_offsets_for_times(kafka_broker):
    """librdkafka's ListOffsets (v7 here): watermarks and by-timestamp lookups."""
    t0 = 1_700_000_000_000
    timestamps = [t0, t0 + 1000, t0 + 2000, t0 + 500, t0 + 3000]
    producer = Producer({"bootstrap.servers": kafka_broker.bootstrap_servers})
    for i, timestamp in enumerate(timestamps):
        producer.produce("ck-times", value=b"v%d" % i, partition=0, timestamp=timestamp)
        assert producer.flush(30) == 0     # one batch per record
    consumer = Consumer({"bootstrap.servers": kafka_broker.bootstrap_servers, "group.id": "g-times"})
    try:
        assert consumer.get_watermark_offsets(TopicPartition("ck-times", 0), timeout=10) == (0, 5)
        for target, expected in [(t0 - 1, 0), (t0, 0), (t0 + 400, 1), (t0 + 1500, 2), (t0 + 3000, 4),
                                 (t0 + 3001, -1)]:
            (found,) = consumer.offsets_for_times([TopicPartition("ck-times", 0, target)], timeout=10)
            assert (found.error, found.offset) == (None, expected), target - t0
    finally:
        consumer.close()
