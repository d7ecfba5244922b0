"""The metadata log on disk (pylog/controller/metadata_log.py), the controller's start
sequence and bootstrap records (bootstrap.py), the conversion of pylog-topics.json
(json_conversion.py), and the controller's answer to a metadata Fetch (metadata_fetch.py)."""

from __future__ import annotations

import json
import uuid

from protocol.error_codes import ErrorCode
from protocol.messages import FetchRequest, LeaderChangeMessage
from protocol.metadata import BeginTransactionRecord, ConfigRecord, NoOpRecord, PartitionRecord, TopicRecord
from protocol.metadata_log import METADATA_TOPIC, read_metadata_batch
from protocol.records import ControlType, iter_batches
from pylog.controller import bootstrap
from pylog.controller.bootstrap import replay, start_controller
from pylog.controller.json_conversion import conversion_records
from pylog.controller.metadata_fetch import answer_metadata_fetch
from pylog.controller.metadata_log import MetadataLog, partition_dir, read_quorum_state
from pylog.metadata import kafka_uuid_text, load_cluster_id, read_partition_metadata
from pylog.metadata_image import TOPIC_RESOURCE
from pylog.producer_ids import PRODUCER_IDS_FILE
from storage.checkpoint import write_checkpoint_file

NOW_MS = 1_700_000_000_000


def open_log(tmp_path) -> MetadataLog:
    return MetadataLog.open(partition_dir(tmp_path), now_ms=NOW_MS)


def topic_records(name: str, topic_id: uuid.UUID, partitions: int = 1):
    return [(TopicRecord(name=name, topic_id=topic_id), 0)] + [
        (PartitionRecord(partition_id=p, topic_id=topic_id, replicas=[1], isr=[1], leader=1, leader_epoch=0,
                         partition_epoch=0), 2) for p in range(partitions)]


def test_append_reopen_and_read_back_every_batch(tmp_path):
    log = open_log(tmp_path)
    assert log.start_epoch(1, [1], now_ms=NOW_MS) == 1
    topic_id = uuid.uuid4()
    assert log.append(topic_records("orders", topic_id, 2), now_ms=NOW_MS + 1) == 3
    assert log.append([(NoOpRecord(), 0)], now_ms=NOW_MS + 2) == 4
    log.close()

    log = open_log(tmp_path)
    assert log.log_end_offset == 5
    batches = list(log.batches())
    assert [h.base_offset for h, _ in batches] == [0, 1, 4]
    assert [h.partition_leader_epoch for h, _ in batches] == [1, 1, 1]
    assert batches[0][1][0].control_type == ControlType.LEADER_CHANGE
    image = replay(log)
    assert image.topics_by_name["orders"].topic_id == topic_id
    assert sorted(image.topics_by_name["orders"].partitions) == [0, 1]
    assert read_partition_metadata(log.dir) == uuid.UUID(int=1)
    assert (log.dir / "partition.metadata").read_text() == "version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ"
    # the raw bytes are whole batches, as the segment holds them
    raw = log.read_batches(1, 1)
    assert len(list(iter_batches(raw))) == 1 and read_metadata_batch(raw)[0].base_offset == 1
    assert log.read_batches(0, 1 << 20) == (log.dir / "00000000000000000000.log").read_bytes()


def test_each_start_bumps_the_epoch_in_quorum_state_and_writes_a_leader_change(tmp_path):
    for expected in (1, 2, 3):
        log = open_log(tmp_path)
        assert log.start_epoch(1, [1], now_ms=NOW_MS) == expected
        log.append([(NoOpRecord(), 0)], now_ms=NOW_MS)
        log.close()
    assert (partition_dir(tmp_path) / "quorum-state").read_text() == (
        '{"clusterId":"","leaderId":1,"leaderEpoch":3,"votedId":-1,"appliedOffset":0,'
        '"currentVoters":[{"voterId":1}],"data_version":0}')
    log = open_log(tmp_path)
    changes = [(h.partition_leader_epoch, h.base_offset, e[0].record) for h, e in log.batches() if h.is_control]
    voter = LeaderChangeMessage.Voter(voter_id=1)
    assert changes == [(epoch, offset, LeaderChangeMessage(leader_id=1, voters=[voter], granting_voters=[voter]))
                       for epoch, offset in ((1, 0), (2, 2), (3, 4))]
    assert [(e.epoch, e.start_offset) for e in log.log.epoch_entries] == [(1, 0), (2, 2), (3, 4)]
    # a lost quorum-state does not make an epoch reused: the log's latest counts
    (log.dir / "quorum-state").unlink()
    assert read_quorum_state(log.dir) == {}
    log.close()
    assert open_log(tmp_path).start_epoch(1, [1], now_ms=NOW_MS) == 4


