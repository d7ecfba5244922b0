"""Where a segment's index entries go across a clean reopen, a truncation and a recovery.

Kafka's rule (LogSegment): the bytes appended since the last index entry are counted in
memory, from zero for a segment just opened, recovered or truncated
(`bytesSinceLastIndexEntry`); recovery rebuilds the indexes counting from the start of
the file. The expected entries are computed here from the batches' sizes alone
(tests/storage/builders.py `expected_index_entries`), then compared with the files.
"""

from __future__ import annotations

from protocol.records import read_batch_header
from storage.log import Log
from tests.storage.builders import (
    BASE_TIME_MS,
    expected_index_entries,
    make_batch,
    read_offset_index,
    read_time_index,
    small_config,
)

INTERVAL = 256
CONFIG = small_config(internal_segment_bytes=1 << 20, index_interval_bytes=INTERVAL)


def append(log: Log, count: int, first_tag: int) -> list[tuple[int, int, int, int]]:
    """`count` one-record batches of 60-160 bytes with increasing timestamps; returns
    (position, size, last offset, max timestamp) per batch."""
    written = []
    for i in range(first_tag, first_tag + count):
        data = make_batch(1, value_bytes=40 + (i * 37) % 100, timestamp_ms=BASE_TIME_MS + i, tag=i)
        info = log.append(data, now_ms=0)
        written.append((info.position, read_batch_header(data).size_bytes, info.last_offset, BASE_TIME_MS + i))
    return written


def files_of(log_dir):
    return (read_offset_index(log_dir / "00000000000000000000.index", 0),
            read_time_index(log_dir / "00000000000000000000.timeindex", 0))


def time_entries_with_final(time_entries, written):
    """The time entries of `written` (increasing timestamps) plus the final entry a roll
    or a close adds: the last batch's."""
    _, _, last_offset, last_ts = written[-1]
    if time_entries and time_entries[-1][0] >= last_ts:
        return time_entries
    return time_entries + [(last_ts, last_offset)]


def test_after_a_clean_reopen_the_count_starts_from_zero(tmp_path):
    dir = tmp_path / "t-0"
    log = Log.open(dir, CONFIG, now_ms=0)
    before = append(log, 37, 0)
    log.close()
    log = Log.open(dir, CONFIG, now_ms=0, had_clean_shutdown=True)
    after = append(log, 40, 37)
    log.close()
    offsets_before, times_before = expected_index_entries(before, INTERVAL)
    # Counted from zero at the reopen: the first batch after it never gets an entry.
    offsets_after, times_after = expected_index_entries(after, INTERVAL)
    assert offsets_after and offsets_after[0][1] > after[0][0] + INTERVAL
    offset_index, time_index = files_of(dir)
    assert offset_index == offsets_before + offsets_after
    assert time_index == time_entries_with_final(time_entries_with_final(times_before, before) + times_after, after)


def test_after_a_truncation_the_count_starts_from_zero(tmp_path):
    dir = tmp_path / "t-0"
    log = Log.open(dir, CONFIG, now_ms=0)
    before = append(log, 60, 0)
    cut = 41
    assert log.truncate_to(cut, now_ms=0)
    after = append(log, 30, 100)
    log.close()
    kept = before[:cut]
    offsets_kept, times_kept = expected_index_entries(kept, INTERVAL)
    offsets_after, times_after = expected_index_entries(after, INTERVAL)
    offset_index, time_index = files_of(dir)
    assert offset_index == offsets_kept + offsets_after
    assert time_index == time_entries_with_final(times_kept + times_after, after)


def test_recovery_rebuilds_from_the_file_start_and_later_appends_count_from_zero(tmp_path):
    dir = tmp_path / "t-0"
    log = Log.open(dir, CONFIG, now_ms=0)
    before = append(log, 50, 0)
    log.close_handlers()  # a crash: nothing trimmed, no final entry, no marker
    log = Log.open(dir, CONFIG, now_ms=0, had_clean_shutdown=False, recovery_point=0)
    assert log.recovery_report.segments_recovered == 1
    after = append(log, 40, 50)
    log.close()
    offsets_before, times_before = expected_index_entries(before, INTERVAL)
    offsets_after, times_after = expected_index_entries(after, INTERVAL)
    offset_index, time_index = files_of(dir)
    assert offset_index == offsets_before + offsets_after
    # Recovery ends with the segment's largest timestamp as a final time-index entry.
    assert time_index == time_entries_with_final(time_entries_with_final(times_before, before) + times_after, after)
