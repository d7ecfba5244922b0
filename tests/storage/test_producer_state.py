"""Producer state: Kafka's idempotence rules on the leader's append (duplicates of the last
five batches, gaps, epochs, sequence wrap, several batches per append), what a follower
appends, snapshots in Kafka's byte layout (decoded here with struct alone), reloads after
clean and unclean stops, truncation, corrupt snapshots, expiration."""

from __future__ import annotations

import logging
import random
import struct

import pytest

from protocol.records import ControlType, build_batch, build_control_batch
from storage.errors import (
    CorruptSnapshot,
    InvalidBatch,
    InvalidProducerEpoch,
    InvalidTxnState,
    OutOfOrderSequence,
)
from storage.log import Log
from storage.manager import LogManager
from storage.producer_snapshot import SnapshotEntry, decode_snapshot, encode_snapshot
from storage.producer_state import NUM_BATCHES_TO_RETAIN, BatchMetadata, decrement_sequence
from tests.storage.builders import BASE_TIME_MS, Clock, make_batch, small_config

INT32_MAX = 2**31 - 1
DAY_MS = 24 * 60 * 60 * 1000
PID = 1000


def batch(pid: int = PID, epoch: int = 0, seq: int = 0, records: int = 1, *, ts: int = BASE_TIME_MS,
          transactional: bool = False, tag: int = 0, value_bytes: int = 10) -> bytes:
    """A batch of an idempotent (or transactional) producer."""
    rows = [(b"k", (b"%d:%d:" % (tag, i)).ljust(value_bytes, b"x"), (), ts) for i in range(records)]
    return build_batch(rows, producer_id=pid, producer_epoch=epoch, base_sequence=seq,
                       is_transactional=transactional, timestamp_ms=ts)


def open_log(dir, config=None, *, now_ms: int = BASE_TIME_MS, **kwargs) -> Log:
    return Log.open(dir, config or small_config(), now_ms=now_ms, **kwargs)


def dir_names(log_dir) -> list[str]:
    return sorted(p.name for p in log_dir.iterdir())


def log_bytes(log: Log) -> int:
    return sum(segment.size_bytes for segment in log.segments)


def crc32c_bitwise(data: bytes) -> int:
    """CRC-32C, bit by bit: independent of every library the code under test uses."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def decode_snapshot_file(path) -> tuple[int, list[tuple]]:
    """Kafka's snapshot layout read with struct: (version, rows); asserts the CRC."""
    data = path.read_bytes()
    version, crc, count = struct.unpack_from(">hIi", data, 0)
    assert crc == crc32c_bitwise(data[6:])
    assert len(data) == 10 + 46 * count
    return version, [struct.unpack_from(">qhiqiqiq", data, 10 + 46 * i) for i in range(count)]


# -- the leader's checks ---------------------------------------------------------------------


def test_in_sequence_batches_are_appended_and_tracked(tmp_path):
    log = open_log(tmp_path / "t-0")
    assert log.last_sequence(PID) == -1 and log.producer_epoch(PID) == -1
    log.append(make_batch(3), now_ms=BASE_TIME_MS)  # a producer-less batch first
    first = log.append(batch(seq=0, records=2, ts=BASE_TIME_MS + 5), now_ms=BASE_TIME_MS)
    second = log.append(batch(seq=2, records=3, ts=BASE_TIME_MS + 7), now_ms=BASE_TIME_MS)
    assert (first.first_offset, first.last_offset, second.first_offset, second.last_offset) == (3, 4, 5, 7)
    assert not first.duplicate and not second.duplicate
    entry = log.producer_state[PID]
    assert entry.producer_epoch == 0 and log.producer_epoch(PID) == 0
    assert log.last_sequence(PID) == entry.last_sequence == 4
    assert entry.batches == (
        BatchMetadata(last_sequence=1, last_offset=4, offset_delta=1, timestamp_ms=BASE_TIME_MS + 5),
        BatchMetadata(last_sequence=4, last_offset=7, offset_delta=2, timestamp_ms=BASE_TIME_MS + 7),
    )
    assert entry.last_timestamp_ms == BASE_TIME_MS + 7 and entry.current_txn_first_offset is None
    with pytest.raises(TypeError):
        log.producer_state[PID] = entry  # a read-only view
    log.close()


