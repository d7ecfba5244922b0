"""The reference Kafka's own `__cluster_metadata` log, read with `protocol.metadata_log` and
replayed into `pylog.metadata_image`, against what that Kafka reports.

One Kafka node (its own, not the session's: the test restarts it) gets topics with configs,
more partitions, a deleted topic, broker configs and a producer id block, and is restarted
(a controlled shutdown fences the broker and takes it out of every ISR, the restart
registers it again). Then:

- every batch of every segment passes its CRC, decodes (data batches as framed metadata
  records, control batches as Raft's control records), and re-encodes to the same bytes;
- the image the records build says what Kafka's Metadata (brokers, topics, ids, leaders,
  leader epochs, replicas, ISR), DescribeConfigs (the dynamic topic, broker and cluster
  default configs) and ApiVersions (finalized features) answer.

And the other way: a metadata log written here (`build_metadata_batch`,
`build_control_batch`) is printed by Kafka's `kafka-dump-log --cluster-metadata-decoder`
with every record and field as written.
"""

from __future__ import annotations

import base64
import json
import time
import uuid

import confluent_kafka.admin as confluent_admin
import pytest

from protocol import codegen
from protocol.messages import (
    ApiVersionsRequest,
    DescribeConfigsRequest,
    IncrementalAlterConfigsRequest,
    InitProducerIdRequest,
    LeaderChangeMessage,
)
from protocol.metadata import (
    BeginTransactionRecord,
    BrokerRegistrationChangeRecord,
    ConfigRecord,
    EndTransactionRecord,
    FeatureLevelRecord,
    NoOpRecord,
    PartitionChangeRecord,
    PartitionRecord,
    ProducerIdsRecord,
    RegisterBrokerRecord,
    TopicRecord,
)
from protocol.metadata_log import (
    METADATA_TOPIC,
    METADATA_TOPIC_ID,
    build_control_batch,
    build_metadata_batch,
    read_metadata_batch,
)
from protocol.records import ControlType, iter_batches, validate_batch
from pylog.metadata_image import BROKER_RESOURCE, TOPIC_RESOURCE, MetadataImage
from tests.compat.reference import KafkaBroker
from tests.integration.support import WireClient


# DescribeConfigs' config_source values
DYNAMIC_TOPIC_CONFIG = 1
DYNAMIC_BROKER_CONFIG = 2
DYNAMIC_DEFAULT_BROKER_CONFIG = 3
# IncrementalAlterConfigs' operations
SET = 0
DELETE = 1


@pytest.fixture(scope="module")
def kafka_after_changes(tmp_path_factory):
    broker = KafkaBroker(tmp_path_factory.mktemp("cluster-metadata") / "data")
    broker.start()
    try:
        admin = confluent_admin.AdminClient({"bootstrap.servers": broker.bootstrap_servers})
        wait_all(admin.create_topics([
            confluent_admin.NewTopic("orders", 3, 1, config={"cleanup.policy": "compact", "retention.ms": "3600000"}),
            confluent_admin.NewTopic("events", 1, 1),
            confluent_admin.NewTopic("gone", 2, 1, config={"segment.ms": "60000"}),
        ]))
        wait_all(admin.create_partitions([confluent_admin.NewPartitions("events", 4)]))
        wait_all(admin.delete_topics(["gone"]))
        with WireClient(broker.bootstrap_servers) as wire:
            alter_configs(wire, [(TOPIC_RESOURCE, "events", "max.message.bytes", SET, "65536"),
                                 (TOPIC_RESOURCE, "orders", "retention.ms", DELETE, None),
                                 (BROKER_RESOURCE, "1", "log.cleaner.threads", SET, "2"),
                                 (BROKER_RESOURCE, "", "log.retention.bytes", SET, "1073741824")])
            producer_id = init_producer_id(wire)
        broker.stop()
        broker.start()
        wait_for_leaders(broker, {"orders": 3, "events": 4})
        yield broker, producer_id
    finally:
        broker.stop()


