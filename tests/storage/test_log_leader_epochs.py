"""The log keeps its leader-epoch cache as Kafka's UnifiedLog does, on disk as Kafka writes it.

Appends (leader and follower), truncation, log start moves (DeleteRecords, retention),
and loading: after a clean stop, after a crash that lost the end of the log, with a
checkpoint file older than the log, a torn `.tmp`, or a malformed file.
"""

from __future__ import annotations

import logging

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol.records import build_batch, iter_batch_headers
from storage.leader_epoch_cache import EpochEntry as E
from storage.leader_epoch_cache import LeaderEpochCache
from storage.log import Log
from tests.storage.builders import BASE_TIME_MS, make_batch, small_config

CONFIG = small_config(internal_segment_bytes=2000, index_interval_bytes=150)


def checkpoint(dir) -> bytes:
    return (dir / "leader-epoch-checkpoint").read_bytes()


def follower_batch(base_offset: int, epoch: int, records: int = 2, tag: int = 0) -> bytes:
    """A batch as a follower fetches it: offsets and epoch already the leader's."""
    return build_batch([(b"k", b"%d:%d" % (tag, i)) for i in range(records)], base_offset=base_offset,
                       partition_leader_epoch=epoch, timestamp_ms=BASE_TIME_MS)


def epochs_in_segments(log: Log) -> list[tuple[int, int]]:
    return [(header.base_offset, header.partition_leader_epoch)
            for segment in log.segments for _, header in segment.scan_batch_headers(0)]


def leader_log(dir, epochs=(0, 0, 0, 2, 2, 5)) -> Log:
    """A log a leader wrote: one 2-record batch per epoch given (offsets 0, 2, 4, ...)."""
    log = Log.open(dir, CONFIG, now_ms=0)
    for i, epoch in enumerate(epochs):
        log.append(make_batch(2, tag=i), now_ms=0, leader_epoch=epoch)
    return log


# -- appends ----------------------------------------------------------------------------


def test_a_new_log_has_an_empty_checkpoint_and_its_first_leader_append_writes_kafkas_bytes(tmp_path):
    log = Log.open(tmp_path / "t-0", CONFIG, now_ms=0)
    assert checkpoint(log.dir) == b""
    assert log.latest_epoch is None and log.epoch_entries == []
    log.append(make_batch(3), now_ms=0, leader_epoch=0)
    assert checkpoint(log.dir) == b"0\n1\n0 0\n"
    log.append(make_batch(3), now_ms=0, leader_epoch=0)
    assert checkpoint(log.dir) == b"0\n1\n0 0\n"  # the same epoch again: unchanged
    log.close()


def test_leader_appends_assign_each_new_epoch_at_the_first_offset_written_in_it(tmp_path):
    log = leader_log(tmp_path / "t-0")
    assert log.epoch_entries == [E(0, 0), E(2, 6), E(5, 10)]
    assert checkpoint(log.dir) == b"0\n3\n0 0\n2 6\n5 10\n"
    assert [epoch for _, epoch in epochs_in_segments(log)] == [0, 0, 0, 2, 2, 5]
    log.close()


def test_follower_appends_assign_the_epochs_the_batches_carry(tmp_path):
    log = Log.open(tmp_path / "t-0", CONFIG, now_ms=0)
    fetched = b"".join([follower_batch(0, 1), follower_batch(2, 1), follower_batch(4, 3), follower_batch(6, 4)])
    log.append(fetched, now_ms=0, assign_offsets=False)
    log.append(follower_batch(8, 4) + follower_batch(10, 7), now_ms=0, assign_offsets=False)
    assert log.epoch_entries == [E(1, 0), E(3, 4), E(4, 6), E(7, 10)]
    assert checkpoint(log.dir) == b"0\n4\n1 0\n3 4\n4 6\n7 10\n"
    log.close()