def test_each_of_the_last_five_batches_is_a_duplicate_but_not_the_sixth(tmp_path):
    log = open_log(tmp_path / "t-0")
    originals = []
    for i in range(6):
        info = log.append(batch(seq=2 * i, records=2, ts=BASE_TIME_MS + i, tag=i), now_ms=BASE_TIME_MS)
        originals.append(info)
    end, size = log.log_end_offset, log_bytes(log)
    for i in range(1, 6):
        retry = log.append(batch(seq=2 * i, records=2, ts=BASE_TIME_MS + i, tag=i), now_ms=BASE_TIME_MS)
        assert retry.duplicate
        assert (retry.first_offset, retry.last_offset) == (originals[i].first_offset, originals[i].last_offset)
        assert retry.max_timestamp_ms == BASE_TIME_MS + i
        assert (retry.record_count, retry.batch_count, retry.size_bytes) == (0, 0, 0)
        assert retry.log_end_offset == end
    assert len(log.producer_state[PID].batches) == NUM_BATCHES_TO_RETAIN
    # The sixth-oldest batch fell out of the cache: its retry is a sequence error, as in Kafka.
    with pytest.raises(OutOfOrderSequence):
        log.append(batch(seq=0, records=2), now_ms=BASE_TIME_MS)
    assert (log.log_end_offset, log_bytes(log)) == (end, size)
    log.close()


def test_a_gap_is_out_of_order_and_nothing_is_written(tmp_path):
    log = open_log(tmp_path / "t-0")
    log.append(batch(seq=0, records=3), now_ms=BASE_TIME_MS)
    size = log_bytes(log)
    for bad in (4, 2, 1, 100):
        with pytest.raises(OutOfOrderSequence) as raised:
            log.append(batch(seq=bad), now_ms=BASE_TIME_MS)
        assert raised.value.producer_id == PID and raised.value.offset == 3
    assert (log.log_end_offset, log_bytes(log), log.last_sequence(PID)) == (3, size, 2)
    assert log.append(batch(seq=3), now_ms=BASE_TIME_MS).first_offset == 3
    log.close()


def test_a_stale_epoch_is_fenced(tmp_path):
    log = open_log(tmp_path / "t-0")
    log.append(batch(epoch=3, seq=0), now_ms=BASE_TIME_MS)
    with pytest.raises(InvalidProducerEpoch) as raised:
        log.append(batch(epoch=2, seq=1), now_ms=BASE_TIME_MS)
    assert raised.value.producer_id == PID
    with pytest.raises(InvalidProducerEpoch):  # even a retry of a batch it wrote
        log.append(batch(epoch=2, seq=0), now_ms=BASE_TIME_MS)
    assert log.log_end_offset == 1 and log.producer_epoch(PID) == 3
    log.close()


def test_a_new_epoch_starts_at_sequence_zero(tmp_path):
    log = open_log(tmp_path / "t-0")
    log.append(batch(epoch=0, seq=0, records=5), now_ms=BASE_TIME_MS)
    with pytest.raises(OutOfOrderSequence):
        log.append(batch(epoch=1, seq=5), now_ms=BASE_TIME_MS)
    info = log.append(batch(epoch=1, seq=0, records=2), now_ms=BASE_TIME_MS)
    assert not info.duplicate and info.first_offset == 5
    entry = log.producer_state[PID]
    assert entry.producer_epoch == 1 and [b.last_offset for b in entry.batches] == [6]  # old epoch forgotten
    with pytest.raises(InvalidProducerEpoch):
        log.append(batch(epoch=0, seq=0, records=5), now_ms=BASE_TIME_MS)
    assert log.append(batch(epoch=1, seq=0, records=2), now_ms=BASE_TIME_MS).duplicate
    log.close()


def test_an_unknown_producer_may_start_at_any_sequence(tmp_path):
    # KIP-360 (Kafka 2.5+): a producer whose state the partition lost continues where it is.
    log = open_log(tmp_path / "t-0")
    log.append(batch(pid=7, epoch=4, seq=12345, records=2), now_ms=BASE_TIME_MS)
    assert log.last_sequence(7) == 12346
    with pytest.raises(OutOfOrderSequence):
        log.append(batch(pid=7, epoch=4, seq=12348), now_ms=BASE_TIME_MS)
    log.append(batch(pid=7, epoch=4, seq=12347), now_ms=BASE_TIME_MS)
    log.close()


