"""segment.bytes and Kafka's test-only internal.segment.bytes, against the reference Kafka.

Kafka 4 refuses a `segment.bytes` (and a broker `log.segment.bytes`) below 1 MiB, wherever
it is set, with its ConfigDef message; small segments, for tests, are the topic config
`internal.segment.bytes`: any INT, unchecked, described only where a topic sets it, and the
size the log rolls at. The same requests go to both brokers and their answers are
compared; then the same batches go to a topic with small segments on each, and the
segments' base offsets (the `.log` files' names) must be the same.

An `offsets.topic.segment.bytes` below 1 MiB makes a `__consumer_offsets` the controller
refuses: Kafka never has a group coordinator then, and answers COORDINATOR_NOT_AVAILABLE;
pylog too (a pylog and a Kafka of their own, started with that setting).
"""

from __future__ import annotations

import time

import pytest

from protocol.messages import (
    AlterConfigsRequest,
    CreateTopicsRequest,
    DescribeConfigsRequest,
    FindCoordinatorRequest,
    IncrementalAlterConfigsRequest,
    ProduceRequest,
)
from protocol.records import build_batch
from tests.compat.conftest import each_of_a_fresh_pair, unique
from tests.integration.support import WireClient, segment_files

TOPIC, BROKER, SET = 2, 4, 0
T0 = 1_700_000_000_000


def create(client, name: str, configs: dict, validate_only: bool = False):
    Topic, Config = CreateTopicsRequest.CreatableTopic, CreateTopicsRequest.CreatableTopicConfig
    (result,) = client.request(19, 5, CreateTopicsRequest(timeout_ms=30_000, validate_only=validate_only, topics=[
        Topic(name=name, num_partitions=1, replication_factor=1,
              configs=[Config(name=k, value=v) for k, v in configs.items()])])).topics
    segment_configs = sorted((c.name, c.value, c.config_source) for c in result.configs or ()
                             if c.name.endswith("segment.bytes"))
    return result.error_code, result.error_message, segment_configs


def incremental(client, resource_type: int, name: str, key: str, value: str):
    Resource, Config = IncrementalAlterConfigsRequest.AlterConfigsResource, IncrementalAlterConfigsRequest.AlterableConfig
    (result,) = client.request(44, 1, IncrementalAlterConfigsRequest(resources=[Resource(
        resource_type=resource_type, resource_name=name,
        configs=[Config(name=key, config_operation=SET, value=value)])])).responses
    return result.error_code, result.error_message


def legacy_alter(client, name: str, configs: dict):
    Resource, Config = AlterConfigsRequest.AlterConfigsResource, AlterConfigsRequest.AlterableConfig
    (result,) = client.request(33, 2, AlterConfigsRequest(resources=[Resource(
        resource_type=TOPIC, resource_name=name,
        configs=[Config(name=k, value=v) for k, v in configs.items()])])).responses
    return result.error_code, result.error_message


def segment_entries(client, name: str):
    """The topic's described entries whose names end in segment.bytes, with synonyms."""
    (result,) = client.request(32, 4, DescribeConfigsRequest(include_synonyms=True, resources=[
        DescribeConfigsRequest.DescribeConfigsResource(resource_type=TOPIC, resource_name=name,
                                                       configuration_keys=None)])).results
    return result.error_code, sorted(
        (c.name, c.value, c.config_source, [(s.name, s.value, s.source) for s in c.synonyms])
        for c in result.configs if c.name.endswith("segment.bytes"))


def produce(client, topic: str, batch: bytes):
    request = ProduceRequest(acks=-1, timeout_ms=5000, topic_data=[ProduceRequest.TopicProduceData(
        name=topic, partition_data=[ProduceRequest.PartitionProduceData(index=0, records=batch)])])
    deadline = time.monotonic() + 30
    while True:
        answer = client.request(0, 9, request).responses[0].partition_responses[0]
        if answer.error_code not in (3, 6) or time.monotonic() > deadline:   # a new topic's leader starting
            return answer.error_code, answer.base_offset, answer.error_message
        time.sleep(0.1)


