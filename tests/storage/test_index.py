"""OffsetIndex and TimeIndex against models: bisect over sorted lists, struct-parsed files."""

from __future__ import annotations

import bisect
import os
import random
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from storage.errors import CorruptIndex, SegmentOffsetOverflow
from storage.offset_index import OffsetIndex, OffsetPosition
from storage.time_index import TimeIndex, TimestampOffset
from tests.storage.builders import read_offset_index, read_time_index

BASE = 1000


def offset_model(count: int, seed: int) -> tuple[list[int], list[int]]:
    """Strictly increasing offsets (above BASE) and positions."""
    rng = random.Random(seed)
    offsets, positions = [], []
    offset, position = BASE, 0
    for _ in range(count):
        offset += rng.randint(1, 50)
        position += rng.randint(1, 5000)
        offsets.append(offset)
        positions.append(position)
    return offsets, positions


def model_lookup(offsets: list[int], positions: list[int], target: int) -> OffsetPosition:
    slot = bisect.bisect_right(offsets, target) - 1
    return OffsetPosition(BASE, 0) if slot < 0 else OffsetPosition(offsets[slot], positions[slot])


# Up to 2500 entries: more than the 1024-entry warm section, so both search paths run.
@settings(max_examples=60, deadline=None)
@given(count=st.integers(0, 2500), seed=st.integers(0, 2**32), probes=st.lists(st.integers(0, 200_000), max_size=40))
def test_offset_lookup_matches_bisect(count, seed, probes):
    offsets, positions = offset_model(count, seed)
    with tempfile.TemporaryDirectory() as d:
        index = OffsetIndex(Path(d) / "x.index", BASE, 8 * (count + 1))
        for offset, position in zip(offsets, positions):
            index.append(offset, position)
        targets = probes + offsets + [o - 1 for o in offsets] + [o + 1 for o in offsets[-5:]] + [BASE - 1, BASE]
        for target in targets:
            assert index.lookup(target) == model_lookup(offsets, positions, target), target
        index.close()


def model_scan_bounds(offsets: list[int], positions: list[int], target: int) -> tuple[int, int, int]:
    slot = bisect.bisect_left(offsets, target)
    low = positions[slot - 1] if slot > 0 else 0
    high = positions[slot] if slot < len(offsets) else -1
    return low, high, slot


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    operations=st.lists(
        st.one_of(
            st.tuples(st.just("append"), st.integers(1, 30)),
            st.tuples(st.just("lookup"), st.integers(0, 2000)),
            st.tuples(st.just("truncate"), st.integers(0, 2000)),
            st.tuples(st.just("trim"), st.just(0)),
            st.tuples(st.just("reset"), st.just(0)),
            st.tuples(st.just("reopen"), st.just(0)),
        ),
        max_size=60,
    ),
)
def test_offset_searches_stay_right_through_appends_truncations_and_reopens(seed, operations):
    """The in-memory copy of the relative offsets (built on the first search) must follow
    every change of the file: searches interleaved with appends, truncations, trims,
    resets and reopens agree with bisect over a model list. So must what the copy knows
    of each entry's batch (base offset, size): known when appended through the copy,
    unknown after a reopen until remembered."""
    rng = random.Random(seed)
    offsets: list[int] = []
    positions: list[int] = []
    known: list[tuple[int, int, int] | None] = []  # the model of known_batch, per entry
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "x.index"
        index = OffsetIndex(path, BASE, 8 * 100)
        for operation, argument in operations:
            if operation == "append" and not index.is_full():
                offset = (offsets[-1] if offsets else BASE) + argument
                position = (positions[-1] if positions else 0) + rng.randint(1, 5000)
                batch_base_offset, size = offset - rng.randint(0, argument - 1), rng.randint(61, 5000)
                index.append(offset, position, batch_base_offset, size)
                offsets.append(offset)
                positions.append(position)
                known.append((batch_base_offset, offset, size))
            elif operation == "truncate":
                index.truncate_to(BASE + argument)
                kept = bisect.bisect_left(offsets, BASE + argument)
                del offsets[kept:], positions[kept:], known[kept:]
            elif operation == "trim":
                index.trim_to_valid_size()
                index.resize(8 * 100)
            elif operation == "reset":
                index.reset()
                offsets, positions, known = [], [], []
            elif operation == "reopen":
                index.close()
                index = OffsetIndex(path, BASE, 8 * 100)
                index.resize(8 * 100)
                known = [None] * len(offsets)
            for target in {BASE + argument, *(offsets[-2:]), BASE - 1}:
                assert index.lookup(target) == model_lookup(offsets, positions, target), (operation, target)
                bounds = index.scan_bounds(target)
                assert bounds == model_scan_bounds(offsets, positions, target), target
                slot = bounds[2]
                if slot < len(offsets):
                    assert index.known_batch(slot) == known[slot], (operation, target)
                    if known[slot] is None and argument % 2:  # a read learns it
                        index.remember_batch(slot, offsets[slot], 100 + slot)
                        known[slot] = (offsets[slot], offsets[slot], 100 + slot)
                        assert index.known_batch(slot) == known[slot]
        index.close()