def test_sequences_wrap_from_int32_max_to_zero(tmp_path):
    assert decrement_sequence(1, 3) == INT32_MAX - 1
    log = open_log(tmp_path / "t-0")
    log.append(batch(seq=INT32_MAX - 3, records=2), now_ms=BASE_TIME_MS)    # MAX-3 .. MAX-2
    wrapped = log.append(batch(seq=INT32_MAX - 1, records=4), now_ms=BASE_TIME_MS)  # MAX-1, MAX, 0, 1
    assert log.last_sequence(PID) == 1
    assert log.producer_state[PID].batches[-1].first_sequence == INT32_MAX - 1
    retry = log.append(batch(seq=INT32_MAX - 1, records=4), now_ms=BASE_TIME_MS)
    assert retry.duplicate and (retry.first_offset, retry.last_offset) == (wrapped.first_offset, wrapped.last_offset)
    with pytest.raises(OutOfOrderSequence):
        log.append(batch(seq=0), now_ms=BASE_TIME_MS)
    log.append(batch(seq=2), now_ms=BASE_TIME_MS)
    # A batch ending exactly at INT32_MAX is followed by 0.
    log.append(batch(pid=9, seq=INT32_MAX - 1, records=2), now_ms=BASE_TIME_MS)
    assert log.last_sequence(9) == INT32_MAX
    log.append(batch(pid=9, seq=0), now_ms=BASE_TIME_MS)
    log.close()


def test_several_batches_in_one_append_are_checked_as_a_sequence(tmp_path):
    log = open_log(tmp_path / "t-0")
    info = log.append(
        batch(seq=0, records=2) + batch(pid=2, seq=0) + batch(seq=2, records=3) + batch(pid=2, seq=1),
        now_ms=BASE_TIME_MS,
    )
    assert (info.batch_count, info.last_offset) == (4, 6)
    assert (log.last_sequence(PID), log.last_sequence(2)) == (4, 1)
    assert [b.last_offset for b in log.producer_state[PID].batches] == [1, 5]
    size = log_bytes(log)
    # The second batch does not follow the first of the same append: nothing is written.
    with pytest.raises(OutOfOrderSequence):
        log.append(batch(seq=5) + batch(seq=7), now_ms=BASE_TIME_MS)
    # An epoch bump inside one append: the second batch of the new epoch follows the first.
    with pytest.raises(OutOfOrderSequence):
        log.append(batch(epoch=1, seq=0) + batch(epoch=1, seq=2), now_ms=BASE_TIME_MS)
    with pytest.raises(InvalidProducerEpoch):
        log.append(batch(epoch=1, seq=0) + batch(epoch=0, seq=5), now_ms=BASE_TIME_MS)
    assert (log.log_end_offset, log_bytes(log), log.last_sequence(PID)) == (7, size, 4)
    # A duplicate anywhere makes the whole append a duplicate (Kafka answers with it).
    retry = log.append(batch(pid=3, seq=0) + batch(seq=2, records=3), now_ms=BASE_TIME_MS)
    assert retry.duplicate and (retry.first_offset, retry.last_offset) == (3, 5)
    assert (log.log_end_offset, 3 in log.producer_state) == (7, False)
    log.close()


def test_producer_batches_need_a_sequence_number(tmp_path):
    log = open_log(tmp_path / "t-0")
    with pytest.raises(InvalidBatch):
        log.append(make_batch(1) + batch(seq=-1), now_ms=BASE_TIME_MS)
    assert log.log_end_offset == 0
    log.close()


def test_log_append_time_is_the_producers_last_timestamp(tmp_path):
    log = open_log(tmp_path / "t-0", small_config(message_timestamp_type="LogAppendTime"))
    now = BASE_TIME_MS + 999
    log.append(batch(seq=0, ts=BASE_TIME_MS), now_ms=now)
    assert log.producer_state[PID].last_timestamp_ms == now
    retry = log.append(batch(seq=0, ts=BASE_TIME_MS), now_ms=now + 5)
    assert retry.duplicate and retry.log_append_time_ms == now
    log.close()


def test_transactional_batches_and_markers(tmp_path):
    log = open_log(tmp_path / "t-0")
    log.append(make_batch(2), now_ms=BASE_TIME_MS)
    log.append(batch(seq=0, records=2, transactional=True), now_ms=BASE_TIME_MS)
    log.append(batch(seq=2, transactional=True), now_ms=BASE_TIME_MS)
    assert log.producer_state[PID].current_txn_first_offset == 2
    with pytest.raises(InvalidTxnState):
        log.append(batch(seq=3), now_ms=BASE_TIME_MS)
    marker = build_control_batch(ControlType.COMMIT, producer_id=PID, producer_epoch=0,
                                 coordinator_epoch=7, timestamp_ms=BASE_TIME_MS + 1)
    log.append(marker, now_ms=BASE_TIME_MS)
    entry = log.producer_state[PID]
    assert (entry.current_txn_first_offset, entry.coordinator_epoch, entry.last_sequence) == (None, 7, 2)
    log.append(batch(seq=3), now_ms=BASE_TIME_MS)
    # An open transaction survives a crash: replayed with the marker's record read.
    log.append(batch(seq=4, transactional=True), now_ms=BASE_TIME_MS)
    expected = log.producer_state[PID]
    log.close_handlers()
    log = open_log(tmp_path / "t-0")
    assert log.producer_state[PID] == expected
    assert (expected.current_txn_first_offset, expected.coordinator_epoch) == (7, 7)
    log.close()