def test_batches_no_leader_stamped_assign_nothing(tmp_path):
    log = Log.open(tmp_path / "t-0", CONFIG, now_ms=0)
    log.append(make_batch(2), now_ms=0)  # partitionLeaderEpoch -1, as a producer sends it
    assert log.epoch_entries == [] and checkpoint(log.dir) == b""
    log.append(make_batch(2), now_ms=0, leader_epoch=3)
    assert log.epoch_entries == [E(3, 2)]
    log.close()


def test_a_new_leader_assigns_its_epoch_at_the_log_end_before_any_append(tmp_path):
    log = leader_log(tmp_path / "t-0", epochs=(0, 0))
    assert log.assign_epoch_start_offset(1, log.log_end_offset) is True
    assert log.epoch_entries == [E(0, 0), E(1, 4)]
    assert log.end_offset_for_epoch(0) == (0, 4)
    assert log.end_offset_for_epoch(1) == (1, 4)
    log.append(make_batch(2), now_ms=0, leader_epoch=1)
    assert log.epoch_entries == [E(0, 0), E(1, 4)]
    assert log.end_offset_for_epoch(1) == (1, 6)
    log.close()


def test_a_new_leaders_epoch_unwritten_reaches_the_file_before_its_first_batch(tmp_path):
    dir = tmp_path / "t-0"
    log = leader_log(dir, epochs=(0, 0))
    assert log.assign_epoch_start_offset(1, log.log_end_offset, write=False) is True
    assert log.epoch_entries == [E(0, 0), E(1, 4)] and log.end_offset_for_epoch(1) == (1, 4)
    assert checkpoint(dir) == b"0\n1\n0 0\n"   # in memory only
    log.append(make_batch(2), now_ms=0, leader_epoch=1)
    assert checkpoint(dir) == b"0\n2\n0 0\n1 4\n"   # written before the batch
    log.close()


def test_a_new_leaders_epoch_nothing_was_written_in_is_forgotten_by_a_stop_or_a_crash(tmp_path):
    closed, crashed = tmp_path / "closed-0", tmp_path / "crashed-0"
    for dir in (closed, crashed):
        log = leader_log(dir, epochs=(0, 0))
        log.assign_epoch_start_offset(3, log.log_end_offset, write=False)
        log.flush()
        if dir is closed:
            log.close()
        else:
            log.close_handlers()   # a crash
    # no batch was written in epoch 3: neither the flush nor the close writes it
    assert checkpoint(closed) == checkpoint(crashed) == b"0\n1\n0 0\n"
    for dir, clean in ((closed, True), (crashed, False)):
        again = Log.open(dir, CONFIG, now_ms=0, had_clean_shutdown=clean, recovery_point=0)
        assert again.epoch_entries == [E(0, 0)] and again.end_offset_for_epoch(0) == (0, 4)
        again.assign_epoch_start_offset(4, again.log_end_offset)   # the controller elects it again, higher
        assert again.epoch_entries == [E(0, 0), E(4, 4)] and checkpoint(dir) == b"0\n2\n0 0\n4 4\n"
        again.close()


def test_end_offset_for_epoch_follows_kafkas_rules_on_the_log(tmp_path):
    log = leader_log(tmp_path / "t-0")  # [(0, 0), (2, 6), (5, 10)], log end 12
    answers = {-1: (-1, -1), 0: (0, 6), 1: (0, 6), 2: (2, 10), 3: (2, 10), 4: (2, 10), 5: (5, 12), 6: (-1, -1)}
    assert {epoch: log.end_offset_for_epoch(epoch) for epoch in answers} == answers
    log.close()


# -- truncation and log start moves -----------------------------------------------------


def test_truncate_to_drops_the_entries_from_the_cut_on(tmp_path):
    log = leader_log(tmp_path / "t-0")
    assert log.truncate_to(7) is True  # the batch [6, 7] goes whole: log end 6
    assert log.log_end_offset == 6
    assert log.epoch_entries == [E(0, 0), E(2, 6)]  # (2, 6) starts below the cut offset 7: kept
    assert checkpoint(log.dir) == b"0\n2\n0 0\n2 6\n"
    assert log.truncate_to(6) is False
    assert log.epoch_entries == [E(0, 0)]  # an entry at the log end, with nothing written in it, goes
    assert checkpoint(log.dir) == b"0\n1\n0 0\n"
    log.close()


