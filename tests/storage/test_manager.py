"""LogManager: partition directories, checkpoints, the clean-shutdown marker."""

from __future__ import annotations

import gc
import logging

from storage.config import LogConfig
from storage.manager import LogManager
from tests.storage.builders import Clock, make_batch, small_config


def fill(manager: LogManager, clock: Clock) -> None:
    for topic, partition, batches in (("orders", 0, 30), ("orders", 1, 5), ("my-topic", 0, 12)):
        log = manager.get_or_create_log(topic, partition, now_ms=clock.now_ms)
        for i in range(batches):
            log.append(make_batch(2, tag=i), now_ms=clock.advance(1))


# The partitions of seven topics and the order Kafka 4.1.1 wrote them in its
# recovery-point-offset-checkpoint at a clean stop (a Scala HashMap sized for 23: 32 buckets).
KAFKAS_RECOVERY_POINT_ORDER = [
    ("orders", 7), ("b", 2), ("b", 1), ("b", 0), ("zeta9", 0), ("payments", 0), ("zeta9", 2), ("zeta9", 1),
    ("payments", 1), ("q", 2), ("q", 1), ("audit", 0), ("q", 0), ("alpha", 2), ("alpha", 0), ("alpha", 1),
    ("orders", 0), ("orders", 1), ("orders", 2), ("orders", 3), ("orders", 4), ("orders", 5), ("orders", 6),
]
# 49 partitions whose log start Kafka 4.1.1 had moved (DeleteRecords), in the order it wrote
# them in log-start-offset-checkpoint (a Scala HashMap grown from 16 buckets: 128)
KAFKAS_LOG_START_ORDER = [("ls-23-yyy", 1), ("ls-19-yyyy", 1), ("ls-14-yyyy", 1), ("ls-2-yy", 0), ("ls-13-yyy", 1), ("ls-19-yyyy", 0), ("ls-8-yyy", 2), ("ls-11-y", 1), ("ls-20-", 0), ("ls-3-yyy", 0), ("ls-23-yyy", 0), ("ls-17-yy", 0), ("ls-6-y", 0), ("ls-14-yyyy", 2), ("ls-7-yy", 1), ("ls-15-", 0), ("ls-12-yy", 0), ("ls-5-", 2), ("ls-11-y", 0), ("ls-10-", 1), ("ls-18-yyy", 0), ("ls-8-yyy", 1), ("ls-17-yy", 1), ("ls-1-y", 1), ("ls-22-yy", 0), ("ls-2-yy", 2), ("ls-7-yy", 0), ("ls-24-yyyy", 0), ("ls-5-", 1), ("ls-16-y", 1), ("ls-10-", 0), ("ls-20-", 2), ("ls-21-y", 0), ("ls-8-yyy", 0), ("ls-17-yy", 2), ("ls-0-", 0), ("ls-23-yyy", 2), ("ls-22-yy", 1), ("ls-14-yyyy", 0), ("ls-1-y", 0), ("ls-4-yyyy", 0), ("ls-9-yyyy", 0), ("ls-2-yy", 1), ("ls-4-yyyy", 1), ("ls-13-yyy", 0), ("ls-16-y", 0), ("ls-5-", 0), ("ls-20-", 1), ("ls-11-y", 2)]


def checkpoint_partitions(path) -> list[tuple[str, int]]:
    return [(line.split(" ")[0], int(line.split(" ")[1])) for line in path.read_text().split("\n")[2:-1]]


def test_checkpoints_list_the_partitions_in_kafkas_order(tmp_path):
    clock = Clock()
    manager = LogManager.open(tmp_path, small_config(), now_ms=clock.now_ms)
    for topic, partition in sorted(KAFKAS_RECOVERY_POINT_ORDER):
        manager.get_or_create_log(topic, partition, now_ms=clock.now_ms)
    manager.close(broker_epoch=1)
    assert checkpoint_partitions(tmp_path / "recovery-point-offset-checkpoint") == KAFKAS_RECOVERY_POINT_ORDER

    manager = LogManager.open(tmp_path / "second", small_config(), now_ms=clock.now_ms)
    for topic, partition in sorted(KAFKAS_LOG_START_ORDER):
        log = manager.get_or_create_log(topic, partition, now_ms=clock.now_ms)
        log.append(make_batch(3), now_ms=clock.advance(1))
        log.advance_log_start_offset(2)
    manager.write_log_start_offsets()
    assert checkpoint_partitions(tmp_path / "second" / "log-start-offset-checkpoint") == KAFKAS_LOG_START_ORDER
    manager.close(broker_epoch=1)


