"""Opening a log after crashes and interrupted operations: torn and zeroed tails, flipped
bytes, missing or corrupt index files, leftover .swap / .cleaned / .deleted files."""

from __future__ import annotations

import logging
import os
import shutil

import pytest

from protocol.records import iter_batch_headers, stamp_base_offset
from storage.log import Log
from storage.segment import LogSegment
from storage.time_index import TimestampOffset
from tests.storage.builders import make_batch, read_offset_index, read_time_index, records_of, small_config

CONFIG = small_config(internal_segment_bytes=2000, index_interval_bytes=150)


def build_log(dir, batches: int = 120) -> list[tuple[int, int]]:
    """A log of `batches` batches of 2 records, closed cleanly; returns (first, last) per batch."""
    log = Log.open(dir, CONFIG, now_ms=0)
    bounds = []
    for i in range(batches):
        info = log.append(make_batch(2, tag=i, timestamp_ms=1000 + i), now_ms=0)
        bounds.append((info.first_offset, info.last_offset))
    log.close()
    return bounds


def crash_log(dir, batches: int = 120) -> Log:
    """A log whose process 'died': files closed without trimming, flushing or final entries."""
    log = Log.open(dir, CONFIG, now_ms=0)
    for i in range(batches):
        log.append(make_batch(2, tag=i, timestamp_ms=1000 + i), now_ms=0)
    log.close_handlers()
    return log


def reopen(dir, *, clean=False, recovery_point=0, log_start_offset=0) -> Log:
    return Log.open(
        dir, CONFIG, now_ms=0, had_clean_shutdown=clean, recovery_point=recovery_point, log_start_offset=log_start_offset
    )


def offsets(log: Log) -> list[int]:
    found, offset = [], log.log_start_offset
    while offset < log.log_end_offset:
        records = [r for r in records_of(log.read(offset, 100_000).read_bytes()) if r.offset >= offset]
        found.extend(r.offset for r in records)
        offset = records[-1].offset + 1
    return found


def segment_files(dir, suffix=".log"):
    return sorted(p for p in dir.iterdir() if p.name.endswith(suffix))


def recovery_lines(caplog):
    return [r for r in caplog.records if r.name == "storage.recovery"]


def test_unclean_open_without_damage_drops_nothing(tmp_path, caplog):
    dir = tmp_path / "t-0"
    build_log(dir)
    expected_indexes = {p.name: p.read_bytes() for p in dir.iterdir() if not p.name.endswith(".log")}
    caplog.set_level(logging.DEBUG, logger="storage.recovery")
    log = reopen(dir, recovery_point=0)
    assert log.log_end_offset == 240 and offsets(log) == list(range(240))
    report = log.recovery_report
    assert report.segments_recovered == log.num_segments
    assert (report.bytes_truncated, report.batches_dropped, report.segments_deleted) == (0, 0, 0)
    assert log.recovery_point == 0  # only a flush moves it
    log.close()
    # Recovery rebuilt the very same index files.
    assert {p.name: p.read_bytes() for p in dir.iterdir() if not p.name.endswith(".log")} == expected_indexes
    lines = recovery_lines(caplog)
    assert len(lines) == 1 and lines[0].levelno == logging.INFO


def test_recovery_starts_at_the_segment_holding_the_recovery_point(tmp_path):
    dir = tmp_path / "t-0"
    build_log(dir)
    probe = reopen(dir, clean=True)
    bases = [s.base_offset for s in probe.segments]
    probe.close()
    log = reopen(dir, recovery_point=bases[3] + 1)
    assert log.recovery_report.segments_recovered == len(bases) - 3
    log.close()