def test_truncate_to_beyond_the_end_drops_an_epoch_that_wrote_nothing(tmp_path):
    log = leader_log(tmp_path / "t-0", epochs=(0, 0))
    log.assign_epoch_start_offset(1, log.log_end_offset)  # led epoch 1, wrote nothing
    assert log.truncate_to(10) is False
    assert log.epoch_entries == [E(0, 0)]
    log.close()


def test_truncate_fully_and_start_at_empties_the_cache(tmp_path):
    log = leader_log(tmp_path / "t-0")
    log.truncate_fully_and_start_at(100)
    assert log.epoch_entries == [] and checkpoint(log.dir) == b"0\n0\n"
    log.append(make_batch(1), now_ms=0, leader_epoch=6)
    assert log.epoch_entries == [E(6, 100)]
    log.close()


def test_truncate_to_below_the_first_segment_empties_the_cache(tmp_path):
    log = leader_log(tmp_path / "t-0", epochs=[0] * 40 + [1] * 40 + [2] * 40)
    log.delete_segments_below(log.segments[2].base_offset)
    first = log.segments[0].base_offset
    log.truncate_to(first - 1)
    assert (log.log_start_offset, log.log_end_offset) == (first - 1, first - 1)
    assert log.epoch_entries == []
    log.close()


def test_delete_records_moves_the_first_entry_to_the_new_log_start(tmp_path):
    log = leader_log(tmp_path / "t-0")  # [(0, 0), (2, 6), (5, 10)]
    assert log.advance_log_start_offset(7)
    assert log.epoch_entries == [E(2, 7), E(5, 10)]
    assert checkpoint(log.dir) == b"0\n2\n2 7\n5 10\n"
    assert log.end_offset_for_epoch(0) == (0, 7)  # older than everything left
    log.advance_log_start_offset(10)
    assert log.epoch_entries == [E(5, 10)]
    log.close()


def test_retention_moves_the_first_entry_to_the_first_segment_left(tmp_path):
    log = leader_log(tmp_path / "t-0", epochs=[0] * 30 + [1] * 30 + [2] * 30)
    assert log.epoch_entries == [E(0, 0), E(1, 60), E(2, 120)]
    log.update_config(small_config(internal_segment_bytes=2000, index_interval_bytes=150, retention_bytes=3000))
    assert log.delete_old_segments(0, log.log_end_offset)
    new_start = log.log_start_offset
    assert 60 < new_start < 120  # (what the sizes give: a start inside epoch 1)
    assert log.epoch_entries == [E(1, new_start), E(2, 120)]
    assert checkpoint(log.dir) == b"0\n2\n1 %d\n2 120\n" % new_start
    log.close()


# -- loading ----------------------------------------------------------------------------


def test_a_clean_reopen_reads_the_entries_back(tmp_path):
    dir = tmp_path / "t-0"
    leader_log(dir).close()
    log = Log.open(dir, CONFIG, now_ms=0, had_clean_shutdown=True)
    assert log.epoch_entries == [E(0, 0), E(2, 6), E(5, 10)]
    assert checkpoint(dir) == b"0\n3\n0 0\n2 6\n5 10\n"
    log.close()


def crash_losing_epoch_5(dir, torn_bytes: int = 0) -> None:
    """`leader_log(dir)`, then a crash that lost its batch of epoch 5 (`torn_bytes` of it
    left): the checkpoint is fsynced on assign, the batches were not."""
    log = leader_log(dir)
    active = log.active_segment.log_path
    end_of_epoch_2 = next(p for p, h in iter_batch_headers(active.read_bytes()) if h.partition_leader_epoch == 5)
    log.close_handlers()
    with open(active, "r+b") as file:
        file.truncate(end_of_epoch_2 + torn_bytes)


