"""Metadata (key 3): topics by id, and the internal topics' auto-creation, over a real socket.

Kafka 4.1.1's answers, checked against the reference broker:
- v12 with a topic id and a null name: an unknown id gets UNKNOWN_TOPIC_ID, a null name,
  the id it asked about, is_internal false, no partitions, listed before the known
  topics; once any topic is asked for by id the names are ignored (KafkaApis
  .handleTopicMetadataRequest).
- v10 and v11 with a null name or a topic id (fields only v12 may use): every topic asked
  gets INVALID_REQUEST, a null name becomes "", and the answer has no brokers, no cluster
  id and controller -1 (MetadataRequest.getErrorResponse; tests/compat/test_metadata_refusals.py).
- A Metadata request that auto-creates `__consumer_offsets` or `__transaction_state`
  creates it as its coordinator would (AutoTopicCreationManager.creatableTopic): the
  coordinator's partition count (`offsets.topic.num.partitions` /
  `transaction.state.log.num.partitions`, 50) and configs, never `num.partitions`.
  (Kafka answers the first request UNKNOWN_TOPIC_OR_PARTITION and creates the topic in
  the background; pylog creates every auto-created topic at once and answers it.)
"""

from __future__ import annotations

import uuid

from protocol.error_codes import ErrorCode
from protocol.messages import DescribeConfigsRequest, FindCoordinatorRequest, MetadataRequest
from tests.pylog.wire import RawClient

METADATA, DESCRIBE_CONFIGS, FIND_COORDINATOR = 3, 32, 10
TOPIC_RESOURCE, DYNAMIC_TOPIC_CONFIG = 2, 1


def metadata(client, topics, allow_auto_topic_creation=True):
    return client.request(METADATA, 12, MetadataRequest(topics=topics,
                                                        allow_auto_topic_creation=allow_auto_topic_creation))


def by_id(topic_id):
    return MetadataRequest.MetadataRequestTopic(topic_id=topic_id, name=None)


def by_name(name):
    return MetadataRequest.MetadataRequestTopic(name=name)


def topic_overrides(client, name) -> dict[str, str]:
    result = client.request(DESCRIBE_CONFIGS, 4, DescribeConfigsRequest(resources=[
        DescribeConfigsRequest.DescribeConfigsResource(resource_type=TOPIC_RESOURCE, resource_name=name,
                                                       configuration_keys=None)])).results[0]
    assert result.error_code == ErrorCode.NONE
    return {c.name: c.value for c in result.configs if c.config_source == DYNAMIC_TOPIC_CONFIG}


def test_an_unknown_topic_id_is_unknown_topic_id(kafka_broker):
    client = RawClient(kafka_broker.bootstrap_servers)
    unknown = uuid.uuid4()
    (topic,) = metadata(client, [by_id(unknown)]).topics
    assert (topic.error_code, topic.name, topic.topic_id, topic.is_internal, topic.partitions) == (
        ErrorCode.UNKNOWN_TOPIC_ID, None, unknown, False, [])


def test_topics_by_id_unknown_first_and_names_ignored(kafka_broker):
    client = RawClient(kafka_broker.bootstrap_servers)
    known = kafka_broker.call(lambda: kafka_broker.broker.create_topic("by-id", 2)).topic_id
    unknown = uuid.uuid4()
    answer = metadata(client, [by_id(known), by_id(unknown), by_name("named-but-ignored")]).topics
    assert [(t.error_code, t.name, t.topic_id, len(t.partitions)) for t in answer] == [
        (ErrorCode.UNKNOWN_TOPIC_ID, None, unknown, 0), (ErrorCode.NONE, "by-id", known, 2)]
    assert "named-but-ignored" not in kafka_broker.call(lambda: list(kafka_broker.broker.metadata.topics))