def test_torn_tail_after_a_crash(tmp_path, caplog):
    dir = tmp_path / "t-0"
    crash_log(dir)
    active = segment_files(dir)[-1]
    data = active.read_bytes()
    positions = [p for p, _ in iter_batch_headers(data)]
    active.write_bytes(data[: positions[-1] + 40])  # the last batch is torn
    caplog.set_level(logging.INFO, logger="storage.recovery")
    log = reopen(dir)
    assert log.log_end_offset == 238 and offsets(log) == list(range(238))
    report = log.recovery_report
    assert (report.bytes_truncated, report.batches_dropped) == (40, 1)
    lines = recovery_lines(caplog)
    assert len(lines) == 1 and lines[0].levelno == logging.WARNING
    assert "dropped 40 bytes in 1 batch(es)" in lines[0].getMessage()
    # The log goes on from there.
    assert log.append(make_batch(1), now_ms=0).first_offset == 238
    log.close()


def test_zeroed_tail_after_a_crash(tmp_path):
    dir = tmp_path / "t-0"
    crash_log(dir)
    active = segment_files(dir)[-1]
    with open(active, "ab") as f:
        f.write(bytes(4096))  # the file system extended the file, the data never came
    # The crash also left the active segment's indexes preallocated (zero tails).
    assert segment_files(dir, ".index")[-1].stat().st_size == CONFIG.segment_index_bytes
    log = reopen(dir)
    assert log.log_end_offset == 240 and offsets(log) == list(range(240))
    assert (log.recovery_report.bytes_truncated, log.recovery_report.batches_dropped) == (4096, 1)
    log.close()


def test_flipped_byte_mid_log_truncates_there_and_deletes_later_segments(tmp_path, caplog):
    dir = tmp_path / "t-0"
    bounds = build_log(dir)
    logs = segment_files(dir)
    victim = logs[2]
    data = bytearray(victim.read_bytes())
    positions = [p for p, _ in iter_batch_headers(data)]
    data[positions[3] + 65] ^= 0x40  # inside batch 3's records: its CRC no longer matches
    victim.write_bytes(bytes(data))
    later_bytes = sum(p.stat().st_size for p in logs[3:])
    caplog.set_level(logging.INFO, logger="storage.recovery")
    log = reopen(dir)
    victim_base = int(victim.name.split(".")[0])
    expected_end = victim_base + 3 * 2
    assert log.log_end_offset == expected_end and offsets(log) == list(range(expected_end))
    report = log.recovery_report
    assert report.segments_deleted == len(logs) - 3
    assert report.bytes_truncated == len(data) - positions[3] + later_bytes
    batches_after = sum(1 for first, _ in bounds if first >= expected_end)
    assert report.batches_dropped == batches_after
    assert segment_files(dir) == logs[:3]
    assert "fails its CRC-32C check" in recovery_lines(caplog)[0].getMessage()
    log.close()


@pytest.mark.parametrize("which", [".index", "both"])
def test_a_missing_offset_index_rebuilds_both_indexes(tmp_path, which):
    """Kafka's LogLoader recovers a segment whose offset index is missing."""
    dir = tmp_path / "t-0"
    build_log(dir)
    index = segment_files(dir, ".index")[1]
    time_index = segment_files(dir, ".timeindex")[1]
    original = (index.read_bytes(), time_index.read_bytes())
    index.unlink()
    if which == "both":
        time_index.unlink()
    log = reopen(dir, clean=True)
    assert log.recovery_report.index_rebuilds == 1
    assert log.recovery_report.time_indexes_created == 0
    assert offsets(log) == list(range(240))
    log.close()
    assert (index.read_bytes(), time_index.read_bytes()) == original


def test_a_missing_time_index_alone_is_created_empty_and_the_segment_not_read(tmp_path, monkeypatch):
    """Kafka (LogLoader.loadSegmentFiles, LogSegment.sanityCheck) creates an empty time
    index and does not recover the segment; its timestamps are then unknown, so the
    segment's largest timestamp is its `.log` file's modification time."""
    dir = tmp_path / "t-0"
    build_log(dir)
    time_index = segment_files(dir, ".timeindex")[1]
    index = segment_files(dir, ".index")[1]
    original_index = index.read_bytes()
    time_index.unlink()
    recovered = []
    monkeypatch.setattr(LogSegment, "recover", lambda self: recovered.append(self.base_offset))
    log = reopen(dir, clean=True)
    assert recovered == []
    report = log.recovery_report
    assert (report.index_rebuilds, report.time_indexes_created) == (0, 1)
    assert time_index.exists() and time_index.stat().st_size == 0
    assert offsets(log) == list(range(240))
    second = log.segments[1]
    os.utime(second.log_path, ns=(0, 5_000_000 * 1_000_000))
    assert second.max_timestamp_so_far.timestamp_ms == -1
    assert second.largest_timestamp_ms() == 5_000_000
    log.close()
    assert time_index.stat().st_size == 0 and index.read_bytes() == original_index


