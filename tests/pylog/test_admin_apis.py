"""Topic and config administration over real sockets: CreateTopics, DeleteTopics,
CreatePartitions, DescribeConfigs, IncrementalAlterConfigs, AlterConfigs.

kafka-python's KafkaAdminClient and confluent-kafka's AdminClient against an in-process
broker, plus raw requests (tests/pylog/wire.py) for the error codes and fields the clients
hide or never send.
"""

from __future__ import annotations

import time
import uuid

import pytest
from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AdminClient, AlterConfigOpType
from confluent_kafka.admin import ConfigEntry as CkConfigEntry
from confluent_kafka.admin import ConfigResource as CkConfigResource
from confluent_kafka.admin import ConfigSource as CkConfigSource
from confluent_kafka.admin import NewPartitions as CkNewPartitions
from confluent_kafka.admin import NewTopic as CkNewTopic
from confluent_kafka.admin import ResourceType
from kafka import KafkaAdminClient, KafkaProducer
from kafka.admin import ConfigResource, ConfigResourceType, NewTopic
from kafka.admin._partitions import NewPartitions
from kafka.errors import (
    InvalidConfigurationError,
    InvalidPartitionsError,
    InvalidReplicationFactorError,
    InvalidTopicError,
    TopicAlreadyExistsError,
    UnknownTopicOrPartitionError,
)

from protocol.error_codes import ErrorCode
from protocol.messages import (
    AlterConfigsRequest,
    CreatePartitionsRequest,
    CreateTopicsRequest,
    DeleteTopicsRequest,
    DescribeConfigsRequest,
    IncrementalAlterConfigsRequest,
    ProduceRequest,
)
from protocol.records import build_batch
from pylog.dynamic_broker_config import UPDATABLE
from pylog.testing import EmbeddedBroker
from storage.config import CONFIG_KEYS as TOPIC_CONFIG_KEYS
from storage.files import log_dir_name
from tests.pylog.wire import RawClient

pytestmark = pytest.mark.timeout(60)

# ConfigSource ids.
DYNAMIC_TOPIC_CONFIG, STATIC_BROKER_CONFIG, DEFAULT_CONFIG = 1, 4, 5
DYNAMIC_BROKER_CONFIG, DYNAMIC_DEFAULT_BROKER_CONFIG = 2, 3
TOPIC, BROKER = 2, 4

Topic = CreateTopicsRequest.CreatableTopic
Assignment = CreateTopicsRequest.CreatableReplicaAssignment
TopicConfig = CreateTopicsRequest.CreatableTopicConfig
Resource = DescribeConfigsRequest.DescribeConfigsResource

# what DescribeConfigs lists for a topic that sets no internal name (Kafka lists those only when set)
DESCRIBED_TOPIC_CONFIGS = {name for name, key in TOPIC_CONFIG_KEYS.items() if not key.internal}


@pytest.fixture
def broker_factory(tmp_path_factory):
    started: list[EmbeddedBroker] = []

    def make(config: dict | None = None) -> EmbeddedBroker:
        embedded = EmbeddedBroker(tmp_path_factory.mktemp("pylog"), config=config)
        started.append(embedded.start())
        return embedded

    yield make
    for embedded in started:
        embedded.stop()


@pytest.fixture
def broker(broker_factory):
    return broker_factory({"auto.create.topics.enable": "false"})


@pytest.fixture
def raw(broker):
    client = RawClient(broker.bootstrap_servers)
    yield client
    client.close()


@pytest.fixture
def kp_admin(broker):
    admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap_servers, request_timeout_ms=10_000)
    yield admin
    admin.close()


@pytest.fixture
def ck_admin(broker):
    return AdminClient({"bootstrap.servers": broker.bootstrap_servers})


def partition_dirs(embedded: EmbeddedBroker, topic: str) -> list[str]:
    prefix = log_dir_name(topic, 0)[:-1]
    return sorted(p.name for p in embedded.data_dir.iterdir()
                  if p.is_dir() and p.name.startswith(prefix) and p.name[len(prefix):].isdigit())


def topic_info(embedded: EmbeddedBroker, name: str):
    return embedded.call(lambda: embedded.broker.metadata.topics.get(name))


def ck_wait(futures: dict, timeout: float = 15) -> dict:
    return {key: future.result(timeout=timeout) for key, future in futures.items()}


# ---------------------------------------------------------------------------------------
# kafka-python


def test_kafka_python_create_topics(broker, kp_admin):
    result = kp_admin.create_topics([
        NewTopic("kp-a", num_partitions=3, replication_factor=1,
                 topic_configs={"retention.ms": "3600000", "cleanup.policy": "compact"}),
        NewTopic("kp-b", num_partitions=-1, replication_factor=-1),
    ])
    by_name = {t["name"]: t for t in result["topics"]}
    assert by_name["kp-a"]["error_code"] == 0
    assert (by_name["kp-a"]["num_partitions"], by_name["kp-a"]["replication_factor"]) == (3, 1)
    a_configs = by_name["kp-a"]["configs"]
    assert set(a_configs) == DESCRIBED_TOPIC_CONFIGS
    assert a_configs["retention.ms"]["value"] == "3600000"
    assert a_configs["retention.ms"]["config_source"] == "DYNAMIC_TOPIC_CONFIG"
    assert a_configs["cleanup.policy"]["value"] == "compact"
    assert a_configs["segment.bytes"]["config_source"] == "DEFAULT_CONFIG"
    assert uuid.UUID(str(by_name["kp-a"]["topic_id"])) == topic_info(broker, "kp-a").topic_id
    assert by_name["kp-b"]["num_partitions"] == 1  # num.partitions

    assert {"kp-a", "kp-b"} <= set(kp_admin.list_topics())
    described = {t["name"]: t for t in kp_admin.describe_topics(["kp-a"])}
    assert sorted(p["partition_index"] for p in described["kp-a"]["partitions"]) == [0, 1, 2]
    assert partition_dirs(broker, "kp-a") == [log_dir_name("kp-a", p) for p in range(3)]
    assert topic_info(broker, "kp-a").configs == {"retention.ms": "3600000", "cleanup.policy": "compact"}

    # The topic works: a keyed record is stored (compacted topics need keys).
    producer = KafkaProducer(bootstrap_servers=broker.bootstrap_servers)
    try:
        assert producer.send("kp-a", key=b"k", value=b"v", partition=2).get(timeout=20).offset == 0
    finally:
        producer.close(timeout=10)