@settings(max_examples=40, deadline=None)
@given(count=st.integers(0, 1500), seed=st.integers(0, 2**32), cut=st.integers(0, 80_000))
def test_offset_truncate_to_matches_model(count, seed, cut):
    offsets, positions = offset_model(count, seed)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "x.index"
        index = OffsetIndex(path, BASE, 8 * (count + 1))
        for offset, position in zip(offsets, positions):
            index.append(offset, position)
        target = BASE + cut % (offsets[-1] - BASE + 2) if offsets else BASE + cut
        index.truncate_to(target)
        kept = [(o, p) for o, p in zip(offsets, positions) if o < target]
        assert list((e.offset, e.position) for e in index) == kept
        assert index.last_offset == (kept[-1][0] if kept else BASE)
        index.close()
        assert read_offset_index(path, BASE) == kept


def test_offset_index_preallocates_then_trims(tmp_path):
    path = tmp_path / "00000000000000001000.index"
    index = OffsetIndex(path, BASE, 100)  # rounded down to 96 bytes = 12 entries
    assert path.stat().st_size == 96
    assert index.max_entries == 12 and index.entries == 0
    index.append(1005, 300)
    index.append(1010, 700)
    index.trim_to_valid_size()
    assert path.stat().st_size == 16
    assert index.is_full()
    index.resize(96)
    assert not index.is_full() and index.entries == 2
    index.close()
    assert read_offset_index(path, BASE) == [(1005, 300), (1010, 700)]
    reopened = OffsetIndex(path, BASE, 96)
    assert reopened.entries == 2 and reopened.last_offset == 1010
    assert reopened.lookup(1007) == OffsetPosition(1005, 300)
    reopened.close()


@pytest.mark.parametrize("entries", [0, 1, 2, 7, 12])
def test_zero_tail_of_a_crashed_preallocated_index_is_not_entries(tmp_path, entries):
    path = tmp_path / "x.index"
    index = OffsetIndex(path, BASE, 8 * 12)
    for i in range(entries):
        index.append(BASE + 10 * (i + 1), 100 * (i + 1))
    index.close_handler()  # a crash: no trim
    assert path.stat().st_size == 96
    reopened = OffsetIndex(path, BASE, 8 * 12)
    assert reopened.entries == entries
    assert reopened.last_offset == BASE + 10 * entries


def test_offset_index_append_rules(tmp_path):
    index = OffsetIndex(tmp_path / "x.index", BASE, 16)
    index.append(1001, 10)
    with pytest.raises(ValueError):
        index.append(1001, 20)  # not larger than the last offset
    index.append(1002, 20)
    with pytest.raises(ValueError):
        index.append(1003, 30)  # full
    assert not index.can_append_offset(BASE + 2**31)
    assert index.can_append_offset(BASE + 2**31 - 1)
    with pytest.raises(SegmentOffsetOverflow):
        index.relative_offset(BASE - 1)
    index.close()


def test_offset_index_sanity_check(tmp_path):
    path = tmp_path / "x.index"
    index = OffsetIndex(path, BASE, 64)
    index.append(1005, 500)
    index.sanity_check(log_size_bytes=600)
    with pytest.raises(CorruptIndex):
        index.sanity_check(log_size_bytes=400)  # points past the end of the log
    index.close()
    with open(path, "ab") as f:
        f.write(b"\x00\x01\x02")
    with pytest.raises(CorruptIndex):
        OffsetIndex(path, BASE, 64).sanity_check()


