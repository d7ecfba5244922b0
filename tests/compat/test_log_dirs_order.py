"""DescribeLogDirs' order, against the reference Kafka: on a fresh pylog and a fresh Kafka, the
same sixty topics of one to five partitions, then DescribeLogDirs of every log and of a few
partitions (some not hosted). Kafka lists the topics as a Scala HashMap of every topic in the
directory iterates, and each topic's partitions as its LogManager's ConcurrentHashMap of the
logs does (pylog/handlers/log_dirs.py); the lists must be the same, sizes and lags included.
Kafka creates a new partition's log on its own time after CreateTopics answers, so the
answers are taken once every log is there."""

from __future__ import annotations

import time

import pytest

from protocol.messages import CreateTopicsRequest, DescribeLogDirsRequest
from tests.compat.conftest import each_of_a_fresh_pair
from tests.integration.support import WireClient

TOPICS = [(f"dirs-{i}-{'x' * (i % 7)}", 1 + i % 5) for i in range(60)]
LOGS = sum(count for _, count in TOPICS)
SOME = {TOPICS[7][0]: [2, 0, 9], TOPICS[3][0]: [3, 1], "no-such-topic": [0]}


def listed(client, topics=None) -> list:
    request = DescribeLogDirsRequest(topics=None if topics is None else [
        DescribeLogDirsRequest.DescribableLogDirTopic(topic=name, partitions=indexes) for name, indexes in topics.items()])
    (result,) = client.request(35, 4, request).results
    return [(t.name, [(p.partition_index, p.partition_size, p.offset_lag, p.is_future_key) for p in t.partitions])
            for t in result.topics]


def scenario(broker) -> dict:
    Topic = CreateTopicsRequest.CreatableTopic
    with WireClient(broker.bootstrap_servers, timeout_s=30) as client:
        client.request(19, 5, CreateTopicsRequest(timeout_ms=30_000, topics=[
            Topic(name=name, num_partitions=count, replication_factor=1) for name, count in TOPICS]))
        deadline = time.monotonic() + 30
        while sum(len(partitions) for _, partitions in listed(client)) < LOGS and time.monotonic() < deadline:
            time.sleep(0.2)
        return {"every log": listed(client), "some partitions": listed(client, SOME)}


@pytest.fixture(scope="module")
def answers(tmp_path_factory):
    return each_of_a_fresh_pair(tmp_path_factory.mktemp("log-dirs-order"), scenario)


@pytest.mark.parametrize("asked", ["every log", "some partitions"])
def test_the_same_order_as_kafka(answers, compat_table, asked):
    compat_table.assert_same(f"DescribeLogDirs order, {asked} of {LOGS} logs",
                             {name: answers[name][asked] for name in ("pylog", "kafka")})


def test_kafka_listed_every_log_and_kept_its_order_for_some(answers):
    """What the comparison stands on: every log was there, and the topics asked for come in
    the order of all of them."""
    every = [name for name, _ in answers["kafka"]["every log"]]
    some = [name for name, _ in answers["kafka"]["some partitions"]]
    assert sum(len(partitions) for _, partitions in answers["kafka"]["every log"]) == LOGS
    assert some == [name for name in every if name in some] and len(some) == 2