def test_kafka_python_create_topics_errors(broker, kp_admin):
    kp_admin.create_topics([NewTopic("kp-dup", num_partitions=1, replication_factor=1)])
    with pytest.raises(TopicAlreadyExistsError):
        kp_admin.create_topics([NewTopic("kp-dup", num_partitions=1, replication_factor=1)])
    with pytest.raises(InvalidReplicationFactorError):
        kp_admin.create_topics([NewTopic("kp-rf", num_partitions=1, replication_factor=3)])
    with pytest.raises(InvalidPartitionsError):
        kp_admin.create_topics([NewTopic("kp-parts", num_partitions=0, replication_factor=1)])
    with pytest.raises(InvalidConfigurationError):
        kp_admin.create_topics([NewTopic("kp-cfg", 1, 1, topic_configs={"no.such.config": "1"})])
    with pytest.raises(InvalidConfigurationError):
        kp_admin.create_topics([NewTopic("kp-cfg", 1, 1, topic_configs={"segment.bytes": "small"})])
    with pytest.raises(InvalidTopicError):
        kp_admin.create_topics([NewTopic("bad/name", num_partitions=1, replication_factor=1)])

    result = kp_admin.create_topics([NewTopic("kp-rf", num_partitions=1, replication_factor=3),
                                     NewTopic("kp-ok", num_partitions=2, replication_factor=1)],
                                    raise_errors=False)
    by_name = {t["name"]: t for t in result["topics"]}
    assert by_name["kp-rf"]["error_code"] == ErrorCode.INVALID_REPLICATION_FACTOR
    assert by_name["kp-rf"]["error_message"] == (
        "Unable to replicate the partition 3 time(s): The target replication factor of 3 cannot be "
        "reached because only 1 broker(s) are registered.")
    assert by_name["kp-ok"]["error_code"] == 0  # one failure does not stop the others
    assert set(kp_admin.list_topics()) == {"kp-dup", "kp-ok"}
    assert not partition_dirs(broker, "kp-rf") and not partition_dirs(broker, "kp-cfg")


def test_kafka_python_validate_only_creates_nothing(broker, kp_admin):
    result = kp_admin.create_topics([NewTopic("kp-dry", num_partitions=4, replication_factor=1,
                                              topic_configs={"segment.ms": "60000"})], validate_only=True)
    (topic,) = result["topics"]
    assert (topic["error_code"], topic["num_partitions"]) == (0, 4)
    assert topic["configs"]["segment.ms"]["value"] == "60000"
    assert "kp-dry" not in kp_admin.list_topics()
    assert topic_info(broker, "kp-dry") is None and not partition_dirs(broker, "kp-dry")
    with pytest.raises(InvalidConfigurationError):  # validation still happens
        kp_admin.create_topics([NewTopic("kp-dry", 1, 1, topic_configs={"segment.ms": "0"})],
                               validate_only=True)


def test_kafka_python_delete_topics(broker, kp_admin):
    kp_admin.create_topics([NewTopic("kp-del", num_partitions=2, replication_factor=1),
                            NewTopic("kp-keep", num_partitions=1, replication_factor=1)])
    assert len(partition_dirs(broker, "kp-del")) == 2
    result = kp_admin.delete_topics(["kp-del"])
    assert [(t["name"], t["error_code"]) for t in result["topics"]] == [("kp-del", 0)]
    assert partition_dirs(broker, "kp-del") == []
    assert set(kp_admin.list_topics()) == {"kp-keep"}
    assert partition_dirs(broker, "kp-keep") == [log_dir_name("kp-keep", 0)]
    with pytest.raises(UnknownTopicOrPartitionError):
        kp_admin.delete_topics(["kp-del"])
    # The name can be used again, for a new topic with a new id.
    kp_admin.create_topics([NewTopic("kp-del", num_partitions=1, replication_factor=1)])
    assert partition_dirs(broker, "kp-del") == [log_dir_name("kp-del", 0)]


def test_kafka_python_create_partitions(broker, kp_admin):
    kp_admin.create_topics([NewTopic("kp-grow", num_partitions=2, replication_factor=1)])
    kp_admin.create_partitions({"kp-grow": NewPartitions(total_count=5)})
    assert len(partition_dirs(broker, "kp-grow")) == 5
    described = {t["name"]: t for t in kp_admin.describe_topics(["kp-grow"])}
    assert sorted(p["partition_index"] for p in described["kp-grow"]["partitions"]) == list(range(5))

    kp_admin.create_partitions({"kp-grow": 7}, validate_only=True)
    assert topic_info(broker, "kp-grow").num_partitions == 5
    with pytest.raises(InvalidPartitionsError):
        kp_admin.create_partitions({"kp-grow": 5})
    with pytest.raises(InvalidPartitionsError):
        kp_admin.create_partitions({"kp-grow": 3})
    with pytest.raises(UnknownTopicOrPartitionError):
        kp_admin.create_partitions({"kp-nope": 3})

    producer = KafkaProducer(bootstrap_servers=broker.bootstrap_servers)
    try:
        assert producer.send("kp-grow", value=b"x", partition=4).get(timeout=20).offset == 0
    finally:
        producer.close(timeout=10)


def test_kafka_python_describe_configs(broker_factory):
    embedded = broker_factory({"log.segment.bytes": "2000000", "log.retention.hours": "10"})
    admin = KafkaAdminClient(bootstrap_servers=embedded.bootstrap_servers, request_timeout_ms=10_000)
    try:
        admin.create_topics([NewTopic("kp-conf", 1, 1, topic_configs={"max.message.bytes": "2000"})])
        result = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, "kp-conf")],
                                        include_synonyms=True, config_filter="all")
        configs = result["topic"]["kp-conf"]
        assert set(configs) == DESCRIBED_TOPIC_CONFIGS
        assert configs["max.message.bytes"]["value"] == "2000"
        assert configs["max.message.bytes"]["config_source"] == "DYNAMIC_TOPIC_CONFIG"
        assert [(s["name"], s["value"], s["source"]) for s in configs["max.message.bytes"]["synonyms"]] == [
            ("max.message.bytes", "2000", "DYNAMIC_TOPIC_CONFIG"),
            ("message.max.bytes", "1048588", "DEFAULT_CONFIG")]
        assert configs["segment.bytes"]["value"] == "2000000"
        assert configs["segment.bytes"]["config_source"] == "STATIC_BROKER_CONFIG"
        assert [(s["name"], s["source"]) for s in configs["segment.bytes"]["synonyms"]] == [
            ("log.segment.bytes", "STATIC_BROKER_CONFIG"), ("log.segment.bytes", "DEFAULT_CONFIG")]
        # Kafka keeps retention.ms's synonyms only from an entry named log.retention.ms on:
        # with only log.retention.hours given, the value is derived but the list is empty.
        assert configs["retention.ms"]["value"] == str(10 * 3600 * 1000)
        assert configs["retention.ms"]["config_source"] == "DEFAULT_CONFIG"
        assert configs["retention.ms"]["synonyms"] == []
        assert configs["cleanup.policy"]["config_type"] == "LIST"
        assert configs["retention.ms"]["config_type"] == "LONG"
        assert all(c["read_only"] is False and c["is_sensitive"] is False for c in configs.values())

        # kafka-python's default filter keeps only the topic's own settings.
        modified = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, "kp-conf")])
        assert set(modified["topic"]["kp-conf"]) == {"max.message.bytes"}
        keyed = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, "kp-conf",
                                                       {"segment.ms": None})], config_filter="all")
        assert set(keyed["topic"]["kp-conf"]) == {"segment.ms"}

        node = str(embedded.broker.node_id)
        result = admin.describe_configs([ConfigResource(ConfigResourceType.BROKER, node)],
                                        include_synonyms=True, config_filter="all")
        broker_configs = result["broker"][node]
        assert broker_configs["log.segment.bytes"]["value"] == "2000000"
        assert broker_configs["log.segment.bytes"]["config_source"] == "STATIC_BROKER_CONFIG"
        assert broker_configs["log.retention.hours"]["value"] == "10"
        assert [(s["name"], s["value"], s["source"])
                for s in broker_configs["log.retention.hours"]["synonyms"]] == [
            ("log.retention.hours", "10", "STATIC_BROKER_CONFIG"),
            ("log.retention.hours", "168", "DEFAULT_CONFIG")]
        assert broker_configs["num.partitions"]["config_source"] == "DEFAULT_CONFIG"
        assert broker_configs["num.partitions"]["config_type"] == "INT"
        assert broker_configs["log.retention.ms"]["value"] is None
        # the names a BROKER resource may hold (pylog/dynamic_broker_config.py) are the only ones not read-only
        assert {n for n, c in broker_configs.items() if not c["read_only"]} == (
            UPDATABLE & set(broker_configs))
        assert not broker_configs["log.retention.ms"]["read_only"]
        assert broker_configs["num.partitions"]["read_only"]

        # (kafka-python does not raise for a resource's error: the resource has no configs)
        missing = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, "kp-missing")])
        assert missing == {"topic": {"kp-missing": {}}}
    finally:
        admin.close()


