"""min.compaction.lag.ms above max.compaction.lag.ms: refused where a request sets a topic's
configs (CreateTopics, IncrementalAlterConfigs), with Kafka's message (LogConfig
.validateValues, the broker defaults combined with the topic's overrides); not checked when
the broker default changes under a topic's override, after which the topic's configs are
still described. A pylog and a Kafka of their own (the broker default set here would reach
every other test's topics)."""

from __future__ import annotations

import time

import pytest

from protocol.messages import CreateTopicsRequest, DescribeConfigsRequest, IncrementalAlterConfigsRequest
from tests.compat.conftest import each_of_a_fresh_pair
from tests.integration.support import WireClient

TOPIC, BROKER, SET = 2, 4, 0
Config = IncrementalAlterConfigsRequest.AlterableConfig


def create(client, name: str, configs: dict, validate_only: bool):
    Topic, TopicConfig = CreateTopicsRequest.CreatableTopic, CreateTopicsRequest.CreatableTopicConfig
    (result,) = client.request(19, 5, CreateTopicsRequest(timeout_ms=30_000, validate_only=validate_only, topics=[
        Topic(name=name, num_partitions=1, replication_factor=1,
              configs=[TopicConfig(name=k, value=v) for k, v in configs.items()])])).topics
    return result.error_code, result.error_message


def incremental(client, resource_type: int, name: str, configs: dict):
    Resource = IncrementalAlterConfigsRequest.AlterConfigsResource
    (result,) = client.request(44, 1, IncrementalAlterConfigsRequest(resources=[Resource(
        resource_type=resource_type, resource_name=name,
        configs=[Config(name=k, config_operation=SET, value=v) for k, v in configs.items()])])).responses
    return result.error_code, result.error_message


def described(client, name: str, min_lag: str):
    """The topic's two lags, once the min shows `min_lag` (Kafka's broker takes a changed
    default a moment after the answer) or 10 s have passed."""
    Resource = DescribeConfigsRequest.DescribeConfigsResource
    deadline = time.monotonic() + 10
    while True:
        (result,) = client.request(32, 4, DescribeConfigsRequest(resources=[Resource(
            resource_type=TOPIC, resource_name=name,
            configuration_keys=["min.compaction.lag.ms", "max.compaction.lag.ms"])])).results
        found = result.error_code, sorted((c.name, c.value, c.config_source) for c in result.configs)
        if ("min.compaction.lag.ms", min_lag) in [(n, v) for n, v, _ in found[1]] or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


def scenario(broker) -> list:
    with WireClient(broker.bootstrap_servers, timeout_s=30) as client:
        return [
            create(client, "lags-new", {"min.compaction.lag.ms": "2", "max.compaction.lag.ms": "1"}, True),
            create(client, "lags", {"max.compaction.lag.ms": "1"}, False),
            incremental(client, TOPIC, "lags", {"min.compaction.lag.ms": "5"}),
            incremental(client, BROKER, "", {"log.cleaner.min.compaction.lag.ms": "2"}),
            described(client, "lags", "2"),
        ]


@pytest.fixture(scope="module")
def answers(tmp_path_factory):
    return each_of_a_fresh_pair(tmp_path_factory.mktemp("compaction-lags"), scenario)


def test_the_same_answers_as_kafka(answers, compat_table):
    same = answers["pylog"] == answers["kafka"]
    compat_table.record("tool", "min.compaction.lag.ms above max.compaction.lag.ms", "5 answers", "5 answers",
                        "same" if same else f"differs: pylog {answers['pylog']!r} / kafka {answers['kafka']!r}")
    assert answers["pylog"] == answers["kafka"]