def test_a_crash_that_lost_the_end_of_the_log_drops_its_epochs_at_load(tmp_path):
    # After the crash the file names an epoch whose batches are gone.
    dir = tmp_path / "t-0"
    crash_losing_epoch_5(dir, torn_bytes=30)
    assert checkpoint(dir) == b"0\n3\n0 0\n2 6\n5 10\n"
    reopened = Log.open(dir, CONFIG, now_ms=0, recovery_point=0)
    assert reopened.log_end_offset == 10
    assert reopened.epoch_entries == [E(0, 0), E(2, 6)]
    # the load's truncation is not written (Kafka defers it too), not even by the close:
    # every load makes it again, after a clean stop too
    reopened.close()
    assert checkpoint(dir) == b"0\n3\n0 0\n2 6\n5 10\n"
    again = Log.open(dir, CONFIG, now_ms=0, had_clean_shutdown=True)
    assert again.epoch_entries == [E(0, 0), E(2, 6)]
    again.close()


def test_a_crash_before_the_loads_truncation_is_written_is_corrected_by_the_next_load(tmp_path):
    dir = tmp_path / "t-0"
    crash_losing_epoch_5(dir)
    Log.open(dir, CONFIG, now_ms=0, recovery_point=0).close_handlers()   # a second crash, at once
    assert checkpoint(dir) == b"0\n3\n0 0\n2 6\n5 10\n"
    reopened = Log.open(dir, CONFIG, now_ms=0, recovery_point=0)
    assert reopened.epoch_entries == [E(0, 0), E(2, 6)]
    reopened.assign_epoch_start_offset(7, reopened.log_end_offset)   # a new leader writes the whole cache
    assert checkpoint(dir) == b"0\n3\n0 0\n2 6\n7 10\n"
    reopened.close()


def test_the_first_append_after_a_load_writes_the_cut_before_its_batch(tmp_path):
    # The load drops epoch 6 (it wrote nothing) without writing the file; batches of an
    # older epoch then land where epoch 6 began. Had the file kept "6 4", a crash would
    # give the cache an epoch 6 over batches of epoch 0.
    dir = tmp_path / "t-0"
    log = leader_log(dir, epochs=(0, 0))
    log.assign_epoch_start_offset(6, log.log_end_offset)
    log.close()
    assert checkpoint(dir) == b"0\n2\n0 0\n6 4\n"
    reopened = Log.open(dir, CONFIG, now_ms=0, had_clean_shutdown=True)
    assert reopened.epoch_entries == [E(0, 0)] and checkpoint(dir) == b"0\n2\n0 0\n6 4\n"
    reopened.append(follower_batch(4, 0), now_ms=0, assign_offsets=False)
    assert checkpoint(dir) == b"0\n1\n0 0\n"
    reopened.close_handlers()   # a crash
    again = Log.open(dir, CONFIG, now_ms=0, recovery_point=0)
    assert again.epoch_entries == [E(0, 0)]
    assert again.leader_epoch_cache.epoch_for_offset(5) == 0
    again.close()


def test_recovery_puts_back_the_epochs_of_batches_after_the_recovery_point(tmp_path):
    # A checkpoint older than the log (here: written over by hand with the first epoch
    # only): recovery re-reads the segments from the recovery point on and assigns
    # every epoch above the latest known, as Kafka's LogSegment.recover does.
    dir = tmp_path / "t-0"
    log = leader_log(dir, epochs=[0] * 20 + [3] * 20 + [4] * 20)
    entries = log.epoch_entries
    assert entries == [E(0, 0), E(3, 40), E(4, 80)]
    log.close_handlers()
    (dir / "leader-epoch-checkpoint").write_text("0\n1\n0 0\n")
    reopened = Log.open(dir, CONFIG, now_ms=0, recovery_point=0)
    assert reopened.recovery_report.segments_recovered == reopened.num_segments
    assert reopened.epoch_entries == entries
    assert checkpoint(dir) == b"0\n3\n0 0\n3 40\n4 80\n"
    reopened.close()