def test_kafka_python_alter_configs(broker, kp_admin):
    kp_admin.create_topics([NewTopic("kp-alter", 1, 1, topic_configs={"retention.ms": "1000"})])
    resource = ConfigResource(ConfigResourceType.TOPIC, "kp-alter",
                              {"segment.bytes": "2000000", "retention.ms": ("DELETE", None),
                               "cleanup.policy": ("APPEND", "compact")})
    assert kp_admin.alter_configs([resource], validate_only=True) == {"topic": {"kp-alter": "OK"}}
    assert topic_info(broker, "kp-alter").configs == {"retention.ms": "1000"}
    resource = ConfigResource(ConfigResourceType.TOPIC, "kp-alter",
                              {"segment.bytes": "2000000", "retention.ms": ("DELETE", None),
                               "cleanup.policy": ("APPEND", "compact")})
    assert kp_admin.alter_configs([resource]) == {"topic": {"kp-alter": "OK"}}
    assert topic_info(broker, "kp-alter").configs == {"segment.bytes": "2000000",
                                                      "cleanup.policy": "delete,compact"}
    log_config = broker.call(lambda: broker.broker.log_manager.config_for("kp-alter"))
    assert (log_config.segment_bytes, log_config.cleanup_policy) == (2000000, ("delete", "compact"))
    configs = kp_admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, "kp-alter")])
    assert {k: v["value"] for k, v in configs["topic"]["kp-alter"].items()} == {
        "segment.bytes": "2000000", "cleanup.policy": "delete,compact"}

    bad = ConfigResource(ConfigResourceType.TOPIC, "kp-alter", {"segment.bytes": "-1"})
    (outcome,) = kp_admin.alter_configs([bad])["topic"].values()
    assert "InvalidConfigurationError" in outcome and "segment.bytes" in outcome
    assert topic_info(broker, "kp-alter").configs["segment.bytes"] == "2000000"

    # The legacy AlterConfigs replaces the whole set.
    legacy = ConfigResource(ConfigResourceType.TOPIC, "kp-alter", {"retention.bytes": "5000"})
    assert kp_admin.alter_configs([legacy], incremental=False) == {"topic": {"kp-alter": "OK"}}
    # (kafka-python re-sends the other modified values so that nothing is reset by accident)
    assert topic_info(broker, "kp-alter").configs["retention.bytes"] == "5000"


# ---------------------------------------------------------------------------------------
# confluent-kafka


def test_confluent_create_describe_grow_delete(broker, ck_admin):
    ck_wait(ck_admin.create_topics([CkNewTopic("ck-a", num_partitions=2, replication_factor=1,
                                               config={"retention.ms": "7200000"}),
                                    CkNewTopic("ck-b", num_partitions=1)], operation_timeout=10))
    metadata = ck_admin.list_topics(timeout=10)
    assert sorted(metadata.topics["ck-a"].partitions) == [0, 1]
    assert metadata.controller_id == broker.broker.node_id
    assert metadata.topics["ck-a"].partitions[1].replicas == [broker.broker.node_id]

    with pytest.raises(KafkaException) as raised:
        ck_wait(ck_admin.create_topics([CkNewTopic("ck-a", num_partitions=1)]))
    assert raised.value.args[0].code() == KafkaError.TOPIC_ALREADY_EXISTS
    with pytest.raises(KafkaException) as raised:
        ck_wait(ck_admin.create_topics([CkNewTopic("ck-c", num_partitions=1, replication_factor=2)]))
    assert raised.value.args[0].code() == KafkaError.INVALID_REPLICATION_FACTOR
    ck_wait(ck_admin.create_topics([CkNewTopic("ck-c", num_partitions=3)], validate_only=True))
    assert "ck-c" not in ck_admin.list_topics(timeout=10).topics

    ck_wait(ck_admin.create_partitions([CkNewPartitions("ck-a", 4)]))
    assert sorted(ck_admin.list_topics(timeout=10).topics["ck-a"].partitions) == [0, 1, 2, 3]
    assert len(partition_dirs(broker, "ck-a")) == 4
    with pytest.raises(KafkaException) as raised:
        ck_wait(ck_admin.create_partitions([CkNewPartitions("ck-a", 2)]))
    assert raised.value.args[0].code() == KafkaError.INVALID_PARTITIONS

    (configs,) = ck_wait(ck_admin.describe_configs([CkConfigResource(ResourceType.TOPIC, "ck-a")])).values()
    assert configs["retention.ms"].value == "7200000"
    assert configs["retention.ms"].source == CkConfigSource.DYNAMIC_TOPIC_CONFIG.value
    assert configs["segment.bytes"].source == CkConfigSource.DEFAULT_CONFIG.value
    assert configs["segment.bytes"].is_default
    node = str(broker.broker.node_id)
    (broker_configs,) = ck_wait(ck_admin.describe_configs(
        [CkConfigResource(ResourceType.BROKER, node)])).values()
    assert broker_configs["auto.create.topics.enable"].value == "false"
    assert broker_configs["auto.create.topics.enable"].source == CkConfigSource.STATIC_BROKER_CONFIG.value
    assert broker_configs["num.partitions"].value == "1"
    assert broker_configs["num.partitions"].is_read_only

    ck_wait(ck_admin.incremental_alter_configs([CkConfigResource(
        ResourceType.TOPIC, "ck-a", incremental_configs=[
            CkConfigEntry("retention.ms", None, incremental_operation=AlterConfigOpType.DELETE),
            CkConfigEntry("min.insync.replicas", "1", incremental_operation=AlterConfigOpType.SET)])]))
    assert topic_info(broker, "ck-a").configs == {"min.insync.replicas": "1"}

    ck_wait(ck_admin.delete_topics(["ck-a"], operation_timeout=10))
    assert partition_dirs(broker, "ck-a") == []
    assert "ck-a" not in ck_admin.list_topics(timeout=10).topics
    with pytest.raises(KafkaException) as raised:
        ck_wait(ck_admin.delete_topics(["ck-a"]))
    assert raised.value.args[0].code() == KafkaError.UNKNOWN_TOPIC_OR_PART