def test_truncating_a_segment_whose_time_index_was_created_empty_keeps_its_entries_in_offset_order(tmp_path):
    """A time index created empty knows only the batches appended since. Truncation then
    recomputes the segment's largest timestamp from the last time-index entry on; a
    larger timestamp in an older batch the index does not cover must not count, or the
    entry the close (or a roll) appends would go back in offsets: the close raised and
    left the log half closed (the log state machine found it)."""
    dir = tmp_path / "t-0"
    config = small_config(internal_segment_bytes=100_000, index_interval_bytes=100)
    log = Log.open(dir, config, now_ms=0)
    log.append(make_batch(2, timestamp_ms=5000), now_ms=0)  # offsets 0-1, the largest timestamp
    log.close()
    (dir / "00000000000000000000.timeindex").unlink()
    log = Log.open(dir, config, now_ms=0, had_clean_shutdown=True, recovery_point=2)
    assert log.recovery_report.time_indexes_created == 1
    log.append(make_batch(2, timestamp_ms=1000), now_ms=0)  # 2-3
    log.append(make_batch(2, value_bytes=200, timestamp_ms=999), now_ms=0)  # 4-5: a time-index entry (1000, 3)
    log.append(make_batch(2, value_bytes=200, timestamp_ms=999), now_ms=0)  # 6-7
    segment = log.active_segment
    assert segment.time_index.last_entry() == TimestampOffset(1000, 3)
    # The offset index's entry at or before offset 3 is the segment's start, before batch 0-1.
    assert segment.offset_index.lookup(3).position == 0
    assert log.truncate_to(6)
    assert segment.max_timestamp_so_far == TimestampOffset(1000, 3)
    log.roll(now_ms=0)
    log.append(make_batch(1, timestamp_ms=2000), now_ms=0)
    log.close()
    entries = read_time_index(dir / "00000000000000000000.timeindex", 0)
    assert entries == [(1000, 3)]
    log = Log.open(dir, config, now_ms=0, had_clean_shutdown=True, recovery_point=7)
    assert log.recovery_report.index_rebuilds == 0
    assert log.segments[0].max_timestamp_so_far == TimestampOffset(1000, 3)
    assert log.log_end_offset == 7
    log.close()


