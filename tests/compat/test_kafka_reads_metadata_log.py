"""A metadata log written by pylog's controller code (pylog/controller/metadata_log.py and
bootstrap.py: a first start, the controller's registration, a broker's registration, a
topic with a config and partitions) read by Kafka 4.1.1's own tools:

- `kafka-dump-log.sh --cluster-metadata-decoder` decodes every batch of the segment: the
  LeaderChange, the bootstrap transaction, and each record with the fields written;
- `kafka-metadata-shell.sh --snapshot <segment> <command>` (non-interactive) loads the log
  into Kafka's own MetadataImage and prints the brokers, the controller, the topic, its
  partitions (leader, ISR, epochs), its config and the finalized features;
- the dump tool also reads the `bootstrap.checkpoint` written beside it as Kafka's bootstrap
  snapshot (header, the features, footer).

And against what a reference Kafka node leaves after a first start and a restart: the same
quorum-state and partition.metadata bytes, the same Raft epochs and LeaderChange records,
the same bootstrap records and bootstrap.checkpoint but for ELR (pylog finalizes
eligible.leader.replicas.version at 0, so neither its FeatureLevelRecord nor the
cluster-default min.insync.replicas that comes with it), a RegisterControllerRecord of the
same shape, and a broker registration whose features come in the order of Kafka's
RegisterBrokerRecord (its broker's HashMap of them).

The metadata shell is Kafka's `kafka-shell` artifact, resolved into target/lib with the rest
(tests/compat/kafka/pom.xml).
"""

from __future__ import annotations

import json
import uuid

import pytest

from protocol.metadata import ConfigRecord, PartitionRecord, RegisterBrokerRecord, TopicRecord
from protocol.metadata_log import read_metadata_batch
from protocol.records import iter_batches, validate_batch
from pylog.broker_lifecycle import registration_features
from pylog.controller.bootstrap import controller_registration, start_controller
from pylog.controller.metadata_log import MetadataLog, partition_dir
from pylog.metadata import kafka_uuid_text
from tests.compat.reference import KafkaBroker

METADATA_SHELL = "org.apache.kafka.shell.MetadataShell"   # kafka-metadata-shell.sh
NOW_MS = 1_700_000_000_000
TOPIC_ID = uuid.UUID("6f1b8d53-5a8e-4f3c-9d0e-2b7c11aa0001")
INCARNATION = uuid.UUID("6f1b8d53-5a8e-4f3c-9d0e-2b7c11aa0002")
DIRECTORY = uuid.UUID("6f1b8d53-5a8e-4f3c-9d0e-2b7c11aa0003")