def test_below_v12_a_null_name_or_a_topic_id_refuses_the_request(kafka_broker):
    client = RawClient(kafka_broker.bootstrap_servers)
    kafka_broker.call(lambda: kafka_broker.broker.create_topic("asked-below-v12", 1))
    topic_id = uuid.uuid4()
    for version in (10, 11):
        for odd, shown in ((by_name(None), ""), (MetadataRequest.MetadataRequestTopic(name="x", topic_id=topic_id), "x")):
            answer = client.request(METADATA, version, MetadataRequest(topics=[by_name("asked-below-v12"), odd],
                                                                       allow_auto_topic_creation=False))
            assert [(t.error_code, t.name, t.topic_id, t.is_internal, t.partitions) for t in answer.topics] == [
                (ErrorCode.INVALID_REQUEST, "asked-below-v12", uuid.UUID(int=0), False, []),
                (ErrorCode.INVALID_REQUEST, shown, odd.topic_id, False, [])]
            assert (answer.brokers, answer.cluster_id, answer.controller_id) == ([], None, -1)
    # the connection is still served
    assert metadata(client, [by_name("asked-below-v12")]).topics[0].error_code == ErrorCode.NONE


def test_metadata_creates_consumer_offsets_as_the_group_coordinator_does(kafka_broker_factory):
    embedded = kafka_broker_factory(config={"num.partitions": 3, "offsets.topic.num.partitions": 7,
                                            "offsets.topic.segment.bytes": 1 << 20})
    client = RawClient(embedded.bootstrap_servers)
    (topic,) = metadata(client, [by_name("__consumer_offsets")]).topics
    assert (topic.error_code, topic.is_internal, len(topic.partitions)) == (ErrorCode.NONE, True, 7)
    assert topic_overrides(client, "__consumer_offsets") == {
        "cleanup.policy": "compact", "compression.type": "producer", "segment.bytes": str(1 << 20)}
    # The group coordinator finds it there and keeps it as it is.
    found = client.request(FIND_COORDINATOR, 3, FindCoordinatorRequest(key="g", key_type=0))
    assert found.error_code == ErrorCode.NONE
    (again,) = metadata(client, [by_name("__consumer_offsets")], allow_auto_topic_creation=False).topics
    assert (again.topic_id, len(again.partitions)) == (topic.topic_id, 7)


def test_metadata_creates_transaction_state_with_its_own_count_and_configs(kafka_broker_factory):
    embedded = kafka_broker_factory(config={"num.partitions": 3, "transaction.state.log.num.partitions": 5})
    client = RawClient(embedded.bootstrap_servers)
    (topic,) = metadata(client, [by_name("__transaction_state")]).topics
    assert (topic.error_code, topic.is_internal, len(topic.partitions)) == (ErrorCode.NONE, True, 5)
    assert topic_overrides(client, "__transaction_state") == {
        "cleanup.policy": "compact", "compression.type": "uncompressed", "min.insync.replicas": "1",
        "segment.bytes": str(100 * 1024 * 1024), "unclean.leader.election.enable": "false"}


def test_the_default_offsets_topic_has_fifty_partitions(kafka_broker_factory):
    embedded = kafka_broker_factory(test_defaults={})   # Kafka's defaults, not a test broker's
    client = RawClient(embedded.bootstrap_servers)
    (topic,) = metadata(client, [by_name("__consumer_offsets")]).topics
    assert (topic.error_code, len(topic.partitions)) == (ErrorCode.NONE, 50)


def test_without_auto_creation_an_internal_topic_is_unknown_and_internal(kafka_broker_factory):
    embedded = kafka_broker_factory(config={"auto.create.topics.enable": "false"})
    client = RawClient(embedded.bootstrap_servers)
    (topic,) = metadata(client, [by_name("__consumer_offsets")]).topics
    assert (topic.error_code, topic.name, topic.is_internal) == (
        ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "__consumer_offsets", True)
    assert "__consumer_offsets" not in embedded.call(lambda: list(embedded.broker.metadata.topics))
