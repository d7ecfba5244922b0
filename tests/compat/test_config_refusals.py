"""Invalid topic and broker config values, refused by pylog as the reference Kafka refuses them.

Each value goes to both brokers through the three requests that set topic configs:
CreateTopics (validate only), AlterConfigs and IncrementalAlterConfigs (validate only, on
a topic each broker has). The error code and the message (Kafka's ConfigDef wording: "Not
a number of type LONG", "Value must be at least -1", "String must be one of: compact,
delete") must be the same on both; the values Kafka accepts must be accepted by pylog.
Then broker values on the cluster default (`BROKER_CASES`), the same way.
"""

from __future__ import annotations

import pytest

from protocol.messages import AlterConfigsRequest, CreateTopicsRequest, IncrementalAlterConfigsRequest
from tests.compat.conftest import unique
from tests.integration.support import WireClient

TOPIC_RESOURCE, BROKER_RESOURCE = 2, 4
SET = 0  # IncrementalAlterConfigs operation

CASES = [
    ("retention.ms", "-2"), ("retention.ms", "abc"), ("retention.ms", "99999999999999999999"),
    ("retention.bytes", "-5"), ("retention.ms", "-1"),
    ("min.cleanable.dirty.ratio", "1.5"), ("min.cleanable.dirty.ratio", "-0.1"), ("min.cleanable.dirty.ratio", "abc"),
    ("cleanup.policy", "foo"), ("cleanup.policy", "compact,delete"), ("cleanup.policy", "compact,foo"),
    ("delete.retention.ms", "-1"), ("min.compaction.lag.ms", "-1"), ("max.compaction.lag.ms", "0"),
    ("segment.ms", "0"), ("message.timestamp.type", "NowTime"), ("preallocate", "yes"),
    ("max.message.bytes", "-1"), ("index.interval.bytes", "-1"), ("compression.type", "brotli"),
    # the message shows the value as parsed (Java's toString), not as given
    ("min.cleanable.dirty.ratio", "13"), ("min.cleanable.dirty.ratio", "1e3"), ("segment.bytes", " 5 "),
    ("segment.bytes", "+5"), ("compression.type", " 5 "), ("message.timestamp.type", " "),
    # Java's doubles: NaN passes every range check, Infinity is a number
    ("min.cleanable.dirty.ratio", "NaN"), ("min.cleanable.dirty.ratio", "Infinity"),
    ("min.cleanable.dirty.ratio", "0.5d"), ("min.cleanable.dirty.ratio", "nan"),
    ("compression.gzip.level", "0"),
    ("leader.replication.throttled.replicas", "0:1,x"), ("follower.replication.throttled.replicas", "1"),
    ("leader.replication.throttled.replicas", "0:1,,2:3"), ("follower.replication.throttled.replicas", "*"),
    ("remote.storage.enable", "true"), ("cleanup.policy", ""),
]

# Broker configs set on the cluster default (IncrementalAlterConfigs, validate only): the
# ConfigDef's checks, KafkaConfig's requirements ("requirement failed: ..."), and the
# reconfiguration rules of the thread pools and connection limits, against a broker of
# Kafka's defaults (10 background threads, 8 I/O threads, 3 network threads, ...).
BROKER_CASES = [
    ("background.threads", "4"), ("background.threads", "21"), ("background.threads", "20"),
    ("num.io.threads", "17"), ("num.network.threads", "13"), ("num.recovery.threads.per.data.dir", "+5"),
    ("remote.log.reader.threads", "1"), ("remote.log.manager.copier.thread.pool.size", "32768"),
    ("max.connections", "0"), ("max.connection.creation.rate", "0"), ("max.connections.per.ip", "0"),
    ("log.roll.ms", "0"), ("log.roll.jitter.ms", "-1"), ("log.retention.ms", "0"),
    ("log.cleaner.min.cleanable.ratio", "2147483648"), ("log.cleaner.io.buffer.load.factor", "NaN"),
    ("log.cleaner.io.max.bytes.per.second", "Infinity"), ("compression.gzip.level", "13"),
    ("log.segment.bytes", "+5"), ("ssl.client.auth", " 5 "), ("log.cleanup.policy", ""),
]


def create_validate_only(client: WireClient, topic: str, name: str, value: str):
    Topic, Config = CreateTopicsRequest.CreatableTopic, CreateTopicsRequest.CreatableTopicConfig
    result = client.request(19, 5, CreateTopicsRequest(timeout_ms=30_000, validate_only=True, topics=[
        Topic(name=topic, num_partitions=1, replication_factor=1, configs=[Config(name=name, value=value)])])).topics[0]
    return result.error_code, result.error_message


def alter(client: WireClient, topic: str, name: str, value: str):
    Resource, Config = AlterConfigsRequest.AlterConfigsResource, AlterConfigsRequest.AlterableConfig
    result = client.request(33, 1, AlterConfigsRequest(validate_only=True, resources=[Resource(
        resource_type=TOPIC_RESOURCE, resource_name=topic, configs=[Config(name=name, value=value)])])).responses[0]
    return result.error_code, result.error_message


