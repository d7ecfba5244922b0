"""ListConfigResources (pylog/handlers/list_config_resources.py) over a real socket at v0 and v1."""

from __future__ import annotations

from protocol.error_codes import ErrorCode
from protocol.messages import ListConfigResourcesRequest

from tests.pylog.wire import RawClient


def ask(broker, version: int, types=()):
    client = RawClient(broker.bootstrap_servers)
    try:
        return client.request(74, version, ListConfigResourcesRequest(resource_types=list(types)))
    finally:
        client.close()


def test_v1_lists_topics_brokers_and_loggers_by_type(kafka_broker):
    kafka_broker.call(kafka_broker.broker.create_topic, "lcr-topic", 1)
    everything = ask(kafka_broker, 1)
    assert everything.error_code == ErrorCode.NONE
    listed = [(r.resource_type, r.resource_name) for r in everything.config_resources]
    topics = sorted(kafka_broker.broker.metadata.topics)
    assert listed == [(8, "1"), (4, "1")] + [(2, name) for name in topics] and "lcr-topic" in topics
    assert [(r.resource_type, r.resource_name) for r in ask(kafka_broker, 1, [4]).config_resources] == [(4, "1")]
    assert ask(kafka_broker, 1, [16, 32]).config_resources == []   # no client metrics, no group configs


def test_v0_lists_client_metrics_only_and_unknown_types_are_refused(kafka_broker):
    assert (ask(kafka_broker, 0).error_code, ask(kafka_broker, 0).config_resources) == (ErrorCode.NONE, [])
    for types in ([1], [2, 64]):
        refused = ask(kafka_broker, 1, types)
        assert (refused.error_code, refused.config_resources) == (ErrorCode.UNSUPPORTED_VERSION, [])