def test_clean_shutdown_and_restart(tmp_path):
    clock = Clock()
    manager = LogManager.open(tmp_path, small_config(), now_ms=clock.now_ms)
    assert not manager.had_clean_shutdown
    fill(manager, clock)
    manager.get_log("orders", 0).delete_segments_below(7)
    manager.close(broker_epoch=12)
    assert (tmp_path / ".kafka_cleanshutdown").read_text() == '{"version":0,"brokerEpoch":12}'  # Kafka's bytes
    # in the order of the Scala HashMap Kafka writes it from (8 buckets for 3 partitions)
    assert (tmp_path / "recovery-point-offset-checkpoint").read_text() == (
        "0\n3\norders 0 60\norders 1 10\nmy-topic 0 24\n"
    )
    # Only logs whose start is past their first segment's base are listed (Kafka's rule).
    start_offsets = (tmp_path / "log-start-offset-checkpoint").read_text()
    assert start_offsets == "0\n1\norders 0 7\n"

    restarted = LogManager.open(tmp_path, small_config(), now_ms=clock.now_ms)
    assert restarted.had_clean_shutdown
    assert not (tmp_path / ".kafka_cleanshutdown").exists()  # a crash from now on is unclean
    assert sorted(restarted.logs) == [("my-topic", 0), ("orders", 0), ("orders", 1)]
    orders = restarted.get_log("orders", 0)
    assert (orders.log_start_offset, orders.log_end_offset, orders.recovery_point) == (7, 60, 60)
    assert orders.recovery_report.segments_recovered == 0
    restarted.close()


def test_unclean_restart_recovers_from_the_checkpointed_recovery_point(tmp_path):
    clock = Clock()
    manager = LogManager.open(tmp_path, small_config(), now_ms=clock.now_ms)
    fill(manager, clock)
    manager.write_checkpoints()
    manager.get_log("orders", 0).append(make_batch(3), now_ms=clock.now_ms)
    manager.close_handlers()  # crash: no marker, no final checkpoints
    restarted = LogManager.open(tmp_path, small_config(), now_ms=clock.now_ms)
    assert not restarted.had_clean_shutdown
    orders = restarted.get_log("orders", 0)
    assert orders.log_end_offset == 63
    assert orders.recovery_report.segments_recovered >= 1
    restarted.close()


def test_delete_log_and_leftover_delete_directories(tmp_path):
    clock = Clock()
    manager = LogManager.open(tmp_path, small_config(), now_ms=clock.now_ms)
    fill(manager, clock)
    assert manager.delete_log("orders", 1)
    assert not manager.delete_log("orders", 1)
    assert not (tmp_path / "orders-1").exists()
    assert manager.get_log("orders", 1) is None
    (tmp_path / "gone-0.abc123-delete").mkdir()
    (tmp_path / "gone-0.abc123-delete" / "00000000000000000000.log").write_bytes(b"")
    (tmp_path / "not a partition").mkdir()
    manager.close()
    restarted = LogManager.open(tmp_path, small_config(), now_ms=clock.now_ms)
    assert not (tmp_path / "gone-0.abc123-delete").exists()
    assert sorted(restarted.logs) == [("my-topic", 0), ("orders", 0)]
    restarted.close()


def test_topic_configs(tmp_path):
    clock = Clock()
    compacted = LogConfig(cleanup_policy=("compact",), internal_segment_bytes=2048)
    manager = LogManager.open(tmp_path, small_config(), now_ms=clock.now_ms, topic_configs={"state": compacted})
    assert manager.get_or_create_log("state", 0, now_ms=0).config is compacted
    plain = manager.get_or_create_log("plain", 0, now_ms=0)
    assert plain.config == small_config()
    changed = small_config(internal_segment_bytes=999)
    manager.set_topic_config("plain", changed)
    assert plain.config is changed
    manager.close()