def test_a_torn_tail_is_cut_off_on_open(tmp_path):
    log = open_log(tmp_path)
    log.start_epoch(1, [1], now_ms=NOW_MS)
    log.append(topic_records("kept", uuid.uuid4()), now_ms=NOW_MS)
    end = log.log_end_offset
    log.append(topic_records("torn", uuid.uuid4(), 3), now_ms=NOW_MS)
    log.close()
    segment = partition_dir(tmp_path) / "00000000000000000000.log"
    data = segment.read_bytes()
    segment.write_bytes(data[:-10])           # the last batch half written
    log = open_log(tmp_path)
    assert log.log_end_offset == end
    image = replay(log)
    assert set(image.topics_by_name) == {"kept"}
    log.append([(NoOpRecord(), 0)], now_ms=NOW_MS)   # appends continue at the cut
    assert [h.base_offset for h, _ in log.batches()][-1] == end


def test_append_fetched_keeps_offsets_and_truncate_to_cuts_whole_batches(tmp_path):
    controller = MetadataLog.open(partition_dir(tmp_path / "controller"), now_ms=NOW_MS)
    controller.start_epoch(1, [1], now_ms=NOW_MS)
    controller.append(topic_records("a", uuid.uuid4()), now_ms=NOW_MS)
    controller.append(topic_records("b", uuid.uuid4()), now_ms=NOW_MS)
    copy = MetadataLog.open(partition_dir(tmp_path / "broker"), now_ms=NOW_MS)
    assert copy.append_fetched(controller.read_batches(0, 1 << 20), now_ms=NOW_MS) == controller.log_end_offset
    assert copy.read_batches(0, 1 << 20) == controller.read_batches(0, 1 << 20)
    assert copy.epoch == 1
    assert copy.truncate_to(2, now_ms=NOW_MS)     # inside the second batch: it goes whole
    assert copy.log_end_offset == 1
    assert not copy.truncate_to(5, now_ms=NOW_MS)


def test_first_start_writes_kafkas_bootstrap_records_with_the_cluster_default_min_isr(tmp_path):
    log = open_log(tmp_path)
    start = start_controller(log, node_id=1, voters=[1], log_dir=tmp_path, now_ms=NOW_MS)
    assert start.first_start and start.epoch == 1 and start.conversion is None
    (_, leader_change), (header, entries) = list(log.batches())
    assert header.base_offset == 1 and header.partition_leader_epoch == 1
    written = [(e.record.schema_name, getattr(e.record, "name", None), getattr(e.record, "feature_level", None))
               for e in entries]
    assert written == [("BeginTransactionRecord", "Bootstrap records", None),
                       ("FeatureLevelRecord", "metadata.version", 27),
                       ("FeatureLevelRecord", "group.version", 1),
                       ("FeatureLevelRecord", "transaction.version", 2),
                       ("ConfigRecord", "min.insync.replicas", None),
                       ("EndTransactionRecord", None, None)]
    config = entries[4].record
    assert (config.resource_type, config.resource_name, config.value) == (4, "", "1")
    assert start.image.configs == {(4, ""): {"min.insync.replicas": "1"}}
    assert start.image.metadata_version == 27
    assert start.image.features == {"group.version": 1, "transaction.version": 2}
    assert (tmp_path / "bootstrap.checkpoint").read_bytes()[:8] == bytes(8)
    log.close()
    # a second start writes only its LeaderChange
    log = open_log(tmp_path)
    again = start_controller(log, node_id=1, voters=[1], log_dir=tmp_path, now_ms=NOW_MS)
    assert not again.first_start and again.epoch == 2
    assert [h.is_control for h, _ in log.batches()] == [True, False, True]
    assert again.image.features == start.image.features


