"""Log: append and read against a list model, validation before writing, rolls, truncation,
deletion, flush policy, timestamps, and what a clean reopen reads."""

from __future__ import annotations

import os
import random
import sys

import pytest

from protocol.records import (
    Compression,
    TimestampType,
    iter_batch_headers,
    read_batch_header,
    validate_batch,
)
from storage import segment as segment_module
from storage.config import LogConfig
from storage.errors import (
    CorruptBatch,
    InvalidBatch,
    OffsetOutOfRange,
    RecordBatchTooLarge,
    RecordTooLarge,
    UnexpectedAppendOffset,
)
from storage.log import Log
from storage.segment import LogSegment
from storage.time_index import TimestampOffset
from tests.storage.builders import BASE_TIME_MS, Clock, make_batch, records_of, small_config


def open_log(tmp_path, config=None, clock=None, **kwargs) -> Log:
    return Log.open(tmp_path / "topic-0", config or small_config(), now_ms=(clock or Clock()).now_ms, **kwargs)


def read_all(log: Log, start: int | None = None) -> list:
    """Every record from `start` (default: log start) to the log end, by repeated reads."""
    offset = log.log_start_offset if start is None else start
    records = []
    while offset < log.log_end_offset:
        result = log.read(offset, 1000)
        batch_records = [r for r in records_of(result.read_bytes()) if r.offset >= offset]
        assert batch_records, f"no progress at offset {offset}"
        records.extend(batch_records)
        offset = batch_records[-1].offset + 1
    return records


def test_append_assigns_offsets_and_reads_back(tmp_path):
    clock = Clock()
    log = open_log(tmp_path, clock=clock)
    model = []
    for i in range(200):
        count = 1 + i % 4
        info = log.append(make_batch(count, tag=i, value_bytes=20 + i % 50), now_ms=clock.advance(1))
        assert info.first_offset == len(model) and info.last_offset == len(model) + count - 1
        assert info.record_count == count and info.batch_count == 1
        model.extend((i, j) for j in range(count))
    assert log.log_end_offset == len(model)
    assert log.num_segments > 1
    records = read_all(log)
    assert [r.offset for r in records] == list(range(len(model)))
    assert [r.value.split(b"x")[0] for r in records] == [b"%d:%d:" % m for m in model]
    log.close()


def test_one_append_of_several_batches(tmp_path):
    log = open_log(tmp_path)
    log.append(make_batch(2), now_ms=BASE_TIME_MS)
    buffer = make_batch(3, tag=1) + make_batch(1, tag=2) + make_batch(4, tag=3, timestamp_ms=BASE_TIME_MS + 9)
    info = log.append(buffer, now_ms=BASE_TIME_MS)
    assert (info.first_offset, info.last_offset, info.batch_count, info.record_count) == (2, 9, 3, 8)
    assert (info.max_timestamp_ms, info.offset_of_max_timestamp) == (BASE_TIME_MS + 9, 9)
    assert info.size_bytes == len(buffer)
    data = log.active_segment.read_bytes(info.position, info.size_bytes)
    assert [(h.base_offset, h.last_offset) for _, h in iter_batch_headers(data)] == [(2, 4), (5, 5), (6, 9)]
    for position, _ in iter_batch_headers(data):
        validate_batch(data, position)  # stamping the base offset left the CRC valid
    log.close()


def test_writable_buffers_are_stamped_in_place_readonly_ones_copied(tmp_path):
    log = open_log(tmp_path)
    log.append(make_batch(5), now_ms=0)
    original = make_batch(1)
    frozen = bytes(original)
    log.append(frozen, now_ms=0)
    assert frozen == original
    mutable = bytearray(original)
    log.append(mutable, now_ms=0)
    assert read_batch_header(mutable).base_offset == 6
    log.close()