def test_recovery_does_not_read_segments_below_the_recovery_point_for_epochs(tmp_path):
    dir = tmp_path / "t-0"
    log = leader_log(dir, epochs=[0] * 20 + [3] * 20 + [4] * 20)
    log.close_handlers()
    (dir / "leader-epoch-checkpoint").write_bytes(b"")  # no entries at all
    reopened = Log.open(dir, CONFIG, now_ms=0, recovery_point=81)
    recovered_from = reopened.floor_segment(81).base_offset
    assert 40 < recovered_from <= 80  # (what the sizes give: inside epoch 3)
    # Only the batches from the segment holding offset 81 on were re-read: epoch 3 comes
    # back at that segment's base offset, epoch 4 where it began; epoch 0 is not known.
    assert reopened.epoch_entries == [E(3, recovered_from), E(4, 80)]
    reopened.close()


def test_after_a_clean_stop_the_checkpoint_is_trusted_and_no_segment_is_read(tmp_path):
    dir = tmp_path / "t-0"
    leader_log(dir, epochs=[0] * 20 + [3] * 20).close()
    (dir / "leader-epoch-checkpoint").write_text("0\n1\n0 0\n")
    reopened = Log.open(dir, CONFIG, now_ms=0, had_clean_shutdown=True)
    assert reopened.epoch_entries == [E(0, 0)]
    reopened.close()


def test_load_moves_the_first_entry_to_the_checkpointed_log_start(tmp_path):
    # A log start move whose checkpoint write a crash prevented is redone at load.
    dir = tmp_path / "t-0"
    log = leader_log(dir)
    log.close()
    (dir / "leader-epoch-checkpoint").write_text("0\n3\n0 0\n2 6\n5 10\n")
    for _ in range(2):   # in memory only, so the next load moves it again
        reopened = Log.open(dir, CONFIG, now_ms=0, had_clean_shutdown=True, log_start_offset=8)
        assert reopened.epoch_entries == [E(2, 8), E(5, 10)]
        reopened.close()
        assert checkpoint(dir) == b"0\n3\n0 0\n2 6\n5 10\n"
    reopened = Log.open(dir, CONFIG, now_ms=0, had_clean_shutdown=True, log_start_offset=8)
    reopened.append(make_batch(1), now_ms=0, leader_epoch=5)   # an append writes it, before its batch
    assert checkpoint(dir) == b"0\n2\n2 8\n5 10\n"
    reopened.close()


def test_a_log_start_beyond_the_files_empties_the_cache(tmp_path):
    dir = tmp_path / "t-0"
    leader_log(dir).close()
    reopened = Log.open(dir, CONFIG, now_ms=0, had_clean_shutdown=True, log_start_offset=1000)
    assert (reopened.log_start_offset, reopened.log_end_offset) == (1000, 1000)
    assert reopened.epoch_entries == [] and checkpoint(dir) == b"0\n0\n"
    reopened.close()


def test_a_torn_tmp_beside_the_checkpoint_is_ignored_at_load(tmp_path):
    dir = tmp_path / "t-0"
    leader_log(dir).close()
    (dir / "leader-epoch-checkpoint.tmp").write_bytes(b"0\n4\n0 0\n2 6\n5 1")
    reopened = Log.open(dir, CONFIG, now_ms=0, had_clean_shutdown=True)
    assert reopened.epoch_entries == [E(0, 0), E(2, 6), E(5, 10)]
    reopened.append(make_batch(1), now_ms=0, leader_epoch=6)
    assert checkpoint(dir) == b"0\n4\n0 0\n2 6\n5 10\n6 12\n"
    assert not (dir / "leader-epoch-checkpoint.tmp").exists()
    reopened.close()