# ---------------------------------------------------------------------------------------
# Raw requests: every version, and the codes clients hide


@pytest.mark.parametrize("version", range(8))
def test_create_topics_every_version(raw, broker, version):
    name = f"raw-v{version}"
    num_partitions = -1 if version >= 4 else 2
    response = raw.request(19, version, CreateTopicsRequest(topics=[
        Topic(name=name, num_partitions=num_partitions, replication_factor=1,
              configs=[TopicConfig(name="retention.bytes", value="1000")])], timeout_ms=5000))
    (result,) = response.topics
    assert (result.name, result.error_code) == (name, 0)
    info = topic_info(broker, name)
    assert info.configs == {"retention.bytes": "1000"}
    if version >= 1:
        assert result.error_message is None
    if version >= 5:
        assert (result.num_partitions, result.replication_factor) == (info.num_partitions, 1)
        configs = {c.name: c for c in result.configs}
        assert configs["retention.bytes"].value == "1000"
        assert configs["retention.bytes"].config_source == DYNAMIC_TOPIC_CONFIG
        assert configs["retention.ms"].config_source == DEFAULT_CONFIG
    if version >= 7:
        assert result.topic_id == info.topic_id
    again = raw.request(19, version, CreateTopicsRequest(topics=[
        Topic(name=name, num_partitions=1, replication_factor=1)]))
    assert again.topics[0].error_code == ErrorCode.TOPIC_ALREADY_EXISTS


def test_create_topics_errors_raw(raw, broker):
    existing = raw.request(19, 7, CreateTopicsRequest(topics=[Topic(name="a.b", num_partitions=1,
                                                                    replication_factor=-1)]))
    assert existing.topics[0].error_code == 0
    topics = [
        Topic(name="dup", num_partitions=1, replication_factor=1),
        Topic(name="dup", num_partitions=1, replication_factor=1),
        Topic(name="a_b", num_partitions=1, replication_factor=1),
        Topic(name="", num_partitions=1, replication_factor=1),
        Topic(name="x" * 250, num_partitions=1, replication_factor=1),
        Topic(name="rf0", num_partitions=1, replication_factor=0),
        Topic(name="rf-2", num_partitions=1, replication_factor=-2),
        Topic(name="p-2", num_partitions=-2, replication_factor=1),
        Topic(name="nullcfg", num_partitions=1, replication_factor=1,
              configs=[TopicConfig(name="retention.ms", value=None)]),
        Topic(name="badcfg", num_partitions=1, replication_factor=1,
              configs=[TopicConfig(name="cleanup.policy", value="sometimes")]),
        Topic(name="unknowncfg", num_partitions=1, replication_factor=1,
              configs=[TopicConfig(name="log.retention.ms", value="1")]),
        Topic(name="asg-rf", num_partitions=-1, replication_factor=1,
              assignments=[Assignment(partition_index=0, broker_ids=[1])]),
        Topic(name="asg-np", num_partitions=1, replication_factor=-1,
              assignments=[Assignment(partition_index=0, broker_ids=[1])]),
        Topic(name="asg-other-broker", num_partitions=-1, replication_factor=-1,
              assignments=[Assignment(partition_index=0, broker_ids=[2])]),
        Topic(name="asg-twice", num_partitions=-1, replication_factor=-1,
              assignments=[Assignment(partition_index=0, broker_ids=[1, 1])]),
        Topic(name="asg-empty", num_partitions=-1, replication_factor=-1,
              assignments=[Assignment(partition_index=0, broker_ids=[])]),
        Topic(name="asg-gap", num_partitions=-1, replication_factor=-1,
              assignments=[Assignment(partition_index=0, broker_ids=[1]),
                           Assignment(partition_index=2, broker_ids=[1])]),
        Topic(name="asg-same-partition", num_partitions=-1, replication_factor=-1,
              assignments=[Assignment(partition_index=0, broker_ids=[1]),
                           Assignment(partition_index=0, broker_ids=[1])]),
        Topic(name="asg-ok", num_partitions=-1, replication_factor=-1,
              assignments=[Assignment(partition_index=1, broker_ids=[1]),
                           Assignment(partition_index=0, broker_ids=[1])]),
        Topic(name="__cluster_metadata", num_partitions=1, replication_factor=1),
    ]
    response = raw.request(19, 7, CreateTopicsRequest(topics=topics))
    codes = {t.name: (t.error_code, t.error_message) for t in response.topics}
    assert len(response.topics) == len(topics) - 1  # one result for the duplicated name
    expected = {
        "dup": ErrorCode.INVALID_REQUEST,
        "a_b": ErrorCode.INVALID_TOPIC_EXCEPTION,
        "": ErrorCode.INVALID_TOPIC_EXCEPTION,
        "x" * 250: ErrorCode.INVALID_TOPIC_EXCEPTION,
        "rf0": ErrorCode.INVALID_REPLICATION_FACTOR,
        "rf-2": ErrorCode.INVALID_REPLICATION_FACTOR,
        "p-2": ErrorCode.INVALID_PARTITIONS,
        "nullcfg": ErrorCode.INVALID_CONFIG,
        "badcfg": ErrorCode.INVALID_CONFIG,
        "unknowncfg": ErrorCode.INVALID_CONFIG,
        "asg-rf": ErrorCode.INVALID_REQUEST,
        "asg-np": ErrorCode.INVALID_REQUEST,
        "asg-other-broker": ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        "asg-twice": ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        "asg-empty": ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        "asg-gap": ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        "asg-same-partition": ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        "asg-ok": ErrorCode.NONE,
        "__cluster_metadata": ErrorCode.INVALID_REQUEST,   # Kafka 4.1's ControllerApis
    }
    assert {name: code for name, (code, _) in codes.items()} == expected
    assert codes["dup"][1] == "Duplicate topic name."
    assert codes["a_b"][1] == "Topic 'a_b' collides with existing topic: a.b"
    assert codes[""][1] == "Topic name is invalid: the empty string is not allowed"
    assert codes["x" * 250][1] == ("Topic name is invalid: the length of '" + "x" * 250 +
                                   "' is longer than the max allowed length 249")
    assert codes["unknowncfg"][1] == "Unknown topic config name: log.retention.ms"
    assert codes["nullcfg"][1] == "Null value not supported for topic configs: retention.ms"
    assert "cleanup.policy" in codes["badcfg"][1] and "sometimes" in codes["badcfg"][1]
    assert codes["asg-other-broker"][1] == ("The manual partition assignment includes broker 2, "
                                            "but no such broker is registered.")
    assert codes["asg-gap"][1] == "partitions should be a consecutive 0-based integer sequence"
    ok = next(t for t in response.topics if t.name == "asg-ok")
    assert (ok.num_partitions, ok.replication_factor) == (2, 1)
    assert partition_dirs(broker, "asg-ok") == [log_dir_name("asg-ok", p) for p in range(2)]
    created = set(broker.call(lambda: list(broker.broker.metadata.topics)))
    assert created == {"a.b", "asg-ok"}