# -- time index --


def time_model(count: int, seed: int) -> tuple[list[int], list[int]]:
    rng = random.Random(seed)
    timestamps, offsets = [], []
    ts, offset = 10_000, BASE
    for _ in range(count):
        ts += rng.randint(1, 1000)
        offset += rng.randint(1, 30)
        timestamps.append(ts)
        offsets.append(offset)
    return timestamps, offsets


@settings(max_examples=60, deadline=None)
@given(count=st.integers(0, 2000), seed=st.integers(0, 2**32), probes=st.lists(st.integers(0, 3_000_000), max_size=40))
def test_time_lookup_matches_bisect(count, seed, probes):
    timestamps, offsets = time_model(count, seed)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "x.timeindex"
        index = TimeIndex(path, BASE, 12 * (count + 2))
        for ts, offset in zip(timestamps, offsets):
            index.maybe_append(ts, offset)
        for target in probes + timestamps + [t - 1 for t in timestamps] + [0, 10_000]:
            slot = bisect.bisect_right(timestamps, target) - 1
            expected = TimestampOffset(-1, BASE) if slot < 0 else TimestampOffset(timestamps[slot], offsets[slot])
            assert index.lookup(target) == expected
        index.close()
        assert read_time_index(path, BASE) == list(zip(timestamps, offsets))


def test_time_index_appends_only_growing_timestamps(tmp_path):
    index = TimeIndex(tmp_path / "x.timeindex", BASE, 12 * 10)
    index.maybe_append(500, 1001)
    index.maybe_append(500, 1003)  # same timestamp: ignored
    index.maybe_append(700, 1004)
    assert [(e.timestamp_ms, e.offset) for e in index] == [(500, 1001), (700, 1004)]
    with pytest.raises(ValueError):
        index.maybe_append(800, 1002)  # offset going back
    with pytest.raises(ValueError):
        index.maybe_append(600, 1005)  # timestamp going back
    assert index.last_entry() == TimestampOffset(700, 1004)
    index.close()


def test_time_index_reserves_a_slot_for_the_final_entry(tmp_path):
    index = TimeIndex(tmp_path / "x.timeindex", BASE, 12 * 3)
    index.maybe_append(1, 1001)
    index.maybe_append(2, 1002)
    assert index.is_full()
    with pytest.raises(ValueError):
        index.maybe_append(3, 1003)
    index.maybe_append(3, 1003, skip_full_check=True)
    assert index.entries == 3
    index.close()


@settings(max_examples=40, deadline=None)
@given(count=st.integers(0, 600), seed=st.integers(0, 2**32), cut=st.integers(0, 20_000))
def test_time_truncate_to_matches_model(count, seed, cut):
    timestamps, offsets = time_model(count, seed)
    with tempfile.TemporaryDirectory() as d:
        index = TimeIndex(Path(d) / "x.timeindex", BASE, 12 * (count + 2))
        for ts, offset in zip(timestamps, offsets):
            index.maybe_append(ts, offset)
        target = BASE + cut
        index.truncate_to(target)
        kept = [(t, o) for t, o in zip(timestamps, offsets) if o < target]
        assert [(e.timestamp_ms, e.offset) for e in index] == kept
        assert index.last_entry() == (TimestampOffset(*kept[-1]) if kept else TimestampOffset(-1, BASE))
        index.close()


def test_read_only_index_does_not_create_files(tmp_path):
    with pytest.raises(FileNotFoundError):
        OffsetIndex(tmp_path / "missing.index", 0, 80, writable=False)
    writer = OffsetIndex(tmp_path / "x.index", 0, 80)
    writer.append(5, 100)
    writer.close()
    reader = OffsetIndex(tmp_path / "x.index", 0, 80, writable=False)
    assert list(reader) == [OffsetPosition(5, 100)]
    reader.close()
    assert (tmp_path / "x.index").stat().st_size == 8