@pytest.mark.parametrize(
    "damage, error",
    [("crc", CorruptBatch), ("magic", InvalidBatch), ("truncated", CorruptBatch), ("length", CorruptBatch)],
)
def test_bad_batch_raises_before_anything_is_written(tmp_path, damage, error):
    log = open_log(tmp_path)
    log.append(make_batch(3), now_ms=0)
    sizes = {p.name: p.stat().st_size for p in log.dir.iterdir()}
    good, bad = make_batch(2, tag=1), bytearray(make_batch(2, tag=2))
    if damage == "crc":
        bad[-1] ^= 0xFF
    elif damage == "magic":
        bad[16] = 1
    elif damage == "truncated":
        bad = bad[:-3]
    else:
        bad[8:12] = (10).to_bytes(4, "big")
    with pytest.raises(error) as raised:
        log.append(bytes(good + bad), now_ms=0)
    assert raised.value.position == len(good)
    assert log.log_end_offset == 3
    assert {p.name: p.stat().st_size for p in log.dir.iterdir()} == sizes
    log.close()


def test_size_limits(tmp_path):
    log = open_log(tmp_path, small_config(max_message_bytes=500, internal_segment_bytes=1000))
    with pytest.raises(RecordTooLarge):
        log.append(make_batch(1, value_bytes=600), now_ms=0)
    with pytest.raises(RecordBatchTooLarge):
        log.append(b"".join(make_batch(1, value_bytes=300, tag=i) for i in range(4)), now_ms=0)
    assert log.log_end_offset == 0 and log.size_bytes == 0
    log.close()


def test_empty_append_writes_nothing(tmp_path):
    log = open_log(tmp_path)
    info = log.append(b"", now_ms=0)
    assert (info.first_offset, info.last_offset, info.record_count) == (0, -1, 0)
    assert log.log_end_offset == 0
    log.close()


def test_read_range_errors_and_empty_reads(tmp_path):
    log = open_log(tmp_path)
    for i in range(30):
        log.append(make_batch(2, tag=i), now_ms=0)
    log.delete_segments_below(10)
    with pytest.raises(OffsetOutOfRange) as below:
        log.read(9, 100)
    assert (below.value.offset, below.value.log_start_offset, below.value.log_end_offset) == (9, 10, 60)
    with pytest.raises(OffsetOutOfRange):
        log.read(61, 100)
    at_end = log.read(60, 100)
    assert at_end.size_bytes == 0 and at_end.fetch_offset == 60
    first = records_of(log.read(10, 10_000).read_bytes())
    assert first[0].offset == 10
    log.close()


def test_read_from_every_offset_starts_at_its_batch(tmp_path):
    log = open_log(tmp_path)
    bounds = []
    for i in range(60):
        info = log.append(make_batch(1 + i % 3, tag=i), now_ms=0)
        bounds.append((info.first_offset, info.last_offset))
    for first, last in bounds:
        for offset in range(first, last + 1):
            result = log.read(offset, 1)  # min_one_batch: the whole batch anyway
            header = read_batch_header(result.read_bytes())
            assert (header.base_offset, header.last_offset) == (first, last)
            assert result.size_bytes == header.size_bytes
    log.close()


def test_read_stops_before_max_offset(tmp_path):
    log = open_log(tmp_path)
    for i in range(40):
        log.append(make_batch(2, tag=i), now_ms=0)
    for high_watermark in (0, 1, 2, 13, 14, 40, 79, 80):
        got = []
        offset = 0
        while offset < high_watermark:
            result = log.read(offset, 300, max_offset=high_watermark)
            records = [r for r in records_of(result.read_bytes()) if r.offset >= offset]
            if not records:
                break
            got.extend(r.offset for r in records)
            offset = records[-1].offset + 1
        assert all(o < high_watermark or high_watermark % 2 for o in got)
        assert got == list(range(high_watermark - high_watermark % 2))
    log.close()


def test_rolls_on_segment_bytes(tmp_path):
    log = open_log(tmp_path, small_config(internal_segment_bytes=1000, index_interval_bytes=4096))
    for i in range(50):
        log.append(make_batch(1, value_bytes=100, tag=i), now_ms=0)
    sizes = [s.size_bytes for s in log.segments]
    assert all(size <= 1000 for size in sizes) and len(sizes) > 5
    for previous, current in zip(log.segments, log.segments[1:]):
        assert current.base_offset == previous.read_next_offset()
    log.close()


