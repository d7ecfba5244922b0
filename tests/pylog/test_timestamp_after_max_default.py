"""Kafka 4's default `message.timestamp.after.max.ms` (one hour), over a real socket.

Kafka 4.x defines `log.message.timestamp.after.max.ms` with a default of 3600000 (its
`ServerLogConfigs.LOG_MESSAGE_TIMESTAMP_AFTER_MAX_MS_DEFAULT`), and the topic config of
the same name takes that default; `.before.max.ms` stays Long.MAX_VALUE. So a topic created
without configs refuses a batch stamped two hours ahead of the broker's clock with
INVALID_TIMESTAMP and takes one stamped 30 minutes ahead; DescribeConfigs says so.
"""

from __future__ import annotations

import time

from protocol.error_codes import ErrorCode
from protocol.messages import DescribeConfigsRequest, ProduceRequest
from protocol.records import build_batch
from tests.pylog.wire import RawClient

HOUR_MS = 3_600_000
LONG_MAX = 2**63 - 1
TOPIC, BROKER = 2, 4
DEFAULT_CONFIG = 5
Resource = DescribeConfigsRequest.DescribeConfigsResource


def produce(client, topic, timestamp_ms):
    request = ProduceRequest(acks=-1, timeout_ms=5000, topic_data=[ProduceRequest.TopicProduceData(
        name=topic, partition_data=[ProduceRequest.PartitionProduceData(
            index=0, records=build_batch([(b"k", b"v")], timestamp_ms=timestamp_ms))])])
    return client.request(0, 9, request).responses[0].partition_responses[0]


def test_a_batch_two_hours_ahead_is_refused_on_a_default_topic(kafka_broker):
    kafka_broker.call(lambda: kafka_broker.broker.create_topic("defaults", 1))
    client = RawClient(kafka_broker.bootstrap_servers)
    now_ms = int(time.time() * 1000)
    two_hours_ahead = produce(client, "defaults", now_ms + 2 * HOUR_MS)
    half_an_hour_ahead = produce(client, "defaults", now_ms + HOUR_MS // 2)
    a_year_old = produce(client, "defaults", now_ms - 365 * 24 * HOUR_MS)
    client.close()
    assert two_hours_ahead.error_code == ErrorCode.INVALID_TIMESTAMP
    assert half_an_hour_ahead.error_code == ErrorCode.NONE and half_an_hour_ahead.base_offset == 0
    assert a_year_old.error_code == ErrorCode.NONE and a_year_old.base_offset == 1
    assert kafka_broker.call(lambda: kafka_broker.broker.partition("defaults", 0).log_end_offset) == 2


def test_describe_configs_reports_the_one_hour_default(kafka_broker):
    kafka_broker.call(lambda: kafka_broker.broker.create_topic("described", 1))
    client = RawClient(kafka_broker.bootstrap_servers)
    names = ["message.timestamp.after.max.ms", "message.timestamp.before.max.ms"]
    response = client.request(32, 4, DescribeConfigsRequest(resources=[
        Resource(resource_type=TOPIC, resource_name="described", configuration_keys=names),
        Resource(resource_type=BROKER, resource_name=str(kafka_broker.broker.node_id),
                 configuration_keys=[f"log.{name}" for name in names]),
    ], include_synonyms=True))
    client.close()
    topic, broker = response.results
    assert sorted((c.name, c.value, c.config_source, [(s.name, s.value, s.source) for s in c.synonyms])
                  for c in topic.configs) == [
        ("message.timestamp.after.max.ms", str(HOUR_MS), DEFAULT_CONFIG,
         [("log.message.timestamp.after.max.ms", str(HOUR_MS), DEFAULT_CONFIG)]),
        ("message.timestamp.before.max.ms", str(LONG_MAX), DEFAULT_CONFIG,
         [("log.message.timestamp.before.max.ms", str(LONG_MAX), DEFAULT_CONFIG)]),
    ]
    assert sorted((c.name, c.value, c.config_source) for c in broker.configs) == [
        ("log.message.timestamp.after.max.ms", str(HOUR_MS), DEFAULT_CONFIG),
        ("log.message.timestamp.before.max.ms", str(LONG_MAX), DEFAULT_CONFIG),
    ]


def test_a_corrupt_batch_stamped_ahead_is_corrupt_message(kafka_broker):
    """Kafka checks the CRC before the timestamps (UnifiedLog.analyzeAndValidateRecords runs
    before LogValidator): a corrupt batch is CORRUPT_MESSAGE whatever its header says."""
    kafka_broker.call(lambda: kafka_broker.broker.create_topic("corrupt-ahead", 1))
    client = RawClient(kafka_broker.bootstrap_servers)
    batch = bytearray(build_batch([(b"k", b"v")], timestamp_ms=int(time.time() * 1000) + 2 * HOUR_MS))
    batch[-3] ^= 0x5A  # a record byte: the CRC no longer matches
    request = ProduceRequest(acks=-1, timeout_ms=5000, topic_data=[ProduceRequest.TopicProduceData(
        name="corrupt-ahead", partition_data=[ProduceRequest.PartitionProduceData(index=0, records=bytes(batch))])])
    result = client.request(0, 9, request).responses[0].partition_responses[0]
    client.close()
    assert result.error_code == ErrorCode.CORRUPT_MESSAGE
