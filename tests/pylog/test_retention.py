"""Retention in the broker: the periodic pass, topic overrides set live, refused values,
and what a kafka-python consumer sees when the segments it has yet to read are deleted.

In-process broker over real sockets; `log.retention.check.interval.ms` is small so that
passes come within the test.
"""

from __future__ import annotations

import logging
import time
from contextlib import contextmanager

import pytest
from kafka import KafkaConsumer, KafkaProducer, TopicPartition

from protocol.error_codes import ErrorCode
from protocol.messages import AlterConfigsRequest, CreateTopicsRequest, IncrementalAlterConfigsRequest
from protocol.records import build_batch
from pylog.testing import EmbeddedBroker
from storage import files
from tests.integration.support import WireClient
from tests.pylog.wire import RawClient

pytestmark = pytest.mark.timeout(60)

TOPIC_RESOURCE = 2
CHECK_INTERVAL_MS = 100
HOUR_MS = 3600 * 1000
Topic = CreateTopicsRequest.CreatableTopic
TopicConfig = CreateTopicsRequest.CreatableTopicConfig


@pytest.fixture
def broker(tmp_path):
    with EmbeddedBroker(tmp_path, config={"log.retention.check.interval.ms": str(CHECK_INTERVAL_MS),
                                          "auto.create.topics.enable": "false"}) as embedded:
        yield embedded


@contextmanager
def raw_client(embedded: EmbeddedBroker):
    client = RawClient(embedded.bootstrap_servers)
    try:
        yield client
    finally:
        client.close()


def create_topic(embedded: EmbeddedBroker, name: str, configs: dict[str, str]):
    with raw_client(embedded) as raw:
        response = raw.request(19, 4, CreateTopicsRequest(topics=[Topic(
            name=name, num_partitions=1, replication_factor=1,
            configs=[TopicConfig(name=k, value=v) for k, v in configs.items()])]))
    return response.topics[0]


def incremental_alter(embedded: EmbeddedBroker, name: str, configs: dict[str, str]):
    Request = IncrementalAlterConfigsRequest
    with raw_client(embedded) as raw:
        response = raw.request(44, 1, Request(resources=[Request.AlterConfigsResource(
            resource_type=TOPIC_RESOURCE, resource_name=name, configs=[
                Request.AlterableConfig(name=k, config_operation=0, value=v) for k, v in configs.items()])]))
    return response.responses[0]


def alter(embedded: EmbeddedBroker, name: str, configs: dict[str, str]):
    Request = AlterConfigsRequest
    with raw_client(embedded) as raw:
        response = raw.request(33, 2, Request(resources=[Request.AlterConfigsResource(
            resource_type=TOPIC_RESOURCE, resource_name=name, configs=[
                Request.AlterableConfig(name=k, value=v) for k, v in configs.items()])]))
    return response.responses[0]


def produce_one_per_batch(embedded: EmbeddedBroker, topic: str, timestamps_ms: list[int]) -> None:
    with WireClient(embedded.bootstrap_servers) as client:
        for i, timestamp_ms in enumerate(timestamps_ms):
            batch = build_batch([(b"k", b"value-%04d" % i)], timestamp_ms=timestamp_ms)
            assert client.produce(topic, 0, batch, acks=1).error_code == 0


def log_state(embedded: EmbeddedBroker, topic: str) -> tuple[int, int, list[int]]:
    def read():
        log = embedded.broker.partition(topic, 0).log
        return log.log_start_offset, log.log_end_offset, [s.base_offset for s in log.segments]
    return embedded.call(read)


def wait_for(condition, timeout_s: float = 10):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("condition not met in time")


def segment_files(embedded: EmbeddedBroker, topic: str) -> list[str]:
    return sorted(p.name for p in (embedded.data_dir / files.log_dir_name(topic, 0)).iterdir()
                  if p.name.endswith(files.LOG_FILE_SUFFIX))


# -- refused values -----------------------------------------------------------------------

def test_retention_ms_below_minus_one_is_refused_with_kafkas_message(broker):
    message = "Invalid value -2 for configuration retention.ms: Value must be at least -1"
    created = create_topic(broker, "bad", {"retention.ms": "-2"})
    assert (created.error_code, created.error_message) == (ErrorCode.INVALID_CONFIG, message)
    assert create_topic(broker, "good", {}).error_code == ErrorCode.NONE
    for call in (incremental_alter, alter):
        response = call(broker, "good", {"retention.ms": "-2"})
        assert (response.error_code, response.error_message) == (ErrorCode.INVALID_CONFIG, message)
    assert broker.call(lambda: broker.broker.partition("good", 0).log.config.retention_ms) == 7 * 24 * HOUR_MS


# -- the pass -----------------------------------------------------------------------------