@pytest.fixture(scope="module")
def segment(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("pylog-metadata")
    log = MetadataLog.open(partition_dir(data_dir), now_ms=NOW_MS)
    start_controller(log, node_id=1, voters=[1], log_dir=data_dir, now_ms=NOW_MS)
    log.append([controller_registration(1, INCARNATION, [("CONTROLLER", "127.0.0.1", 9093, 0)])], now_ms=NOW_MS + 1)
    log.append([(RegisterBrokerRecord(
        broker_id=2, broker_epoch=7, incarnation_id=INCARNATION, rack="rack-a", fenced=False,
        end_points=[RegisterBrokerRecord.BrokerEndpoint(name="PLAINTEXT", host="127.0.0.1", port=9092,
                                                        security_protocol=0)],
        features=[RegisterBrokerRecord.BrokerFeature(name="metadata.version", min_supported_version=7,
                                                     max_supported_version=27)],
        log_dirs=[DIRECTORY]), 3)], now_ms=NOW_MS + 2)
    log.append([
        (TopicRecord(name="orders", topic_id=TOPIC_ID), 0),
        (ConfigRecord(resource_type=2, resource_name="orders", name="cleanup.policy", value="compact"), 0),
        (PartitionRecord(partition_id=0, topic_id=TOPIC_ID, replicas=[2], isr=[2], leader=2, leader_epoch=4,
                         partition_epoch=5, directories=[DIRECTORY]), 2),
        (PartitionRecord(partition_id=1, topic_id=TOPIC_ID, replicas=[2], isr=[], leader=-1, leader_epoch=6,
                         partition_epoch=9, directories=[DIRECTORY]), 2),
    ], now_ms=NOW_MS + 3)
    log.close()
    return partition_dir(data_dir) / "00000000000000000000.log"


def test_kafka_dump_log_decodes_every_batch_written(segment, kafka_tools):
    result = kafka_tools.run("kafka-dump-log.sh", "--cluster-metadata-decoder", "--files", str(segment)).check()
    batches = [line for line in result.lines if line.startswith("baseOffset:")]
    assert all("isvalid: true" in line and "partitionLeaderEpoch: 1" in line for line in batches), batches
    assert [line.split()[1] for line in batches] == ["0", "1", "7", "8", "9"]
    (leader_change,) = [json.loads(line.split(" LeaderChange: ", 1)[1]) for line in result.lines
                        if " LeaderChange: " in line]
    assert leader_change == {"version": 0, "leaderId": 1, "voters": [{"voterId": 1}],
                             "grantingVoters": [{"voterId": 1}]}
    payloads = [json.loads(line.split(" payload: ", 1)[1]) for line in result.lines if " payload: " in line]
    assert [(p["type"], p["data"].get("name"), p["data"].get("featureLevel")) for p in payloads[:6]] == [
        ("BEGIN_TRANSACTION_RECORD", "Bootstrap records", None),
        ("FEATURE_LEVEL_RECORD", "metadata.version", 27),
        ("FEATURE_LEVEL_RECORD", "group.version", 1),
        ("FEATURE_LEVEL_RECORD", "transaction.version", 2),
        ("CONFIG_RECORD", "min.insync.replicas", None),
        ("END_TRANSACTION_RECORD", None, None)]
    assert payloads[4]["data"] == {"resourceType": 4, "resourceName": "", "name": "min.insync.replicas",
                                   "value": "1"}
    by_type = {}
    for payload in payloads[6:]:
        by_type.setdefault(payload["type"], []).append(payload)
    (controller,) = by_type["REGISTER_CONTROLLER_RECORD"]
    assert controller["data"]["controllerId"] == 1
    assert controller["data"]["endPoints"] == [{"name": "CONTROLLER", "host": "127.0.0.1", "port": 9093,
                                                "securityProtocol": 0}]
    (broker,) = by_type["REGISTER_BROKER_RECORD"]
    assert broker["version"] == 3
    assert (broker["data"]["brokerId"], broker["data"]["brokerEpoch"], broker["data"]["rack"],
            broker["data"]["logDirs"]) == (2, 7, "rack-a", [kafka_uuid_text(DIRECTORY)])
    (topic,) = by_type["TOPIC_RECORD"]
    assert topic["data"] == {"name": "orders", "topicId": kafka_uuid_text(TOPIC_ID)}
    (config,) = by_type["CONFIG_RECORD"]
    assert config["data"] == {"resourceType": 2, "resourceName": "orders", "name": "cleanup.policy",
                              "value": "compact"}
    partitions = [(p["data"]["partitionId"], p["data"]["leader"], p["data"]["isr"], p["data"]["leaderEpoch"],
                   p["data"]["partitionEpoch"]) for p in by_type["PARTITION_RECORD"]]
    assert partitions == [(0, 2, [2], 4, 5), (1, -1, [], 6, 9)]


def shell(kafka_tools, segment, *command, loaded: str) -> str:
    """The shell's output of `command`. Kafka's shell answers as soon as its loader has
    applied any batch (`MetadataShell.waitUntilCaughtUp`: last applied offset > 0) while the
    loader goes on one batch at a time, so an answer may come from part of the log; the
    command is run again (up to 10 times) until its output contains `loaded`, something only
    the last batches make."""
    for _ in range(10):
        output = kafka_tools.run(METADATA_SHELL, "--snapshot", str(segment), *command).check().stdout
        if loaded in output:
            break
    return output


def test_kafka_metadata_shell_loads_the_brokers_controller_and_features(segment, kafka_tools):
    cluster = shell(kafka_tools, segment, "tree", "/image/cluster", loaded="BrokerRegistration")
    assert "BrokerRegistration(id=2, epoch=7, " in cluster
    assert f"incarnationId={kafka_uuid_text(INCARNATION)}" in cluster
    assert "host='127.0.0.1', port=9092" in cluster and "rack=Optional[rack-a]" in cluster
    assert "fenced=false" in cluster
    assert "ControllerRegistration(id=1, " in cluster and "port=9093" in cluster
    assert "eligible.leader.replicas.version: 0" in cluster
    features = shell(kafka_tools, segment, "tree", "/image/features", loaded="4.1-IV1").split()
    assert features[features.index("finalized_group.version:") + 1] == "1"
    assert features[features.index("finalized_transaction.version:") + 1] == "2"
    assert "finalized_eligible.leader.replicas.version:" not in features
    assert "Optional[4.1-IV1]" in features      # metadata.version 27


def test_kafka_metadata_shell_loads_the_topic_its_partitions_and_config(segment, kafka_tools):
    assert shell(kafka_tools, segment, "ls", "/image/topics/byName", loaded="orders").split() == ["orders"]
    assert shell(kafka_tools, segment, "cat", "/image/topics/byName/orders/id",
                 loaded=kafka_uuid_text(TOPIC_ID)).strip() == kafka_uuid_text(TOPIC_ID)
    led = shell(kafka_tools, segment, "cat", "/image/topics/byName/orders/0", loaded="PartitionRegistration")
    assert "replicas=[2]" in led and "isr=[2]" in led and "leader=2," in led
    assert "leaderEpoch=4" in led and "partitionEpoch=5" in led
    assert f"directories=[{kafka_uuid_text(DIRECTORY)}]" in led
    leaderless = shell(kafka_tools, segment, "cat", "/image/topics/byName/orders/1", loaded="PartitionRegistration")
    assert "isr=[]" in leaderless and "leader=-1," in leaderless
    assert "leaderEpoch=6" in leaderless and "partitionEpoch=9" in leaderless
    configs = shell(kafka_tools, segment, "tree", "/image/configs", loaded="compact").split()
    assert configs == ["BROKER:", "min.insync.replicas:", "1", "TOPIC:orders:", "cleanup.policy:", "compact"]


def test_kafka_dump_log_reads_the_bootstrap_checkpoint_as_a_bootstrap_snapshot(segment, kafka_tools):
    checkpoint = segment.parent.parent / "bootstrap.checkpoint"
    result = kafka_tools.run("kafka-dump-log.sh", "--cluster-metadata-decoder", "--files", str(checkpoint)).check()
    assert "KRaft bootstrap snapshot" in result.lines
    assert sum(" SnapshotHeader " in line for line in result.lines) == 1
    assert sum(" SnapshotFooter " in line for line in result.lines) == 1
    payloads = [json.loads(line.split(" payload: ", 1)[1]) for line in result.lines if " payload: " in line]
    assert [(p["data"]["name"], p["data"]["featureLevel"]) for p in payloads] == [
        ("metadata.version", 27), ("group.version", 1), ("transaction.version", 2)]


# ---------------------------------------------------------------------------------------
# What Kafka itself leaves after a first start and a restart, against pylog's


def decoded_batches(data: bytes):
    """(header, [(record, version)]) of each batch of a segment or checkpoint file."""
    out = []
    for batch in iter_batches(data):
        validate_batch(batch)
        header, entries = read_metadata_batch(batch)
        out.append((header, [(e.record, e.version) for e in entries]))
    return out


@pytest.fixture(scope="module")
def kafka_and_pylog_after_a_restart(tmp_path_factory):
    kafka = KafkaBroker(tmp_path_factory.mktemp("kafka-restarted") / "data")
    for _ in range(2):
        kafka.start()
        kafka.stop()
    pylog_dir = tmp_path_factory.mktemp("pylog-restarted")
    for _ in range(2):
        log = MetadataLog.open(partition_dir(pylog_dir), now_ms=NOW_MS)
        start_controller(log, node_id=1, voters=[1], log_dir=pylog_dir, now_ms=NOW_MS)
        log.close()
    return kafka.data_dir, pylog_dir


ELR_FEATURE = "eligible.leader.replicas.version"   # what pylog leaves out (finalized at 0: no record)


def without_elr(records):
    return [(r, v) for r, v in records if getattr(r, "name", None) != ELR_FEATURE]


def test_quorum_state_partition_metadata_and_epochs_are_kafkas(kafka_and_pylog_after_a_restart):
    kafka_dir, pylog_dir = (partition_dir(d) for d in kafka_and_pylog_after_a_restart)
    for name in ("quorum-state", "partition.metadata"):
        assert (pylog_dir / name).read_bytes() == (kafka_dir / name).read_bytes(), name
    kafka_epochs = (kafka_dir / "leader-epoch-checkpoint").read_text().splitlines()
    pylog_epochs = (pylog_dir / "leader-epoch-checkpoint").read_text().splitlines()
    assert kafka_epochs[:3] == pylog_epochs[:3] == ["0", "2", "1 0"]
    assert kafka_epochs[3].split()[0] == pylog_epochs[3].split()[0] == "2"
    kafka_batches = decoded_batches((kafka_dir / "00000000000000000000.log").read_bytes())
    pylog_batches = decoded_batches((pylog_dir / "00000000000000000000.log").read_bytes())

    def leader_changes(batches):
        return [(h.partition_leader_epoch, records) for h, records in batches if h.is_control]
    assert leader_changes(pylog_batches) == leader_changes(kafka_batches)
    assert len(leader_changes(kafka_batches)) == 2


def test_the_bootstrap_records_are_kafkas_but_for_the_elr_feature(kafka_and_pylog_after_a_restart):
    kafka_dir, pylog_dir = kafka_and_pylog_after_a_restart
    kafka_log = decoded_batches((partition_dir(kafka_dir) / "00000000000000000000.log").read_bytes())
    pylog_log = decoded_batches((partition_dir(pylog_dir) / "00000000000000000000.log").read_bytes())
    (kafka_header, kafka_first), (pylog_header, pylog_first) = kafka_log[1], pylog_log[1]
    assert (kafka_header.base_offset, kafka_header.partition_leader_epoch) == (
        pylog_header.base_offset, pylog_header.partition_leader_epoch) == (1, 1)
    assert [r.schema_name for r, _ in kafka_first if getattr(r, "name", None) == ELR_FEATURE] == [
        "FeatureLevelRecord"]
    # the cluster default min.insync.replicas Kafka writes with ELR on: pylog writes it too
    assert [(r.resource_type, r.resource_name, r.value) for r, _ in pylog_first
            if getattr(r, "name", None) == "min.insync.replicas"] == [(4, "", "1")]
    assert pylog_first == without_elr(kafka_first)
    kafka_checkpoint = decoded_batches((kafka_dir / "bootstrap.checkpoint").read_bytes())
    pylog_checkpoint = decoded_batches((pylog_dir / "bootstrap.checkpoint").read_bytes())
    assert [(h.is_control, h.partition_leader_epoch) for h, _ in pylog_checkpoint] == [
        (h.is_control, h.partition_leader_epoch) for h, _ in kafka_checkpoint]
    assert pylog_checkpoint[0][1] == kafka_checkpoint[0][1] and pylog_checkpoint[2][1] == kafka_checkpoint[2][1]
    assert pylog_checkpoint[1][1] == without_elr(kafka_checkpoint[1][1])


def test_the_controller_registration_is_shaped_as_kafkas(kafka_and_pylog_after_a_restart):
    kafka_dir, _ = kafka_and_pylog_after_a_restart
    kafka_log = decoded_batches((partition_dir(kafka_dir) / "00000000000000000000.log").read_bytes())
    kafka_records = [(r, v) for _, records in kafka_log for r, v in records
                     if r.schema_name == "RegisterControllerRecord"]
    record, version = kafka_records[0]
    ours, our_version = controller_registration(1, INCARNATION, [
        (e.name, e.host, e.port, e.security_protocol) for e in record.end_points])
    assert our_version == version
    assert [f.name for f in ours.features] == [f.name for f in record.features]
    assert ours.end_points == record.end_points and ours.zk_migration_ready == record.zk_migration_ready
    # pylog supports less where it implements less (bootstrap.py)
    differs = {f.name for f, k in zip(ours.features, record.features)
               if (f.min_supported_version, f.max_supported_version) != (k.min_supported_version, k.max_supported_version)}
    assert differs <= {"eligible.leader.replicas.version", "kraft.version", "share.version"}


def test_the_broker_registration_lists_the_features_in_kafkas_order(kafka_and_pylog_after_a_restart):
    kafka_dir, _ = kafka_and_pylog_after_a_restart
    kafka_log = decoded_batches((partition_dir(kafka_dir) / "00000000000000000000.log").read_bytes())
    kafka_records = [r for _, records in kafka_log for r, _ in records if r.schema_name == "RegisterBrokerRecord"]
    assert len(kafka_records) == 2   # one per start
    names = [f.name for f in kafka_records[-1].features]
    assert [f.name for f in registration_features()] == names and names != sorted(names)