def test_corrupt_checkpoint_means_full_recovery(tmp_path):
    clock = Clock()
    manager = LogManager.open(tmp_path, small_config(), now_ms=clock.now_ms)
    fill(manager, clock)
    manager.close_handlers()
    (tmp_path / "recovery-point-offset-checkpoint").write_text("garbage")
    restarted = LogManager.open(tmp_path, small_config(), now_ms=clock.now_ms)
    orders = restarted.get_log("orders", 0)
    assert orders.recovery_report.segments_recovered == orders.num_segments
    assert orders.log_end_offset == 60
    restarted.close()


def test_flush_dirty_logs(tmp_path):
    clock = Clock()
    manager = LogManager.open(tmp_path, small_config(flush_ms=100, internal_segment_bytes=1 << 20), now_ms=clock.now_ms)
    fill(manager, clock)
    assert manager.flush_dirty_logs(clock.advance(100)) == 3
    assert all(log.unflushed_messages == 0 for log in manager.logs.values())
    manager.close()


def test_stray_logs_are_renamed_aside_and_kept(tmp_path, caplog):
    """The caller's `is_stray` names the partition directories the broker does not host:
    Kafka 4 renames them `<topic>-<p>.<id>-stray` and keeps them (LogManager.loadLog)."""
    clock = Clock()
    manager = LogManager.open(tmp_path, small_config(), now_ms=clock.now_ms)
    fill(manager, clock)
    manager.close()
    reasons = {("orders", 1): "a reason"}
    with caplog.at_level(logging.WARNING, logger="storage.manager"):
        restarted = LogManager.open(tmp_path, small_config(), now_ms=clock.now_ms,
                                    is_stray=lambda tp, path: reasons.get(tp))
    assert sorted(restarted.logs) == [("my-topic", 0), ("orders", 0)]
    [stray] = [p for p in tmp_path.iterdir() if p.name.endswith("-stray")]
    assert stray.name.startswith("orders-1.") and len(stray.name) == len("orders-1.") + 32 + len("-stray")
    assert (stray / "00000000000000000000.log").stat().st_size > 0
    lines = [r.getMessage() for r in caplog.records if r.name == "storage.manager"]
    assert len(lines) == 1 and "a reason" in lines[0] and stray.name in lines[0]
    restarted.close()
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="storage.manager"):
        again = LogManager.open(tmp_path, small_config(), now_ms=clock.now_ms, is_stray=lambda tp, path: None)
    assert sorted(again.logs) == [("my-topic", 0), ("orders", 0)] and stray.exists()
    assert [r.getMessage() for r in caplog.records if r.name == "storage.manager"] == [
        f"Leaving stray log {stray} as it is: this broker does not host it"]
    again.close()


def test_every_log_gets_the_flush_listener(tmp_path):
    """Created or loaded, a log tells the manager's listener when a roll leaves a flush."""
    clock = Clock()
    told = []
    manager = LogManager.open(tmp_path, small_config(), now_ms=clock.now_ms, flush_listener=told.append)
    created = manager.get_or_create_log("orders", 0, now_ms=clock.now_ms)
    created.append(make_batch(2), now_ms=clock.now_ms)
    created.roll(now_ms=clock.now_ms)
    assert told == [created]
    manager.close()
    reopened = LogManager.open(tmp_path, small_config(), now_ms=clock.now_ms, flush_listener=told.append)
    loaded = reopened.get_log("orders", 0)
    loaded.append(make_batch(2), now_ms=clock.now_ms)
    loaded.roll(now_ms=clock.now_ms)
    assert told == [created, loaded]
    reopened.close()


def test_the_cyclic_collector_is_paused_while_the_logs_open_and_restored_after(tmp_path):
    """The opening of the partition directories runs with the collector off (the
    `is_stray` hook is called there, once per directory); after it the collector is as
    the caller had it, on or off."""
    clock = Clock()
    manager = LogManager.open(tmp_path, small_config(), now_ms=clock.now_ms)
    fill(manager, clock)
    manager.close()
    seen_enabled = []

    def is_stray(topic_partition, dir):
        seen_enabled.append(gc.isenabled())
        return None

    assert gc.isenabled()
    reopened = LogManager.open(tmp_path, small_config(), now_ms=clock.now_ms, is_stray=is_stray)
    assert seen_enabled == [False, False, False]
    assert gc.isenabled()
    reopened.close()
    gc.disable()
    try:
        LogManager.open(tmp_path, small_config(), now_ms=clock.now_ms, is_stray=is_stray).close()
        assert not gc.isenabled()
    finally:
        gc.enable()