def test_create_topics_too_many_partitions_at_once(raw, broker):
    response = raw.request(19, 4, CreateTopicsRequest(topics=[
        Topic(name="small", num_partitions=1, replication_factor=1),
        Topic(name="huge", num_partitions=10_000, replication_factor=1)]))
    assert [(t.name, t.error_code) for t in response.topics] == [
        ("small", ErrorCode.POLICY_VIOLATION), ("huge", ErrorCode.POLICY_VIOLATION)]
    # 10,001 partitions in one request: Kafka's ReplicationControlManager refuses them
    # before it counts records
    assert response.topics[0].error_message == "Excessively large number of partitions per request."
    assert topic_info(broker, "small") is None and topic_info(broker, "huge") is None


def test_create_topics_reports_broker_defaults(broker_factory):
    embedded = broker_factory({"num.partitions": "3", "log.segment.bytes": "5000000"})
    client = RawClient(embedded.bootstrap_servers)
    try:
        response = client.request(19, 5, CreateTopicsRequest(topics=[
            Topic(name="defaults", num_partitions=-1, replication_factor=-1)], validate_only=True))
    finally:
        client.close()
    (result,) = response.topics
    assert (result.error_code, result.num_partitions, result.replication_factor) == (0, 3, 1)
    configs = {c.name: c for c in result.configs}
    assert (configs["segment.bytes"].value, configs["segment.bytes"].config_source) == (
        "5000000", STATIC_BROKER_CONFIG)
    assert configs["segment.ms"].config_source == DEFAULT_CONFIG
    assert topic_info(embedded, "defaults") is None


def test_create_topics_with_replication_factor_default_above_one(broker_factory):
    embedded = broker_factory({"default.replication.factor": "3"})
    client = RawClient(embedded.bootstrap_servers)
    try:
        response = client.request(19, 4, CreateTopicsRequest(topics=[
            Topic(name="rf-default", num_partitions=1, replication_factor=-1)]))
    finally:
        client.close()
    assert response.topics[0].error_code == ErrorCode.INVALID_REPLICATION_FACTOR


@pytest.mark.parametrize("version", range(6))
def test_delete_topics_every_version(raw, broker, version):
    raw.request(19, 4, CreateTopicsRequest(topics=[Topic(name="gone", num_partitions=2, replication_factor=1)]))
    topic_id = topic_info(broker, "gone").topic_id
    response = raw.request(20, version, DeleteTopicsRequest(topic_names=["gone", "never", "twice", "twice"],
                                                           timeout_ms=1000))
    results = {r.name: r for r in response.responses}
    assert {name: r.error_code for name, r in results.items()} == {
        "gone": 0, "never": ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "twice": ErrorCode.INVALID_REQUEST}
    if version >= 5:
        assert results["twice"].error_message == "Duplicate topic name."
    assert topic_info(broker, "gone") is None and partition_dirs(broker, "gone") == []
    assert topic_id  # (ids are reported from v6, which pylog does not serve)


@pytest.mark.parametrize("version, code", [(1, ErrorCode.INVALID_REQUEST),
                                           (3, ErrorCode.TOPIC_DELETION_DISABLED),
                                           (5, ErrorCode.TOPIC_DELETION_DISABLED)])
def test_delete_topics_disabled(broker_factory, version, code):
    embedded = broker_factory({"delete.topic.enable": "false"})
    client = RawClient(embedded.bootstrap_servers)
    try:
        client.request(19, 4, CreateTopicsRequest(topics=[Topic(name="kept", num_partitions=1,
                                                                replication_factor=1)]))
        response = client.request(20, version, DeleteTopicsRequest(topic_names=["kept", "unknown"], timeout_ms=30_000))
    finally:
        client.close()
    assert [(r.name, r.error_code) for r in response.responses] == [("kept", code), ("unknown", code)]
    assert partition_dirs(embedded, "kept") == [log_dir_name("kept", 0)]


@pytest.mark.parametrize("version", range(4))
def test_create_partitions_every_version(raw, broker, version):
    Request = CreatePartitionsRequest

    def grow(topics, timeout_ms=30_000):   # Kafka answers a timeout of 0 REQUEST_TIMED_OUT
        return Request(topics=topics, timeout_ms=timeout_ms)

    raw.request(19, 4, CreateTopicsRequest(topics=[Topic(name="grow", num_partitions=1, replication_factor=1)]))
    response = raw.request(37, version, grow([
        Request.CreatePartitionsTopic(name="grow", count=3, assignments=None),
        Request.CreatePartitionsTopic(name="nope", count=3, assignments=None)], timeout_ms=1000))
    assert {r.name: r.error_code for r in response.results} == {
        "grow": 0, "nope": ErrorCode.UNKNOWN_TOPIC_OR_PARTITION}
    assert topic_info(broker, "grow").num_partitions == 3

    topics = [
        Request.CreatePartitionsTopic(name="grow", count=5, assignments=[
            Request.CreatePartitionsAssignment(broker_ids=[broker.broker.node_id])]),
    ]
    response = raw.request(37, version, grow(topics))
    assert response.results[0].error_code == ErrorCode.INVALID_REPLICA_ASSIGNMENT
    assert response.results[0].error_message == (
        "Attempted to add 2 additional partition(s), but only 1 assignment(s) were specified.")
    response = raw.request(37, version, grow([Request.CreatePartitionsTopic(
        name="grow", count=4, assignments=[Request.CreatePartitionsAssignment(broker_ids=[7])])]))
    assert response.results[0].error_code == ErrorCode.INVALID_REPLICA_ASSIGNMENT
    response = raw.request(37, version, grow([Request.CreatePartitionsTopic(
        name="grow", count=3, assignments=None)]))
    assert (response.results[0].error_code, response.results[0].error_message) == (
        ErrorCode.INVALID_PARTITIONS, "Topic already has 3 partition(s).")
    response = raw.request(37, version, grow([
        Request.CreatePartitionsTopic(name="grow", count=4, assignments=None),
        Request.CreatePartitionsTopic(name="grow", count=5, assignments=None)]))
    assert [(r.name, r.error_code) for r in response.results] == [("grow", ErrorCode.INVALID_REQUEST)]
    response = raw.request(37, version, grow([Request.CreatePartitionsTopic(
        name="grow", count=4, assignments=[Request.CreatePartitionsAssignment(
            broker_ids=[broker.broker.node_id])])]))
    assert response.results[0].error_code == 0
    assert partition_dirs(broker, "grow") == [log_dir_name("grow", p) for p in range(4)]
    # past the 10,000 records one request may write: Kafka 4.1's UNKNOWN_SERVER_ERROR (checked
    # only: carried out, it would still add 10,000 partitions, as Kafka's does)
    response = raw.request(37, version, Request(topics=[Request.CreatePartitionsTopic(
        name="grow", count=20_000, assignments=None)], timeout_ms=30_000, validate_only=True))
    assert (response.results[0].error_code, response.results[0].error_message) == (
        ErrorCode.UNKNOWN_SERVER_ERROR, None)
    assert topic_info(broker, "grow").num_partitions == 4


