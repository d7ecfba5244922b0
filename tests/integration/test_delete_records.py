"""DeleteRecords through the clients' admin APIs, and the low watermark across restarts.

Each client (kafka-python, aiokafka, confluent-kafka) deletes the records below offset 3
of 8 and gets low watermark 3; a consumer of the same client reading from the beginning
then starts at offset 3. A `pylog serve` process keeps an acknowledged deletion across a
SIGTERM restart and across kill -9 right after the answer.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from aiokafka import AIOKafkaConsumer
from aiokafka.admin import AIOKafkaAdminClient, RecordsToDelete
from aiokafka.structs import TopicPartition as AioTopicPartition
from confluent_kafka import OFFSET_BEGINNING, Consumer
from confluent_kafka import TopicPartition as CkTopicPartition
from confluent_kafka.admin import AdminClient
from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
from kafka.errors import OffsetOutOfRangeError

pytestmark = pytest.mark.timeout(90)

COUNT, DELETE_BELOW = 8, 3


def produce(bootstrap_servers: str, topic: str, count: int = COUNT) -> None:
    producer = KafkaProducer(bootstrap_servers=bootstrap_servers)
    try:
        for i in range(count):
            producer.send(topic, value=b"v%d" % i, partition=0).get(timeout=30)
    finally:
        producer.close()


def first_offset_from_the_beginning(bootstrap_servers: str, topic: str) -> int:
    """kafka-python: the offset of the first record a consumer reads after seek_to_beginning."""
    consumer = KafkaConsumer(bootstrap_servers=bootstrap_servers, enable_auto_commit=False)
    try:
        tp = TopicPartition(topic, 0)
        consumer.assign([tp])
        consumer.seek_to_beginning(tp)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            for records in consumer.poll(timeout_ms=500).values():
                return records[0].offset
        pytest.fail(f"no record of {topic}-0 within 30 s")
    finally:
        consumer.close()


def test_kafka_python_delete_records(kafka_broker):
    topic = "kp-delete-records"
    produce(kafka_broker.bootstrap_servers, topic)
    tp = TopicPartition(topic, 0)
    admin = KafkaAdminClient(bootstrap_servers=kafka_broker.bootstrap_servers, request_timeout_ms=10_000)
    try:
        result = admin.delete_records({tp: DELETE_BELOW})
        assert result[tp]["low_watermark"] == DELETE_BELOW and result[tp]["error_code"] == 0
        with pytest.raises(OffsetOutOfRangeError):
            admin.delete_records({tp: COUNT + 1})
    finally:
        admin.close()
    assert first_offset_from_the_beginning(kafka_broker.bootstrap_servers, topic) == DELETE_BELOW
    consumer = KafkaConsumer(bootstrap_servers=kafka_broker.bootstrap_servers)
    try:
        assert consumer.beginning_offsets([tp])[tp] == DELETE_BELOW
    finally:
        consumer.close()


def test_aiokafka_delete_records(kafka_broker):
    topic = "aio-delete-records"
    produce(kafka_broker.bootstrap_servers, topic)

    async def run() -> tuple[dict, int]:
        admin = AIOKafkaAdminClient(bootstrap_servers=kafka_broker.bootstrap_servers)
        await asyncio.wait_for(admin.start(), 30)
        try:
            tp = AioTopicPartition(topic, 0)
            deleted = await asyncio.wait_for(admin.delete_records({tp: RecordsToDelete(DELETE_BELOW)}), 30)
        finally:
            await asyncio.wait_for(admin.close(), 30)
        consumer = AIOKafkaConsumer(bootstrap_servers=kafka_broker.bootstrap_servers, enable_auto_commit=False)
        await asyncio.wait_for(consumer.start(), 30)
        try:
            consumer.assign([tp])
            await consumer.seek_to_beginning(tp)
            record = await asyncio.wait_for(consumer.getone(tp), 30)
        finally:
            await asyncio.wait_for(consumer.stop(), 30)
        return deleted, record.offset

    deleted, first = asyncio.run(run())
    assert deleted == {AioTopicPartition(topic, 0): DELETE_BELOW}
    assert first == DELETE_BELOW


def test_confluent_kafka_delete_records(kafka_broker):
    topic = "ck-delete-records"
    produce(kafka_broker.bootstrap_servers, topic)
    admin = AdminClient({"bootstrap.servers": kafka_broker.bootstrap_servers})
    futures = admin.delete_records([CkTopicPartition(topic, 0, DELETE_BELOW)])
    [(tp, future)] = futures.items()
    assert (tp.topic, tp.partition) == (topic, 0)
    assert future.result(timeout=30).low_watermark == DELETE_BELOW
    consumer = Consumer({"bootstrap.servers": kafka_broker.bootstrap_servers, "group.id": f"g-{topic}",
                         "enable.auto.commit": False})
    try:
        assert consumer.get_watermark_offsets(CkTopicPartition(topic, 0), timeout=10) == (DELETE_BELOW, COUNT)
        consumer.assign([CkTopicPartition(topic, 0, OFFSET_BEGINNING)])
        deadline = time.monotonic() + 30
        message = None
        while message is None and time.monotonic() < deadline:
            message = consumer.poll(0.5)
        assert message is not None and message.error() is None
        assert message.offset() == DELETE_BELOW
    finally:
        consumer.close()


def delete_below(bootstrap_servers: str, topic: str, offset: int) -> int:
    admin = KafkaAdminClient(bootstrap_servers=bootstrap_servers, request_timeout_ms=10_000)
    try:
        return admin.delete_records({TopicPartition(topic, 0): offset})[TopicPartition(topic, 0)]["low_watermark"]
    finally:
        admin.close()


@pytest.mark.timeout(120)
def test_the_low_watermark_survives_sigterm_and_kill_restarts(serve_factory):
    topic = "restart-delete-records"
    serve = serve_factory().start()
    produce(serve.bootstrap_servers, topic)
    assert delete_below(serve.bootstrap_servers, topic, 2) == 2
    assert serve.stop() == 0, serve.log_text()
    serve.start()
    assert first_offset_from_the_beginning(serve.bootstrap_servers, topic) == 2
    # kill -9 right after the acknowledgment: the checkpoint was written before the answer
    assert delete_below(serve.bootstrap_servers, topic, 5) == 5
    serve.kill()
    serve.start()
    assert first_offset_from_the_beginning(serve.bootstrap_servers, topic) == 5
    assert serve.stop() == 0, serve.log_text()
