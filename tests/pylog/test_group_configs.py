"""GROUP config resources over the wire: IncrementalAlterConfigs / AlterConfigs of a
group's configs, checked as Kafka 4.1's GroupConfig checks them, and DescribeConfigs of a
group (pylog/group_configs.py)."""

from __future__ import annotations

import pytest

from protocol.error_codes import ErrorCode
from protocol.messages import AlterConfigsRequest, DescribeConfigsRequest, IncrementalAlterConfigsRequest
from pylog.testing import EmbeddedBroker
from tests.pylog.wire import RawClient

GROUP = 32
GROUP_CONFIG, DEFAULT_CONFIG = 8, 5
CONFIG_TYPE_STRING, CONFIG_TYPE_INT = 2, 3
SET, DELETE, APPEND = 0, 1, 2
Incremental = IncrementalAlterConfigsRequest

DEFAULTS = {
    "consumer.heartbeat.interval.ms": "5000", "consumer.session.timeout.ms": "45000",
    "share.auto.offset.reset": "latest", "share.heartbeat.interval.ms": "5000",
    "share.isolation.level": "read_uncommitted", "share.record.lock.duration.ms": "30000",
    "share.session.timeout.ms": "45000", "streams.heartbeat.interval.ms": "5000",
    "streams.num.standby.replicas": "0", "streams.session.timeout.ms": "45000",
}


@pytest.fixture(scope="module")
def embedded(tmp_path_factory):
    broker = EmbeddedBroker(tmp_path_factory.mktemp("groupconfigs"),
                            config={"group.consumer.max.session.timeout.ms": "70000",
                                    "group.share.heartbeat.interval.ms": "6000",
                                    "group.streams.max.heartbeat.interval.ms": "50000"}).start()
    yield broker
    broker.stop()


@pytest.fixture
def raw(embedded):
    client = RawClient(embedded.bootstrap_servers)
    yield client
    client.close()


def alter(raw, group, *configs, validate_only=False):
    request = Incremental(validate_only=validate_only, resources=[Incremental.AlterConfigsResource(
        resource_type=GROUP, resource_name=group,
        configs=[Incremental.AlterableConfig(name=n, config_operation=op, value=v) for n, op, v in configs])])
    (response,) = raw.request(44, 1, request).responses
    assert (response.resource_type, response.resource_name) == (GROUP, group)
    return response.error_code, response.error_message


def legacy_alter(raw, group, **configs):
    request = AlterConfigsRequest(validate_only=False, resources=[AlterConfigsRequest.AlterConfigsResource(
        resource_type=GROUP, resource_name=group,
        configs=[AlterConfigsRequest.AlterableConfig(name=n.replace("_", "."), value=v)
                 for n, v in configs.items()])])
    (response,) = raw.request(33, 2, request).responses
    return response.error_code, response.error_message


def describe_result(raw, group, *keys, version=4):
    request = DescribeConfigsRequest(include_synonyms=True, include_documentation=True, resources=[
        DescribeConfigsRequest.DescribeConfigsResource(resource_type=GROUP, resource_name=group,
                                                       configuration_keys=list(keys) or None)])
    (result,) = raw.request(32, version, request).results
    return result


def described(raw, group, *keys):
    result = describe_result(raw, group, *keys)
    assert (result.error_code, result.error_message) == (0, "")
    return {c.name: c for c in result.configs}


def test_a_group_without_configs_is_described_with_the_defaults_from_the_broker(raw):
    configs = described(raw, "no-such-group")
    # the broker's group.share.heartbeat.interval.ms is this group config's default
    assert {n: c.value for n, c in configs.items()} == {**DEFAULTS, "share.heartbeat.interval.ms": "6000"}
    for name, entry in configs.items():
        assert (entry.config_source, entry.read_only, entry.is_sensitive) == (DEFAULT_CONFIG, False, False)
        assert [(s.name, s.value, s.source) for s in entry.synonyms] == [(name, entry.value, DEFAULT_CONFIG)]
    assert configs["consumer.session.timeout.ms"].config_type == CONFIG_TYPE_INT
    assert configs["share.isolation.level"].config_type == CONFIG_TYPE_STRING
    assert configs["consumer.session.timeout.ms"].documentation


def test_set_describe_and_delete(raw):
    assert alter(raw, "g-set", ("consumer.session.timeout.ms", SET, "50000")) == (0, None)
    entry = described(raw, "g-set", "consumer.session.timeout.ms")["consumer.session.timeout.ms"]
    assert (entry.value, entry.config_source) == ("50000", GROUP_CONFIG)
    assert [(s.name, s.value, s.source) for s in entry.synonyms] == [
        ("consumer.session.timeout.ms", "50000", GROUP_CONFIG)]
    assert alter(raw, "g-set", ("consumer.session.timeout.ms", DELETE, None)) == (0, None)
    entry = described(raw, "g-set", "consumer.session.timeout.ms")["consumer.session.timeout.ms"]
    assert (entry.value, entry.config_source) == ("45000", DEFAULT_CONFIG)