def test_describe_configs_with_an_unknown_resource_type_refuses_every_resource(raw, broker):
    """Kafka's KafkaApis throws on the unknown type before describing anything: every
    resource gets INVALID_REQUEST with the code's own text and no configs."""
    response = raw.request(32, 4, DescribeConfigsRequest(resources=[
        Resource(resource_type=BROKER, resource_name=str(broker.broker.node_id), configuration_keys=None),
        Resource(resource_type=99, resource_name="x", configuration_keys=None)]))
    assert [(r.resource_type, r.resource_name, r.error_code, r.error_message, r.configs) for r in response.results] == [
        (BROKER, str(broker.broker.node_id), ErrorCode.INVALID_REQUEST, ErrorCode.INVALID_REQUEST.message, []),
        (99, "x", ErrorCode.INVALID_REQUEST, ErrorCode.INVALID_REQUEST.message, [])]


@pytest.mark.parametrize("version", range(5))
def test_describe_configs_every_version(raw, broker, version):
    raw.request(19, 4, CreateTopicsRequest(topics=[Topic(
        name="conf", num_partitions=1, replication_factor=1,
        configs=[TopicConfig(name="retention.bytes", value="12345")])]))
    node = str(broker.broker.node_id)
    response = raw.request(32, version, DescribeConfigsRequest(resources=[
        Resource(resource_type=TOPIC, resource_name="conf", configuration_keys=None),
        Resource(resource_type=TOPIC, resource_name="conf",
                 configuration_keys=["retention.bytes", "segment.ms", "no.such.key"]),
        Resource(resource_type=TOPIC, resource_name="missing", configuration_keys=None),
        Resource(resource_type=TOPIC, resource_name="bad name", configuration_keys=None),
        Resource(resource_type=BROKER, resource_name=node, configuration_keys=["num.partitions"]),
        Resource(resource_type=BROKER, resource_name="", configuration_keys=None),
        Resource(resource_type=BROKER, resource_name="99", configuration_keys=None),
        Resource(resource_type=BROKER, resource_name="one", configuration_keys=None),
        Resource(resource_type=8, resource_name=node, configuration_keys=None),
    ], include_synonyms=True, include_documentation=True))
    (full, keyed, missing, bad, broker_result, default_broker, other_node, not_a_number,
     logger) = response.results
    assert [r.error_code for r in response.results] == [
        0, 0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.INVALID_TOPIC_EXCEPTION, 0, 0,
        ErrorCode.INVALID_REQUEST, ErrorCode.INVALID_REQUEST, 0]
    assert (full.resource_type, full.resource_name) == (TOPIC, "conf")
    entries = {c.name: c for c in full.configs}
    assert set(entries) == DESCRIBED_TOPIC_CONFIGS
    assert [c.name for c in keyed.configs] == ["segment.ms", "retention.bytes"]   # Kafka's order (tests/pylog/test_scala_order.py)
    changed, default = entries["retention.bytes"], entries["segment.ms"]
    assert (changed.value, default.value) == ("12345", "604800000")
    assert not changed.read_only and not changed.is_sensitive
    if version == 0:
        assert (changed.is_default, default.is_default) == (False, True)
    else:
        assert (changed.config_source, default.config_source) == (DYNAMIC_TOPIC_CONFIG, DEFAULT_CONFIG)
        assert [(s.name, s.value, s.source) for s in changed.synonyms] == [
            ("retention.bytes", "12345", DYNAMIC_TOPIC_CONFIG), ("log.retention.bytes", "-1", DEFAULT_CONFIG)]
    if version >= 3:
        assert (changed.config_type, entries["cleanup.policy"].config_type,
                entries["preallocate"].config_type) == (5, 7, 1)
        assert changed.documentation is None
    (num_partitions,) = broker_result.configs
    assert (num_partitions.name, num_partitions.value, num_partitions.read_only) == ("num.partitions", "1", True)
    if version >= 3:
        assert num_partitions.config_type == 3 and num_partitions.documentation
    # the cluster default the controller writes at bootstrap, as Kafka 4.1's does
    (min_insync,) = default_broker.configs
    assert (min_insync.name, min_insync.value, min_insync.read_only) == ("min.insync.replicas", "1", False)
    if version >= 1:
        assert min_insync.config_source == DYNAMIC_DEFAULT_BROKER_CONFIG
        assert [(s.name, s.value, s.source) for s in min_insync.synonyms] == [
            ("min.insync.replicas", "1", DYNAMIC_DEFAULT_BROKER_CONFIG)]
    assert other_node.error_message == "Unexpected broker id, expected 1 or empty string, but received 99"
    assert not_a_number.error_message == "Broker id must be an integer, but it is: one"
    assert missing.configs == []
    levels = {c.name: (c.value, c.config_source, c.read_only) for c in logger.configs}
    assert levels["root"][0] in ("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL", "OFF")
    if version >= 1:
        assert levels["pylog.configs"][1:] == (6, False)   # DYNAMIC_BROKER_LOGGER_CONFIG


