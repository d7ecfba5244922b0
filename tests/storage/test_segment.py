"""LogSegment: Kafka's index rule, reads, timestamp search, truncation, recovery, roll checks."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.records import iter_batch_headers, read_batch_header, stamp_base_offset
from storage.config import LogConfig
from storage.segment import LogSegment
from storage.time_index import TimestampOffset
from tests.storage.builders import (
    BASE_TIME_MS,
    expected_index_entries,
    make_batch,
    read_offset_index,
    read_time_index,
    records_of,
)

BASE = 100


def fill(segment: LogSegment, batch_records: list[int], timestamps: list[int] | None = None, seed: int = 0):
    """Append one batch per entry of `batch_records`; return (position, size, last, max_ts) per batch."""
    rng = random.Random(seed)
    next_offset = segment.read_next_offset()
    written = []
    for i, count in enumerate(batch_records):
        ts = timestamps[i] if timestamps else BASE_TIME_MS + i
        data = bytearray(make_batch(count, value_bytes=rng.randint(1, 120), timestamp_ms=ts, tag=i))
        stamp_base_offset(data, 0, next_offset)
        header = read_batch_header(data)
        position = segment.append(data, [(header.base_offset, header.last_offset, header.max_timestamp, header.size_bytes)])
        written.append((position, header.size_bytes, header.last_offset, header.max_timestamp))
        next_offset = header.next_offset
    return written


def new_segment(tmp_path, **config) -> LogSegment:
    settings_ = dict(index_interval_bytes=200, segment_index_bytes=8 * 1000)
    settings_.update(config)
    return LogSegment(tmp_path, BASE, LogConfig(**settings_), now_ms=0)


@settings(max_examples=30, deadline=None)
@given(
    counts=st.lists(st.integers(1, 6), min_size=0, max_size=80),
    interval=st.sampled_from([0, 1, 100, 250, 4096]),
    seed=st.integers(0, 1000),
)
def test_index_entries_follow_kafkas_rule(tmp_path_factory, counts, interval, seed):
    tmp_path = tmp_path_factory.mktemp("seg")
    segment = new_segment(tmp_path, index_interval_bytes=interval)
    timestamps = [BASE_TIME_MS + random.Random(seed + i).randint(-50, 50) for i in range(len(counts))]
    written = fill(segment, counts, timestamps, seed)
    offset_entries, time_entries = expected_index_entries(written, interval)
    assert [(e.offset, e.position) for e in segment.offset_index] == offset_entries
    assert [(e.timestamp_ms, e.offset) for e in segment.time_index] == time_entries
    segment.close()
    # On close the time index gets the segment's maximum as a final entry.
    final = max(((ts, last) for _, _, last, ts in written), key=lambda e: e[0], default=None)
    expected_time = list(time_entries)
    if final is not None:
        first_max = next(last for _, _, last, ts in written if ts == final[0])
        if not expected_time or final[0] > expected_time[-1][0]:
            expected_time.append((final[0], first_max))
    assert read_offset_index(tmp_path / "00000000000000000100.index", BASE) == offset_entries
    assert read_time_index(tmp_path / "00000000000000000100.timeindex", BASE) == expected_time


def test_translate_offset_finds_the_batch_holding_an_offset(tmp_path):
    segment = new_segment(tmp_path)
    written = fill(segment, [3, 1, 5, 2, 4] * 20)
    starts = []
    first = BASE
    for position, size, last, _ in written:
        starts.append((first, last, position, size))
        first = last + 1
    for first, last, position, size in starts:
        for offset in range(first, last + 1):
            found = segment.translate_offset(offset)
            assert (found.base_offset, found.last_offset, found.position, found.size_bytes) == (first, last, position, size)
    assert segment.translate_offset(written[-1][2] + 1) is None
    assert segment.translate_offset(0).position == 0  # below the base: the first batch
    segment.close()


@settings(max_examples=60, deadline=None)
@given(
    batches=st.lists(
        st.tuples(st.integers(1, 5), st.sampled_from([1, 20, 120, 700, 3000]), st.integers(0, 3)),
        min_size=1, max_size=40,
    ),
    interval=st.sampled_from([0, 64, 200, 1000, 4096]),
    starts=st.lists(st.integers(0, 10**6), max_size=5),
)
def test_translate_offset_matches_a_scan_with_any_batch_sizes_and_gaps(tmp_path_factory, batches, interval, starts):
    """translate_offset against a brute-force scan of the batches: small and large batches
    mixed (so the bracket from the index is sometimes one interval, sometimes many), gaps
    between batches (offsets a compacted log no longer has), with and without a
    starting position. Three times: as appended (the index's copy knows every indexed
    batch), after a reopen (it knows none, and learns them from header reads), and once
    more (answering from what it learned)."""
    directory = tmp_path_factory.mktemp("seg")
    segment = new_segment(directory, index_interval_bytes=interval)
    model = []  # (base offset, last offset, position, size)
    next_offset = BASE
    for i, (records, value_bytes, gap) in enumerate(batches):
        data = bytearray(make_batch(records, value_bytes=value_bytes, tag=i))
        stamp_base_offset(data, 0, next_offset + gap)
        header = read_batch_header(data)
        position = segment.append(data, [(header.base_offset, header.last_offset, header.max_timestamp, header.size_bytes)])
        model.append((header.base_offset, header.last_offset, position, header.size_bytes))
        next_offset = header.next_offset
    positions = [0] + [position for _, _, position, _ in model]
    for attempt in ("as appended", "reopened", "reopened, read again"):
        if attempt == "reopened":
            segment.close()
            segment = new_segment(directory, index_interval_bytes=interval)
        for offset in range(BASE - 1, next_offset + 2):
            for starting_position in [0] + [positions[start % len(positions)] for start in starts]:
                expected = next(
                    (batch for batch in model if batch[1] >= offset and batch[2] >= starting_position), None
                )
                found = segment.translate_offset(offset, starting_position)
                assert (tuple(found) if found is not None else None) == expected, (attempt, offset, starting_position)
    segment.close()


def test_translate_offset_reads_nothing_for_a_batch_the_index_knows(tmp_path, monkeypatch):
    """Large batches (one index entry each): a segment written by this process finds
    them without reading the log; after a reopen the first lookup of each reads its
    header once, and the next one reads nothing."""
    import os

    reads = []
    real_pread = os.pread

    def counting_pread(fd, size, position):
        reads.append((fd, size, position))
        return real_pread(fd, size, position)

    def log_reads():   # (an index opened lazily probes its own file once: not a read of the log)
        return [(size, position) for fd, size, position in reads if fd == segment.fd]

    segment = new_segment(tmp_path, index_interval_bytes=100)
    written = fill(segment, [4] * 12)  # ~300-byte batches: every batch after the first has an entry
    monkeypatch.setattr(os, "pread", counting_pread)
    indexed = written[1:]
    for position, size, last, _ in indexed:
        assert segment.translate_offset(last - 1).position == position
    assert log_reads() == []
    segment.close()
    segment = new_segment(tmp_path, index_interval_bytes=100)
    for position, size, last, _ in indexed:
        reads.clear()
        assert segment.translate_offset(last - 1) == segment.translate_offset(last)
        assert segment.translate_offset(last - 2).position == position
        assert len(log_reads()) == 1, reads  # the first lookup read the header; the others, nothing
    segment.close()


def test_read_respects_limits(tmp_path):
    segment = new_segment(tmp_path)
    written = fill(segment, [2] * 30)
    position, size, last, _ = written[5]
    result = segment.read(last, max_bytes=10)
    assert (result.position, result.size_bytes) == (position, 10)
    result = segment.read(last, max_bytes=10, min_one_batch=True)
    assert (result.position, result.size_bytes) == (position, size)
    result = segment.read(last, max_bytes=10_000, max_position=written[8][0])
    assert result.size_bytes == written[8][0] - position
    assert [r.offset for r in records_of(result.read_bytes())] == list(range(last - 1, last + 5))
    assert segment.read(written[-1][2] + 1, 100) is None
    segment.close()


@settings(max_examples=30, deadline=None)
@given(
    timestamps=st.lists(st.lists(st.integers(0, 500), min_size=1, max_size=4), min_size=1, max_size=60),
    targets=st.lists(st.integers(-5, 520), min_size=1, max_size=10),
    starting=st.integers(0, 50),
)
def test_find_offset_by_timestamp_matches_brute_force(tmp_path_factory, timestamps, targets, starting):
    tmp_path = tmp_path_factory.mktemp("seg")
    segment = new_segment(tmp_path, index_interval_bytes=60)
    next_offset = BASE
    records = []  # (offset, timestamp)
    for i, batch_timestamps in enumerate(timestamps):
        data = bytearray(make_batch(len(batch_timestamps), timestamps=batch_timestamps, timestamp_ms=0, tag=i))
        stamp_base_offset(data, 0, next_offset)
        header = read_batch_header(data)
        segment.append(data, [(header.base_offset, header.last_offset, header.max_timestamp, header.size_bytes)])
        records.extend((next_offset + j, ts) for j, ts in enumerate(batch_timestamps))
        next_offset = header.next_offset
    starting_offset = BASE + starting
    for target in targets:
        expected = next(
            (TimestampOffset(ts, offset) for offset, ts in records if ts >= target and offset >= starting_offset), None
        )
        assert segment.find_offset_by_timestamp(target, starting_offset) == expected
    segment.close()


def test_truncate_to_removes_whole_batches_and_index_entries(tmp_path):
    segment = new_segment(tmp_path, index_interval_bytes=100)
    written = fill(segment, [3] * 40)
    position, _, last, _ = written[20]
    cut_offset = last - 1  # inside batch 20: the batch goes whole
    truncated = segment.truncate_to(cut_offset)
    assert truncated == sum(size for _, size, _, _ in written[20:])
    assert segment.size_bytes == position
    assert segment.read_next_offset() == written[19][2] + 1
    assert all(e.offset < cut_offset for e in segment.offset_index)
    assert all(e.offset < cut_offset for e in segment.time_index)
    assert segment.max_timestamp_so_far.timestamp_ms == max(ts for _, _, _, ts in written[:20])
    # Appending again continues the index rhythm consistently.
    more = fill(segment, [1] * 30)
    assert more[0][0] == position and more[0][2] == written[19][2] + 1
    entries = [(e.offset, e.position) for e in segment.offset_index]
    assert entries == sorted(set(entries))
    for _, _, last, _ in more:
        assert segment.translate_offset(last).last_offset == last
    segment.close()


def test_recover_rebuilds_identical_indexes(tmp_path):
    segment = new_segment(tmp_path, index_interval_bytes=150)
    fill(segment, [1, 4, 2, 7] * 25, seed=3)
    segment.close()
    index_bytes = (tmp_path / "00000000000000000100.index").read_bytes()
    time_bytes = (tmp_path / "00000000000000000100.timeindex").read_bytes()
    (tmp_path / "00000000000000000100.index").unlink()
    (tmp_path / "00000000000000000100.timeindex").unlink()
    reopened = new_segment(tmp_path, index_interval_bytes=150)
    result = reopened.recover()
    assert result.truncated_bytes == 0 and result.error is None and result.valid_batches == 100
    reopened.close()
    assert (tmp_path / "00000000000000000100.index").read_bytes() == index_bytes
    assert (tmp_path / "00000000000000000100.timeindex").read_bytes() == time_bytes


@pytest.mark.parametrize("damage", ["torn", "zeros", "flip", "garbage_length"])
def test_recover_truncates_at_the_first_bad_batch(tmp_path, damage):
    segment = new_segment(tmp_path)
    written = fill(segment, [2] * 30)
    segment.close()
    path = tmp_path / "00000000000000000100.log"
    data = bytearray(path.read_bytes())
    keep = written[17][0]  # position of batch 17
    if damage == "torn":
        data = data[: keep + 30]
        expected_valid = keep
    elif damage == "zeros":
        data = data[: written[-1][0] + written[-1][1]] + bytes(5000)
        expected_valid = written[-1][0] + written[-1][1]
    elif damage == "flip":
        data[keep + 70] ^= 0x01  # inside batch 17's records: its CRC fails
        expected_valid = keep
    else:
        data[keep + 8 : keep + 12] = (2**30).to_bytes(4, "big")
        expected_valid = keep
    path.write_bytes(bytes(data))
    reopened = new_segment(tmp_path)
    result = reopened.recover()
    assert result.valid_bytes == expected_valid
    assert result.truncated_bytes == len(data) - expected_valid
    assert result.dropped_batches >= 1
    assert path.stat().st_size == expected_valid
    valid = [h for _, h in iter_batch_headers(path.read_bytes())]
    assert reopened.read_next_offset() == (valid[-1].next_offset if valid else BASE)
    reopened.close()


def test_recover_rejects_offsets_going_backwards(tmp_path):
    segment = new_segment(tmp_path)
    fill(segment, [2] * 5)
    data = bytearray(make_batch(2))
    stamp_base_offset(data, 0, BASE + 3)  # overlaps the batches before it
    segment.append(data, [(BASE + 3, BASE + 4, BASE_TIME_MS, len(data))])
    segment.close()
    reopened = new_segment(tmp_path)
    result = reopened.recover()
    assert result.valid_batches == 5 and result.dropped_batches == 1
    assert "below the expected" in result.error
    reopened.close()


def test_should_roll_conditions(tmp_path):
    config = LogConfig(index_interval_bytes=0, segment_index_bytes=8 * 4)
    segment = LogSegment(tmp_path, BASE, config, now_ms=1000, roll_jitter_ms=100)
    args = dict(max_segment_bytes=10_000, max_segment_ms=5_000, messages_size_bytes=100, max_offset=BASE + 10)
    assert not segment.should_roll(**args, max_timestamp_ms=-1, now_ms=999_999)  # empty: never by time
    fill(segment, [1], timestamps=[50_000])
    assert not segment.should_roll(**args, max_timestamp_ms=50_000 + 4_900, now_ms=0)
    assert segment.should_roll(**args, max_timestamp_ms=50_000 + 4_901, now_ms=0)  # 5000 - jitter 100
    assert segment.should_roll(**{**args, "messages_size_bytes": 10_000}, max_timestamp_ms=0, now_ms=0)
    assert segment.should_roll(**{**args, "max_offset": BASE + 2**31}, max_timestamp_ms=0, now_ms=0)
    fill_more = [1] * 5
    next_offset = segment.read_next_offset()
    for count in fill_more:
        data = bytearray(make_batch(count, timestamp_ms=50_000))
        stamp_base_offset(data, 0, next_offset)
        h = read_batch_header(data)
        segment.append(data, [(h.base_offset, h.last_offset, h.max_timestamp, h.size_bytes)])
        next_offset = h.next_offset
    assert segment.offset_index.is_full()
    assert segment.should_roll(**args, max_timestamp_ms=0, now_ms=0)
    segment.close()


def test_roll_by_wall_clock_when_batches_have_no_timestamps(tmp_path):
    segment = LogSegment(tmp_path, BASE, LogConfig(), now_ms=1000)
    fill(segment, [1], timestamps=[-1])
    args = dict(max_segment_bytes=10_000, max_segment_ms=5_000, messages_size_bytes=10, max_offset=BASE + 5)
    assert not segment.should_roll(**args, max_timestamp_ms=-1, now_ms=6000)
    assert segment.should_roll(**args, max_timestamp_ms=-1, now_ms=6001)
    segment.close()


@settings(max_examples=80, deadline=None)
@given(
    batches=st.lists(
        st.tuples(st.integers(1, 4), st.sampled_from([1, 40, 200]), st.sampled_from([-1, 0, 500, 2_000, 4_000])),
        max_size=60,
    ),
    interval=st.sampled_from([0, 50, 300, 4096]),
    index_entries=st.integers(2, 6),
    jitter=st.sampled_from([0, 700]),
    probes=st.lists(
        st.tuples(st.integers(0, 3_000), st.integers(-1, 9_000), st.integers(0, 9_000), st.integers(0, 2**31 + 50)),
        min_size=1, max_size=10,
    ),
)
def test_roll_bounds_never_hide_a_due_roll(tmp_path_factory, batches, interval, index_entries, jitter, probes):
    """The log computes the active segment's RollBounds once and skips `should_roll` for
    every later append that stays within them (it recomputes them after the first batch
    and whenever one is crossed). So bounds computed at ANY earlier point, once the
    segment holds a batch, must still be crossed whenever should_roll says "roll".
    Checked after every append of a random segment (small indexes that fill up,
    timestamps that jump or are missing) for random appends (size, max timestamp,
    clock, last offset)."""
    config = LogConfig(index_interval_bytes=interval, segment_index_bytes=12 * index_entries)
    segment = LogSegment(tmp_path_factory.mktemp("seg"), BASE, config, now_ms=1_000, roll_jitter_ms=jitter)
    segment.prepare_for_appends()
    max_segment_ms = 5_000
    next_offset = BASE
    kept = [segment.roll_bounds(max_segment_ms)]  # the empty segment's, used for the first append only
    for step in range(len(batches) + 1):
        for size, max_timestamp_ms, now_ms, relative_last in probes:
            last_offset = next_offset + relative_last
            due = segment.should_roll(
                max_segment_bytes=2**31 - 1, max_segment_ms=max_segment_ms, messages_size_bytes=size,
                max_timestamp_ms=max_timestamp_ms, max_offset=last_offset, now_ms=now_ms,
            )
            for bounds in kept:
                within = (
                    last_offset <= bounds.max_offset and segment.size_bytes < bounds.index_check_position
                    and max_timestamp_ms <= bounds.max_timestamp_ms and now_ms <= bounds.max_now_ms
                )
                assert not (due and within), (step, bounds, size, max_timestamp_ms, now_ms, last_offset)
        if step == len(batches) or segment.offset_index.is_full() or segment.time_index.is_full():
            break
        records, value_bytes, timestamp = batches[step]
        data = bytearray(make_batch(records, value_bytes=value_bytes, timestamp_ms=timestamp, tag=step))
        stamp_base_offset(data, 0, next_offset)
        header = read_batch_header(data)
        segment.append(data, [(header.base_offset, header.last_offset, header.max_timestamp, header.size_bytes)])
        next_offset = header.next_offset
        if step == 0:
            kept = []  # the log drops the empty segment's bounds after the first batch
        kept.append(segment.roll_bounds(max_segment_ms))
    segment.close()


def test_change_suffix_and_delete(tmp_path):
    segment = new_segment(tmp_path)
    fill(segment, [1] * 10)
    segment.change_suffix(".deleted")
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [
        "00000000000000000100.index.deleted",
        "00000000000000000100.log.deleted",
        "00000000000000000100.timeindex.deleted",
    ]
    assert segment.read(BASE, 100).size_bytes == 100  # the open file stays readable
    segment.delete()
    assert list(tmp_path.iterdir()) == []
