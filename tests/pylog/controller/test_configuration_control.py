"""IncrementalAlterConfigs and AlterConfigs at the controller: topic overrides as
ConfigRecords replayed into the image, and Kafka's answers for what is refused."""

from __future__ import annotations

import random

import pytest

from protocol.error_codes import ErrorCode
from protocol.messages import AlterConfigsRequest, CreateTopicsRequest, IncrementalAlterConfigsRequest

from pylog.config import BrokerConfig
from pylog.controller.configuration_control import (
    OP_APPEND,
    OP_DELETE,
    OP_SET,
    OP_SUBTRACT,
    RESOURCE_BROKER,
    RESOURCE_BROKER_LOGGER,
    RESOURCE_GROUP,
    RESOURCE_TOPIC,
    TopicSettings,
    alter_configs,
    incremental_alter_configs,
)
from pylog.controller.replication_control import create_topics

from tests.pylog.controller.cluster_images import cluster, commit, record_names

SETTINGS = TopicSettings()
IResource = IncrementalAlterConfigsRequest.AlterConfigsResource
IConfig = IncrementalAlterConfigsRequest.AlterableConfig
LResource = AlterConfigsRequest.AlterConfigsResource
LConfig = AlterConfigsRequest.AlterableConfig


def with_topic(name="t", configs=None, features=None):
    image = cluster(1, features=features)
    topic = CreateTopicsRequest.CreatableTopic(
        name=name, num_partitions=1, replication_factor=1, assignments=[],
        configs=[CreateTopicsRequest.CreatableTopicConfig(name=k, value=v) for k, v in (configs or {}).items()])
    return commit(image, create_topics(image, CreateTopicsRequest(topics=[topic], timeout_ms=30_000,
                                                                  validate_only=False), SETTINGS, random.Random(0)))


def incremental(*resources, validate_only=False):
    return IncrementalAlterConfigsRequest(resources=list(resources), validate_only=validate_only)


def ops(name, *changes, resource_type=RESOURCE_TOPIC):
    return IResource(resource_type=resource_type, resource_name=name,
                     configs=[IConfig(name=k, config_operation=op, value=v) for k, op, v in changes])


def legacy(name, configs, resource_type=RESOURCE_TOPIC):
    return LResource(resource_type=resource_type, resource_name=name,
                     configs=[LConfig(name=k, value=v) for k, v in configs.items()])


def answers(result):
    return [(r.resource_type, r.resource_name, r.error_code, r.error_message) for r in result.response.responses]


def test_set_delete_append_subtract_become_config_records():
    image = with_topic(configs={"retention.ms": "1000", "segment.ms": "60000"})
    result = incremental_alter_configs(image, incremental(ops(
        "t", ("retention.ms", OP_SET, "2000"), ("segment.ms", OP_DELETE, None),
        ("cleanup.policy", OP_APPEND, "compact"), ("max.message.bytes", OP_SET, None))), SETTINGS)
    assert answers(result) == [(RESOURCE_TOPIC, "t", ErrorCode.NONE, None)]
    assert sorted((r.name, r.value) for r, _ in result.records) == [
        ("cleanup.policy", "delete,compact"), ("retention.ms", "2000"), ("segment.ms", None)]
    assert {(r.resource_type, r.resource_name) for r, _ in result.records} == {(RESOURCE_TOPIC, "t")}
    commit(image, result)
    assert image.topic_configs("t") == {"retention.ms": "2000", "cleanup.policy": "delete,compact"}
    subtract = incremental_alter_configs(image, incremental(ops("t", ("cleanup.policy", OP_SUBTRACT, "delete"))),
                                         SETTINGS)
    commit(image, subtract)
    assert image.topic_configs("t") == {"retention.ms": "2000", "cleanup.policy": "compact"}


def test_an_unchanged_value_writes_nothing():
    image = with_topic(configs={"retention.ms": "1000"})
    result = incremental_alter_configs(image, incremental(ops("t", ("retention.ms", OP_SET, "1000"),
                                                               ("segment.ms", OP_DELETE, None))), SETTINGS)
    assert answers(result) == [(RESOURCE_TOPIC, "t", ErrorCode.NONE, None)]
    assert result.records == []


def test_the_legacy_api_replaces_the_whole_set():
    image = with_topic(configs={"retention.ms": "1000", "segment.ms": "60000"})
    result = alter_configs(image, AlterConfigsRequest(resources=[legacy("t", {"segment.ms": "60000",
                                                                             "flush.ms": "5",
                                                                             "retention.bytes": None})],
                                                      validate_only=False), SETTINGS)
    assert answers(result) == [(RESOURCE_TOPIC, "t", ErrorCode.NONE, None)]
    assert [(r.name, r.value) for r, _ in result.records] == [("flush.ms", "5"), ("retention.ms", None)]
    commit(image, result)
    assert image.topic_configs("t") == {"segment.ms": "60000", "flush.ms": "5"}