def test_incremental_alter_configs_raw(raw, broker):
    Request = IncrementalAlterConfigsRequest
    raw.request(19, 4, CreateTopicsRequest(topics=[Topic(name="inc", num_partitions=1, replication_factor=1)]))

    def alter(resource_type, name, *configs, validate_only=False, version=1):
        return raw.request(44, version, Request(validate_only=validate_only, resources=[
            Request.AlterConfigsResource(resource_type=resource_type, resource_name=name, configs=[
                Request.AlterableConfig(name=n, config_operation=op, value=v) for n, op, v in configs])]))

    SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3
    result = alter(TOPIC, "inc", ("cleanup.policy", APPEND, "compact"), ("retention.ms", SET, "1000"))
    assert result.responses[0].error_code == 0
    assert topic_info(broker, "inc").configs == {"cleanup.policy": "delete,compact", "retention.ms": "1000"}
    result = alter(TOPIC, "inc", ("cleanup.policy", SUBTRACT, "delete"), ("retention.ms", DELETE, None),
                   version=0)
    assert result.responses[0].error_code == 0
    assert topic_info(broker, "inc").configs == {"cleanup.policy": "compact"}
    result = alter(TOPIC, "inc", ("retention.ms", SET, "5"), validate_only=True)
    assert result.responses[0].error_code == 0
    assert topic_info(broker, "inc").configs == {"cleanup.policy": "compact"}

    cases = [
        ((TOPIC, "inc", ("retention.ms", APPEND, "5")), ErrorCode.INVALID_CONFIG,
         "Can't APPEND to key retention.ms because its type is not LIST."),
        ((TOPIC, "inc", ("no.such", SET, "5")), ErrorCode.INVALID_CONFIG, "Unknown topic config name: no.such"),
        ((TOPIC, "inc", ("retention.ms", SET, "soon")), ErrorCode.INVALID_CONFIG, None),
        # an unknown operation fails the request: Kafka's controller meets a null OpType
        ((TOPIC, "inc", ("retention.ms", 9, "1")), ErrorCode.UNKNOWN_SERVER_ERROR, None),
        ((TOPIC, "inc", ("retention.ms", SET, "1"), ("retention.ms", DELETE, None)),
         ErrorCode.INVALID_REQUEST, None),
        ((TOPIC, "nope", ("retention.ms", SET, "1")), ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
         "The topic 'nope' does not exist."),
        ((TOPIC, "", ("retention.ms", SET, "1")), ErrorCode.INVALID_REQUEST,
         "Default topic resources are not allowed."),
        ((BROKER, str(broker.broker.node_id), ("num.partitions", SET, "3")), ErrorCode.INVALID_REQUEST,
         "Cannot update these configs dynamically: Set(num.partitions)"),
        # refused by the broker before the controller (Kafka's ConfigAdminManager.preprocess)
        ((77, "x", ("a", SET, "1")), ErrorCode.INVALID_REQUEST, "Unknown resource type 77"),
    ]
    for args, code, message in cases:
        (response,) = alter(*args).responses
        assert response.error_code == code, args
        if message is not None:
            assert response.error_message == message
    assert topic_info(broker, "inc").configs == {"cleanup.policy": "compact"}

    duplicate = raw.request(44, 1, Request(resources=[
        Request.AlterConfigsResource(resource_type=TOPIC, resource_name="inc", configs=[]),
        Request.AlterConfigsResource(resource_type=TOPIC, resource_name="inc", configs=[])]))
    assert [(r.resource_name, r.error_code, r.error_message) for r in duplicate.responses] == [
        ("inc", ErrorCode.INVALID_REQUEST, "Each resource must appear at most once.")] * 2


@pytest.mark.parametrize("version", range(3))
def test_alter_configs_replaces_the_set(raw, broker, version):
    Request = AlterConfigsRequest
    raw.request(19, 4, CreateTopicsRequest(topics=[Topic(name="legacy", num_partitions=1, replication_factor=1,
                                                         configs=[TopicConfig(name="retention.ms", value="1")])]))
    response = raw.request(33, version, Request(resources=[Request.AlterConfigsResource(
        resource_type=TOPIC, resource_name="legacy",
        configs=[Request.AlterableConfig(name="segment.ms", value="100000")])]))
    assert response.responses[0].error_code == 0
    assert topic_info(broker, "legacy").configs == {"segment.ms": "100000"}
    log_config = broker.call(lambda: broker.broker.log_manager.config_for("legacy"))
    assert (log_config.segment_ms, log_config.retention_ms) == (100000, 7 * 24 * 3600 * 1000)
    response = raw.request(33, version, Request(resources=[Request.AlterConfigsResource(
        resource_type=TOPIC, resource_name="legacy",
        configs=[Request.AlterableConfig(name="segment.ms", value="0")])]))
    assert response.responses[0].error_code == ErrorCode.INVALID_CONFIG
    assert topic_info(broker, "legacy").configs == {"segment.ms": "100000"}
    response = raw.request(33, version, Request(validate_only=True, resources=[Request.AlterConfigsResource(
        resource_type=TOPIC, resource_name="legacy", configs=[])]))
    assert response.responses[0].error_code == 0
    assert topic_info(broker, "legacy").configs == {"segment.ms": "100000"}
    # A null value is refused by the broker before the controller sees it (Kafka's
    # ConfigAdminManager.preprocess, as Kafka 4.1.1 answers it).
    response = raw.request(33, version, Request(resources=[Request.AlterConfigsResource(
        resource_type=TOPIC, resource_name="legacy",
        configs=[Request.AlterableConfig(name="segment.ms", value=None)])]))
    assert (response.responses[0].error_code, response.responses[0].error_message) == (
        ErrorCode.INVALID_REQUEST, "Null value not supported for : segment.ms")
    assert topic_info(broker, "legacy").configs == {"segment.ms": "100000"}


def test_topic_configs_survive_a_restart(broker_factory):
    embedded = broker_factory()
    client = RawClient(embedded.bootstrap_servers)
    try:
        client.request(19, 4, CreateTopicsRequest(topics=[Topic(
            name="durable", num_partitions=2, replication_factor=1,
            configs=[TopicConfig(name="segment.bytes", value="2000000")])]))
        client.request(44, 1, IncrementalAlterConfigsRequest(resources=[
            IncrementalAlterConfigsRequest.AlterConfigsResource(resource_type=TOPIC, resource_name="durable",
                configs=[IncrementalAlterConfigsRequest.AlterableConfig(
                    name="retention.bytes", config_operation=0, value="77777")])]))
        client.request(37, 3, CreatePartitionsRequest(topics=[CreatePartitionsRequest.CreatePartitionsTopic(
            name="durable", count=3, assignments=None)], timeout_ms=30_000))
    finally:
        client.close()
    embedded.restart()
    info = topic_info(embedded, "durable")
    assert (info.num_partitions, info.configs) == (3, {"segment.bytes": "2000000", "retention.bytes": "77777"})
    log_config = embedded.call(lambda: embedded.broker.log_manager.config_for("durable"))
    assert (log_config.segment_bytes, log_config.retention_bytes) == (2000000, 77777)
    client = RawClient(embedded.bootstrap_servers)
    try:
        response = client.request(32, 1, DescribeConfigsRequest(resources=[Resource(
            resource_type=TOPIC, resource_name="durable", configuration_keys=["segment.bytes"])]))
    finally:
        client.close()
    assert [(c.name, c.value, c.config_source) for c in response.results[0].configs] == [
        ("segment.bytes", "2000000", DYNAMIC_TOPIC_CONFIG)]


