"""aiokafka 0.14 (pure Python, asyncio; ApiVersions v0, Produce up to v7, Fetch up to v11)
against a real pylog broker. Every wait is bounded with asyncio.wait_for."""

from __future__ import annotations

import asyncio

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.structs import TopicPartition

from tests.integration.support import (
    assert_contiguous_batches,
    assert_stored_and_served_unchanged,
    consume_all,
    stored_batches,
)


def value_of(i: int) -> bytes:
    return b"aiokafka-%06d-" % i + b"abc" * (i % 11)


async def produce(bootstrap_servers: str, topic: str, count: int, **config) -> list:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap_servers, **config)
    await asyncio.wait_for(producer.start(), 30)
    try:
        futures = []
        for i in range(count):
            futures.append(await producer.send(topic, value=value_of(i), key=b"key-%d" % (i % 5), partition=0,
                                               headers=[("n", str(i).encode())]))
        await asyncio.wait_for(producer.flush(), 60)
        return [await asyncio.wait_for(future, 30) for future in futures]
    finally:
        await asyncio.wait_for(producer.stop(), 30)


async def consume(bootstrap_servers: str, topic: str, count: int, **config) -> list:
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap_servers, enable_auto_commit=False,
                                auto_offset_reset="earliest", **config)
    await asyncio.wait_for(consumer.start(), 30)
    try:
        tp = TopicPartition(topic, 0)
        consumer.assign([tp])
        await consumer.seek_to_beginning(tp)
        records = []

        async def read():
            while len(records) < count:
                batches = await consumer.getmany(tp, timeout_ms=500)
                for batch in batches.values():
                    records.extend(batch)

        await asyncio.wait_for(read(), 60)
        return records
    finally:
        await asyncio.wait_for(consumer.stop(), 30)


@pytest.mark.timeout(90)
@pytest.mark.parametrize("idempotent", [False, True], ids=["defaults", "idempotent"])
def test_round_trip(kafka_broker, idempotent):
    topic = f"aio-round-trip-{idempotent}"
    count = 3000
    config = {"enable_idempotence": True} if idempotent else {}
    acknowledged = asyncio.run(produce(kafka_broker.bootstrap_servers, topic, count, **config))
    assert [m.offset for m in acknowledged] == list(range(count))

    records = asyncio.run(consume(kafka_broker.bootstrap_servers, topic, count))
    assert [r.offset for r in records] == list(range(count))
    for i, record in enumerate(records):
        assert (record.key, record.value) == (b"key-%d" % (i % 5), value_of(i))
        assert list(record.headers) == [("n", str(i).encode())]

    batches = stored_batches(kafka_broker.data_dir, topic, 0)
    assert assert_contiguous_batches(batches) == count
    if idempotent:
        assert all(h.producer_id >= 0 and h.base_sequence == h.base_offset for _, _, h, _ in batches)
    # read_committed (aiokafka's option) sees the same: no transactions, LSO = HW.
    again = asyncio.run(consume(kafka_broker.bootstrap_servers, topic, count, isolation_level="read_committed"))
    assert [r.value for r in again] == [value_of(i) for i in range(count)]


@pytest.mark.timeout(90)
@pytest.mark.parametrize("codec", ["lz4", "zstd", "gzip", "snappy"])
def test_compressed_batches_stored_and_served_unchanged(kafka_broker_factory, kafka_proxy, codec):
    broker = kafka_broker_factory(config={"advertised.listeners": f"PLAINTEXT://127.0.0.1:{kafka_proxy.port}"})
    kafka_proxy.start(broker.bootstrap_servers)
    topic = f"aio-codec-{codec}"
    count = 4000
    acknowledged = asyncio.run(produce(kafka_proxy.bootstrap_servers, topic, count, compression_type=codec,
                                       max_batch_size=16384, linger_ms=20))
    assert [m.offset for m in acknowledged] == list(range(count))
    values = [value_of(i) for i in range(count)]
    assert_stored_and_served_unchanged(kafka_proxy, broker, topic, codec, values)
    # aiokafka (check_crcs=True) and kafka-python decode what the broker serves.
    assert [r.value for r in asyncio.run(consume(broker.bootstrap_servers, topic, count))] == values
    assert [r.value for r in consume_all(broker.bootstrap_servers, topic, 0, count)] == values


@pytest.mark.timeout(60)
def test_offsets_and_offsets_for_times(kafka_broker):
    """aiokafka's ListOffsets (v1-v3): beginning/end offsets and by-timestamp lookups."""
    t0 = 1_700_000_000_000
    timestamps = [t0, t0 + 1000, t0 + 2000, t0 + 500, t0 + 3000]

    async def run():
        producer = AIOKafkaProducer(bootstrap_servers=kafka_broker.bootstrap_servers)
        await asyncio.wait_for(producer.start(), 30)
        try:
            for i, timestamp in enumerate(timestamps):
                await asyncio.wait_for(producer.send_and_wait("aio-times", value=b"v%d" % i, partition=0,
                                                              timestamp_ms=timestamp), 30)
        finally:
            await asyncio.wait_for(producer.stop(), 30)
        consumer = AIOKafkaConsumer(bootstrap_servers=kafka_broker.bootstrap_servers)
        await asyncio.wait_for(consumer.start(), 30)
        try:
            tp = TopicPartition("aio-times", 0)
            assert await consumer.beginning_offsets([tp]) == {tp: 0}
            assert await consumer.end_offsets([tp]) == {tp: 5}
            for target, expected in [(t0 - 1, (0, t0)), (t0 + 400, (1, t0 + 1000)), (t0 + 1500, (2, t0 + 2000)),
                                     (t0 + 3000, (4, t0 + 3000)), (t0 + 3001, None)]:
                found = (await consumer.offsets_for_times({tp: target}))[tp]
                assert (None if found is None else (found.offset, found.timestamp)) == expected, target - t0
        finally:
            await asyncio.wait_for(consumer.stop(), 30)

    asyncio.run(asyncio.wait_for(run(), 60))
