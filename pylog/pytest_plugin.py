"""pytest fixtures for testing code that talks to Kafka, registered through `pytest11`.

    def test_orders(kafka_broker):
        producer = KafkaProducer(bootstrap_servers=kafka_broker.bootstrap_servers)
        ...

`kafka_broker` is a fresh in-process pylog broker per test (port 0, the test's own
temporary directory), stopped cleanly afterwards. `kafka_broker_factory` makes more:
`kafka_broker_factory(config={"num.partitions": 3})`.

`kafka_cluster` is a fresh `pylog.Cluster(brokers=3)` per test: a controller and three
broker processes on free ports (`bootstrap_servers`, `kill`, `stop`, `restart`,
`leader`), closed afterwards.
"""

from __future__ import annotations

import pytest

from pylog.cluster import Cluster
from pylog.testing import EmbeddedBroker


@pytest.fixture
def kafka_broker_factory(tmp_path_factory):
    started: list[EmbeddedBroker] = []

    def make(config: dict | None = None) -> EmbeddedBroker:
        broker = EmbeddedBroker(tmp_path_factory.mktemp("pylog"), config=config)
        started.append(broker.start())
        return broker

    yield make
    for broker in started:
        broker.stop()


@pytest.fixture
def kafka_broker(kafka_broker_factory) -> EmbeddedBroker:
    return kafka_broker_factory()


@pytest.fixture
def kafka_cluster(tmp_path_factory):
    with Cluster(brokers=3, data_dir=tmp_path_factory.mktemp("pylog-cluster")) as cluster:
        yield cluster