def test_a_missing_checkpoint_is_created_empty_at_load(tmp_path):
    dir = tmp_path / "t-0"
    leader_log(dir).close()
    (dir / "leader-epoch-checkpoint").unlink()
    reopened = Log.open(dir, CONFIG, now_ms=0, had_clean_shutdown=True)
    assert checkpoint(dir) == b"" and reopened.epoch_entries == []
    reopened.close()


def test_a_malformed_checkpoint_is_rebuilt_from_the_batches(tmp_path, caplog):
    dir = tmp_path / "t-0"
    leader_log(dir, epochs=[0] * 20 + [3] * 20 + [4] * 20).close()
    (dir / "leader-epoch-checkpoint").write_text("0\n3\n0 0\ngarbage\n")
    with caplog.at_level(logging.WARNING, logger="storage.log"):
        reopened = Log.open(dir, CONFIG, now_ms=0, had_clean_shutdown=True)
    assert any("leader-epoch" in record.getMessage() for record in caplog.records)
    assert reopened.epoch_entries == [E(0, 0), E(3, 40), E(4, 80)]
    assert checkpoint(dir) == b"0\n3\n0 0\n3 40\n4 80\n"
    reopened.close()


# -- any sequence: the cache names the epoch of every batch still in the log ------------

log_operations = st.lists(st.one_of(
    st.tuples(st.just("append"), st.integers(0, 2), st.integers(1, 5)),   # epoch rise, records
    st.tuples(st.just("make_leader")),
    st.tuples(st.just("truncate"), st.floats(0, 1.2)),                     # where, in the log
    st.tuples(st.just("delete_records"), st.floats(0, 1)),
    st.tuples(st.just("reopen"), st.booleans()),                           # clean or after a crash
), min_size=1, max_size=25)


def check_cache_against_the_batches(log: Log) -> None:
    entries = log.epoch_entries
    assert all(a.epoch < b.epoch and a.start_offset < b.start_offset for a, b in zip(entries, entries[1:]))
    # (No entry starts below the log start. One may start past the log end: a cut inside
    # a batch removes the whole batch, and the cache is cut at the offset asked, as
    # Kafka's truncateTo does; the next assign or load puts it right.)
    assert all(log.log_start_offset <= e.start_offset for e in entries)
    for segment in log.segments:
        for _, header in segment.scan_batch_headers(0):
            if header.last_offset >= log.log_start_offset:
                offset = max(header.base_offset, log.log_start_offset)
                assert log.leader_epoch_cache.epoch_for_offset(offset) == header.partition_leader_epoch, offset


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(operations=log_operations)
def test_after_any_operations_the_cache_names_the_epoch_of_every_batch(tmp_path_factory, operations):
    dir = tmp_path_factory.mktemp("log") / "t-0"
    log = Log.open(dir, CONFIG, now_ms=0)
    epoch = 0
    try:
        for operation in operations:
            kind = operation[0]
            if kind == "append":
                epoch += operation[1]
                log.append(make_batch(operation[2]), now_ms=0, leader_epoch=epoch)
            elif kind == "make_leader":
                epoch += 1
                log.assign_epoch_start_offset(epoch, log.log_end_offset)
            elif kind == "truncate":
                log.truncate_to(int(log.log_end_offset * operation[1]))
            elif kind == "delete_records":
                start, end = log.log_start_offset, log.log_end_offset
                log.advance_log_start_offset(start + int((end - start) * operation[1]))
            else:
                clean, recovery_point, log_start = operation[1], log.recovery_point, log.log_start_offset
                log.close() if clean else log.close_handlers()
                log = Log.open(dir, CONFIG, now_ms=0, had_clean_shutdown=clean,
                               recovery_point=recovery_point, log_start_offset=log_start)
            check_cache_against_the_batches(log)
            # the file says what the cache says, except while a load's cut is not written:
            # then what matters is what a load makes of the file, which a later reopen
            # after a crash checks above
            if not log.leader_epoch_cache.unwritten:
                assert LeaderEpochCache(dir).entries == log.epoch_entries
    finally:
        log.close()