def incremental_alter(client: WireClient, topic: str, name: str, value: str):
    Resource = IncrementalAlterConfigsRequest.AlterConfigsResource
    Config = IncrementalAlterConfigsRequest.AlterableConfig
    result = client.request(44, 1, IncrementalAlterConfigsRequest(validate_only=True, resources=[Resource(
        resource_type=TOPIC_RESOURCE, resource_name=topic,
        configs=[Config(name=name, config_operation=SET, value=value)])])).responses[0]
    return result.error_code, result.error_message


@pytest.fixture(scope="module")
def existing_topic(both):
    topic = unique("config-refusals")
    Topic = CreateTopicsRequest.CreatableTopic
    for broker in both.values():
        with WireClient(broker.bootstrap_servers) as client:
            response = client.request(19, 5, CreateTopicsRequest(timeout_ms=30_000, topics=[
                Topic(name=topic, num_partitions=1, replication_factor=1)]))
            assert response.topics[0].error_code == 0
    return topic


@pytest.mark.parametrize("request_kind", ["CreateTopics", "AlterConfigs", "IncrementalAlterConfigs"])
@pytest.mark.parametrize("name, value", CASES, ids=[f"{n}={v}" for n, v in CASES])
def test_the_same_answer_as_kafka(both, compat_table, existing_topic, request_kind, name, value):
    answers = {}
    for broker_name, broker in both.items():
        with WireClient(broker.bootstrap_servers) as client:
            if request_kind == "CreateTopics":
                answers[broker_name] = create_validate_only(client, unique("config-new"), name, value)
            elif request_kind == "AlterConfigs":
                answers[broker_name] = alter(client, existing_topic, name, value)
            else:
                answers[broker_name] = incremental_alter(client, existing_topic, name, value)
    same = answers["pylog"] == answers["kafka"]
    compat_table.record("tool", f"{request_kind} {name}={value}", f"error {answers['pylog'][0]}",
                        f"error {answers['kafka'][0]}", "same" if same else f"differs: {answers['pylog'][1]!r}")
    assert answers["pylog"] == answers["kafka"]


@pytest.mark.parametrize("name, value", BROKER_CASES, ids=[f"{n}={v}" for n, v in BROKER_CASES])
def test_the_same_answer_as_kafka_for_the_cluster_default(both, compat_table, name, value):
    Resource = IncrementalAlterConfigsRequest.AlterConfigsResource
    Config = IncrementalAlterConfigsRequest.AlterableConfig
    request = IncrementalAlterConfigsRequest(validate_only=True, resources=[Resource(
        resource_type=BROKER_RESOURCE, resource_name="", configs=[Config(name=name, config_operation=SET, value=value)])])
    answers = {}
    for broker_name, broker in both.items():
        with WireClient(broker.bootstrap_servers) as client:
            (result,) = client.request(44, 1, request).responses
            answers[broker_name] = result.error_code, result.error_message
    same = answers["pylog"] == answers["kafka"]
    compat_table.record("tool", f"IncrementalAlterConfigs broker default {name}={value}",
                        f"error {answers['pylog'][0]}", f"error {answers['kafka'][0]}",
                        "same" if same else f"differs: {answers['pylog'][1]!r}")
    assert answers["pylog"] == answers["kafka"]


def test_a_resource_named_twice(both, compat_table, existing_topic):
    """IncrementalAlterConfigs: each entry of a resource named twice is refused, the others
    done; the same answers on both. (The legacy AlterConfigs with a resource named twice gets
    no answer at all from Kafka 4.1.1, so it is not compared; pylog answers it as it answers
    this one.)"""
    answers, never_made = {}, unique("never-made")
    Resource = IncrementalAlterConfigsRequest.AlterConfigsResource
    Config = IncrementalAlterConfigsRequest.AlterableConfig
    twice = Resource(resource_type=TOPIC_RESOURCE, resource_name=existing_topic,
                     configs=[Config(name="retention.ms", config_operation=SET, value="86400000")])
    other = Resource(resource_type=TOPIC_RESOURCE, resource_name=never_made, configs=[])
    request = IncrementalAlterConfigsRequest(validate_only=True, resources=[twice, other, twice])
    for broker_name, broker in both.items():
        with WireClient(broker.bootstrap_servers) as client:
            answers[broker_name] = [(r.resource_name, r.error_code, r.error_message)
                                    for r in client.request(44, 1, request).responses]
    same = answers["pylog"] == answers["kafka"]
    compat_table.record("tool", "IncrementalAlterConfigs a resource named twice", f"{len(answers['pylog'])} answers",
                        f"{len(answers['kafka'])} answers", "same" if same else f"differs: {answers['pylog']!r}")
    assert answers["pylog"] == answers["kafka"]