# -- followers -------------------------------------------------------------------------------


def test_a_follower_append_updates_the_state_without_checks(tmp_path):
    leader = open_log(tmp_path / "leader-0")
    leader.append(batch(epoch=2, seq=0, records=2), now_ms=BASE_TIME_MS)
    leader.append(batch(epoch=2, seq=2), now_ms=BASE_TIME_MS)
    fetched = leader.read(0, 1 << 20).read_bytes()
    follower = open_log(tmp_path / "follower-0")
    # A gap a leader would refuse: the follower takes what the leader wrote.
    follower.append(batch(epoch=2, seq=50), now_ms=BASE_TIME_MS)
    follower.truncate_fully_and_start_at(0)
    assert follower.producer_state == {}
    follower.append(fetched, now_ms=BASE_TIME_MS, assign_offsets=False)
    assert follower.producer_state == leader.producer_state
    leader.close()
    follower.close()


# -- snapshots and reloads ---------------------------------------------------------------------


def test_a_clean_close_writes_a_snapshot_in_kafkas_layout(tmp_path):
    dir = tmp_path / "t-0"
    log = open_log(dir)
    log.append(batch(pid=5, epoch=1, seq=0, records=3, ts=BASE_TIME_MS + 1), now_ms=BASE_TIME_MS)
    log.append(batch(pid=3, epoch=0, seq=0, records=2, ts=BASE_TIME_MS + 2), now_ms=BASE_TIME_MS)
    log.append(batch(pid=5, epoch=1, seq=3, records=2, ts=BASE_TIME_MS + 3), now_ms=BASE_TIME_MS)
    log.close()
    assert "00000000000000000007.snapshot" in dir_names(dir)
    version, rows = decode_snapshot_file(dir / "00000000000000000007.snapshot")
    assert version == 1
    # producer id, epoch, last sequence, last offset, offset delta, timestamp,
    # coordinator epoch, current transaction first offset
    assert sorted(rows) == [
        (3, 0, 1, 4, 1, BASE_TIME_MS + 2, -1, -1),
        (5, 1, 4, 6, 1, BASE_TIME_MS + 3, -1, -1),
    ]


# Producers that appended to one partition, in this order (producer ids 0-39 allocated), and
# the order Kafka 4.1.1 wrote them in its snapshot at a clean stop and listed them in
# DescribeProducers: its HashMap of 32 buckets for 17 producers, by id, 33 before 1 and 39
# before 7 in their buckets because they came first.
PRODUCERS_PUT = [15, 17, 3, 33, 16, 1, 39, 20, 31, 14, 2, 5, 7, 9, 11, 13, 30]
KAFKAS_SNAPSHOT_ORDER = [33, 1, 2, 3, 5, 39, 7, 9, 11, 13, 14, 15, 16, 17, 20, 30, 31]


def test_a_snapshot_lists_the_producers_in_kafkas_order(tmp_path):
    dir = tmp_path / "t-0"
    log = open_log(dir)
    for pid in PRODUCERS_PUT:
        log.append(batch(pid=pid), now_ms=BASE_TIME_MS)
    assert [pid for pid, _ in log.producers_in_kafkas_order()] == KAFKAS_SNAPSHOT_ORDER
    log.close()
    _, rows = decode_snapshot_file(dir / "00000000000000000017.snapshot")
    assert [row[0] for row in rows] == KAFKAS_SNAPSHOT_ORDER
    reopened = open_log(dir, had_clean_shutdown=True)   # put back in the file's order: the same again
    assert [pid for pid, _ in reopened.producers_in_kafkas_order()] == KAFKAS_SNAPSHOT_ORDER
    reopened.close()


