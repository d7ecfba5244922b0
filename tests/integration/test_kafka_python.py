"""kafka-python 3.x with its default settings (no api_version pin, idempotent, acks=all)
against a real pylog broker on 127.0.0.1."""

from __future__ import annotations

import random
import time

import pytest
from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import NewTopic
from kafka.errors import TopicAlreadyExistsError, UnknownTopicOrPartitionError

from protocol.messages import ListOffsetsRequest
from protocol.records import NO_PRODUCER_ID
from tests.integration.support import (
    assert_stored_and_served_unchanged,
    WireClient,
    assert_contiguous_batches,
    consume_all,
    partition_dir,
    stored_batches,
    stored_records,
    wait_until,
)

N = 20_000
T0 = 1_700_000_000_000


def record_for(i: int) -> tuple[bytes, bytes, list]:
    key = b"key-%d" % (i % 97)
    value = b"value-%05d-" % i + b"x" * (i % 61)
    record_headers = [("index", str(i).encode()), ("parity", b"even" if i % 2 == 0 else b"odd")]
    return key, value, record_headers


@pytest.mark.timeout(150)
def test_twenty_thousand_records_round_trip(kafka_broker_factory):
    # Small segments, so that the produce rolls and the read crosses many segments.
    broker = kafka_broker_factory()
    topic = "kp-twenty-thousand"
    with WireClient(broker.bootstrap_servers) as wire:
        wire.create_topics([topic], 1, {"internal.segment.bytes": str(256 * 1024)})
    producer = KafkaProducer(bootstrap_servers=broker.bootstrap_servers)
    futures = []
    for i in range(N):
        key, value, record_headers = record_for(i)
        futures.append(producer.send(topic, key=key, value=value, headers=record_headers))
    producer.flush(timeout=90)
    acknowledged = [future.get(timeout=10) for future in futures]
    producer.close(timeout=10)
    assert [(m.topic, m.partition) for m in acknowledged] == [(topic, 0)] * N
    assert [m.offset for m in acknowledged] == list(range(N))

    records = consume_all(broker.bootstrap_servers, topic, 0, N, timeout_s=90)
    assert [r.offset for r in records] == list(range(N))
    for i, record in enumerate(records):
        key, value, record_headers = record_for(i)
        assert (record.key, record.value, list(record.headers)) == (key, value, record_headers), i

    consumer = KafkaConsumer(bootstrap_servers=broker.bootstrap_servers)
    tp = TopicPartition(topic, 0)
    assert consumer.beginning_offsets([tp]) == {tp: 0}
    assert consumer.end_offsets([tp]) == {tp: N}
    consumer.close()

    # What is on disk: Kafka's segment files, every batch valid, offsets 0..N-1 in order,
    # idempotent batches (kafka-python's default) numbered by sequence from 0.
    batches = stored_batches(broker.data_dir, topic, 0)
    assert len({path for path, _, _, _ in batches}) > 1, "expected the log to roll"
    assert assert_contiguous_batches(batches) == N
    producer_ids = {header.producer_id for _, _, header, _ in batches}
    assert len(producer_ids) == 1 and NO_PRODUCER_ID not in producer_ids
    assert all(header.base_sequence == header.base_offset for _, _, header, _ in batches)
    stored = stored_records(broker.data_dir, topic, 0)
    assert [(r.offset, r.value) for r in stored] == [(i, record_for(i)[1]) for i in range(N)]


# Record timestamps in log order: one out of order (T0 + 500 after T0 + 2000), two equal.
TIMESTAMPS = [T0, T0 + 1000, T0 + 2000, T0 + 2000, T0 + 500, T0 + 3000, T0 + 4000, T0 + 4000, T0 + 5000]
TIMESTAMPS = [t + 10_000 * block for block in range(4) for t in TIMESTAMPS]


def expected_lookup(target: int):
    """Kafka's rule: the first offset (in log order) whose timestamp is >= target."""
    for offset, timestamp in enumerate(TIMESTAMPS):
        if timestamp >= target:
            return offset, timestamp
    return None


