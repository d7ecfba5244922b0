"""kill -9 of `pylog serve` while retention passes delete segments: nothing to keep is lost.

A topic of small segments (two one-record batches each) holds 1200 records two hours old
and then 10 new ones. Setting `retention.ms` to one hour makes the next pass (every 20 ms)
delete the 600 old segments, which takes some 100 ms of renames; the broker is killed with
SIGKILL a chosen or random time after the change (so at its start, in its middle or after
it: the first segment left on disk shows which), then started again on the same data
directory, twice more. After each restart the model must hold: the segments on disk are a suffix of
the original ones (the deletion goes oldest first), offsets contiguous from the first
segment's base to 30 with every record's value intact, ListOffsets earliest at that base,
and the 10 new records all there. Once the restarted broker's own pass has run, the log
starts at 1200 exactly as if nothing had happened.
"""

from __future__ import annotations

import random
import time

import pytest
from kafka import KafkaConsumer, TopicPartition

from protocol.messages import CreateTopicsRequest, IncrementalAlterConfigsRequest, ProduceRequest
from protocol.records import build_batch, iter_records
from tests.integration.support import (
    WireClient,
    assert_contiguous_batches,
    stored_batches,
    wait_until,
)

pytestmark = pytest.mark.timeout(180)

TOPIC = "aging"
HOUR_MS = 3600 * 1000
OLD, NEW = 1200, 10
OVERRIDES = {"log.retention.check.interval.ms": 20, "auto.create.topics.enable": "false"}


def value(offset: int) -> bytes:
    return b"%s-%04d" % (b"old" if offset < OLD else b"new", offset)


def create_and_fill(bootstrap_servers: str) -> None:
    now = int(time.time() * 1000)
    with WireClient(bootstrap_servers) as client:
        Topic = CreateTopicsRequest.CreatableTopic
        response = client.request(19, 4, CreateTopicsRequest(topics=[Topic(
            name=TOPIC, num_partitions=1, replication_factor=1,
            configs=[CreateTopicsRequest.CreatableTopicConfig(name="internal.segment.bytes", value="200")])]))
        assert response.topics[0].error_code == 0
        # One Produce request per batch (a roll happens between appends, not inside
        # one), pipelined.
        for offset in range(OLD + NEW):
            timestamp_ms = now - 2 * HOUR_MS if offset < OLD else now
            batch = build_batch([(b"k", value(offset))], timestamp_ms=timestamp_ms)
            client.send(0, 7, ProduceRequest(transactional_id=None, acks=1, timeout_ms=30_000, topic_data=[
                ProduceRequest.TopicProduceData(name=TOPIC, partition_data=[
                    ProduceRequest.PartitionProduceData(index=0, records=batch)])]))
        for _ in range(OLD + NEW):
            _, response = client.receive(0, 7)
            assert response.responses[0].partition_responses[0].error_code == 0


def set_retention(bootstrap_servers: str, retention_ms: int) -> None:
    Request = IncrementalAlterConfigsRequest
    with WireClient(bootstrap_servers) as client:
        response = client.request(44, 1, Request(resources=[Request.AlterConfigsResource(
            resource_type=2, resource_name=TOPIC, configs=[Request.AlterableConfig(
                name="retention.ms", config_operation=0, value=str(retention_ms))])]))
        assert response.responses[0].error_code == 0


def earliest_offset(bootstrap_servers: str) -> int:
    consumer = KafkaConsumer(bootstrap_servers=bootstrap_servers, enable_auto_commit=False)
    try:
        tp = TopicPartition(TOPIC, 0)
        return consumer.beginning_offsets([tp])[tp]
    finally:
        consumer.close()


def check_against_the_model(data_dir, original_bases: list[int]) -> int:
    """What is on disk is a suffix of the original segments, whole; return its first base."""
    batches = stored_batches(data_dir, TOPIC, 0)
    bases = sorted({int(path.stem) for path, _, _, _ in batches})
    first = bases[0]
    assert first in original_bases and first <= OLD, bases
    assert bases == [base for base in original_bases if base >= first], bases
    assert assert_contiguous_batches(batches, start=first) == OLD + NEW
    for _, _, header, raw in batches:
        assert [r.value for r in iter_records(raw)] == [value(header.base_offset)]
    return first


@pytest.mark.parametrize("kill_after_s", [0.0, 0.01, 0.03, "random"])
def test_a_kill_during_retention_loses_nothing_to_keep(tmp_path, serve_factory, kill_after_s):
    rng = random.Random()
    data_dir = tmp_path / "data"
    serve = serve_factory(data_dir, overrides=OVERRIDES).start()
    create_and_fill(serve.bootstrap_servers)
    original_bases = sorted({int(path.stem) for path, _, _, _ in stored_batches(data_dir, TOPIC, 0)})
    assert original_bases == list(range(0, OLD + NEW, 2))
    set_retention(serve.bootstrap_servers, HOUR_MS)
    time.sleep(rng.uniform(0, 0.1) if kill_after_s == "random" else kill_after_s)
    serve.kill()
    for cycle in range(3):
        first = check_against_the_model(data_dir, original_bases)
        serve.start()
        # The restarted broker serves from the first segment left (its own pass, every
        # 20 ms, may have moved on already): never below it, never past the old records.
        assert first <= earliest_offset(serve.bootstrap_servers) <= OLD
        if cycle < 2:
            time.sleep(rng.uniform(0, 0.05))
            serve.kill()
    wait_until(lambda: earliest_offset(serve.bootstrap_servers) == OLD, 10, "the pass to finish")
    serve.stop()
    assert check_against_the_model(data_dir, original_bases) == OLD