def test_a_transaction_left_open_is_aborted_at_the_next_start(tmp_path):
    log = open_log(tmp_path)
    start_controller(log, node_id=1, voters=[1], log_dir=tmp_path, now_ms=NOW_MS)
    log.append([(BeginTransactionRecord(name="half"), 0)] + topic_records("half", uuid.uuid4()), now_ms=NOW_MS)
    log.close()
    log = open_log(tmp_path)
    start = start_controller(log, node_id=1, voters=[1], log_dir=tmp_path, now_ms=NOW_MS)
    assert not start.image.in_transaction and "half" not in start.image.topics_by_name
    last = list(log.batches())[-1][1]
    assert [(e.record.schema_name, e.record.reason) for e in last] == [("AbortTransactionRecord", "Controller failover")]


def test_controller_registration_record(tmp_path):
    record, version = bootstrap.controller_registration(1, uuid.UUID(int=7), [("CONTROLLER", "127.0.0.1", 9093, 0)])
    assert version == 0 and record.controller_id == 1 and record.end_points[0].port == 9093
    assert {f.name: f.max_supported_version for f in record.features}["eligible.leader.replicas.version"] == 0


# ---------------------------------------------------------------------------------------
# pylog-topics.json


def old_data_dir(tmp_path):
    """A data directory as the single-node broker left it: its `pylog-topics.json` after
    two starts (epochs +2 at each), with a topic being deleted and a partition added at
    epoch 0, and a claimed producer-id block."""
    orders_id, events_id, gone_id = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    load_cluster_id(tmp_path, 1)
    state = {"broker_epoch": 2, "topics": {
        "orders": {"topic_id": str(orders_id), "partitions": 2, "leader_epochs": [2, 2],
                   "configs": {"cleanup.policy": "compact", "retention.ms": "1000"}},
        "events": {"topic_id": str(events_id), "partitions": 2, "leader_epochs": [2, 0], "configs": {}},
        "gone": {"topic_id": str(gone_id), "partitions": 1, "leader_epochs": [2], "configs": {},
                 "deleting": True}}}
    (tmp_path / "pylog-topics.json").write_text(json.dumps(state, indent=1, sort_keys=True) + "\n")
    # the single-node era's producer-id file: block [0, 1000) claimed
    write_checkpoint_file(tmp_path / PRODUCER_IDS_FILE, 0, ["1000"])
    return state, orders_id, events_id, gone_id


def test_conversion_of_a_json_data_dir(tmp_path):
    metadata, orders_id, events_id, gone_id = old_data_dir(tmp_path)
    log = open_log(tmp_path)
    start = start_controller(log, node_id=1, voters=[1], log_dir=tmp_path, now_ms=NOW_MS)
    image = start.image
    assert not (tmp_path / "pylog-topics.json").exists()
    assert json.loads((tmp_path / "pylog-topics.json.converted").read_text())["topics"]["orders"]
    assert set(image.topics_by_name) == {"orders", "events"}
    assert image.topics_by_name["orders"].topic_id == orders_id
    assert image.topics_by_name["events"].topic_id == events_id
    assert start.conversion.deleted_topics == [("gone", gone_id)]
    orders = image.topics_by_name["orders"].partitions
    assert [(p.replicas, p.isr, p.leader, p.leader_epoch, p.partition_epoch) for p in orders.values()] == [
        ((1,), (1,), 1, 2, 2)] * 2
    assert [p.leader_epoch for p in image.topics_by_name["events"].partitions.values()] == [2, 0]
    directory = {line.split("=", 1)[0]: line.split("=", 1)[1] for line in
                 (tmp_path / "meta.properties").read_text().splitlines() if "=" in line}["directory.id"]
    assert kafka_uuid_text(orders[0].directories[0]) == directory
    assert image.configs[(TOPIC_RESOURCE, "orders")] == {"cleanup.policy": "compact", "retention.ms": "1000"}
    assert (TOPIC_RESOURCE, "events") not in image.configs
    assert image.next_producer_id == 1000
    # bootstrap and conversion are one batch: committed together or not at all
    data_batches = [entries for header, entries in log.batches() if not header.is_control]
    assert len(data_batches) == 1
    assert [e.record.name for e in data_batches[0] if e.record.schema_name == "BeginTransactionRecord"] == [
        "Bootstrap records", "Conversion of pylog-topics.json"]
    log.close()
    log = open_log(tmp_path)
    assert set(start_controller(log, node_id=1, voters=[1], log_dir=tmp_path,
                                now_ms=NOW_MS).image.topics_by_name) == {"orders", "events"}


