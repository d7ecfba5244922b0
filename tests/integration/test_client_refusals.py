"""Batches a real client builds and Kafka refuses, refused by pylog with the error the client
knows: kafka-python and confluent-kafka, each producing a keyless record to a compacted
topic, a record two hours ahead of the broker's clock, and a record over the topic's
`max.message.bytes`. (Every shape, byte by byte: tests/pylog/test_produce_refusals.py.)"""

from __future__ import annotations

import time

import pytest
from confluent_kafka import KafkaError, Producer
from kafka import KafkaProducer
from kafka.errors import InvalidRecordError, InvalidTimestampError, MessageSizeTooLargeError

HOUR_MS = 3_600_000
TOPICS = {
    "refuse-compacted": {"cleanup.policy": "compact"},
    "refuse-timestamps": {"message.timestamp.after.max.ms": str(HOUR_MS)},
    "refuse-large": {"max.message.bytes": "2000"},
}


@pytest.fixture
def broker(kafka_broker):
    for name, configs in TOPICS.items():
        kafka_broker.call(lambda name=name, configs=configs: kafka_broker.broker.create_topic(name, 1, configs))
    return kafka_broker


def log_end_offset(broker, topic: str) -> int:
    return broker.call(lambda: broker.broker.partition(topic, 0).log_end_offset)


def test_kafka_python_gets_kafkas_errors(broker):
    producer = KafkaProducer(bootstrap_servers=broker.bootstrap_servers, retries=0, linger_ms=0)
    try:
        with pytest.raises(InvalidRecordError):
            producer.send("refuse-compacted", key=None, value=b"keyless").get(timeout=20)
        ahead_ms = int(time.time() * 1000) + 2 * HOUR_MS
        with pytest.raises(InvalidTimestampError):
            producer.send("refuse-timestamps", key=b"k", value=b"v", timestamp_ms=ahead_ms).get(timeout=20)
        with pytest.raises(MessageSizeTooLargeError):
            producer.send("refuse-large", key=b"k", value=bytes(5000)).get(timeout=20)
        # and what the rules allow still goes in
        assert producer.send("refuse-compacted", key=b"k", value=b"v").get(timeout=20).offset == 0
    finally:
        producer.close(timeout=10)
    assert [log_end_offset(broker, topic) for topic in TOPICS] == [1, 0, 0]


def test_confluent_kafka_gets_kafkas_errors(broker):
    producer = Producer({"bootstrap.servers": broker.bootstrap_servers, "linger.ms": 0,
                         "message.send.max.retries": 0, "enable.idempotence": False})
    errors = {}

    def report(topic):
        return lambda error, message: errors.__setitem__(topic, error.code() if error else None)

    producer.produce("refuse-compacted", value=b"keyless", on_delivery=report("refuse-compacted"))
    producer.produce("refuse-timestamps", key=b"k", value=b"v", timestamp=int(time.time() * 1000) + 2 * HOUR_MS,
                     on_delivery=report("refuse-timestamps"))
    producer.produce("refuse-large", key=b"k", value=bytes(5000), on_delivery=report("refuse-large"))
    assert producer.flush(30) == 0
    assert errors == {
        "refuse-compacted": KafkaError.INVALID_RECORD,
        "refuse-timestamps": KafkaError.INVALID_TIMESTAMP,
        "refuse-large": KafkaError.MSG_SIZE_TOO_LARGE,
    }
    assert [log_end_offset(broker, topic) for topic in TOPICS] == [0, 0, 0]