def test_segment_bytes_below_a_mib_is_refused_and_internal_segment_bytes_sets_small_segments(broker, raw):
    """Kafka 4's rules: segment.bytes (and the broker's log.segment.bytes) at least 1 MiB,
    with Kafka's messages; its test-only internal.segment.bytes takes any INT, is described
    only where a topic sets it, and is the size the log rolls at."""
    refused = "Invalid value 16384 for configuration segment.bytes: Value must be at least 1048576"
    created = raw.request(19, 5, CreateTopicsRequest(topics=[
        Topic(name="small", num_partitions=1, replication_factor=1,
              configs=[TopicConfig(name="segment.bytes", value="16384")]),
        Topic(name="tiny", num_partitions=1, replication_factor=1,
              configs=[TopicConfig(name="internal.segment.bytes", value="4096")]),
        Topic(name="plain", num_partitions=1, replication_factor=1)]))
    assert [(t.name, t.error_code, t.error_message) for t in created.topics] == [
        ("small", ErrorCode.INVALID_CONFIG, refused), ("tiny", 0, None), ("plain", 0, None)]
    assert {c.name: (c.value, c.config_source) for c in created.topics[1].configs}["internal.segment.bytes"] == (
        "4096", DYNAMIC_TOPIC_CONFIG)
    assert "internal.segment.bytes" not in {c.name for c in created.topics[2].configs}

    Alter = IncrementalAlterConfigsRequest
    altered = raw.request(44, 1, Alter(resources=[
        Alter.AlterConfigsResource(resource_type=TOPIC, resource_name="plain", configs=[
            Alter.AlterableConfig(name="segment.bytes", config_operation=0, value="16384")]),
        Alter.AlterConfigsResource(resource_type=BROKER, resource_name="", configs=[
            Alter.AlterableConfig(name="log.segment.bytes", config_operation=0, value="16384")]),
        Alter.AlterConfigsResource(resource_type=TOPIC, resource_name="tiny", configs=[
            Alter.AlterableConfig(name="internal.segment.bytes", config_operation=0, value="-5")])]))
    assert [(r.error_code, r.error_message) for r in altered.responses] == [
        (ErrorCode.INVALID_CONFIG, refused),
        (ErrorCode.INVALID_REQUEST,
         "Invalid value 16384 for configuration log.segment.bytes: Value must be at least 1048576"),
        (0, None)]

    described = raw.request(32, 4, DescribeConfigsRequest(include_synonyms=True, resources=[
        Resource(resource_type=TOPIC, resource_name=name, configuration_keys=None) for name in ("tiny", "plain")]))
    tiny, plain = ({c.name: c for c in result.configs} for result in described.results)
    assert set(plain) == DESCRIBED_TOPIC_CONFIGS
    entry = tiny["internal.segment.bytes"]
    assert (entry.value, entry.config_source, [(s.name, s.value, s.source) for s in entry.synonyms]) == (
        "-5", DYNAMIC_TOPIC_CONFIG, [("internal.segment.bytes", "-5", DYNAMIC_TOPIC_CONFIG)])


def test_internal_segment_bytes_is_the_size_the_log_rolls_at(broker, raw):
    raw.request(19, 5, CreateTopicsRequest(topics=[Topic(
        name="rolling", num_partitions=1, replication_factor=1,
        configs=[TopicConfig(name="internal.segment.bytes", value="2048")])]))
    log = broker.call(lambda: broker.broker.partition("rolling", 0).log)
    now_ms = int(time.time() * 1000)
    for i in range(10):
        batch = build_batch([(None, b"x" * 500)], timestamp_ms=now_ms)
        answer = raw.request(0, 9, ProduceRequest(acks=-1, timeout_ms=5000, topic_data=[
            ProduceRequest.TopicProduceData(name="rolling", partition_data=[
                ProduceRequest.PartitionProduceData(index=0, records=batch)])]))
        assert answer.responses[0].partition_responses[0].error_code == 0
    sizes = broker.call(lambda: [segment.size_bytes for segment in log.segments])
    assert len(sizes) == 4 and max(sizes) <= 2048, sizes
    # an append larger than the segment size could never fit: Kafka's RECORD_LIST_TOO_LARGE
    big = build_batch([(None, b"y" * 3000)], timestamp_ms=now_ms)
    answer = raw.request(0, 9, ProduceRequest(acks=-1, timeout_ms=5000, topic_data=[
        ProduceRequest.TopicProduceData(name="rolling", partition_data=[
            ProduceRequest.PartitionProduceData(index=0, records=big)])]))
    assert answer.responses[0].partition_responses[0].error_code == ErrorCode.RECORD_LIST_TOO_LARGE


def test_a_timeout_of_zero_or_less_is_past_before_the_controller_runs_the_request(raw, broker):
    """Kafka's controller runs CreateTopics, DeleteTopics and CreatePartitions by a deadline
    of now plus `timeout_ms`: 0 or less is past, every topic gets REQUEST_TIMED_OUT with no
    message, and nothing is done (tests/compat/test_admin_timeouts.py)."""
    created = raw.request(19, 5, CreateTopicsRequest(timeout_ms=0, topics=[
        Topic(name="late", num_partitions=1, replication_factor=1), Topic(name="bad name", num_partitions=1,
                                                                          replication_factor=1)]))
    assert [(t.name, t.error_code, t.error_message) for t in created.topics] == [
        ("late", ErrorCode.REQUEST_TIMED_OUT, None), ("bad name", ErrorCode.REQUEST_TIMED_OUT, None)]
    assert raw.request(19, 5, CreateTopicsRequest(timeout_ms=1, topics=[
        Topic(name="kept", num_partitions=1, replication_factor=1)])).topics[0].error_code == 0
    grown = raw.request(37, 3, CreatePartitionsRequest(timeout_ms=-1, topics=[
        CreatePartitionsRequest.CreatePartitionsTopic(name="kept", count=2, assignments=None)]))
    assert [(r.name, r.error_code, r.error_message) for r in grown.results] == [
        ("kept", ErrorCode.REQUEST_TIMED_OUT, None)]
    deleted = raw.request(20, 6, DeleteTopicsRequest(timeout_ms=0, topics=[DeleteTopicsRequest.DeleteTopicState(
        name="kept")]))
    assert [(r.name, r.error_code, r.error_message) for r in deleted.responses] == [
        ("kept", ErrorCode.REQUEST_TIMED_OUT, None)]
    assert topic_info(broker, "kept").num_partitions == 1
    assert topic_info(broker, "late") is None