def alter_configs(wire: WireClient, changes) -> None:
    """One IncrementalAlterConfigs per change: (resource type, name, key, operation, value)."""
    for resource_type, name, key, operation, value in changes:
        request = IncrementalAlterConfigsRequest(resources=[IncrementalAlterConfigsRequest.AlterConfigsResource(
            resource_type=resource_type, resource_name=name, configs=[
                IncrementalAlterConfigsRequest.AlterableConfig(name=key, config_operation=operation, value=value)])])
        (result,) = wire.request(44, 1, request).responses
        assert result.error_code == 0, (name, key, result.error_code, result.error_message)


def init_producer_id(wire: WireClient, timeout_s: float = 30) -> int:
    """An idempotent producer's id (the first makes the controller write a ProducerIdsRecord);
    retried while Kafka answers COORDINATOR_LOAD_IN_PROGRESS / NOT_COORDINATOR."""
    deadline = time.monotonic() + timeout_s
    while True:
        response = wire.request(22, 1, InitProducerIdRequest(transactional_id=None, transaction_timeout_ms=60_000))
        if response.error_code == 0:
            return response.producer_id
        assert response.error_code in (14, 16) and time.monotonic() < deadline, response.error_code
        time.sleep(0.2)


def wait_all(futures: dict) -> None:
    for future in futures.values():
        future.result(60)


