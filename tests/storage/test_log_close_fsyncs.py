"""What a clean close makes durable, and how often: each file once.

A close seals the active segment (its last time-index entry, both indexes trimmed to their
entries), writes the producer snapshot at the log end offset, then fsyncs each of these
once -- the `.log`, the two indexes, the snapshot -- and the directory once, last (the
snapshot's name, a new segment's files). A segment's `.log` is fsynced only if written or
cut since its last fsync."""

from __future__ import annotations

import os
from collections import Counter

from protocol.records import build_batch
from storage import files
from storage.log import Log
from storage.producer_snapshot import read_snapshot_file
from storage.segment import LogSegment
from tests.storage.builders import BASE_TIME_MS, make_batch, small_config
from tests.storage.fsync_spy import recording_fsyncs


def test_a_close_fsyncs_each_file_of_the_active_segment_and_the_snapshot_once_and_the_directory_last(
        tmp_path, monkeypatch):
    log = Log.open(tmp_path / "t-0", small_config(internal_segment_bytes=1 << 20), now_ms=0)
    idempotent = build_batch([(None, b"v%d" % i, (), BASE_TIME_MS) for i in range(3)], timestamp_ms=BASE_TIME_MS,
                             producer_id=7, producer_epoch=0, base_sequence=0)
    log.append(idempotent, now_ms=0)
    active = log.active_segment
    synced = recording_fsyncs(monkeypatch)
    log.close()
    snapshot = files.producer_snapshot_file_path(log.dir, 3)
    assert Counter(synced) == Counter({str(active.log_path): 1, str(active.offset_index_path): 1,
                                       str(active.time_index_path): 1, str(snapshot): 1, str(log.dir): 1})
    assert synced[-1] == str(log.dir)
    # and what was made durable is the sealed state: indexes trimmed, the snapshot whole
    assert os.path.getsize(active.offset_index_path) == 0   # 3 records: under an index interval
    assert os.path.getsize(active.time_index_path) == 12     # the final entry
    assert [row.producer_id for row in read_snapshot_file(snapshot)] == [7]
    assert log.recovery_point == 3


def test_a_close_after_a_flush_fsyncs_only_what_the_seal_changed(tmp_path, monkeypatch):
    log = Log.open(tmp_path / "t-0", small_config(internal_segment_bytes=1 << 20), now_ms=0)
    log.append(make_batch(3), now_ms=0)
    log.flush()
    active = log.active_segment
    synced = recording_fsyncs(monkeypatch)
    log.close()
    # the .log was fsynced by the flush and not written since; the indexes were trimmed
    assert str(active.log_path) not in synced
    assert Counter(synced)[str(active.offset_index_path)] == 1
    assert Counter(synced)[str(active.time_index_path)] == 1


def test_a_segment_fsyncs_its_log_again_only_once_written_or_cut(tmp_path, monkeypatch):
    log = Log.open(tmp_path / "t-0", small_config(internal_segment_bytes=1 << 20), now_ms=0)
    log.append(make_batch(2, tag=0), now_ms=0)
    segment: LogSegment = log.active_segment
    synced = recording_fsyncs(monkeypatch)
    segment.flush()
    segment.flush()
    assert synced.count(str(segment.log_path)) == 1   # nothing written in between
    log.append(make_batch(2, tag=1), now_ms=0)
    segment.flush()
    assert synced.count(str(segment.log_path)) == 2   # an append
    segment.truncate_to(2)
    segment.flush()
    assert synced.count(str(segment.log_path)) == 3   # a cut
    log.close()


def test_a_segment_found_on_disk_fsyncs_its_log_at_its_first_flush(tmp_path, monkeypatch):
    # a process killed after an append leaves the bytes in the page cache, not on disk
    log = Log.open(tmp_path / "t-0", small_config(internal_segment_bytes=1 << 20), now_ms=0)
    log.append(make_batch(2), now_ms=0)
    log.close_handlers()
    reopened = Log.open(tmp_path / "t-0", small_config(internal_segment_bytes=1 << 20), now_ms=0)
    synced = recording_fsyncs(monkeypatch)
    reopened.active_segment.flush()
    assert synced.count(str(reopened.active_segment.log_path)) == 1
    reopened.close()
