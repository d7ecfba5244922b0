"""DescribeProducers (pylog/handlers/describe_producers.py) over a real socket: an idempotent
producer's state as the partition's log keeps it, and Kafka's errors."""

from __future__ import annotations

from kafka import KafkaProducer

from protocol.error_codes import ErrorCode
from protocol.messages import DescribeProducersRequest

from tests.pylog.wire import RawClient


def ask(broker, topics: dict[str, list[int]]):
    client = RawClient(broker.bootstrap_servers)
    try:
        return client.request(61, 0, DescribeProducersRequest(topics=[
            DescribeProducersRequest.TopicRequest(name=name, partition_indexes=indexes)
            for name, indexes in topics.items()]))
    finally:
        client.close()


def test_an_idempotent_producers_state_and_the_errors(kafka_broker):
    kafka_broker.call(kafka_broker.broker.create_topic, "described", 2)
    producer = KafkaProducer(bootstrap_servers=kafka_broker.bootstrap_servers, enable_idempotence=True, acks="all")
    try:
        for i in range(3):
            producer.send("described", b"v%d" % i, partition=0, timestamp_ms=1_700_000_000_000 + i).get(timeout=30)
    finally:
        producer.close(timeout=10)
    answer = ask(kafka_broker, {"described": [0, 1, 7], "no-such-topic": [0], "bad/name": [0]})
    described, missing, invalid = answer.topics
    first, empty, outside = described.partitions
    assert first.error_code == ErrorCode.NONE and first.error_message is None
    [state] = first.active_producers
    entry = kafka_broker.call(lambda: kafka_broker.broker.partition("described", 0).log.producer_state[state.producer_id])
    assert state.producer_id >= 0 and state.producer_epoch == entry.producer_epoch == 0
    assert (state.last_sequence, state.last_timestamp) == (2, 1_700_000_000_002)
    assert (state.coordinator_epoch, state.current_txn_start_offset) == (-1, -1)
    assert (empty.error_code, empty.active_producers) == (ErrorCode.NONE, [])
    assert outside.error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    assert [(p.error_code, p.error_message) for p in missing.partitions] == [
        (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic-partition.")]
    assert [(p.error_code, p.error_message) for p in invalid.partitions] == [
        (ErrorCode.INVALID_TOPIC_EXCEPTION, "Topic name is invalid: 'bad/name' contains one or more characters "
                                            "other than ASCII alphanumerics, '.', '_' and '-'")]