def test_rolls_on_segment_ms_by_record_timestamps_with_jitter(tmp_path):
    config = small_config(internal_segment_bytes=1 << 20, segment_ms=10_000, segment_jitter_ms=3_000)
    log = open_log(tmp_path, config, rng=random.Random(7))
    jitter = log.active_segment.roll_jitter_ms
    assert 0 <= jitter < 3_000
    log.append(make_batch(1, timestamp_ms=1_000_000), now_ms=0)
    log.append(make_batch(1, timestamp_ms=1_000_000 + 10_000 - jitter), now_ms=0)
    assert log.num_segments == 1
    log.append(make_batch(1, timestamp_ms=1_000_000 + 10_001 - jitter), now_ms=0)
    assert log.num_segments == 2 and log.active_segment.base_offset == 2
    log.close()


def test_rolls_when_an_index_is_full(tmp_path):
    log = open_log(tmp_path, small_config(internal_segment_bytes=1 << 20, index_interval_bytes=0, segment_index_bytes=8 * 5))
    for i in range(30):
        log.append(make_batch(1, tag=i, timestamp_ms=BASE_TIME_MS + i), now_ms=0)
    for segment in log.segments[:-1]:
        # The time index (12-byte entries, one reserved) fills first: 40 bytes hold 3.
        assert segment.time_index.entries <= 3 and segment.offset_index.entries <= 5
    assert [r.offset for r in read_all(log)] == list(range(30))
    log.close()


def test_rolls_before_a_relative_offset_overflows(tmp_path):
    log = open_log(tmp_path)
    log.append(make_batch(2), now_ms=0)
    far = bytearray(make_batch(1))
    far[0:8] = (2**31).to_bytes(8, "big")  # relative offset 2**31 does not fit an int32
    info = log.append(far, now_ms=0, assign_offsets=False)
    assert info.first_offset == 2**31 and log.num_segments == 2
    assert log.active_segment.base_offset == 2**31
    assert log.log_end_offset == 2**31 + 1
    log.close()


def test_follower_append_keeps_offsets_and_refuses_going_back(tmp_path):
    log = open_log(tmp_path)
    batch = bytearray(make_batch(3))
    batch[0:8] = (0).to_bytes(8, "big")
    log.append(batch, now_ms=0, assign_offsets=False)
    with pytest.raises(UnexpectedAppendOffset):
        log.append(batch, now_ms=0, assign_offsets=False)
    gap = bytearray(make_batch(1))
    gap[0:8] = (10).to_bytes(8, "big")
    log.append(gap, now_ms=0, assign_offsets=False)
    assert log.log_end_offset == 11
    assert [r.offset for r in read_all(log)] == [0, 1, 2, 10]
    log.close()


def test_leader_epoch_and_log_append_time_are_stamped(tmp_path):
    log = open_log(tmp_path, small_config(message_timestamp_type="LogAppendTime"))
    info = log.append(make_batch(3, timestamp_ms=5), now_ms=123_456, leader_epoch=7)
    assert info.log_append_time_ms == 123_456 and info.max_timestamp_ms == 123_456
    data = log.read(0, 10_000).read_bytes()
    header = validate_batch(data)
    assert header.partition_leader_epoch == 7
    assert header.timestamp_type is TimestampType.LOG_APPEND_TIME
    assert [r.timestamp for r in records_of(data)] == [123_456] * 3
    log.close()


def test_compressed_batches(tmp_path):
    log = open_log(tmp_path)
    log.append(make_batch(5, compression=Compression.GZIP, value_bytes=200), now_ms=0)
    log.append(make_batch(5, compression=Compression.ZSTD, value_bytes=200, tag=1), now_ms=0)
    assert [r.offset for r in read_all(log)] == list(range(10))
    log.close()


def test_offset_for_timestamp_matches_brute_force(tmp_path):
    rng = random.Random(11)
    log = open_log(tmp_path, small_config(internal_segment_bytes=1500, index_interval_bytes=100))
    records = []
    for i in range(120):
        timestamps = [BASE_TIME_MS + rng.randint(0, 5000) for _ in range(rng.randint(1, 3))]
        info = log.append(make_batch(len(timestamps), timestamps=timestamps, tag=i), now_ms=0)
        records.extend((info.first_offset + j, ts) for j, ts in enumerate(timestamps))
    assert log.num_segments > 3
    log.delete_segments_below(37)
    for target in [BASE_TIME_MS + rng.randint(-100, 5100) for _ in range(60)] + [BASE_TIME_MS + 5000]:
        expected = next(
            (TimestampOffset(ts, o) for o, ts in records if ts >= target and o >= log.log_start_offset), None
        )
        assert log.offset_for_timestamp(target) == expected
    log.close()