LOOKUPS = sorted({T0 - 1, T0, T0 + 1, T0 + 400, T0 + 500, T0 + 999, T0 + 2000, T0 + 2001, T0 + 4000,
                  T0 + 15_000, T0 + 22_000, T0 + 33_999, TIMESTAMPS[-1] - 1, TIMESTAMPS[-1],
                  TIMESTAMPS[-1] + 1, T0 + 10**9})


@pytest.mark.timeout(120)
@pytest.mark.parametrize("layout", ["batch-per-record", "one-batch"])
def test_offsets_for_times(kafka_broker_factory, layout):
    """By-timestamp lookups (the time index, and the records inside a batch)."""
    # Tiny segments: one batch per record spreads the log over several segments.
    broker = kafka_broker_factory()
    topic = f"kp-times-{layout}"
    with WireClient(broker.bootstrap_servers) as wire:
        wire.create_topics([topic], 1, {"internal.segment.bytes": "1024", "index.interval.bytes": "1"})
    producer = KafkaProducer(bootstrap_servers=broker.bootstrap_servers, linger_ms=10_000)
    futures = []
    for i, timestamp in enumerate(TIMESTAMPS):
        futures.append(producer.send(topic, key=b"k%d" % i, value=b"v%d" % i, timestamp_ms=timestamp))
        if layout == "batch-per-record":
            producer.flush(timeout=30)
    producer.flush(timeout=30)
    assert [f.get(timeout=10).offset for f in futures] == list(range(len(TIMESTAMPS)))
    producer.close(timeout=10)

    batches = stored_batches(broker.data_dir, topic, 0)
    if layout == "one-batch":
        assert len(batches) == 1, "kafka-python was expected to send one batch"
    else:
        assert len(batches) == len(TIMESTAMPS)
        assert len({path for path, _, _, _ in batches}) > 1, "expected several segments"

    consumer = KafkaConsumer(bootstrap_servers=broker.bootstrap_servers)
    tp = TopicPartition(topic, 0)
    assert consumer.beginning_offsets([tp]) == {tp: 0}
    assert consumer.end_offsets([tp]) == {tp: len(TIMESTAMPS)}
    for target in LOOKUPS:
        found = consumer.offsets_for_times({tp: target})[tp]
        expected = expected_lookup(target)
        got = None if found is None else (found.offset, found.timestamp)
        assert got == expected, f"offsets_for_times({target - T0:+d} ms from T0)"
    consumer.close()

    # The consumer sees the producer's timestamps (CreateTime) on every record.
    records = consume_all(broker.bootstrap_servers, topic, 0, len(TIMESTAMPS))
    assert [r.timestamp for r in records] == TIMESTAMPS

    # ListOffsets v7, timestamp -3: the record with the largest timestamp (KIP-734).
    with WireClient(broker.bootstrap_servers) as wire:
        request = ListOffsetsRequest(replica_id=-1, isolation_level=0, topics=[
            ListOffsetsRequest.ListOffsetsTopic(name=topic, partitions=[
                ListOffsetsRequest.ListOffsetsPartition(partition_index=0, timestamp=-3)])])
        response = wire.request(2, 7, request)
    partition = response.topics[0].partitions[0]
    assert partition.error_code == 0
    largest = max(TIMESTAMPS)
    assert (partition.timestamp, partition.offset) == (largest, TIMESTAMPS.index(largest))


