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

All of them have the test defaults of pylog/testing.py (`TEST_DEFAULTS`: 5 partitions for
`__consumer_offsets` and `__transaction_state`, as Kafka's own test harnesses configure
theirs); a config given to the factory goes over them, and `test_defaults={}` leaves
Kafka's defaults.
"""

from __future__ import annotations

import pytest

from pylog.cluster import Cluster
from pylog.testing import TEST_DEFAULTS, EmbeddedBroker


@pytest.fixture
def kafka_broker_factory(tmp_path_factory):
    started: list[EmbeddedBroker] = []

    def make(config: dict | None = None, test_defaults: dict | None = None) -> EmbeddedBroker:
        broker = EmbeddedBroker(tmp_path_factory.mktemp("pylog"), config=config, test_defaults=test_defaults)
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
    with Cluster(brokers=3, data_dir=tmp_path_factory.mktemp("pylog-cluster"), config=TEST_DEFAULTS) as cluster:
        yield cluster