def test_truncate_to_an_older_segment(tmp_path):
    log = open_log(tmp_path)
    for i in range(300):
        log.append(make_batch(2, tag=i), now_ms=0)
    assert log.num_segments > 4
    target = log.segments[2].base_offset + 4  # a batch boundary inside segment 2
    assert log.truncate_to(target)
    assert log.log_end_offset == target and log.num_segments == 3
    assert log.recovery_point <= target
    assert not log.truncate_to(target)
    for i in range(5):
        log.append(make_batch(2, tag=1000 + i), now_ms=0)
    records = read_all(log)
    assert [r.offset for r in records] == list(range(target + 10))
    assert records[target].value.startswith(b"1000:")
    log.close()
    reopened = open_log(tmp_path, had_clean_shutdown=True)
    assert reopened.log_end_offset == target + 10
    assert [r.offset for r in read_all(reopened)] == list(range(target + 10))
    reopened.close()


def test_truncate_inside_a_batch_removes_the_whole_batch(tmp_path):
    log = open_log(tmp_path)
    log.append(make_batch(3), now_ms=0)
    log.append(make_batch(3), now_ms=0)
    log.truncate_to(4)
    assert log.log_end_offset == 3


def test_truncate_below_the_first_segment_starts_afresh(tmp_path):
    log = open_log(tmp_path)
    for i in range(100):
        log.append(make_batch(2, tag=i), now_ms=0)
    log.delete_segments_below(150)
    first_base = log.segments[0].base_offset
    log.truncate_to(first_base - 1)
    assert (log.log_start_offset, log.log_end_offset, log.num_segments) == (first_base - 1,) * 2 + (1,)
    info = log.append(make_batch(1), now_ms=0)
    assert info.first_offset == first_base - 1
    log.close()


def test_delete_segments_below_defers_file_removal(tmp_path):
    clock = Clock()
    log = open_log(tmp_path, small_config(file_delete_delay_ms=60_000), clock=clock)
    for i in range(300):
        log.append(make_batch(2, tag=i), now_ms=clock.now_ms)
    segments = log.segments
    fetch = log.read(0, 100)
    deleted = log.delete_segments_below(segments[3].base_offset + 1, now_ms=clock.now_ms)
    assert deleted == 3 and log.log_start_offset == segments[3].base_offset + 1
    assert log.segments[0] is segments[3]
    names = sorted(p.name for p in log.dir.iterdir())
    assert sum(name.endswith(".log.deleted") for name in names) == 3
    assert len(fetch.read_bytes()) == fetch.size_bytes > 0  # a range handed out before still reads
    assert log.delete_expired_files(clock.advance(59_999)) == 0
    assert log.delete_expired_files(clock.advance(1)) == 3
    assert not any(p.name.endswith(".deleted") for p in log.dir.iterdir())
    with pytest.raises(OffsetOutOfRange):
        log.delete_segments_below(log.log_end_offset + 1)
    log.close()


def log_with_a_file_remover(tmp_path) -> tuple[Log, Clock, list[list]]:
    """A log of several segments whose `file_remover` records what it is handed."""
    clock = Clock()
    log = open_log(tmp_path, small_config(file_delete_delay_ms=60_000), clock=clock)
    handed: list[list] = []
    log.file_remover = handed.append
    for i in range(300):
        log.append(make_batch(2, tag=i), now_ms=clock.now_ms)
    return log, clock, handed


def test_a_file_remover_gets_the_expired_files_to_remove_instead(tmp_path):
    """What a broker hands to a thread: each segment's files under their .deleted names,
    indexes first and the .log last, closed, and the producer snapshot at its base."""
    log, clock, handed = log_with_a_file_remover(tmp_path)
    second = log.segments[1].base_offset   # its roll took a producer snapshot at its base
    log.delete_segments_below(log.segments[2].base_offset, now_ms=clock.now_ms)
    assert log.delete_expired_files(clock.advance(60_000)) == 2
    assert [[p.name for p in paths] for paths in handed] == [
        [f"{base:020d}{suffix}.deleted" for suffix in (".index", ".timeindex", ".txnindex", ".log")] + snapshot
        for base, snapshot in ((0, []), (second, [f"{second:020d}.snapshot.deleted"]))]
    assert all((log.dir / f"{base:020d}.log.deleted").exists() for base in (0, second))   # nothing removed here
    log.close()