@pytest.mark.timeout(120)
def test_admin_create_and_delete_topics(kafka_broker):
    admin = KafkaAdminClient(bootstrap_servers=kafka_broker.bootstrap_servers, request_timeout_ms=10_000)
    try:
        admin.create_topics([NewTopic("kp-admin-a", num_partitions=3, replication_factor=1),
                             NewTopic("kp-admin-b", num_partitions=1, replication_factor=1,
                                      topic_configs={"cleanup.policy": "delete"})])
        assert {"kp-admin-a", "kp-admin-b"} <= set(admin.list_topics())
        with pytest.raises(TopicAlreadyExistsError):
            admin.create_topics([NewTopic("kp-admin-a", num_partitions=1, replication_factor=1)])

        producer = KafkaProducer(bootstrap_servers=kafka_broker.bootstrap_servers)
        assert producer.partitions_for("kp-admin-a") == {0, 1, 2}
        offsets = [producer.send("kp-admin-a", value=b"p%d" % p, partition=p).get(timeout=30).offset
                   for p in range(3)]
        producer.close(timeout=10)
        assert offsets == [0, 0, 0]
        assert [r.value for r in consume_all(kafka_broker.bootstrap_servers, "kp-admin-a", 2, 1)] == [b"p2"]
        for p in range(3):
            assert partition_dir(kafka_broker.data_dir, "kp-admin-a", p).is_dir()

        admin.delete_topics(["kp-admin-a"])
        wait_until(lambda: "kp-admin-a" not in admin.list_topics(), 30, "the deleted topic to disappear")
        assert "kp-admin-b" in admin.list_topics()
        wait_until(lambda: not any(partition_dir(kafka_broker.data_dir, "kp-admin-a", p).exists()
                                   for p in range(3)), 30, "the deleted topic's directories to go")
        with pytest.raises(UnknownTopicOrPartitionError):
            admin.delete_topics(["kp-admin-a"])
    finally:
        admin.close()


@pytest.mark.timeout(60)
def test_many_partitions_keyed_default_partitioner(kafka_broker_factory):
    """Auto-created topic with num.partitions=4; kafka-python's default partitioner spreads
    keyed records; every partition reads back what was acknowledged for it."""
    broker = kafka_broker_factory(config={"num.partitions": 4})
    topic = "kp-keyed"
    producer = KafkaProducer(bootstrap_servers=broker.bootstrap_servers)
    futures = [(i, producer.send(topic, key=b"user-%d" % (i % 13), value=b"event-%d" % i)) for i in range(2000)]
    producer.flush(timeout=60)
    by_partition: dict[int, list] = {}
    for i, future in futures:
        metadata = future.get(timeout=10)
        by_partition.setdefault(metadata.partition, []).append((metadata.offset, b"event-%d" % i))
    producer.close(timeout=10)
    assert set(by_partition) == {0, 1, 2, 3}
    deadline = time.monotonic() + 60
    for partition, expected in by_partition.items():
        expected.sort()
        assert [offset for offset, _ in expected] == list(range(len(expected)))
        records = consume_all(broker.bootstrap_servers, topic, partition, len(expected),
                              timeout_s=max(deadline - time.monotonic(), 1))
        assert [(r.offset, r.value) for r in records] == expected


@pytest.mark.timeout(90)
@pytest.mark.parametrize("codec", ["lz4", "zstd", "gzip", "snappy"])
def test_compressed_batches_stored_and_served_unchanged(kafka_broker_factory, kafka_proxy, codec):
    """kafka-python's compressed batches (through a proxy that records them) are stored
    and served byte for byte, except the base offset and leader epoch the broker stamps."""
    broker = kafka_broker_factory(config={"advertised.listeners": f"PLAINTEXT://127.0.0.1:{kafka_proxy.port}"})
    kafka_proxy.start(broker.bootstrap_servers)
    topic = f"kp-codec-{codec}"
    count = 4000
    producer = KafkaProducer(bootstrap_servers=kafka_proxy.bootstrap_servers, compression_type=codec,
                             batch_size=16384, linger_ms=20)
    values = [b"kafka-python-%06d-" % i + b"xyz" * (i % 9) for i in range(count)]
    futures = [producer.send(topic, value=value, key=b"k%d" % (i % 3), partition=0) for i, value in enumerate(values)]
    producer.flush(timeout=60)
    assert [f.get(timeout=10).offset for f in futures] == list(range(count))
    producer.close(timeout=10)
    assert_stored_and_served_unchanged(kafka_proxy, broker, topic, codec, values)
    assert [r.value for r in consume_all(broker.bootstrap_servers, topic, 0, count)] == values


