"""The batch shapes of tests/pylog/batch_shapes.py, sent to the reference Kafka.

tests/pylog/test_produce_refusals.py checks that pylog answers each shape as the shape
says; this module checks that Kafka does too, with the same assertions, so that the
expectations are Kafka's behaviour and not pylog's idea of it. The answers are also sent to
pylog's session broker here and the two compared field by field (error code, log start
offset, base offset, the record errors' indexes and the message's presence).
"""

from __future__ import annotations

import time

import pytest

from protocol.messages import CreateTopicsRequest, ProduceRequest
from tests.compat.conftest import unique
from tests.integration.support import WireClient
from tests.pylog.batch_shapes import shapes
from tests.pylog.test_produce_refusals import check_answer

SHAPES = shapes()
RETRIABLE = (3, 6)  # UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER: Kafka, while a new topic's leader starts


def create_topic(client: WireClient, name: str, configs: dict) -> None:
    Topic, Config = CreateTopicsRequest.CreatableTopic, CreateTopicsRequest.CreatableTopicConfig
    response = client.request(19, 5, CreateTopicsRequest(timeout_ms=30_000, topics=[Topic(
        name=name, num_partitions=1, replication_factor=1,
        configs=[Config(name=key, value=value) for key, value in configs.items()])]))
    assert response.topics[0].error_code == 0, response.topics[0]


def produce(client: WireClient, topic: str, records: bytes, version: int):
    request = ProduceRequest(acks=-1, timeout_ms=5000, topic_data=[ProduceRequest.TopicProduceData(
        name=topic, partition_data=[ProduceRequest.PartitionProduceData(index=0, records=records)])])
    deadline = time.monotonic() + 30
    while True:
        answer = client.request(0, version, request).responses[0].partition_responses[0]
        if answer.error_code not in RETRIABLE or time.monotonic() > deadline:
            return answer
        time.sleep(0.1)


def summary(answer) -> tuple:
    return (answer.error_code, answer.log_start_offset, answer.base_offset,
            [e.batch_index for e in answer.record_errors], answer.error_message is None)


@pytest.mark.parametrize("shape", SHAPES, ids=[shape.name for shape in SHAPES])
def test_kafka_answers_as_the_shape_says(both, compat_table, shape):
    topic = unique("shape")
    answers = {}
    for name, broker in both.items():
        with WireClient(broker.bootstrap_servers) as client:
            create_topic(client, topic, shape.topic_configs)
            answers[name] = produce(client, topic, shape.records, shape.produce_version)
    same = summary(answers["pylog"]) == summary(answers["kafka"])
    compat_table.record("client", f"Produce: {shape.name}", f"error {answers['pylog'].error_code}",
                        f"error {answers['kafka'].error_code}", "same" if same else "differs")
    check_answer(shape, answers["kafka"], topic)
    assert summary(answers["pylog"]) == summary(answers["kafka"])