def test_validate_only_writes_nothing():
    image = with_topic()
    result = incremental_alter_configs(image, incremental(ops("t", ("retention.ms", OP_SET, "5")),
                                                          validate_only=True), SETTINGS)
    assert answers(result) == [(RESOURCE_TOPIC, "t", ErrorCode.NONE, None)] and result.records == []
    result = alter_configs(image, AlterConfigsRequest(resources=[legacy("t", {"retention.ms": "5"})],
                                                      validate_only=True), SETTINGS)
    assert answers(result) == [(RESOURCE_TOPIC, "t", ErrorCode.NONE, None)] and result.records == []


def test_refusals_with_kafkas_codes_and_messages():
    image = with_topic()
    long_value = "x" * 32768
    result = incremental_alter_configs(image, incremental(
        ops("t", ("retention.ms", OP_SET, "1")), ops("t", ("retention.ms", OP_SET, "2")),
        ops("missing", ("retention.ms", OP_SET, "1")),
        ops("bad/name", ("retention.ms", OP_SET, "1")),
        ops("", ("retention.ms", OP_SET, "1")),
        ops("t2", ("retention.ms", OP_SET, "1"), ("retention.ms", OP_DELETE, None)),
        ops("unknown-name", ("log.retention.ms", OP_SET, "1")),
        ops("bad-value", ("retention.ms", OP_SET, "soon")),
        ops("not-a-list", ("retention.ms", OP_APPEND, "1")),
        ops("long", ("compression.type", OP_SET, long_value)),
        ops("x", ("a", OP_SET, "1"), resource_type=99),
        ops("-1", ("log.retention.ms", OP_SET, "1"), resource_type=RESOURCE_BROKER),
        ops("one", ("log.retention.ms", OP_SET, "1"), resource_type=RESOURCE_BROKER),
        ops("1", ("kafka", OP_SET, "DEBUG"), resource_type=RESOURCE_BROKER_LOGGER),
        ops("g", ("consumer.session.timeout.ms", OP_SET, "1"), resource_type=RESOURCE_GROUP),
    ), SETTINGS)
    got = answers(result)
    assert got[0] == (RESOURCE_TOPIC, "t", ErrorCode.INVALID_REQUEST, "Duplicate resource.")
    by_name = {(t, n): (code, message) for t, n, code, message in got[1:]}
    assert len(got) == 14   # one answer for the resource named twice
    assert by_name == {
        (RESOURCE_TOPIC, "missing"): (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "The topic 'missing' does not exist."),
        (RESOURCE_TOPIC, "bad/name"): (ErrorCode.INVALID_TOPIC_EXCEPTION,
                                       "Topic name is invalid: 'bad/name' contains one or more characters other "
                                       "than ASCII alphanumerics, '.', '_' and '-'"),
        (RESOURCE_TOPIC, ""): (ErrorCode.INVALID_REQUEST, "Default topic resources are not allowed."),
        (RESOURCE_TOPIC, "t2"): (ErrorCode.INVALID_REQUEST, "Error due to duplicate config keys : retention.ms"),
        (RESOURCE_TOPIC, "unknown-name"): (ErrorCode.INVALID_CONFIG, "Unknown topic config name: log.retention.ms"),
        (RESOURCE_TOPIC, "bad-value"): (ErrorCode.INVALID_CONFIG, by_name[(RESOURCE_TOPIC, "bad-value")][1]),
        (RESOURCE_TOPIC, "not-a-list"): (ErrorCode.INVALID_CONFIG,
                                         "Can't APPEND to key retention.ms because its type is not LIST."),
        (RESOURCE_TOPIC, "long"): (ErrorCode.INVALID_CONFIG,
                                   "The configuration value cannot be added because it exceeds the maximum value "
                                   "size of 32767 bytes."),
        (99, "x"): (ErrorCode.UNSUPPORTED_VERSION, "Unknown resource type 99."),
        (RESOURCE_BROKER, "-1"): (ErrorCode.INVALID_REQUEST, "Invalid negative broker ID."),
        (RESOURCE_BROKER, "one"): (ErrorCode.INVALID_REQUEST, "Unable to parse broker name as a base 10 number."),
        (RESOURCE_BROKER_LOGGER, "1"): (ErrorCode.INVALID_REQUEST, "Unknown resource type BROKER_LOGGER"),
        (RESOURCE_GROUP, "g"): (ErrorCode.INVALID_CONFIG, "consumer.session.timeout.ms must be greater than or "
                                                          "equal to group.consumer.min.session.timeout.ms"),
    }
    message = by_name[(RESOURCE_TOPIC, "bad-value")][1]
    assert "retention.ms" in message and "soon" in message
    assert result.records == []