@pytest.mark.timeout(60)
@pytest.mark.parametrize("acks", [0, 1])
def test_acks_zero_and_one(kafka_broker, acks):
    """acks=0 gets no response at all (a response would desynchronise the client's
    in-order matching); acks=1 is answered after the append."""
    topic = f"kp-acks-{acks}"
    producer = KafkaProducer(bootstrap_servers=kafka_broker.bootstrap_servers, acks=acks, batch_size=2048)
    values = [b"acks-%d-%04d" % (acks, i) for i in range(2000)]
    futures = [producer.send(topic, value=value, partition=0) for value in values[:1000]]
    producer.flush(timeout=30)
    # The same connection goes on working: metadata, then more produce requests.
    assert producer.partitions_for(topic) == {0}
    futures += [producer.send(topic, value=value, partition=0) for value in values[1000:]]
    producer.flush(timeout=30)
    offsets = [f.get(timeout=10).offset for f in futures]
    producer.close(timeout=10)
    if acks == 1:   # (for acks=0 kafka-python makes up offsets from a synthetic response)
        assert offsets == list(range(len(values)))
    records = consume_all(kafka_broker.bootstrap_servers, topic, 0, len(values))
    assert [(r.offset, r.value) for r in records] == list(enumerate(values))
    tp = TopicPartition(topic, 0)
    consumer = KafkaConsumer(bootstrap_servers=kafka_broker.bootstrap_servers)
    assert consumer.end_offsets([tp]) == {tp: len(values)}
    consumer.close()


@pytest.mark.timeout(60)
@pytest.mark.parametrize("layout", ["batch-per-record", "one-batch", "one-batch-lz4"])
def test_list_offsets_max_timestamp_is_the_exact_record(kafka_broker, layout):
    """ListOffsets timestamp -3 (KIP-734) names the record holding the largest timestamp,
    also when it sits in the middle of a (compressed) batch (Kafka 3.8+, KAFKA-16310:
    the offset of the first record with the batch's max timestamp, not the batch's last)."""
    topic = f"kp-max-ts-{layout}"
    timestamps = [T0, T0 + 1000, T0 + 9000, T0 + 2000, T0 + 3000]
    producer = KafkaProducer(bootstrap_servers=kafka_broker.bootstrap_servers, linger_ms=10_000,
                             compression_type="lz4" if layout.endswith("lz4") else None)
    for i, timestamp in enumerate(timestamps):
        producer.send(topic, value=b"m%d" % i, partition=0, timestamp_ms=timestamp)
        if layout == "batch-per-record":
            producer.flush(timeout=30)
    producer.flush(timeout=30)
    producer.close(timeout=10)
    assert len(stored_batches(kafka_broker.data_dir, topic, 0)) == (5 if layout == "batch-per-record" else 1)
    # A by-timestamp lookup inside the (compressed) batch finds the exact record.
    consumer = KafkaConsumer(bootstrap_servers=kafka_broker.bootstrap_servers)
    tp = TopicPartition(topic, 0)
    found = consumer.offsets_for_times({tp: T0 + 1500})[tp]
    consumer.close()
    assert (found.offset, found.timestamp) == (2, T0 + 9000)
    with WireClient(kafka_broker.bootstrap_servers) as wire:
        request = ListOffsetsRequest(replica_id=-1, isolation_level=0, topics=[
            ListOffsetsRequest.ListOffsetsTopic(name=topic, partitions=[
                ListOffsetsRequest.ListOffsetsPartition(partition_index=0, timestamp=-3)])])
        partition = wire.request(2, 7, request).topics[0].partitions[0]
    assert partition.error_code == 0
    assert (partition.timestamp, partition.offset) == (T0 + 9000, 2), \
        "ListOffsets MAX_TIMESTAMP answered the batch's last offset, not the record's"