def test_a_close_removes_the_segments_still_waiting_itself_not_through_the_file_remover(tmp_path):
    """At close nothing is left to wait for (no reader outlives the log), and the broker
    that owns the remover is stopping: the files go at once, here."""
    log, clock, handed = log_with_a_file_remover(tmp_path)
    log.delete_segments_below(log.segments[2].base_offset, now_ms=clock.now_ms)
    assert list(log.dir.glob("*.deleted"))
    log.close()
    assert handed == [] and not list(log.dir.glob("*.deleted"))


def test_delete_segments_below_never_deletes_the_active_segment(tmp_path):
    log = open_log(tmp_path)
    for i in range(100):
        log.append(make_batch(2, tag=i), now_ms=0)
    log.delete_segments_below(log.log_end_offset)
    assert log.num_segments == 1 and log.log_start_offset == log.log_end_offset == 200
    assert log.read(200, 100).size_bytes == 0
    log.close()


def test_flush_messages_moves_the_recovery_point(tmp_path, monkeypatch):
    fsyncs = []
    real_flush = LogSegment.flush
    monkeypatch.setattr(LogSegment, "flush", lambda self: (fsyncs.append(self.base_offset), real_flush(self))[1])
    log = open_log(tmp_path, small_config(flush_messages=5, internal_segment_bytes=1 << 20))
    points = []
    for i in range(12):
        log.append(make_batch(1, tag=i), now_ms=0)
        points.append(log.recovery_point)
    assert points == [0, 0, 0, 0, 5, 5, 5, 5, 5, 10, 10, 10]
    assert len(fsyncs) == 2
    log.close()
    assert log.recovery_point == 12


def test_a_flush_fsyncs_the_directory_only_for_a_segment_created_since_the_last_flush(tmp_path, monkeypatch):
    """Kafka's LocalLog.flush rule: the directory entries of a new segment's files are made
    durable by the first flush that covers the segment; later flushes of it need not."""
    from storage import log as log_module

    synced = []
    real_fsync_dir = log_module.fsync_dir
    monkeypatch.setattr(log_module, "fsync_dir", lambda path: (synced.append(path), real_fsync_dir(path))[1])
    log = open_log(tmp_path, small_config(flush_messages=1, internal_segment_bytes=1 << 20))
    synced.clear()   # (the open's own)
    log.append(make_batch(1, tag=0), now_ms=0)
    assert synced == [log.dir]   # the first segment's first flush
    log.append(make_batch(1, tag=1), now_ms=0)
    log.append(make_batch(1, tag=2), now_ms=0)
    assert synced == [log.dir]   # the same segment again: no directory fsync
    log.roll(now_ms=0)
    synced.clear()
    log.append(make_batch(1, tag=3), now_ms=0)
    assert synced == [log.dir] and log.recovery_point == 4   # the new segment's first flush
    log.append(make_batch(1, tag=4), now_ms=0)
    assert synced == [log.dir]
    log.close()


def test_flush_ms_and_default_policy(tmp_path):
    clock = Clock()
    log = open_log(tmp_path, small_config(flush_ms=1000, internal_segment_bytes=1 << 20), clock=clock)
    log.append(make_batch(1), now_ms=clock.now_ms)
    assert not log.maybe_flush(clock.advance(999))
    assert log.maybe_flush(clock.advance(1)) and log.recovery_point == 1
    assert not log.maybe_flush(clock.advance(5000))  # nothing unflushed
    log.close()
    default = Log.open(tmp_path / "other-0", small_config(internal_segment_bytes=600), now_ms=0)
    for i in range(20):
        default.append(make_batch(1, value_bytes=100, tag=i), now_ms=0)
        # By default only a roll flushes (its pending flush, run here as the broker would
        # run it on a thread): the recovery point is the active segment's base.
        default.run_pending_flush()
        assert default.recovery_point == default.active_segment.base_offset
    assert not default.maybe_flush(10**12)
    default.close()