def test_an_unknown_operation_fails_the_whole_request_unless_a_refusal_comes_first():
    """Kafka's controller takes a resource's operations in a Java HashMap's order of their
    names (flush.ms before retention.ms) and fails on an unknown one's null type: every
    resource UNKNOWN_SERVER_ERROR, nothing written. A refusal met before it ends the
    resource first."""
    image = with_topic("a")
    failed = incremental_alter_configs(image, incremental(
        ops("a", ("retention.ms", OP_SET, "5")), ops("a2", ("flush.ms", 9, "1"), ("retention.ms", OP_APPEND, "1"))),
        SETTINGS)
    assert answers(failed) == [(RESOURCE_TOPIC, "a", ErrorCode.UNKNOWN_SERVER_ERROR, None),
                               (RESOURCE_TOPIC, "a2", ErrorCode.UNKNOWN_SERVER_ERROR, None)]
    assert failed.records == []
    refused = incremental_alter_configs(image, incremental(
        ops("a", ("retention.ms", 9, "1"), ("flush.ms", OP_APPEND, "1"))), SETTINGS)
    assert answers(refused) == [(RESOURCE_TOPIC, "a", ErrorCode.INVALID_CONFIG,
                                 "Can't APPEND to key flush.ms because its type is not LIST.")]


def test_a_bad_value_fails_its_resource_only():
    image = with_topic("a")
    commit(image, create_topics(image, CreateTopicsRequest(topics=[CreateTopicsRequest.CreatableTopic(
        name="b", num_partitions=1, replication_factor=1, assignments=[], configs=[])], timeout_ms=30_000,
        validate_only=False), SETTINGS, random.Random(1)))
    result = incremental_alter_configs(image, incremental(ops("a", ("retention.ms", OP_SET, "-5x")),
                                                          ops("b", ("retention.ms", OP_SET, "5"))), SETTINGS)
    assert [code for _, _, code, _ in answers(result)] == [ErrorCode.INVALID_CONFIG, ErrorCode.NONE]
    commit(image, result)
    assert image.topic_configs("a") == {} and image.topic_configs("b") == {"retention.ms": "5"}


def test_the_legacy_api_refuses_like_the_incremental_one():
    image = with_topic()
    result = alter_configs(image, AlterConfigsRequest(resources=[
        legacy("missing", {"retention.ms": "1"}), legacy("t", {"segment.bytes": "none"}),
        legacy("two", {"log.retention.ms": "3"}, resource_type=RESOURCE_BROKER)], validate_only=False), SETTINGS)
    got = answers(result)
    assert got[0] == (RESOURCE_TOPIC, "missing", ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                      "The topic 'missing' does not exist.")
    assert got[1][2] == ErrorCode.INVALID_CONFIG
    assert got[2][:3] == (RESOURCE_BROKER, "two", ErrorCode.INVALID_REQUEST)
    assert result.records == []


def test_broker_resources_get_a_record_per_name_given_changed_or_not():
    image = with_topic()
    for resource in ("", "1"):
        result = incremental_alter_configs(image, incremental(
            ops(resource, ("log.retention.ms", OP_SET, "5000"), ("log.cleaner.threads", OP_SET, "2"),
                resource_type=RESOURCE_BROKER)), SETTINGS)
        assert answers(result) == [(RESOURCE_BROKER, resource, ErrorCode.NONE, None)]
        commit(image, result)
    assert image.configs[(RESOURCE_BROKER, "1")] == {"log.retention.ms": "5000", "log.cleaner.threads": "2"}
    again = incremental_alter_configs(image, incremental(
        ops("1", ("log.retention.ms", OP_SET, "5000"), ("log.cleaner.threads", OP_DELETE, None),
            resource_type=RESOURCE_BROKER)), SETTINGS)
    assert [(r.resource_type, r.resource_name, r.name, r.value) for r, _ in again.records] == [
        (RESOURCE_BROKER, "1", "log.retention.ms", "5000"), (RESOURCE_BROKER, "1", "log.cleaner.threads", None)]
    replaced = alter_configs(image, AlterConfigsRequest(resources=[
        legacy("", {"message.max.bytes": "2000"}, resource_type=RESOURCE_BROKER)], validate_only=False), SETTINGS)
    assert [(r.name, r.value) for r, _ in replaced.records] == [
        ("message.max.bytes", "2000"), ("log.retention.ms", None), ("log.cleaner.threads", None)]
    validated = alter_configs(image, AlterConfigsRequest(resources=[
        legacy("", {"message.max.bytes": "2000"}, resource_type=RESOURCE_BROKER)], validate_only=True), SETTINGS)
    assert validated.records == []