def test_a_crash_between_commit_and_rename_does_not_convert_twice(tmp_path):
    old_data_dir(tmp_path)
    saved = (tmp_path / "pylog-topics.json").read_text()
    log = open_log(tmp_path)
    start_controller(log, node_id=1, voters=[1], log_dir=tmp_path, now_ms=NOW_MS)
    log.close()
    (tmp_path / "pylog-topics.json").write_text(saved)       # as if the rename never happened
    (tmp_path / "pylog-topics.json.converted").unlink()
    log = open_log(tmp_path)
    start = start_controller(log, node_id=1, voters=[1], log_dir=tmp_path, now_ms=NOW_MS)
    assert not start.first_start and start.conversion is None
    assert sum(1 for h, _ in log.batches() if not h.is_control) == 1
    assert not (tmp_path / "pylog-topics.json").exists() and (tmp_path / "pylog-topics.json.converted").exists()


def test_a_crash_in_the_first_batch_starts_over(tmp_path):
    old_data_dir(tmp_path)
    log = open_log(tmp_path)
    log.start_epoch(1, [1], now_ms=NOW_MS)                   # the start died after its LeaderChange
    log.close()
    log = open_log(tmp_path)
    start = start_controller(log, node_id=1, voters=[1], log_dir=tmp_path, now_ms=NOW_MS)
    assert start.first_start and start.epoch == 2
    assert set(start.image.topics_by_name) == {"orders", "events"}


# ---------------------------------------------------------------------------------------
# The controller's answer to a metadata Fetch


def fetch(offset: int, last_epoch: int, *, topic: str = METADATA_TOPIC, partition: int = 0, max_bytes: int = 1 << 20):
    return FetchRequest(replica_id=-1, max_wait_ms=0, min_bytes=1, topics=[FetchRequest.FetchTopic(
        topic=topic, partitions=[FetchRequest.FetchPartition(partition=partition, fetch_offset=offset,
                                                             last_fetched_epoch=last_epoch,
                                                             partition_max_bytes=max_bytes)])])


def answer(log, request):
    (topic,) = answer_metadata_fetch(log, request, leader_id=1).responses
    (partition,) = topic.partitions
    return partition


def test_fetch_answers_whole_batches_with_the_high_watermark_at_the_end(tmp_path):
    log = open_log(tmp_path)
    start_controller(log, node_id=1, voters=[1], log_dir=tmp_path, now_ms=NOW_MS)
    log.append([(ConfigRecord(resource_type=4, resource_name="", name="x", value="1"), 0)], now_ms=NOW_MS)
    first = answer(log, fetch(0, -1, max_bytes=1))
    assert first.error_code == 0 and first.high_watermark == log.log_end_offset
    assert (first.current_leader.leader_id, first.current_leader.leader_epoch) == (1, 1)
    assert len(list(iter_batches(first.records))) == 1          # at least one whole batch
    everything = answer(log, fetch(0, -1))
    assert everything.records == log.read_batches(0, 1 << 20) and len(list(iter_batches(everything.records))) == 3
    at_end = answer(log, fetch(log.log_end_offset, 1))
    assert at_end.records == b"" and at_end.diverging_epoch.epoch == -1
    assert answer(log, fetch(0, -1, partition=1)).error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    assert answer(log, fetch(0, -1, topic="other")).error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    assert answer(log, fetch(3, -1)).error_code == ErrorCode.INVALID_REQUEST


def test_fetch_beyond_the_end_or_in_an_unknown_epoch_answers_a_diverging_epoch(tmp_path):
    log = open_log(tmp_path)
    start_controller(log, node_id=1, voters=[1], log_dir=tmp_path, now_ms=NOW_MS)   # epoch 1, end 6
    end = log.log_end_offset
    ahead = answer(log, fetch(end + 10, 1))
    assert ahead.records == b""
    assert (ahead.diverging_epoch.epoch, ahead.diverging_epoch.end_offset) == (1, end)
    later_epoch = answer(log, fetch(end, 4))     # a copy written in a term this log does not have
    assert (later_epoch.diverging_epoch.epoch, later_epoch.diverging_epoch.end_offset) == (1, end)
    log.close()
    log = open_log(tmp_path)
    log.start_epoch(1, [1], now_ms=NOW_MS)                                           # epoch 2 at offset end
    old_term = answer(log, fetch(end + 3, 1))
    assert (old_term.diverging_epoch.epoch, old_term.diverging_epoch.end_offset) == (1, end)


def test_no_json_file_means_no_conversion(tmp_path):
    assert conversion_records(tmp_path, 1) is None