def test_clean_reopen_reads_no_segment_data(tmp_path, monkeypatch):
    config = small_config(internal_segment_bytes=256 * 1024, index_interval_bytes=4096, segment_index_bytes=1 << 20)
    log = open_log(tmp_path, config)
    for i in range(2000):
        log.append(make_batch(3, value_bytes=200, tag=i), now_ms=0)
    end, size = log.log_end_offset, log.size_bytes
    log.close()
    assert size > 1_000_000
    bytes_read = []
    real_pread = segment_module.pread_exact
    monkeypatch.setattr(segment_module, "pread_exact", lambda fd, pos, n: bytes_read.append(n) or real_pread(fd, pos, n))
    monkeypatch.setattr(LogSegment, "recover", lambda self: pytest.fail("recover on a clean open"))
    reopened = open_log(tmp_path, config, had_clean_shutdown=True)
    assert reopened.log_end_offset == end
    assert sum(bytes_read) <= 2 * segment_module.SCAN_CHUNK_BYTES
    # A read anywhere costs one index lookup and a scan of at most one interval.
    bytes_read.clear()
    reopened.read(end // 2, 1000)
    assert sum(bytes_read) <= segment_module.SCAN_CHUNK_BYTES
    reopened.close()


def test_close_and_reopen_keeps_everything(tmp_path):
    clock = Clock()
    log = open_log(tmp_path, clock=clock)
    for i in range(150):
        log.append(make_batch(1 + i % 2, tag=i, timestamp_ms=BASE_TIME_MS + i), now_ms=clock.advance(1))
    log.delete_segments_below(20)
    before = read_all(log)
    state = (log.log_start_offset, log.log_end_offset, log.num_segments, log.size_bytes)
    log.close()
    reopened = open_log(tmp_path, log_start_offset=20, recovery_point=state[1], had_clean_shutdown=True)
    assert (reopened.log_start_offset, reopened.log_end_offset, reopened.num_segments, reopened.size_bytes) == state
    assert reopened.recovery_point == state[1]
    assert read_all(reopened) == before
    info = reopened.append(make_batch(1), now_ms=clock.now_ms)
    assert info.first_offset == state[1]
    reopened.close()


def test_closed_log_refuses_use(tmp_path):
    log = open_log(tmp_path)
    log.close()
    with pytest.raises(Exception):
        log.append(make_batch(1), now_ms=0)
    log.close()  # idempotent


def test_config_update_applies_to_later_appends(tmp_path):
    log = open_log(tmp_path, LogConfig(internal_segment_bytes=1 << 20))
    log.append(make_batch(1, value_bytes=300), now_ms=0)
    log.update_config(LogConfig(internal_segment_bytes=1 << 20, max_message_bytes=100))
    with pytest.raises(RecordTooLarge):
        log.append(make_batch(1, value_bytes=300), now_ms=0)
    log.close()


def _open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_an_open_log_holds_the_descriptors_of_its_active_segment_only(tmp_path):
    """The `.log`, and, before Python 3.13, the duplicate descriptor each index map keeps
    (storage/index.py, "Descriptors") -- once the indexes are mapped, at their first entry
    ("Mapping"): a log with records but no index entry yet, or reopened after a clean close,
    holds one. A close lets go of them all."""
    held_when_mapped = 1 if sys.version_info >= (3, 13) else 3
    clock = Clock()
    before = _open_descriptors()
    log = open_log(tmp_path, clock=clock)
    log.append(make_batch(3), now_ms=clock.now_ms)
    assert log.active_segment.offset_index.entries == 0
    assert _open_descriptors() - before == 1
    while log.active_segment.offset_index.entries == 0:
        log.append(make_batch(3), now_ms=clock.now_ms)
    assert _open_descriptors() - before == held_when_mapped
    log.close()
    assert _open_descriptors() == before
    reopened = open_log(tmp_path, clock=clock, had_clean_shutdown=True)
    assert reopened.active_segment.offset_index.entries > 0
    assert _open_descriptors() - before == 1   # the start read the indexes with preads
    assert reopened.read(0, 1 << 20).size_bytes > 0
    reopened.close()
    assert _open_descriptors() == before