def _mapped(path: Path) -> bool:
    with open("/proc/self/maps") as maps:
        return any(line.rstrip().endswith(str(path)) for line in maps)


def test_an_index_is_mapped_at_its_first_search_or_entry_and_never_after_it_is_closed(tmp_path):
    """storage/index.py, "Mapping": opening reads with preads; a search or an entry written
    maps the file; `unmap` lets the map go until the next use; a closed index stays unmapped."""
    path = tmp_path / "00000000000000000000.index"
    index = OffsetIndex(path, 0, 4096, preallocate=True)
    assert not _mapped(path)
    index.append(10, 100)
    assert _mapped(path)
    index.close()
    reopened = OffsetIndex(path, 0, 4096, preallocate=True)
    assert reopened.entries == 1 and reopened.last_entry() == OffsetPosition(10, 100)
    reopened.sanity_check(log_size_bytes=200)
    assert not _mapped(path)   # the open, its last entry and the checks: preads only
    assert reopened.lookup(15) == OffsetPosition(10, 100)
    assert _mapped(path)
    reopened.unmap()
    assert not _mapped(path)
    assert reopened.lookup(15) == OffsetPosition(10, 100)   # mapped again
    reopened.close()
    reopened.unmap()
    assert not _mapped(path)
    assert reopened._mmap is None and not _mapped(path)   # a closed index is not mapped again


def test_entries_read_before_the_map_are_read_once_and_never_stale(tmp_path, monkeypatch):
    """storage/index.py: a start asks for the active segment's first and last entries several
    times; each is read from the file once. An entry written (through the map) is what the
    next read returns, also after the map is let go."""
    path = tmp_path / "00000000000000000000.index"
    index = OffsetIndex(path, 0, 4096, preallocate=True)
    index.append(10, 100)
    index.append(20, 200)
    index.close()
    reopened = OffsetIndex(path, 0, 4096, preallocate=True)
    preads = []
    real_pread = os.pread
    monkeypatch.setattr(os, "pread", lambda fd, n, at: preads.append(at) or real_pread(fd, n, at))
    for _ in range(3):
        assert reopened.last_entry() == OffsetPosition(20, 200)
        assert reopened.entry(0) == OffsetPosition(10, 100)
    assert preads == [0]   # the last entry was read by the open; the first, once here
    # slot 1, read and kept above, is cut and written again through the map
    reopened.truncate_to(20)
    reopened.append(25, 250)
    reopened.unmap()
    assert reopened.last_entry() == OffsetPosition(25, 250)
    assert reopened.entry(0) == OffsetPosition(10, 100)
    reopened.close()
    assert read_offset_index(path, 0) == [(10, 100), (25, 250)]


def test_a_flush_syncs_the_file_only_when_entries_or_length_changed(tmp_path, monkeypatch):
    synced = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd)))

    def syncs(action) -> int:
        before = len(synced)
        action()
        return len(synced) - before

    path = tmp_path / "00000000000000001000.index"
    index = OffsetIndex(path, BASE, 96)
    assert syncs(index.flush) == 1          # created at its preallocated length
    assert syncs(index.flush) == 0          # nothing changed since
    index.append(1005, 300)
    assert syncs(index.flush) == 1 and syncs(index.flush) == 0
    index.truncate_to(1000)
    assert syncs(index.flush) == 1 and syncs(index.flush) == 0
    index.append(1007, 400)
    index.trim_to_valid_size()
    assert syncs(index.flush) == 1
    index.close()
    reopened = OffsetIndex(path, BASE, 96)
    assert syncs(reopened.flush) == 0       # opened as the last flush left it
    reopened.resize(96)
    assert syncs(reopened.flush) == 1       # its length changed
    reopened.close()
    assert read_offset_index(path, BASE) == [(1007, 400)]


def test_a_time_index_flush_syncs_after_an_entry_is_appended(tmp_path, monkeypatch):
    synced = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd)))
    index = TimeIndex(tmp_path / "00000000000000001000.timeindex", BASE, 120)
    index.flush()
    before = len(synced)
    index.flush()
    assert len(synced) == before
    index.maybe_append(5000, 1003)
    index.flush()
    assert len(synced) == before + 1
    index.close()
