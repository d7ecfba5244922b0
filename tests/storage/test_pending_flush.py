"""A roll fsyncs nothing itself: it leaves a PendingFlush (Kafka's "flush-log" task of
UnifiedLog.roll), run on another thread, after which the recovery point moves. Also
what a roll does with stale files at its new base offset."""

from __future__ import annotations

import logging
import os
import threading

from storage import files
from storage.log import Log
from tests.storage.builders import make_batch, records_of, small_config
from tests.storage.fsync_spy import recording_fsyncs

CONFIG = small_config(internal_segment_bytes=2000, index_interval_bytes=150)


def fill_until_roll(log: Log, tag: int = 0) -> int:
    """Append batches until the log rolls once more; returns the next tag."""
    segments = log.num_segments
    while log.num_segments == segments:
        log.append(make_batch(2, value_bytes=100, tag=tag), now_ms=0)
        tag += 1
    return tag


def test_a_roll_leaves_its_flush_pending_and_the_recovery_point_moves_after_it_ran(tmp_path, monkeypatch):
    fsynced = recording_fsyncs(monkeypatch)
    log = Log.open(tmp_path / "t-0", CONFIG, now_ms=0)
    told: list[Log] = []
    log.flush_listener = told.append
    fsynced.clear()
    fill_until_roll(log)
    new_base = log.active_segment.base_offset
    assert fsynced == []  # the append that rolled fsynced nothing
    assert told == [log]
    assert log.recovery_point == 0 and log.pending_flush_offset == new_base

    job = log.take_pending_flush()
    assert job.offset == new_base and log.pending_flush_offset is None
    old = log.segments[0]
    assert set(job.paths) >= {old.log_path, old.offset_index_path, old.time_index_path}
    assert files.producer_snapshot_file_path(log.dir, new_base) in job.paths
    thread = threading.Thread(target=job.run)
    thread.start()
    thread.join()
    assert {os.path.basename(p) for p in fsynced} >= {old.log_path.name, old.offset_index_path.name,
                                                      f"{new_base:020d}.snapshot", log.dir.name}
    assert log.recovery_point == 0  # not before the owner says so
    assert log.mark_flushed(job, now_ms=5)
    assert log.recovery_point == new_base and log.last_flush_ms == 5
    log.close()


def test_a_crash_before_the_pending_flush_recovers_from_the_old_recovery_point(tmp_path):
    dir = tmp_path / "t-0"
    log = Log.open(dir, CONFIG, now_ms=0)
    tag = fill_until_roll(log)
    fill_until_roll(log, tag)
    end = log.log_end_offset
    assert log.recovery_point == 0 and log.num_segments == 3
    log.close_handlers()  # a crash: the pending flush never ran
    log = Log.open(dir, CONFIG, now_ms=0, had_clean_shutdown=False, recovery_point=0)
    assert log.recovery_report.segments_recovered == 3
    assert log.log_end_offset == end and log.recovery_point == 0
    log.close()


def test_a_truncation_voids_a_flush_taken_before_it(tmp_path):
    log = Log.open(tmp_path / "t-0", CONFIG, now_ms=0)
    tag = fill_until_roll(log)
    fill_until_roll(log, tag)
    job = log.take_pending_flush()
    assert log.truncate_to(3, now_ms=0)
    job.run()  # the files it names may be gone: they are skipped
    assert not log.mark_flushed(job)
    assert log.recovery_point == 0 and log.pending_flush_offset is None
    log.close()


def test_flush_and_close_cover_what_is_pending(tmp_path):
    log = Log.open(tmp_path / "t-0", CONFIG, now_ms=0)
    fill_until_roll(log)
    log.flush()
    assert log.recovery_point == log.log_end_offset and log.pending_flush_offset is None
    assert log.take_pending_flush() is None
    log.close()


def test_a_roll_deletes_a_stale_log_and_indexes_at_its_new_base_offset(tmp_path, caplog):
    """Kafka's LocalLog.roll: files at the new base offset that no segment owns are
    deleted first ("already exists; deleting it first")."""
    log = Log.open(tmp_path / "t-0", CONFIG, now_ms=0)
    for i in range(3):
        log.append(make_batch(2, tag=i), now_ms=0)
    base = log.log_end_offset
    stale = [files.segment_file_path(log.dir, base, suffix) for suffix in files.SEGMENT_FILE_SUFFIXES]
    for path in stale:
        path.write_bytes(b"\x07" * 96)
    with caplog.at_level(logging.WARNING, logger="storage.log"):
        segment = log.roll(now_ms=0)
    assert segment.base_offset == base and segment.size_bytes == 0
    assert files.log_file_path(log.dir, base).stat().st_size == 0
    assert not files.txn_index_file_path(log.dir, base).exists()
    assert len([r for r in caplog.records if "exists already" in r.getMessage()]) == 4
    log.append(make_batch(2, tag=9), now_ms=0)
    assert [r.offset for r in records_of(log.read(base, 10_000).read_bytes())] == [base, base + 1]
    assert log.log_end_offset == base + 2
    log.close()
    log = Log.open(tmp_path / "t-0", CONFIG, now_ms=0, had_clean_shutdown=False)
    assert log.log_end_offset == base + 2 and log.recovery_report.bytes_truncated == 0
    log.close()


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_a_flushed_rolled_segment_keeps_one_file_descriptor_and_reads_on(tmp_path):
    """Each index mapping holds a descriptor (Python's mmap keeps a duplicate): once a
    rolled segment is flushed, its indexes are let go, and mapped again when a read needs
    them, so that many segments do not run a broker out of descriptors."""
    log = Log.open(tmp_path / "t-0", CONFIG, now_ms=0)
    tag = fill_until_roll(log)
    log.flush()
    before = open_fds()
    for _ in range(20):
        tag = fill_until_roll(log, tag)
    log.flush()
    assert open_fds() - before <= 20 + 1   # one .log per new segment (+1 for the listing itself)
    first = log.read(0, 100_000)           # the first segment's index mapped again
    assert records_of(first.read_bytes())[0].value == records_of(make_batch(2, value_bytes=100, tag=0))[0].value
    middle = log.read(31, 1000)            # an index lookup in an old segment
    assert [r.offset for r in records_of(middle.read_bytes())][:4] == [30, 31, 32, 33]
    log.close()