def requests(broker, names: dict) -> dict:
    small, tiny, odd, plain = names["small"], names["tiny"], names["odd"], names["plain"]
    found = {}
    with WireClient(broker.bootstrap_servers, timeout_s=30) as client:
        found["create segment.bytes 16384"] = create(client, small, {"segment.bytes": "16384"})
        found["validate segment.bytes 16384"] = create(client, small, {"segment.bytes": "16384"}, True)
        found["create internal 16384"] = create(client, tiny, {"internal.segment.bytes": "16384"})
        found["create internal and segment.bytes"] = create(
            client, odd, {"internal.segment.bytes": "0", "segment.bytes": "2000000"})
        found["create plain"] = create(client, plain, {})
        for value in ("-5", "13", "abc", str(2**40)):
            found[f"validate internal {value}"] = create(client, small, {"internal.segment.bytes": value}, True)
        found["incremental segment.bytes 16384"] = incremental(client, TOPIC, plain, "segment.bytes", "16384")
        found["legacy segment.bytes 16384"] = legacy_alter(client, plain, {"segment.bytes": "16384"})
        found["incremental internal 30000"] = incremental(client, TOPIC, plain, "internal.segment.bytes", "30000")
        found["described after"] = segment_entries(client, plain)
        found["described unset"] = segment_entries(client, small)   # refused above: unknown topic
        found["described tiny"] = segment_entries(client, tiny)
        found["broker default 16384"] = incremental(client, BROKER, "", "log.segment.bytes", "16384")
        found["broker 1 16384"] = incremental(client, BROKER, "1", "log.segment.bytes", "16384")
        found["produce to internal 0"] = produce(client, odd, build_batch([(None, b"x")], timestamp_ms=T0))
        # the same 100 batches of ~1 KB to the 16 KiB topic: where the log rolls
        found["produced to tiny"] = [produce(client, tiny, build_batch(
            [(b"k%d" % i, b"v" * 1000)], timestamp_ms=T0 + i))[:2] for i in range(100)]
    found["segments of tiny"] = [path.name for path in segment_files(broker.data_dir, tiny, 0)]
    return found


@pytest.fixture(scope="module")
def answers(both):
    names = {kind: unique(f"segments-{kind}") for kind in ("small", "tiny", "odd", "plain")}
    return {name: requests(broker, names) for name, broker in both.items()}


def test_segment_bytes_refusals_and_internal_segment_bytes_as_kafka(answers, compat_table):
    pylog, kafka = answers["pylog"], answers["kafka"]
    differing = [key for key in kafka if pylog[key] != kafka[key]]
    compat_table.record("tool", "segment.bytes below 1 MiB, internal.segment.bytes", f"{len(pylog)} answers",
                        f"{len(kafka)} answers",
                        "same" if not differing else f"differs in {differing}")
    assert {key: pylog[key] for key in differing} == {key: kafka[key] for key in differing}
    # what the comparison stands on: Kafka's refusal, and a log of several small segments
    assert kafka["create segment.bytes 16384"][:2] == (
        40, "Invalid value 16384 for configuration segment.bytes: Value must be at least 1048576")
    assert len(kafka["segments of tiny"]) > 3


def coordinator_answers(broker) -> list:
    with WireClient(broker.bootstrap_servers, timeout_s=30) as client:
        found = []
        for _ in range(5):
            (entry,) = client.request(10, 4, FindCoordinatorRequest(key_type=0, coordinator_keys=["g"])).coordinators
            found.append((entry.error_code, entry.node_id))
            time.sleep(0.3)
    return found


def test_small_offsets_topic_segments_leave_no_group_coordinator(tmp_path):
    found = each_of_a_fresh_pair(tmp_path, coordinator_answers, {"offsets.topic.segment.bytes": "102400"})
    assert found["pylog"] == found["kafka"] == [(15, -1)] * 5   # COORDINATOR_NOT_AVAILABLE
