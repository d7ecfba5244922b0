"""LeaderEpochCache: Kafka's LeaderEpochFileCache rules, and the file they keep.

The cases follow the rules as Kafka's LeaderEpochFileCacheTest exercises them (assign,
endOffsetFor, truncateFromEnd, truncateFromStart, epochForOffset), each with the bytes
of `leader-epoch-checkpoint` it leaves behind.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from storage.errors import CorruptCheckpoint
from storage.leader_epoch_cache import EpochEntry, LeaderEpochCache

E = EpochEntry


def cache_with(tmp_path, *entries: tuple[int, int]) -> LeaderEpochCache:
    cache = LeaderEpochCache(tmp_path)
    for epoch, start in entries:
        cache.assign(epoch, start)
    return cache


def subdir(tmp_path, name: str):
    (tmp_path / name).mkdir()
    return tmp_path / name


def file_text(tmp_path) -> str:
    return (tmp_path / "leader-epoch-checkpoint").read_text()


def reread(tmp_path) -> list[EpochEntry]:
    return LeaderEpochCache(tmp_path).entries


# -- the file ---------------------------------------------------------------------------


def test_a_new_cache_creates_the_file_empty_and_reads_it_as_no_entries(tmp_path):
    cache = LeaderEpochCache(tmp_path)
    assert (tmp_path / "leader-epoch-checkpoint").read_bytes() == b""
    assert cache.entries == [] and cache.latest_epoch is None and cache.latest_entry is None
    assert cache.earliest_entry is None and len(cache) == 0


def test_a_new_partition_at_epoch_zero_writes_kafkas_bytes(tmp_path):
    # What Kafka 4.1.1 writes for a topic created on one node (measured: tests/compat).
    cache = LeaderEpochCache(tmp_path)
    assert cache.assign(0, 0) is True
    assert (tmp_path / "leader-epoch-checkpoint").read_bytes() == b"0\n1\n0 0\n"
    assert not (tmp_path / "leader-epoch-checkpoint.tmp").exists()


def test_an_assign_told_not_to_write_writes_nothing_and_the_next_write_takes_it(tmp_path):
    cache = cache_with(tmp_path, (0, 0))
    assert cache.assign(2, 10, write=False) is True
    assert cache.unwritten and cache.entries == [E(0, 0), E(2, 10)] and reread(tmp_path) == [E(0, 0)]
    assert cache.assign(2, 12, write=False) is False   # nothing new: still nothing written
    assert cache.unwritten and reread(tmp_path) == [E(0, 0)]
    assert cache.assign(2, 12) is False   # the epoch's first batch: the pending entry goes first
    assert not cache.unwritten and file_text(tmp_path) == "0\n2\n0 0\n2 10\n"


def test_entries_persist_between_instances(tmp_path):
    cache_with(tmp_path, (0, 0), (2, 1200), (5, 1500))
    assert file_text(tmp_path) == "0\n3\n0 0\n2 1200\n5 1500\n"
    assert reread(tmp_path) == [E(0, 0), E(2, 1200), E(5, 1500)]


def test_reads_a_file_without_a_final_newline_and_with_any_whitespace(tmp_path):
    (tmp_path / "leader-epoch-checkpoint").write_text("0\n2\n0\t0\n3   17")
    assert reread(tmp_path) == [E(0, 0), E(3, 17)]


@pytest.mark.parametrize("text", [
    "1\n0\n",               # unknown version
    "0\n2\n0 0\n",          # count does not match
    "0\n1\n0\n",            # one field
    "0\n1\n0 0 0\n",        # three fields
    "0\n1\nzero 0\n",       # not a number
    "0\n1\n-1 0\n",         # a negative epoch
    "0\n1\n0 -5\n",         # a negative start offset
])
def test_a_malformed_file_raises(tmp_path, text):
    (tmp_path / "leader-epoch-checkpoint").write_text(text)
    with pytest.raises(CorruptCheckpoint):
        LeaderEpochCache(tmp_path)


def test_entries_read_go_through_the_assign_rule(tmp_path):
    # A file whose entries go back (no writer makes one) is read as what assign keeps:
    # (3, 50) drops the entries it cannot follow.
    (tmp_path / "leader-epoch-checkpoint").write_text("0\n3\n1 10\n4 40\n3 50\n")
    assert reread(tmp_path) == [E(1, 10), E(3, 50)]
    assert file_text(tmp_path) == "0\n3\n1 10\n4 40\n3 50\n"  # reading writes nothing


def test_a_torn_tmp_file_is_ignored_and_replaced_by_the_next_write(tmp_path):
    cache_with(tmp_path, (0, 0), (1, 100))
    # A crash in the middle of a write leaves a partial .tmp beside the intact file.
    (tmp_path / "leader-epoch-checkpoint.tmp").write_bytes(b"0\n3\n0 0\n1 10")
    cache = LeaderEpochCache(tmp_path)
    assert cache.entries == [E(0, 0), E(1, 100)]
    cache.assign(2, 200)
    assert not (tmp_path / "leader-epoch-checkpoint.tmp").exists()
    assert reread(tmp_path) == [E(0, 0), E(1, 100), E(2, 200)]


def test_a_failed_write_leaves_the_previous_file(tmp_path, monkeypatch):
    cache = cache_with(tmp_path, (0, 0))

    def crash(*args):
        raise OSError("crash before the rename")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError):
        cache.assign(1, 10)
    monkeypatch.undo()
    assert reread(tmp_path) == [E(0, 0)]


# -- assign -----------------------------------------------------------------------------


def test_assign_adds_epochs_with_their_start_offsets(tmp_path):
    cache = cache_with(tmp_path, (2, 10))
    assert cache.entries == [E(2, 10)] and cache.latest_epoch == 2
    assert cache.latest_entry == E(2, 10) and cache.earliest_entry == E(2, 10)


def test_the_same_epoch_at_a_later_offset_changes_nothing(tmp_path):
    cache = cache_with(tmp_path, (2, 6))
    # (A write replaces the file by a new one: another inode.)
    before = os.stat(tmp_path / "leader-epoch-checkpoint").st_ino
    assert cache.assign(2, 7) is False
    assert cache.assign(2, 6) is False
    assert cache.entries == [E(2, 6)]
    assert os.stat(tmp_path / "leader-epoch-checkpoint").st_ino == before


def test_the_same_epoch_at_an_earlier_offset_replaces_it(tmp_path):
    cache = cache_with(tmp_path, (2, 6))
    assert cache.assign(2, 5) is True
    assert cache.entries == [E(2, 5)]
    assert file_text(tmp_path) == "0\n1\n2 5\n"


def test_a_lower_epoch_drops_the_entries_it_cannot_follow(tmp_path):
    cache = cache_with(tmp_path, (2, 6), (3, 8), (4, 11))
    # Epoch 3 at offset 9: (3, 8) has epoch >= 3, (4, 11) too; (2, 6) stays.
    assert cache.assign(3, 9) is True
    assert cache.entries == [E(2, 6), E(3, 9)]


def test_start_offsets_must_increase_so_an_earlier_start_drops_later_entries(tmp_path):
    cache = cache_with(tmp_path, (2, 6), (3, 9))
    # A higher epoch starting before (3, 9) and before (2, 6)'s start: both go.
    assert cache.assign(4, 5) is True
    assert cache.entries == [E(4, 5)]


def test_a_new_epoch_at_the_start_offset_of_the_latest_replaces_it(tmp_path):
    # A leader that assigned its epoch and wrote nothing, then lost leadership.
    cache = cache_with(tmp_path, (0, 0), (1, 50))
    assert cache.assign(2, 50) is True
    assert cache.entries == [E(0, 0), E(2, 50)]


def test_epochs_need_not_start_at_zero_nor_be_contiguous(tmp_path):
    cache = cache_with(tmp_path, (5, 0), (9, 3), (17, 4))
    assert cache.entries == [E(5, 0), E(9, 3), E(17, 4)]


@pytest.mark.parametrize("epoch, start", [(-1, 0), (0, -1), (-2, -2)])
def test_negative_fields_are_refused(tmp_path, epoch, start):
    cache = cache_with(tmp_path, (0, 0))
    with pytest.raises(ValueError):
        cache.assign(epoch, start)
    assert cache.entries == [E(0, 0)]


def test_assign_recovered_only_adds_epochs_above_the_latest(tmp_path):
    cache = cache_with(tmp_path, (0, 0), (3, 40))
    assert cache.assign_recovered(2, 50) is False     # older: would truncate (3, 40)
    assert cache.assign_recovered(3, 60) is False     # the same epoch
    assert cache.assign_recovered(-1, 70) is False    # a batch no leader stamped
    assert cache.assign_recovered(4, 80) is True
    assert cache.entries == [E(0, 0), E(3, 40), E(4, 80)]
    empty = LeaderEpochCache(subdir(tmp_path, "empty"))
    assert empty.assign_recovered(0, 0) is True and empty.entries == [E(0, 0)]


# -- end_offset_for ---------------------------------------------------------------------


def test_end_offset_for_the_latest_epoch_is_the_log_end_offset(tmp_path):
    cache = cache_with(tmp_path, (2, 5), (3, 11))
    assert cache.end_offset_for(3, 20) == (3, 20)


def test_end_offset_for_an_earlier_epoch_is_where_the_next_one_starts(tmp_path):
    cache = cache_with(tmp_path, (2, 5), (3, 11), (6, 15))
    assert cache.end_offset_for(2, 20) == (2, 11)
    assert cache.end_offset_for(3, 20) == (3, 15)


def test_end_offset_for_an_epoch_between_entries_is_the_floor_epoch_and_the_next_start(tmp_path):
    cache = cache_with(tmp_path, (1, 0), (4, 10), (6, 17))
    assert cache.end_offset_for(2, 30) == (1, 10)
    assert cache.end_offset_for(5, 30) == (4, 17)


def test_end_offset_for_an_epoch_before_every_entry_is_the_first_start(tmp_path):
    # The log before the first known epoch is gone: the asked epoch ends where it begins.
    cache = cache_with(tmp_path, (5, 100), (7, 150))
    assert cache.end_offset_for(3, 200) == (3, 100)
    assert cache.end_offset_for(-5, 200) == (-5, 100)


def test_end_offset_for_undefined_or_unknown_later_epochs_is_undefined(tmp_path):
    cache = cache_with(tmp_path, (2, 5), (3, 11))
    assert cache.end_offset_for(-1, 20) == (-1, -1)
    assert cache.end_offset_for(4, 20) == (-1, -1)
    assert cache.end_offset_for(100, 20) == (-1, -1)


def test_end_offset_for_anything_on_an_empty_cache_is_undefined(tmp_path):
    cache = LeaderEpochCache(tmp_path)
    for epoch in (-1, 0, 1, 7):
        assert cache.end_offset_for(epoch, 10) == (-1, -1)


# -- truncate_from_end ------------------------------------------------------------------


def test_truncate_from_end_drops_entries_starting_at_or_after_the_offset(tmp_path):
    cache = cache_with(tmp_path, (2, 6), (3, 8), (4, 11))
    assert cache.truncate_from_end(8) is True
    assert cache.entries == [E(2, 6)]
    assert file_text(tmp_path) == "0\n1\n2 6\n"


def test_truncate_from_end_inside_the_latest_epoch_changes_nothing(tmp_path):
    cache = cache_with(tmp_path, (2, 6), (3, 8), (4, 11))
    assert cache.truncate_from_end(12) is False
    assert cache.entries == [E(2, 6), E(3, 8), E(4, 11)]


def test_truncate_from_end_before_every_entry_empties_the_cache(tmp_path):
    cache = cache_with(tmp_path, (2, 6), (3, 8))
    assert cache.truncate_from_end(0) is True
    assert cache.entries == [] and file_text(tmp_path) == "0\n0\n"


def test_truncate_from_end_with_an_undefined_offset_changes_nothing(tmp_path):
    cache = cache_with(tmp_path, (2, 6), (3, 8))
    assert cache.truncate_from_end(-1) is False
    assert cache.entries == [E(2, 6), E(3, 8)]
    assert LeaderEpochCache(subdir(tmp_path, "x")).truncate_from_end(5) is False


# -- truncate_from_start ----------------------------------------------------------------


def test_truncate_from_start_between_epochs_moves_the_epoch_that_holds_it(tmp_path):
    cache = cache_with(tmp_path, (2, 6), (3, 8), (4, 11))
    assert cache.truncate_from_start(9) is True
    assert cache.entries == [E(3, 9), E(4, 11)]
    assert file_text(tmp_path) == "0\n2\n3 9\n4 11\n"


def test_truncate_from_start_at_an_entry_start_keeps_that_entry(tmp_path):
    cache = cache_with(tmp_path, (2, 6), (3, 8), (4, 11))
    assert cache.truncate_from_start(8) is True
    assert cache.entries == [E(3, 8), E(4, 11)]


def test_truncate_from_start_before_every_entry_changes_nothing(tmp_path):
    cache = cache_with(tmp_path, (2, 6), (3, 8))
    assert cache.truncate_from_start(5) is False
    assert cache.truncate_from_start(-1) is False
    assert cache.entries == [E(2, 6), E(3, 8)]


def test_truncate_from_start_at_the_first_start_changes_nothing(tmp_path):
    cache = cache_with(tmp_path, (2, 6), (3, 8))
    before = os.stat(tmp_path / "leader-epoch-checkpoint").st_ino
    assert cache.truncate_from_start(6) is False
    assert cache.entries == [E(2, 6), E(3, 8)]
    assert os.stat(tmp_path / "leader-epoch-checkpoint").st_ino == before


def test_truncate_from_start_past_every_start_keeps_the_latest_epoch_there(tmp_path):
    # Even past the log end (the log start moved beyond every write): the latest epoch
    # is kept, starting at the new log start.
    cache = cache_with(tmp_path, (2, 6), (3, 8), (4, 11))
    assert cache.truncate_from_start(15) is True
    assert cache.entries == [E(4, 15)]
    assert cache.end_offset_for(4, 15) == (4, 15)
    assert cache.end_offset_for(2, 15) == (2, 15)


def test_truncate_from_start_on_an_empty_cache_changes_nothing(tmp_path):
    cache = LeaderEpochCache(tmp_path)
    assert cache.truncate_from_start(5) is False and cache.entries == []


# -- epoch_for_offset, clear ------------------------------------------------------------


def test_epoch_for_offset_is_the_latest_entry_starting_at_or_before_it(tmp_path):
    cache = cache_with(tmp_path, (0, 0), (1, 4), (2, 10), (6, 15))
    expected = {0: 0, 3: 0, 4: 1, 9: 1, 10: 2, 14: 2, 15: 6, 1000: 6}
    assert {offset: cache.epoch_for_offset(offset) for offset in expected} == expected
    later = cache_with(subdir(tmp_path, "later"), (3, 100))
    assert later.epoch_for_offset(99) is None and later.epoch_for_offset(100) == 3


def test_clear_and_flush_empties_the_file_and_clear_leaves_it(tmp_path):
    cache = cache_with(tmp_path, (0, 0), (1, 4))
    cache.clear()
    assert cache.entries == [] and reread(tmp_path) == [E(0, 0), E(1, 4)]
    cache.clear_and_flush()
    assert file_text(tmp_path) == "0\n0\n" and reread(tmp_path) == []


# -- the invariant, against a model ----------------------------------------------------

operations = st.lists(st.one_of(
    st.tuples(st.just("assign"), st.integers(0, 8), st.integers(0, 60)),
    st.tuples(st.just("from_end"), st.integers(-1, 60)),
    st.tuples(st.just("from_start"), st.integers(-1, 60)),
), max_size=30)


def model_apply(entries: list[tuple[int, int]], operation) -> list[tuple[int, int]]:
    """The rules restated over a plain list, the slow obvious way."""
    kind = operation[0]
    if kind == "assign":
        _, epoch, start = operation
        if entries and entries[-1][0] == epoch and entries[-1][1] <= start:
            return entries
        while entries and (entries[-1][0] >= epoch or entries[-1][1] >= start):
            entries = entries[:-1]
        return [*entries, (epoch, start)]
    offset = operation[1]
    if kind == "from_end":
        return entries if offset < 0 else [e for e in entries if e[1] < offset]
    dropped = [e for e in entries if e[1] <= offset]
    if not dropped:
        return entries
    return [(dropped[-1][0], offset), *[e for e in entries if e[1] > offset]]


@settings(max_examples=150, deadline=None)
@given(operations)
def test_any_sequence_keeps_both_fields_strictly_increasing_and_matches_the_file(tmp_path_factory, ops):
    directory = tmp_path_factory.mktemp("cache")
    cache = LeaderEpochCache(directory)
    model: list[tuple[int, int]] = []
    for operation in ops:
        if operation[0] == "assign":
            cache.assign(operation[1], operation[2])
        elif operation[0] == "from_end":
            cache.truncate_from_end(operation[1])
        else:
            cache.truncate_from_start(operation[1])
        model = model_apply(model, operation)
        assert [tuple(e) for e in cache.entries] == model
        assert all(a[0] < b[0] and a[1] < b[1] for a, b in zip(model, model[1:]))
    assert [tuple(e) for e in LeaderEpochCache(directory).entries] == model