def test_the_producer_table_does_not_shrink(tmp_path):
    """Producers gone (expired) leave Kafka's HashMap at the size it grew to: the four left
    keep the order of 32 buckets (1 and 33 in one), not that of 16 (1, 17 and 33 in one)."""
    log = open_log(tmp_path / "t-0")
    for pid in PRODUCERS_PUT:
        log.append(batch(pid=pid, ts=BASE_TIME_MS if pid in (1, 17, 33, 2) else BASE_TIME_MS - DAY_MS),
                   now_ms=BASE_TIME_MS)
    assert log.remove_expired_producers(BASE_TIME_MS + DAY_MS // 2) == 13
    assert [pid for pid, _ in log.producers_in_kafkas_order()] == [33, 1, 2, 17]
    log.close()


def test_state_survives_a_clean_close_and_reopen(tmp_path):
    dir = tmp_path / "t-0"
    log = open_log(dir)
    for i in range(4):
        log.append(batch(seq=2 * i, records=2, tag=i), now_ms=BASE_TIME_MS)
    log.close()
    log = open_log(dir, had_clean_shutdown=True)
    assert (log.producer_epoch(PID), log.last_sequence(PID)) == (0, 7)
    assert log.recovery_report.producer_batches_replayed == 0
    # Kafka's snapshot keeps the last batch only: its retry is still a duplicate...
    retry = log.append(batch(seq=6, records=2, tag=3), now_ms=BASE_TIME_MS)
    assert retry.duplicate and (retry.first_offset, retry.last_offset) == (6, 7)
    # ...an older one is not.
    with pytest.raises(OutOfOrderSequence):
        log.append(batch(seq=4, records=2, tag=2), now_ms=BASE_TIME_MS)
    assert log.append(batch(seq=8), now_ms=BASE_TIME_MS).first_offset == 8
    log.close()


def test_rolls_write_snapshots_at_the_new_base_offsets(tmp_path):
    dir = tmp_path / "t-0"
    log = open_log(dir, small_config(internal_segment_bytes=600))
    for i in range(20):
        log.append(batch(seq=2 * i, records=2, tag=i, value_bytes=40), now_ms=BASE_TIME_MS)
    bases = [segment.base_offset for segment in log.segments]
    assert len(bases) > 3
    assert log.producer_snapshot_offsets == bases[1:]
    for base in bases[1:]:
        _, rows = decode_snapshot_file(dir / f"{base:020d}.snapshot")
        assert rows == [(PID, 0, base - 1, base - 1, 1, BASE_TIME_MS, -1, -1)]
    log.close()


def test_a_log_without_producers_writes_empty_snapshots(tmp_path):
    """As Kafka does: every roll and the clean close write a snapshot, empty or not, so
    that an unclean open replays from the last one instead of from the log start."""
    dir = tmp_path / "t-0"
    config = small_config(internal_segment_bytes=300)
    log = open_log(dir, config)
    for i in range(20):
        log.append(make_batch(3, value_bytes=50, tag=i), now_ms=BASE_TIME_MS)
    bases = [segment.base_offset for segment in log.segments]
    assert len(bases) > 3 and log.producer_snapshot_offsets == bases[1:]
    end = log.log_end_offset
    log.close()
    snapshots = [name for name in dir_names(dir) if name.endswith(".snapshot")]
    assert snapshots == [f"{offset:020d}.snapshot" for offset in [*bases[1:], end]]
    for name in snapshots:
        assert decode_snapshot_file(dir / name) == (1, [])
    log = open_log(dir, config, had_clean_shutdown=True)
    assert log.producer_state == {} and log.producer_snapshot_offsets[-1] == end
    log.close()


def test_an_empty_log_closed_at_its_start_writes_no_snapshot(tmp_path):
    """Kafka's rule: a snapshot only above the last one (or the log start offset)."""
    dir = tmp_path / "t-0"
    open_log(dir).close()
    assert not any(name.endswith(".snapshot") for name in dir_names(dir))


def test_moving_the_log_start_keeps_the_producers_and_snapshots_only_above_the_start(tmp_path):
    """Kafka's onLogStartOffsetIncremented: the producers stay in memory; with no snapshot
    yet, the last snapshot offset becomes the new start, so a log whose records all lie
    below its start writes none on close (checked against Kafka in
    tests/compat/test_delete_records_wire.py)."""
    everything, some = tmp_path / "everything-0", tmp_path / "some-0"
    for dir, new_start in ((everything, 3), (some, 2)):
        log = open_log(dir)
        log.append(batch(seq=0, records=3), now_ms=BASE_TIME_MS)
        assert log.advance_log_start_offset(new_start)
        assert log.last_sequence(PID) == 2
        log.close()
    assert not any(name.endswith(".snapshot") for name in dir_names(everything))
    assert "00000000000000000003.snapshot" in dir_names(some)


def test_an_unclean_open_of_a_log_without_producers_replays_only_the_active_segment(tmp_path):
    dir = tmp_path / "t-0"
    config = small_config(internal_segment_bytes=300)
    log = open_log(dir, config)
    for i in range(20):
        log.append(make_batch(3, value_bytes=50, tag=i), now_ms=BASE_TIME_MS)
    active_base = log.active_segment.base_offset
    log.close_handlers()
    log = open_log(dir, config, had_clean_shutdown=False, recovery_point=active_base)
    assert log.recovery_report.producer_snapshot_offset == active_base
    assert log.producer_state == {}
    log.close()


def test_a_clean_open_without_snapshots_writes_empty_ones(tmp_path):
    """A log from before producer state (no `.snapshot` files) after a clean shutdown:
    no producers, and empty snapshots at the last two segment bases and the log end."""
    dir = tmp_path / "t-0"
    config = small_config(internal_segment_bytes=300)
    log = open_log(dir, config)
    for i in range(20):
        log.append(make_batch(3, value_bytes=50, tag=i), now_ms=BASE_TIME_MS)
    bases = [segment.base_offset for segment in log.segments]
    end = log.log_end_offset
    log.close()
    for path in dir.glob("*.snapshot"):
        path.unlink()
    log = open_log(dir, config, had_clean_shutdown=True)
    assert log.producer_state == {} and log.recovery_report.producer_batches_replayed == 0
    assert log.producer_snapshot_offsets == [bases[-2], bases[-1], end]
    log.close()


def test_an_unclean_stop_replays_the_log_after_the_last_snapshot(tmp_path):
    dir = tmp_path / "t-0"
    log = open_log(dir, small_config(internal_segment_bytes=600))
    infos = [log.append(batch(seq=2 * i, records=2, tag=i, value_bytes=40) + batch(pid=2, seq=i),
                        now_ms=BASE_TIME_MS) for i in range(20)]
    last_snapshot = log.producer_snapshot_offsets[-1]
    assert last_snapshot < log.log_end_offset
    expected = dict(log.producer_state)
    log.close_handlers()  # a crash: no snapshot at the log end offset
    assert not (dir / f"{infos[-1].last_offset + 1:020d}.snapshot").exists()

    log = open_log(dir, small_config(internal_segment_bytes=600), had_clean_shutdown=False)
    report = log.recovery_report
    assert report.producer_snapshot_offset == last_snapshot and report.producer_batches_replayed > 0
    for pid in (PID, 2):
        assert log.producer_state[pid].last_sequence == expected[pid].last_sequence
        assert log.producer_state[pid].last_data_offset == expected[pid].last_data_offset
    # The batches replayed from the log are recognised as duplicates again.
    retry = log.append(batch(seq=38, records=2, tag=19, value_bytes=40) + batch(pid=2, seq=19),
                       now_ms=BASE_TIME_MS)
    assert retry.duplicate and retry.first_offset == infos[-1].first_offset
    log.close()


def test_an_unclean_stop_without_snapshots_replays_from_the_log_start(tmp_path):
    dir = tmp_path / "t-0"
    log = open_log(dir)
    for i in range(6):
        log.append(batch(seq=i, tag=i), now_ms=BASE_TIME_MS)
    log.close_handlers()
    assert not any(name.endswith(".snapshot") for name in dir_names(dir))
    log = open_log(dir, had_clean_shutdown=False)
    assert log.recovery_report.producer_snapshot_offset is None
    assert log.recovery_report.producer_batches_replayed == 6
    assert [b.last_sequence for b in log.producer_state[PID].batches] == [1, 2, 3, 4, 5]
    assert "00000000000000000006.snapshot" in dir_names(dir)  # taken at the end of the replay
    log.close()


def test_a_corrupt_snapshot_is_deleted_and_an_older_one_used(tmp_path, caplog):
    dir = tmp_path / "t-0"
    config = small_config(internal_segment_bytes=600)
    log = open_log(dir, config)
    for i in range(12):
        log.append(batch(seq=i, value_bytes=80, tag=i), now_ms=BASE_TIME_MS)
    expected = log.producer_state[PID]
    log.close()
    latest = dir / f"{log.log_end_offset:020d}.snapshot"
    data = bytearray(latest.read_bytes())
    data[-1] ^= 0xFF
    latest.write_bytes(bytes(data))
    with caplog.at_level(logging.WARNING, logger="storage.producer_state"):
        log = open_log(dir, config, had_clean_shutdown=True)
    assert any("CRC-32C" in record.getMessage() for record in caplog.records)
    assert log.recovery_report.producer_snapshot_offset < log.log_end_offset
    # Rebuilt from the older snapshot (its one batch) and the log after it.
    rebuilt = log.producer_state[PID]
    assert rebuilt.batches == expected.batches[-len(rebuilt.batches):] and len(rebuilt.batches) > 1
    assert rebuilt._replace(batches=()) == expected._replace(batches=())
    log.close()
    # The only snapshot corrupt: rebuilt from the log start.
    for path in dir.glob("*.snapshot"):
        path.unlink()
    latest.write_bytes(b"\x00\x01" + bytes(20))
    log = open_log(dir, config, had_clean_shutdown=True)
    assert log.recovery_report.producer_snapshot_offset is None
    assert log.producer_state[PID] == expected
    log.close()


def test_snapshots_above_the_recovered_end_and_strays_are_deleted_on_open(tmp_path):
    dir = tmp_path / "t-0"
    config = small_config(internal_segment_bytes=600)
    log = open_log(dir, config)
    for i in range(12):
        log.append(batch(seq=i, value_bytes=80, tag=i), now_ms=BASE_TIME_MS)
    bases = [segment.base_offset for segment in log.segments]
    log.close()
    end = log.log_end_offset
    # A stray snapshot between two segment bases (say, left by a truncation) goes.
    stray = dir / f"{bases[1] + 1:020d}.snapshot"
    stray.write_bytes((dir / f"{bases[1]:020d}.snapshot").read_bytes())
    # Data lost under the snapshot at the log end offset (the .log cut by hand): the
    # snapshot describes offsets the log no longer has, and goes too.
    active_log = dir / f"{bases[-1]:020d}.log"
    with open(active_log, "r+b") as f:
        f.truncate(active_log.stat().st_size - 10)
    log = open_log(dir, config, had_clean_shutdown=False)
    assert log.log_end_offset == end - 1
    assert not stray.exists() and not (dir / f"{end:020d}.snapshot").exists()
    assert log.recovery_report.producer_snapshot_offset == bases[-1]
    assert log.last_sequence(PID) == end - 2
    log.append(batch(seq=end - 1, value_bytes=80), now_ms=BASE_TIME_MS)
    log.close()


def test_truncation_rewinds_the_state(tmp_path):
    dir = tmp_path / "t-0"
    config = small_config(internal_segment_bytes=600)
    log = open_log(dir, config)
    infos = [log.append(batch(seq=2 * i, records=2, tag=i, value_bytes=40), now_ms=BASE_TIME_MS)
             for i in range(20)]
    snapshots = log.producer_snapshot_offsets
    cut = infos[11]  # truncate to the start of the 12th batch
    assert log.truncate_to(cut.first_offset)
    assert log.log_end_offset == cut.first_offset
    assert log.last_sequence(PID) == 21
    # The latest snapshot at or below the cut (one batch) plus the batches replayed after it.
    kept = [b.last_offset for b in log.producer_state[PID].batches]
    assert kept == [i.last_offset for i in infos[11 - len(kept):11]]
    assert all(offset <= cut.first_offset for offset in log.producer_snapshot_offsets)
    assert len(log.producer_snapshot_offsets) < len(snapshots)
    # The producer resends from the cut: in sequence again, not a duplicate.
    again = log.append(batch(seq=22, records=2, tag=11, value_bytes=40), now_ms=BASE_TIME_MS)
    assert not again.duplicate and again.first_offset == cut.first_offset
    with pytest.raises(OutOfOrderSequence):
        log.append(batch(seq=40, records=2), now_ms=BASE_TIME_MS)
    log.close()
    log = open_log(dir, config, had_clean_shutdown=True)
    assert log.last_sequence(PID) == 23
    log.truncate_fully_and_start_at(500)
    assert log.producer_state == {} and log.producer_snapshot_offsets == []
    assert not any(name.endswith(".snapshot") for name in dir_names(dir))
    log.close()


def test_truncation_below_the_first_snapshot_replays_from_the_log_start(tmp_path):
    log = open_log(tmp_path / "t-0", small_config(internal_segment_bytes=600))
    for i in range(20):
        log.append(batch(seq=i, value_bytes=80, tag=i), now_ms=BASE_TIME_MS)
    assert log.producer_snapshot_offsets[0] > 2
    log.truncate_to(2)
    assert log.last_sequence(PID) == 1 and len(log.producer_state[PID].batches) == 2
    log.close()


def test_deleting_segments_deletes_the_snapshots_below_them(tmp_path):
    dir = tmp_path / "t-0"
    log = open_log(dir, small_config(internal_segment_bytes=600))
    for i in range(20):
        log.append(batch(seq=i, value_bytes=80, tag=i), now_ms=BASE_TIME_MS)
    segments = log.segments
    assert log.delete_segments_below(segments[3].base_offset) == 3
    assert log.producer_snapshot_offsets[0] == segments[3].base_offset
    assert all(int(p.name[:20]) >= segments[3].base_offset for p in dir.glob("*.snapshot"))
    assert log.last_sequence(PID) == 19  # the producer stays until it expires
    log.close()


# -- expiration -------------------------------------------------------------------------------


def test_idle_producers_expire(tmp_path):
    dir = tmp_path / "t-0"
    clock = Clock()
    log = open_log(dir, now_ms=clock.now_ms, producer_id_expiration_ms=DAY_MS)
    log.append(batch(pid=1, seq=0, ts=clock.now_ms), now_ms=clock.now_ms)
    log.append(batch(pid=2, seq=0, ts=clock.advance(DAY_MS // 2)), now_ms=clock.now_ms)
    log.append(batch(pid=3, seq=0, ts=clock.now_ms, transactional=True), now_ms=clock.now_ms)
    assert log.remove_expired_producers(clock.advance(DAY_MS // 2 - 1)) == 0
    assert log.remove_expired_producers(clock.advance(1)) == 1
    assert sorted(log.producer_state) == [2, 3]
    log.close()
    # Expired entries are also dropped when a snapshot is loaded.
    log = open_log(dir, now_ms=clock.advance(DAY_MS), had_clean_shutdown=True, producer_id_expiration_ms=DAY_MS)
    assert sorted(log.producer_state) == [3]  # an open transaction never expires
    # An expired producer is unknown: it may continue at any sequence (KIP-360).
    log.append(batch(pid=2, seq=57, ts=clock.now_ms), now_ms=clock.now_ms)
    log.close()


def test_the_log_manager_passes_expiration_and_restores_state(tmp_path):
    clock = Clock()
    manager = LogManager.open(tmp_path, small_config(), now_ms=clock.now_ms, producer_id_expiration_ms=1000)
    log = manager.get_or_create_log("orders", 0, now_ms=clock.now_ms)
    log.append(batch(seq=0, records=3, ts=clock.now_ms), now_ms=clock.now_ms)
    manager.close()
    manager = LogManager.open(tmp_path, small_config(), now_ms=clock.advance(10), producer_id_expiration_ms=1000)
    log = manager.get_log("orders", 0)
    assert log.last_sequence(PID) == 2
    assert log.append(batch(seq=0, records=3, ts=BASE_TIME_MS), now_ms=clock.now_ms).duplicate
    assert manager.remove_expired_producers(clock.advance(1000)) == 1
    manager.close()


# -- the snapshot codec ---------------------------------------------------------------------


def test_snapshot_codec_round_trip_and_checks():
    rows = [SnapshotEntry(1, 2, 3, 4, 5, 6, 7, 8), SnapshotEntry(-1, -1, -1, -1, 0, -1, -1, -1)]
    data = encode_snapshot(rows)
    assert decode_snapshot(data) == rows
    assert data[:2] == b"\x00\x01" and len(data) == 10 + 2 * 46
    assert struct.unpack(">I", data[2:6])[0] == crc32c_bitwise(data[6:])
    assert decode_snapshot(encode_snapshot([])) == []
    for bad in (data[:9], b"\x00\x02" + data[2:], data[:-1], data + b"\x00", data[:20] + b"\xff" + data[21:]):
        with pytest.raises(CorruptSnapshot):
            decode_snapshot(bad)


# -- a model check: whatever the stop, the reloaded state matches --------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_reloaded_state_matches_the_state_before_the_stop(tmp_path, seed):
    rng = random.Random(seed)
    dir = tmp_path / "t-0"
    config = small_config(internal_segment_bytes=rng.choice([500, 900, 4096]))
    log = open_log(dir, config)
    next_seq = {pid: 0 for pid in range(5)}
    epochs = {pid: 0 for pid in range(5)}
    for step in range(120):
        pid = rng.randrange(5)
        if rng.random() < 0.05:
            epochs[pid] += 1
            next_seq[pid] = 0
        count = rng.randint(1, 3)
        log.append(batch(pid=pid, epoch=epochs[pid], seq=next_seq[pid], records=count, tag=step, value_bytes=30),
                   now_ms=BASE_TIME_MS)
        next_seq[pid] += count
        if rng.random() < 0.1:
            expected = {pid: (e.producer_epoch, e.last_sequence, e.last_data_offset)
                        for pid, e in log.producer_state.items()}
            clean = rng.random() < 0.5
            if clean:
                log.close()
            else:
                log.close_handlers()
            log = open_log(dir, config, had_clean_shutdown=clean)
            assert {pid: (e.producer_epoch, e.last_sequence, e.last_data_offset)
                    for pid, e in log.producer_state.items()} == expected
    log.close()