def wait_for_leaders(broker: KafkaBroker, partitions: dict[str, int], timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        with WireClient(broker.bootstrap_servers) as wire:
            metadata = wire.metadata(list(partitions))
        led = {t.name: sum(p.leader_id >= 0 for p in t.partitions) for t in metadata.topics}
        if led == partitions:
            return
        assert time.monotonic() < deadline, f"partitions without a leader after {timeout_s} s: {led}"
        time.sleep(0.2)


def metadata_segments(broker: KafkaBroker):
    folder = broker.data_dir / f"{METADATA_TOPIC}-0"
    return sorted(folder.glob("*.log"))


def replay(broker: KafkaBroker) -> tuple[MetadataImage, dict]:
    """The image of every complete batch in the log, and counts of what was read. Each batch
    is also rebuilt from its decoded records and must come out byte for byte."""
    image = MetadataImage()
    counts = {"batches": 0, "control": 0, "records": 0, "types": set()}
    for segment in metadata_segments(broker):
        for batch in iter_batches(segment.read_bytes()):
            validate_batch(batch)
            header, entries = read_metadata_batch(batch)
            if header.is_control:
                rebuilt = build_control_batch([e.record for e in entries], base_offset=header.base_offset,
                                              leader_epoch=header.partition_leader_epoch,
                                              append_time_ms=header.base_timestamp)
                counts["control"] += 1
            else:
                rebuilt = build_metadata_batch([(e.record, e.version) for e in entries],
                                               base_offset=header.base_offset,
                                               leader_epoch=header.partition_leader_epoch,
                                               append_time_ms=header.base_timestamp)
            assert rebuilt == bytes(batch), f"batch at offset {header.base_offset} re-encodes differently"
            image.apply_batch(header.partition_leader_epoch, entries)
            counts["batches"] += 1
            counts["records"] += len(entries)
            counts["types"].update(e.control_type or e.record.schema_name for e in entries)
    return image, counts


def described_configs(broker: KafkaBroker, resource_type: int, name: str, sources: set[int]) -> dict[str, str]:
    request = DescribeConfigsRequest(resources=[DescribeConfigsRequest.DescribeConfigsResource(
        resource_type=resource_type, resource_name=name, configuration_keys=None)])
    with WireClient(broker.bootstrap_servers) as wire:
        (result,) = wire.request(32, 4, request).results
    assert result.error_code == 0, (name, result.error_code, result.error_message)
    return {c.name: c.value for c in result.configs if c.config_source in sources}


def test_every_batch_of_kafkas_metadata_log_decodes_and_re_encodes_to_the_same_bytes(kafka_after_changes):
    broker, _ = kafka_after_changes
    assert (broker.data_dir / f"{METADATA_TOPIC}-0" / "partition.metadata").read_text().split() == [
        "version:", "0", "topic_id:", "AAAAAAAAAAAAAAAAAAAAAQ"]   # METADATA_TOPIC_ID in Kafka's base64
    assert METADATA_TOPIC_ID.bytes == bytes(15) + b"\x01"
    _, counts = replay(broker)
    assert counts["control"] >= 2  # a LeaderChange at each start
    assert ControlType.LEADER_CHANGE in counts["types"]
    assert {"FeatureLevelRecord", "RegisterBrokerRecord", "BrokerRegistrationChangeRecord", "TopicRecord",
            "PartitionRecord", "PartitionChangeRecord", "ConfigRecord", "RemoveTopicRecord", "ProducerIdsRecord",
            "BeginTransactionRecord", "EndTransactionRecord", "NoOpRecord"} <= counts["types"]


def test_the_replayed_image_says_what_kafkas_metadata_reports(kafka_after_changes):
    broker, _ = kafka_after_changes
    image, _ = replay(broker)
    with WireClient(broker.bootstrap_servers) as wire:
        metadata = wire.metadata(None)
    assert [(b.node_id, b.host, b.port, b.rack) for b in metadata.brokers] == [
        (b.broker_id, b.endpoint("PLAINTEXT").host, b.endpoint("PLAINTEXT").port, b.rack)
        for b in image.brokers.values() if not b.fenced]
    assert not image.brokers[1].fenced and not image.brokers[1].in_controlled_shutdown
    assert set(image.controllers) == {1}
    reported = {t.name: t for t in metadata.topics}
    assert set(reported) == set(image.topics_by_name) == {"orders", "events"}   # "gone" is gone
    for name, topic in reported.items():
        kept = image.topics_by_name[name]
        assert topic.topic_id == kept.topic_id
        assert sorted(p.partition_index for p in topic.partitions) == sorted(kept.partitions)
        for p in topic.partitions:
            partition = kept.partitions[p.partition_index]
            assert (p.leader_id, p.leader_epoch, p.replica_nodes, p.isr_nodes) == (
                partition.leader, partition.leader_epoch, list(partition.replicas), list(partition.isr))
            # created at epoch 0, no leader at the controlled shutdown (1), led again after the restart (2)
            assert partition.leader_epoch == 2 and partition.partition_epoch == 2


def test_the_replayed_image_holds_the_configs_kafka_describes(kafka_after_changes):
    broker, _ = kafka_after_changes
    image, _ = replay(broker)
    for name in ("orders", "events"):
        assert image.topic_configs(name) == described_configs(broker, TOPIC_RESOURCE, name, {DYNAMIC_TOPIC_CONFIG})
    assert image.topic_configs("orders") == {"cleanup.policy": "compact"}      # retention.ms deleted
    assert image.topic_configs("events") == {"max.message.bytes": "65536"}
    assert image.topic_configs("gone") == {}
    assert image.configs[(BROKER_RESOURCE, "1")] == described_configs(broker, BROKER_RESOURCE, "1",
                                                                      {DYNAMIC_BROKER_CONFIG}) == {"log.cleaner.threads": "2"}
    cluster_default = described_configs(broker, BROKER_RESOURCE, "1", {DYNAMIC_DEFAULT_BROKER_CONFIG})
    assert image.configs[(BROKER_RESOURCE, "")] == cluster_default
    assert cluster_default["log.retention.bytes"] == "1073741824"


def test_the_replayed_image_holds_the_features_and_the_producer_id_block(kafka_after_changes):
    broker, producer_id = kafka_after_changes
    image, _ = replay(broker)
    with WireClient(broker.bootstrap_servers) as wire:
        versions = wire.request(18, 3, ApiVersionsRequest(client_software_name="pylog-tests",
                                                          client_software_version="1"))
    finalized = {f.name: f.max_version_level for f in versions.finalized_features}
    assert finalized.pop("metadata.version") == image.metadata_version
    finalized.pop("kraft.version", None)  # Raft's, not in the image
    assert finalized == image.features
    # the block Kafka handed out ends at the image's next producer id
    assert image.next_producer_id > producer_id >= 0


# ---------------------------------------------------------------------------------------
# The other direction: a log written here, read by Kafka's dump tool


def kafka_json_name(snake: str) -> str:
    first, *rest = snake.rstrip("_").split("_")
    return first + "".join(part[:1].upper() + part[1:] for part in rest)


def kafka_json_value(value):
    """A field value as Kafka's JSON converters print it (UUIDs in URL-safe base64)."""
    if isinstance(value, uuid.UUID):
        return base64.urlsafe_b64encode(value.bytes).rstrip(b"=").decode()
    if isinstance(value, list):
        return [kafka_json_value(v) for v in value]
    if hasattr(value, "FIELDS"):
        return {kafka_json_name(f.name): kafka_json_value(getattr(value, f.name)) for f in value.FIELDS}
    return value


def test_kafka_dump_log_decodes_a_metadata_log_written_here(tmp_path, kafka_tools):
    topic_id, incarnation, directory = uuid.UUID(int=0xABC), uuid.UUID(int=0x1C), uuid.UUID(int=0xD1)
    voter = LeaderChangeMessage.Voter(voter_id=1)
    endpoint = RegisterBrokerRecord.BrokerEndpoint(name="PLAINTEXT", host="127.0.0.1", port=9092)
    batches = [
        [(LeaderChangeMessage(leader_id=1, voters=[voter], granting_voters=[voter]), 0)],
        [(BeginTransactionRecord(name="Bootstrap records"), 0),
         (FeatureLevelRecord(name="metadata.version", feature_level=27), 0), (EndTransactionRecord(), 0)],
        [(RegisterBrokerRecord(broker_id=1, broker_epoch=5, incarnation_id=incarnation, end_points=[endpoint],
                               rack=None, log_dirs=[directory]), 3)],
        [(TopicRecord(name="orders", topic_id=topic_id), 0),
         (ConfigRecord(resource_type=TOPIC_RESOURCE, resource_name="orders", name="cleanup.policy", value="compact"), 0),
         (PartitionRecord(partition_id=0, topic_id=topic_id, replicas=[1], isr=[1], leader=1, leader_epoch=0,
                          partition_epoch=0, directories=[directory]), 2)],
        [(BrokerRegistrationChangeRecord(broker_id=1, broker_epoch=5, in_controlled_shutdown=1), 1),
         (PartitionChangeRecord(partition_id=0, topic_id=topic_id, isr=[], leader=-1,
                                eligible_leader_replicas=[1], last_known_elr=[1]), 2)],
        [(ProducerIdsRecord(broker_id=1, broker_epoch=5, next_producer_id=1000), 0), (NoOpRecord(), 0)],
    ]
    log = bytearray()
    offset = 0
    for records in batches:
        if records[0][0].message_type == "metadata":
            log += build_metadata_batch(records, base_offset=offset, leader_epoch=1, append_time_ms=1_700_000_000_000)
        else:
            log += build_control_batch([m for m, _ in records], base_offset=offset, leader_epoch=1,
                                       append_time_ms=1_700_000_000_000)
        offset += len(records)
    segment = tmp_path / f"{METADATA_TOPIC}-0" / "00000000000000000000.log"
    segment.parent.mkdir()
    segment.write_bytes(bytes(log))
    result = kafka_tools.run("kafka-dump-log.sh", "--cluster-metadata-decoder", "--files", str(segment)).check()
    payloads = [json.loads(line.split(" payload: ", 1)[1]) for line in result.lines if " payload: " in line]
    control = [json.loads(line.split(" LeaderChange: ", 1)[1]) for line in result.lines if " LeaderChange: " in line]
    assert control == [{"version": 0, "leaderId": 1, "voters": [{"voterId": 1}], "grantingVoters": [{"voterId": 1}]}]
    written = [(record, version) for records in batches[1:] for record, version in records]
    assert len(payloads) == len(written)
    for payload, (record, version) in zip(payloads, written):
        assert payload["type"] == codegen.snake_case(record.schema_name).upper()
        assert payload["version"] == version
        ours = kafka_json_value(record)
        assert payload["data"] == {key: ours[key] for key in payload["data"]}, record.schema_name
    by_type = {payload["type"]: payload["data"] for payload in payloads}
    assert by_type["REGISTER_BROKER_RECORD"]["logDirs"] == [kafka_json_value(directory)]   # a tagged field
    assert by_type["PARTITION_CHANGE_RECORD"]["leader"] == -1
    assert by_type["PARTITION_CHANGE_RECORD"]["eligibleLeaderReplicas"] == [1]