def test_group_resources_get_a_record_per_changed_name_whether_the_group_exists_or_not():
    image = with_topic()
    result = incremental_alter_configs(image, incremental(
        ops("g", ("consumer.session.timeout.ms", OP_SET, "50000"), ("share.isolation.level", OP_SET, "read_committed"),
            resource_type=RESOURCE_GROUP)), SETTINGS)
    assert answers(result) == [(RESOURCE_GROUP, "g", ErrorCode.NONE, None)]
    assert [(r.resource_type, r.resource_name, r.name, r.value) for r, _ in result.records] == [
        (RESOURCE_GROUP, "g", "consumer.session.timeout.ms", "50000"),
        (RESOURCE_GROUP, "g", "share.isolation.level", "read_committed")]
    commit(image, result)
    again = incremental_alter_configs(image, incremental(
        ops("g", ("consumer.session.timeout.ms", OP_SET, "50000"), ("share.isolation.level", OP_DELETE, None),
            resource_type=RESOURCE_GROUP)), SETTINGS)
    assert [(r.name, r.value) for r, _ in again.records] == [("share.isolation.level", None)]
    replaced = alter_configs(image, AlterConfigsRequest(resources=[
        legacy("g", {"streams.num.standby.replicas": "1"}, resource_type=RESOURCE_GROUP)], validate_only=False),
        SETTINGS)
    assert [(r.name, r.value) for r, _ in replaced.records] == [
        ("streams.num.standby.replicas", "1"), ("consumer.session.timeout.ms", None), ("share.isolation.level", None)]
    default = incremental_alter_configs(image, incremental(
        ops("", ("consumer.session.timeout.ms", OP_SET, "50000"), resource_type=RESOURCE_GROUP)), SETTINGS)
    assert answers(default) == [(RESOURCE_GROUP, "", ErrorCode.INVALID_REQUEST,
                                 "Default group resources are not allowed.")]


def test_group_configs_are_bounded_by_the_controllers_broker_configs():
    settings = TopicSettings.from_config(BrokerConfig({"group.consumer.max.session.timeout.ms": "50000"}))
    result = incremental_alter_configs(with_topic(), incremental(
        ops("g", ("consumer.session.timeout.ms", OP_SET, "50001"), resource_type=RESOURCE_GROUP)), settings)
    assert answers(result) == [(RESOURCE_GROUP, "g", ErrorCode.INVALID_CONFIG,
                                "consumer.session.timeout.ms must be less than or equal to "
                                "group.consumer.max.session.timeout.ms")]


@pytest.mark.parametrize("elr_level, clear", [(1, True), (0, False)])
def test_a_min_insync_replicas_change_clears_the_elr_when_elr_is_enabled(elr_level, clear):
    image = with_topic(features={"eligible.leader.replicas.version": elr_level} if elr_level else None)
    result = incremental_alter_configs(image, incremental(ops("t", ("min.insync.replicas", OP_SET, "1"))),
                                       SETTINGS)
    assert record_names(result) == ["ConfigRecord"] + (["ClearElrRecord"] if clear else [])
    commit(image, result)
    assert image.topic_configs("t") == {"min.insync.replicas": "1"}


@pytest.mark.parametrize("elr_level", [1, 0])
def test_with_elr_min_insync_replicas_may_not_be_set_per_broker_nor_removed_from_the_cluster(elr_level):
    """Kafka's guards, which come with ELR: pylog's bootstrap leaves ELR off, and takes both."""
    image = with_topic(features={"eligible.leader.replicas.version": elr_level} if elr_level else None)
    result = incremental_alter_configs(image, incremental(
        ops("1", ("min.insync.replicas", OP_SET, "1"), resource_type=RESOURCE_BROKER),
        ops("", ("min.insync.replicas", OP_DELETE, None), resource_type=RESOURCE_BROKER)), SETTINGS)
    refusals = [(RESOURCE_BROKER, "1", ErrorCode.INVALID_CONFIG,
                 "Broker-level min.insync.replicas cannot be altered while ELR is enabled."),
                (RESOURCE_BROKER, "", ErrorCode.INVALID_CONFIG,
                 "Cluster-level min.insync.replicas cannot be removed while ELR is enabled.")]
    assert answers(result) == (refusals if elr_level else [(RESOURCE_BROKER, "1", ErrorCode.NONE, None),
                                                            (RESOURCE_BROKER, "", ErrorCode.NONE, None)])


def test_settings_from_the_controllers_config():
    config = BrokerConfig(num_partitions=3, default_replication_factor=2, delete_topic_enable=False,
                          log_retention_ms=5000)
    settings = TopicSettings.from_config(config)
    assert (settings.num_partitions, settings.default_replication_factor, settings.delete_topic_enable) == (3, 2, False)
    assert settings.default_log_config.retention_ms == 5000
    assert "log.retention.ms" in settings.static_broker_configs
    assert "log.segment.bytes" not in settings.static_broker_configs