def test_timestamp_lookups_choose_the_segment_by_its_modification_time_when_its_timestamps_are_unknown(tmp_path):
    """ListOffsets by timestamp searches only the first segment whose largest timestamp
    reaches the target (Kafka's UnifiedLog.searchOffsetInLocalLog), and that is the
    file's modification time for a segment without a time index."""
    dir = tmp_path / "t-0"
    build_log(dir)
    segment_files(dir, ".timeindex")[1].unlink()
    log = reopen(dir, clean=True)
    first, second, third = log.segments[:3]
    in_second = TimestampOffset(1000 + second.base_offset // 2, second.base_offset)  # 2 records a batch
    in_third = TimestampOffset(1000 + third.base_offset // 2, third.base_offset)
    assert log.offset_for_timestamp(in_second.timestamp_ms) == in_second  # mtime is now: searched
    # Modified long ago: the segment is passed over, as if every record in it were older.
    os.utime(second.log_path, ns=(0, 1_000 * 1_000_000))
    assert log.offset_for_timestamp(in_second.timestamp_ms) == in_third
    # Modified later than every record: it is searched for every target, and a target
    # past its records finds nothing, although the next segment holds one.
    os.utime(second.log_path, ns=(0, 10**7 * 1_000_000))
    assert log.offset_for_timestamp(in_third.timestamp_ms) is None
    assert log.offset_for_timestamp(1000) == TimestampOffset(1000, 0)  # the first segment knows its own
    log.close()


def test_an_old_segment_index_of_no_whole_number_of_entries_is_read_to_its_last_whole_entry(tmp_path):
    """As Kafka's AbstractIndex (the length rounded down to whole entries): a start checks
    only that the index files are there, without reading their lengths."""
    dir = tmp_path / "t-0"
    build_log(dir)
    index = segment_files(dir, ".index")[0]
    original = index.read_bytes()
    index.write_bytes(original + b"\x01\x02\x03")
    log = reopen(dir, clean=True)
    assert log.recovery_report.index_rebuilds == 0
    first = log.segments[0]
    assert first.offset_index.entries == len(original) // 8 > 0
    assert offsets(log) == list(range(240))
    log.close()


def test_corrupt_active_index_on_a_clean_open_is_rebuilt(tmp_path):
    dir = tmp_path / "t-0"
    build_log(dir)
    index = segment_files(dir, ".index")[-1]
    base = int(index.name.split(".")[0])
    index.write_bytes(index.read_bytes() + (5).to_bytes(4, "big") + (10**6).to_bytes(4, "big"))
    log = reopen(dir, clean=True)
    assert log.recovery_report.index_rebuilds == 1
    assert log.log_end_offset == 240
    log.close()
    assert all(position < 10**6 for _, position in read_offset_index(index, base))


def test_orphan_index_files_are_deleted(tmp_path):
    dir = tmp_path / "t-0"
    build_log(dir)
    (dir / "00000000000000099999.index").write_bytes(b"\x00" * 8)
    (dir / "00000000000000099999.timeindex").write_bytes(b"\x00" * 12)
    log = reopen(dir, clean=True)
    assert not (dir / "00000000000000099999.index").exists()
    assert not (dir / "00000000000000099999.timeindex").exists()
    log.close()


def test_leftover_deleted_and_cleaned_files_are_removed(tmp_path):
    dir = tmp_path / "t-0"
    build_log(dir)
    first = segment_files(dir)[0]
    shutil.copy(first, dir / (first.name + ".deleted"))
    shutil.copy(first, dir / (first.name + ".cleaned"))
    (dir / "00000000000000000000.index.cleaned").write_bytes(b"")
    # A swap at or above the lowest .cleaned offset belongs to the unfinished operation.
    shutil.copy(first, dir / (first.name + ".swap"))
    before = sorted(
        p.name for p in dir.iterdir()
        if p.suffix in (".log", ".index", ".timeindex", ".snapshot") or p.name == "leader-epoch-checkpoint"
    )
    log = reopen(dir, clean=True)
    after = sorted(p.name for p in dir.iterdir())
    assert not any(name.endswith((".deleted", ".cleaned", ".swap")) for name in after)
    assert log.recovery_report.swap_files_completed == 0
    assert offsets(log) == list(range(240))
    log.close()
    assert sorted(p.name for p in dir.iterdir()) == before


def test_leftover_swap_replaces_the_segments_it_covers(tmp_path):
    """A compaction that wrote its .swap but crashed before renaming it: the swap covers
    segments 0 and 1 and keeps every other batch of them."""
    dir = tmp_path / "t-0"
    build_log(dir)
    logs = segment_files(dir)
    second_end = int(logs[2].name.split(".")[0])
    kept = bytearray()
    kept_offsets = []
    for path in logs[:2]:
        data = path.read_bytes()
        for i, (position, header) in enumerate(iter_batch_headers(data)):
            if i % 2 == 0 or header.next_offset == second_end:  # keep the last batch: the swap ends there
                kept += data[position : position + header.size_bytes]
                kept_offsets.extend(range(header.base_offset, header.next_offset))
    (dir / (logs[0].name + ".swap")).write_bytes(bytes(kept))
    log = reopen(dir, clean=True)
    assert log.recovery_report.swap_files_completed == 1
    assert [s.base_offset for s in log.segments][:2] == [0, second_end]
    assert offsets(log) == kept_offsets + list(range(second_end, 240))
    assert not (dir / logs[1].name).exists()
    assert (dir / "00000000000000000000.index").exists()  # rebuilt for the swapped-in segment
    log.close()


def test_log_start_offset_beyond_the_files_empties_the_log(tmp_path):
    dir = tmp_path / "t-0"
    build_log(dir)
    log = reopen(dir, clean=True, log_start_offset=1000)
    assert (log.log_start_offset, log.log_end_offset, log.num_segments) == (1000, 1000, 1)
    assert log.recovery_report.segments_deleted > 0
    assert log.append(make_batch(1), now_ms=0).first_offset == 1000
    log.close()


def test_a_segment_whose_first_batch_is_below_its_base_offset_is_dropped(tmp_path):
    dir = tmp_path / "t-0"
    dir.mkdir()
    bad = bytearray(make_batch(2))
    stamp_base_offset(bad, 0, 5)
    (dir / "00000000000000000010.log").write_bytes(bytes(bad))
    log = reopen(dir)
    assert (log.log_end_offset, log.size_bytes) == (10, 0)
    log.close()


def test_crash_right_after_a_roll(tmp_path):
    dir = tmp_path / "t-0"
    log = Log.open(dir, CONFIG, now_ms=0)
    while log.num_segments < 3:
        log.append(make_batch(2), now_ms=0)
    end = log.log_end_offset
    recovery_point = log.recovery_point
    log.close_handlers()
    reopened = reopen(dir, recovery_point=recovery_point)
    assert reopened.log_end_offset == end
    assert offsets(reopened) == list(range(end))
    reopened.close()


def test_time_index_survives_a_crash_and_recovery(tmp_path):
    dir = tmp_path / "t-0"
    crash_log(dir)
    log = reopen(dir)
    assert log.offset_for_timestamp(1050).offset == 100
    log.close()
    time_index = segment_files(dir, ".timeindex")[-1]
    base = int(time_index.name.split(".")[0])
    entries = read_time_index(time_index, base)
    assert entries == sorted(entries) and entries[-1][0] == 1000 + 119


def _open_files_in(dir) -> list[str]:
    """The names of the files of `dir` this process holds open (descriptors and maps)."""
    names = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if os.path.dirname(target) == str(dir):
            names.add(os.path.basename(target))
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split(maxsplit=5)[5].strip() if len(line.split(maxsplit=5)) == 6 else ""
            if os.path.dirname(path) == str(dir):
                names.add(os.path.basename(path))
    return sorted(names)


@pytest.mark.parametrize("clean", [True, False])
def test_a_start_opens_only_the_active_segment_and_an_old_one_on_its_first_read(tmp_path, clean):
    """Kafka's LazyIndex, and for the `.log` of old segments too: a start touches the
    files of the active segment; an old segment's files open when it is read. The active
    segment's indexes are not left mapped, whether the start read them (with preads) or
    recovery rebuilt them (storage/index.py, "Mapping")."""
    dir = tmp_path / "t-0"
    recovery_point = 0
    if clean:
        build_log(dir)
    else:   # flushed up to the active segment: only that one is recovered
        recovery_point = crash_log(dir).active_segment.base_offset
    log = reopen(dir, clean=clean, recovery_point=recovery_point)
    try:
        assert len(log.segments) > 3
        active = log.active_segment
        prefix = f"{active.base_offset:020d}"
        assert _open_files_in(dir) == [prefix + ".log"], "only the active segment's .log is open"
        first = log.segments[0]
        records = records_of(log.read(first.base_offset, 100).read_bytes())
        assert records[0].offset == first.base_offset
        assert f"{first.base_offset:020d}.log" in _open_files_in(dir)
    finally:
        log.close()