def test_retention_ms_set_live_deletes_the_old_segments_and_logs_one_line(broker, caplog):
    now = int(time.time() * 1000)
    assert create_topic(broker, "aged", {"internal.segment.bytes": "200"}).error_code == ErrorCode.NONE
    # Ten one-record batches of ~80 bytes: two per segment. Six are two hours old, four new.
    produce_one_per_batch(broker, "aged", [now - 2 * HOUR_MS] * 6 + [now] * 4)
    assert log_state(broker, "aged") == (0, 10, [0, 2, 4, 6, 8])
    time.sleep(3 * CHECK_INTERVAL_MS / 1000)
    assert log_state(broker, "aged")[0] == 0  # the default retention (7 days) keeps them

    with caplog.at_level(logging.INFO, logger="pylog.log_retention"):
        assert incremental_alter(broker, "aged", {"retention.ms": str(HOUR_MS)}).error_code == ErrorCode.NONE
        wait_for(lambda: log_state(broker, "aged")[0] == 6)
    assert log_state(broker, "aged") == (6, 10, [6, 8])
    assert segment_files(broker, "aged") == ["00000000000000000006.log", "00000000000000000008.log"]
    lines = [r.getMessage() for r in caplog.records if r.name == "pylog.log_retention"]
    assert len(lines) == 1, lines
    assert "3 segment(s) of aged-0 (base offsets 0, 2, 4," in lines[0]
    assert "retention time breach" in lines[0] and "log start offset now 6" in lines[0]


def test_retention_bytes_set_live_keeps_the_log_at_or_above_the_limit(broker):
    now = int(time.time() * 1000)
    create_topic(broker, "sized", {"internal.segment.bytes": "200"})
    produce_one_per_batch(broker, "sized", [now] * 10)
    sizes = broker.call(lambda: [s.size_bytes for s in broker.broker.partition("sized", 0).log.segments])
    # Keep the last two full segments and the active one: delete as much as stays above.
    limit = sum(sizes[-3:])
    assert alter(broker, "sized", {"retention.bytes": str(limit)}).error_code == ErrorCode.NONE
    wait_for(lambda: log_state(broker, "sized")[0] == 4)
    time.sleep(3 * CHECK_INTERVAL_MS / 1000)
    assert log_state(broker, "sized") == (4, 10, [4, 6, 8])


def test_compacted_topics_are_left_to_the_cleaner(broker):
    now = int(time.time() * 1000)
    create_topic(broker, "compacted", {"internal.segment.bytes": "200", "cleanup.policy": "compact,delete",
                                        "retention.ms": "1"})
    produce_one_per_batch(broker, "compacted", [now - HOUR_MS] * 6)
    time.sleep(5 * CHECK_INTERVAL_MS / 1000)
    assert log_state(broker, "compacted") == (0, 6, [0, 2, 4])


def test_every_segment_old_rolls_and_the_log_starts_at_its_end(broker):
    now = int(time.time() * 1000)
    create_topic(broker, "expired", {"internal.segment.bytes": "200", "retention.ms": str(HOUR_MS)})
    produce_one_per_batch(broker, "expired", [now - 2 * HOUR_MS] * 5)
    wait_for(lambda: log_state(broker, "expired")[0] == 5)
    assert log_state(broker, "expired") == (5, 5, [5])
    # Appends continue in the new segment.
    produce_one_per_batch(broker, "expired", [now])
    assert log_state(broker, "expired") == (5, 6, [5])


# -- a consumer reading while segments go ----------------------------------------------------

def test_a_kafka_python_consumer_skips_the_segments_deleted_before_it_read_them(broker):
    """Kafka's clients: a fetch below the log start offset gets OFFSET_OUT_OF_RANGE, and
    the consumer resets by auto.offset.reset (earliest: to the new log start offset)."""
    now = int(time.time() * 1000)
    create_topic(broker, "reading", {"internal.segment.bytes": "300"})
    producer = KafkaProducer(bootstrap_servers=broker.bootstrap_servers, linger_ms=0)
    try:
        for i in range(40):
            producer.send("reading", key=b"k", value=b"old-%04d" % i, partition=0, timestamp_ms=now - 2 * HOUR_MS)
            producer.flush()
        consumer = KafkaConsumer(bootstrap_servers=broker.bootstrap_servers, auto_offset_reset="earliest",
                                 enable_auto_commit=False, max_poll_records=5, fetch_max_bytes=200,
                                 max_partition_fetch_bytes=200, consumer_timeout_ms=5000)
        partition = TopicPartition("reading", 0)
        consumer.assign([partition])
        seen: dict[int, bytes] = {}
        while len(seen) < 5:
            for records in consumer.poll(timeout_ms=1000).values():
                seen.update((r.offset, r.value) for r in records)
        read_before = max(seen) + 1
        assert incremental_alter(broker, "reading", {"retention.ms": str(HOUR_MS)}).error_code == ErrorCode.NONE
        log_start_offset = wait_for(lambda: log_state(broker, "reading")[0] or None)
        assert log_start_offset > read_before
        for i in range(10):
            producer.send("reading", key=b"k", value=b"new-%04d" % i, partition=0)
        producer.flush()
        log_end_offset = log_state(broker, "reading")[1]
        while max(seen) < log_end_offset - 1:
            batch = consumer.poll(timeout_ms=1000)
            for records in batch.values():
                seen.update((r.offset, r.value) for r in records)
        assert consumer.beginning_offsets([partition])[partition] == log_start_offset
        consumer.close()
    finally:
        producer.close()
    # A prefix of the old records (those read, or fetched ahead, before the pass), then
    # every record from the new log start offset on, none twice, none missing.
    offsets = sorted(seen)
    read_first = [offset for offset in offsets if offset < log_start_offset]
    assert read_first == list(range(len(read_first))) and read_before <= len(read_first) < log_start_offset
    assert offsets[len(read_first):] == list(range(log_start_offset, log_end_offset))
    assert all(seen[offset] == b"old-%04d" % offset for offset in seen if offset < 40)
    assert [seen[offset] for offset in range(40, log_end_offset)] == [b"new-%04d" % i for i in range(10)]
