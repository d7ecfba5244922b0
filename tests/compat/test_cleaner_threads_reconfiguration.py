"""`log.cleaner.threads` changed dynamically, as Kafka takes or refuses it: the broker that
receives the change checks it, a node's own value or the cluster default, as its own config
would take it (at least 1 MiB of `log.cleaner.dedupe.buffer.size` per thread, at most
double or half the current count, and Kafka's "/ by zero" for 0) before it is stored
(pylog/dynamic_broker_config.py). A pylog and a Kafka of their own: the counts set here
would reach every other test."""

from __future__ import annotations

import time

import pytest

from protocol.messages import DescribeConfigsRequest, IncrementalAlterConfigsRequest
from tests.compat.conftest import each_of_a_fresh_pair
from tests.integration.support import WireClient

BROKER, SET = 4, 0


def alter(client, name: str, value: str):
    Resource, Config = IncrementalAlterConfigsRequest.AlterConfigsResource, IncrementalAlterConfigsRequest.AlterableConfig
    (result,) = client.request(44, 1, IncrementalAlterConfigsRequest(resources=[Resource(
        resource_type=BROKER, resource_name=name,
        configs=[Config(name="log.cleaner.threads", config_operation=SET, value=value)])])).responses
    return name, value, result.error_code, result.error_message


def described(client, name: str):
    Resource = DescribeConfigsRequest.DescribeConfigsResource
    (result,) = client.request(32, 4, DescribeConfigsRequest(resources=[Resource(
        resource_type=BROKER, resource_name=name, configuration_keys=["log.cleaner.threads"])])).results
    return name, result.error_code, [(c.value, c.config_source) for c in result.configs]


def scenario(broker) -> list:
    with WireClient(broker.bootstrap_servers, timeout_s=30) as client:
        # the cluster default first: Kafka's broker checks it against its own config, which a
        # node value set just before may not have reached yet
        answers = [alter(client, "", value) for value in ("2147483647", "0")]
        answers += [alter(client, "1", value) for value in ("2147483647", "3", "2", "0")]
        time.sleep(1)   # the broker has taken (or not) the default it stored
        return answers + [described(client, "1"), described(client, "")]


@pytest.fixture(scope="module")
def answers(tmp_path_factory):
    return each_of_a_fresh_pair(tmp_path_factory.mktemp("cleaner-threads"), scenario)


def test_the_same_answers_as_kafka(answers, compat_table):
    same = answers["pylog"] == answers["kafka"]
    compat_table.record("tool", "log.cleaner.threads changed dynamically", f"{len(answers['pylog'])} answers",
                        f"{len(answers['kafka'])} answers",
                        "same" if same else f"differs: pylog {answers['pylog']!r} / kafka {answers['kafka']!r}")
    assert answers["pylog"] == answers["kafka"]