def test_validate_only_stores_nothing(raw):
    assert alter(raw, "g-validate", ("share.isolation.level", SET, "read_committed"),
                 validate_only=True) == (0, None)
    assert described(raw, "g-validate")["share.isolation.level"].config_source == DEFAULT_CONFIG


def test_the_legacy_api_replaces_the_whole_set(raw):
    assert alter(raw, "g-legacy", ("streams.num.standby.replicas", SET, "1"),
                 ("consumer.session.timeout.ms", SET, "46000")) == (0, None)
    assert legacy_alter(raw, "g-legacy", streams_num_standby_replicas="2") == (0, None)
    configs = described(raw, "g-legacy")
    assert (configs["streams.num.standby.replicas"].value, configs["consumer.session.timeout.ms"].value) == (
        "2", "45000")


@pytest.mark.parametrize("configs, message", [
    ([("no.such.config", SET, "1")], "Unknown group config name: no.such.config"),
    ([("consumer.session.timeout.ms", SET, "abc")],
     "Invalid value abc for configuration consumer.session.timeout.ms: Not a number of type INT"),
    ([("consumer.session.timeout.ms", SET, "0")],
     "Invalid value 0 for configuration consumer.session.timeout.ms: Value must be at least 1"),
    ([("consumer.session.timeout.ms", SET, "1000")],
     "consumer.session.timeout.ms must be greater than or equal to group.consumer.min.session.timeout.ms"),
    ([("consumer.session.timeout.ms", SET, "70001")],
     "consumer.session.timeout.ms must be less than or equal to group.consumer.max.session.timeout.ms"),
    ([("consumer.heartbeat.interval.ms", SET, "4999")],
     "consumer.heartbeat.interval.ms must be greater than or equal to group.consumer.min.heartbeat.interval.ms"),
    ([("share.record.lock.duration.ms", SET, "70000")],
     "share.record.lock.duration.ms must be less than or equal to group.share.max.record.lock.duration.ms"),
    ([("streams.num.standby.replicas", SET, "3")],
     "streams.num.standby.replicas must be less than or equal to group.streams.max.standby.replicas"),
    ([("streams.heartbeat.interval.ms", SET, "46000")],
     "streams.session.timeout.ms must be greater than streams.heartbeat.interval.ms"),
    ([("share.isolation.level", SET, "dirty")],
     "Invalid value dirty for configuration share.isolation.level: String must be one of: read_committed, "
     "read_uncommitted"),
    ([("share.auto.offset.reset", SET, "middle")],
     "Invalid value middle for configuration share.auto.offset.reset: Invalid value `middle` for configuration "
     "share.auto.offset.reset. The value must be either 'earliest', 'latest' or of the format "
     "'by_duration:<PnDTnHnMn.nS>'."),
    ([("consumer.session.timeout.ms", APPEND, "1")],
     "Can't APPEND to key consumer.session.timeout.ms because its type is not LIST."),
])
def test_refusals_with_kafkas_codes_and_messages(raw, configs, message):
    assert alter(raw, "g-bad", *configs) == (ErrorCode.INVALID_CONFIG, message)
    assert all(c.config_source == DEFAULT_CONFIG for c in described(raw, "g-bad").values())


def test_a_name_twice_and_a_null_value_are_refused_by_the_broker(raw):
    assert alter(raw, "g-twice", ("streams.session.timeout.ms", SET, "50000"),
                 ("streams.session.timeout.ms", DELETE, None)) == (
        ErrorCode.INVALID_REQUEST, "Error due to duplicate config keys")
    assert legacy_alter(raw, "g-null", consumer_session_timeout_ms=None) == (
        ErrorCode.INVALID_REQUEST, "Null value not supported for : consumer.session.timeout.ms")


def test_the_empty_group_name_is_refused(raw):
    assert alter(raw, "", ("consumer.session.timeout.ms", SET, "50000")) == (
        ErrorCode.INVALID_REQUEST, "Default group resources are not allowed.")
    result = describe_result(raw, "")
    assert (result.error_code, result.error_message, result.configs) == (
        ErrorCode.INVALID_REQUEST, "Group name must not be empty", [])


def list_config_resources(raw, version, *types):
    from protocol.messages import ListConfigResourcesRequest
    response = raw.request(74, version, ListConfigResourcesRequest(resource_types=list(types)))
    return response.error_code, [(r.resource_type, r.resource_name) for r in response.config_resources]


def test_list_config_resources_names_the_groups_with_configs(raw):
    assert alter(raw, "g-listed", ("consumer.session.timeout.ms", SET, "50000")) == (0, None)
    code, resources = list_config_resources(raw, 1, GROUP)
    assert code == 0 and (GROUP, "g-listed") in resources
    assert {kind for kind, _ in resources} == {GROUP}
    assert alter(raw, "g-listed", ("consumer.session.timeout.ms", DELETE, None)) == (0, None)
    assert (GROUP, "g-listed") not in list_config_resources(raw, 1, GROUP)[1]