@pytest.mark.timeout(90)
def test_fetch_limits_mid_batch_positions_and_out_of_range(kafka_broker):
    topic = "kp-fetch-edges"
    producer = KafkaProducer(bootstrap_servers=kafka_broker.bootstrap_servers, batch_size=64 * 1024,
                             linger_ms=10_000, compression_type="zstd")
    values = [b"edge-%05d-" % i + bytes(random_bytes(i)) for i in range(3000)]
    futures = [producer.send(topic, value=value, partition=0) for value in values]
    producer.flush(timeout=60)
    assert [f.get(timeout=10).offset for f in futures] == list(range(len(values)))
    producer.close(timeout=10)
    batches = stored_batches(kafka_broker.data_dir, topic, 0)
    assert len(batches) > 2 and max(len(raw) for _, _, _, raw in batches) > 4096

    # Limits far below one batch: the broker still returns one whole batch (KIP-74), so
    # the consumer makes progress through every batch.
    records = consume_all(kafka_broker.bootstrap_servers, topic, 0, len(values),
                          max_partition_fetch_bytes=1024, fetch_max_bytes=1024)
    assert [r.value for r in records] == values

    # Starting inside a compressed batch: the consumer gets exactly the records from there.
    middle = batches[1][2].base_offset + 7
    records = consume_all(kafka_broker.bootstrap_servers, topic, 0, len(values) - middle, start_offset=middle)
    assert [(r.offset, r.value) for r in records] == list(enumerate(values))[middle:]

    # Beyond the end: OFFSET_OUT_OF_RANGE, and kafka-python resets to earliest.
    records = consume_all(kafka_broker.bootstrap_servers, topic, 0, 10, start_offset=len(values) + 1000)
    assert [r.offset for r in records] == list(range(10))


def random_bytes(seed: int) -> bytes:
    """Deterministic, poorly compressible filler (so batches stay large)."""
    return random.Random(seed).randbytes(50 + seed % 200)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("codec", [None, "lz4"])
def test_log_append_time_topic(kafka_broker, codec):
    """A topic created with message.timestamp.type=LogAppendTime: the broker stamps its
    time into each batch (and recomputes the CRC, which the consumer checks); every
    record reads back with that time and timestamp type 1."""
    topic = f"kp-log-append-time-{codec}"
    admin = KafkaAdminClient(bootstrap_servers=kafka_broker.bootstrap_servers, request_timeout_ms=10_000)
    admin.create_topics([NewTopic(topic, num_partitions=1, replication_factor=1,
                                  topic_configs={"message.timestamp.type": "LogAppendTime"})])
    admin.close()
    producer = KafkaProducer(bootstrap_servers=kafka_broker.bootstrap_servers, compression_type=codec,
                             batch_size=4096)
    before = int(time.time() * 1000)
    futures = [producer.send(topic, value=b"lat-%04d" % i, partition=0, timestamp_ms=T0) for i in range(500)]
    producer.flush(timeout=30)
    metadata = [f.get(timeout=10) for f in futures]
    producer.close(timeout=10)
    after = int(time.time() * 1000)
    assert all(before <= m.timestamp <= after for m in metadata), "acknowledged without the append time"
    records = consume_all(kafka_broker.bootstrap_servers, topic, 0, 500)
    assert [r.value for r in records] == [b"lat-%04d" % i for i in range(500)]
    assert {r.timestamp_type for r in records} == {1}
    assert [r.timestamp for r in records] == [m.timestamp for m in metadata]
    batches = stored_batches(kafka_broker.data_dir, topic, 0)   # CRCs recomputed correctly
    assert len(batches) > 1
    assert all(h.timestamp_type == 1 and before <= h.max_timestamp <= after for _, _, h, _ in batches)


def test_kafka_python_infers_kafka_4_1_from_api_versions(kafka_broker):
    """kafka-python guesses a broker's release from the highest versions it advertises
    (kafka/protocol/broker_version_data.py) and keeps it as the producer's `api_version`;
    pylog must read as Kafka 4.1."""
    producer = KafkaProducer(bootstrap_servers=kafka_broker.bootstrap_servers)
    try:
        assert producer.config["api_version"] == (4, 1)
    finally:
        producer.close(timeout=10)
