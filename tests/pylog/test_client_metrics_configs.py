"""CLIENT_METRICS config resources over the wire (pylog/client_metrics_configs.py): a
subscription set with IncrementalAlterConfigs and AlterConfigs, described, listed by
ListConfigResources, deleted; Kafka's refusals."""

from __future__ import annotations

import pytest

from protocol.error_codes import ErrorCode
from protocol.messages import (
    AlterConfigsRequest,
    DescribeConfigsRequest,
    IncrementalAlterConfigsRequest,
    ListConfigResourcesRequest,
)
from pylog.testing import EmbeddedBroker
from tests.pylog.wire import RawClient

CLIENT_METRICS = 16
CLIENT_METRICS_CONFIG, DEFAULT_CONFIG = 7, 5
SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3
Incremental = IncrementalAlterConfigsRequest


@pytest.fixture
def raw(tmp_path):
    broker = EmbeddedBroker(tmp_path).start()
    client = RawClient(broker.bootstrap_servers)
    yield client
    client.close()
    broker.stop()


def alter(raw, name, *configs, validate_only=False):
    request = Incremental(validate_only=validate_only, resources=[Incremental.AlterConfigsResource(
        resource_type=CLIENT_METRICS, resource_name=name,
        configs=[Incremental.AlterableConfig(name=n, config_operation=op, value=v) for n, op, v in configs])])
    (response,) = raw.request(44, 1, request).responses
    return response.error_code, response.error_message


def describe(raw, name):
    request = DescribeConfigsRequest(include_synonyms=True, include_documentation=False, resources=[
        DescribeConfigsRequest.DescribeConfigsResource(resource_type=CLIENT_METRICS, resource_name=name,
                                                       configuration_keys=None)])
    (result,) = raw.request(32, 4, request).results
    return result


def values(raw, name):
    result = describe(raw, name)
    assert (result.error_code, result.error_message) == (0, ""), result.error_message
    return {c.name: (c.value, c.config_source, [(s.name, s.value, s.source) for s in c.synonyms])
            for c in result.configs}


def listed(raw, version=1):
    response = raw.request(74, version, ListConfigResourcesRequest(resource_types=[CLIENT_METRICS] if version else []))
    assert response.error_code == 0
    return [r.resource_name for r in response.config_resources]


def test_a_subscription_is_stored_described_listed_and_deleted(raw):
    assert values(raw, "none-yet") == {"interval.ms": ("300000", DEFAULT_CONFIG, []), "match": ("", DEFAULT_CONFIG, []),
                                       "metrics": ("", DEFAULT_CONFIG, [])}
    assert listed(raw) == []
    assert alter(raw, "sub-1", ("metrics", SET, "org.apache.kafka.producer."), ("interval.ms", SET, "1000"),
                 ("match", SET, "client_id=app-.*,client_software_name=apache-kafka-java")) == (0, None)
    # Kafka's controller knows no CLIENT_METRICS config types: none is a LIST to it
    assert alter(raw, "sub-1", ("metrics", APPEND, "org.apache.kafka.consumer.")) == (
        ErrorCode.INVALID_CONFIG, "Can't APPEND to key metrics because its type is not LIST.")
    assert alter(raw, "sub-1", ("metrics", SET, "org.apache.kafka.producer.,org.apache.kafka.consumer.")) == (0, None)
    assert values(raw, "sub-1") == {
        "interval.ms": ("1000", CLIENT_METRICS_CONFIG, [("interval.ms", "1000", CLIENT_METRICS_CONFIG)]),
        "match": ("client_id=app-.*,client_software_name=apache-kafka-java", CLIENT_METRICS_CONFIG,
                  [("match", "client_id=app-.*,client_software_name=apache-kafka-java", CLIENT_METRICS_CONFIG)]),
        "metrics": ("org.apache.kafka.producer.,org.apache.kafka.consumer.", CLIENT_METRICS_CONFIG,
                    [("metrics", "org.apache.kafka.producer.,org.apache.kafka.consumer.", CLIENT_METRICS_CONFIG)])}
    assert listed(raw) == listed(raw, version=0) == ["sub-1"]
    # validate_only stores nothing
    assert alter(raw, "sub-2", ("metrics", SET, "*"), validate_only=True) == (0, None)
    assert listed(raw) == ["sub-1"]
    # the legacy AlterConfigs replaces the whole set
    request = AlterConfigsRequest(validate_only=False, resources=[AlterConfigsRequest.AlterConfigsResource(
        resource_type=CLIENT_METRICS, resource_name="sub-1",
        configs=[AlterConfigsRequest.AlterableConfig(name="metrics", value="*")])])
    assert raw.request(33, 2, request).responses[0].error_code == 0
    assert {n: v[:2] for n, v in values(raw, "sub-1").items()} == {
        "interval.ms": ("300000", DEFAULT_CONFIG), "match": ("", DEFAULT_CONFIG), "metrics": ("*", CLIENT_METRICS_CONFIG)}
    assert alter(raw, "sub-1", ("metrics", DELETE, None)) == (0, None)
    assert listed(raw) == []


def test_kafkas_refusals(raw):
    cases = [
        (("", ("metrics", SET, "*")), (ErrorCode.INVALID_REQUEST, "Subscription name can't be empty")),
        (("s", ("metrics", SET, "*"), ("color", SET, "red")),
         (ErrorCode.INVALID_REQUEST, "Unknown client metrics configuration: color")),
        (("s", ("interval.ms", SET, "soon")),
         (ErrorCode.INVALID_CONFIG, "Invalid value soon for configuration interval.ms: Not a number of type INT")),
        (("s", ("interval.ms", SET, "50")),
         (ErrorCode.INVALID_REQUEST, "Invalid value 50 for interval.ms, interval must be between 100 and 3600000 (1 hour)")),
        (("s", ("match", SET, "client_colour=red")),
         (ErrorCode.INVALID_CONFIG, "Illegal client matching pattern: client_colour=red")),
        (("s", ("match", SET, "client_id=a=b")), (ErrorCode.INVALID_CONFIG, "Illegal client matching pattern: client_id=a=b")),
        (("s", ("match", SET, "client_id=(")), (ErrorCode.INVALID_CONFIG, "Illegal client matching pattern: client_id=(")),
        (("s", ("interval.ms", APPEND, "5")),
         (ErrorCode.INVALID_CONFIG, "Can't APPEND to key interval.ms because its type is not LIST.")),
    ]
    for args, expected in cases:
        assert alter(raw, *args) == expected, args
    assert listed(raw) == []
    empty = describe(raw, "")
    assert (empty.error_code, empty.error_message) == (ErrorCode.INVALID_REQUEST,
                                                       "Client metrics subscription name must not be empty")
