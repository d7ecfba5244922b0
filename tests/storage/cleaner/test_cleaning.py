"""A whole pass: what compaction leaves (against the model), a partial offset map,
repeated passes and the delete horizon, producers' last batches, the checkpoint, a
copy on another thread, a pass abandoned because the log changed, a job aborted."""

from __future__ import annotations

import threading

import pytest

from protocol.records import iter_records
from storage import files
from storage.cleaner import (
    CleanerCheckpoint,
    CleaningAborted,
    TransactionFilter,
    clean_log,
    prepare_cleaning,
    swap_cleaned,
)
from storage.cleaner.offset_map import BYTES_PER_ENTRY
from storage.log import Log
from tests.storage.builders import BASE_TIME_MS
from tests.storage.cleaner.support import CompactionModel, compact_config, keyed_batch, log_batches, log_records


def fill(log, model, rows_per_batch, now_ms=BASE_TIME_MS):
    for rows in rows_per_batch:
        info = log.append(keyed_batch(rows, timestamp_ms=now_ms), now_ms=now_ms)
        model.append(info.first_offset, rows)


def run_pass(log, model, checkpoint, now_ms, **kwargs):
    """Clean, and apply the same pass to the model; the new checkpoint."""
    segment_bases = [s.base_offset for s in log.segments]
    result = clean_log(log, checkpoint_offset=checkpoint, now_ms=now_ms, force=True, **kwargs)
    assert result is not None
    below = min(b for b in segment_bases if b >= result.end_offset)
    model.clean(result.end_offset, below, now_ms, log.config.delete_retention_ms)
    return result.end_offset


def rows(i, keys=5):
    return [(b"k%d" % (i % keys), b"v%d" % i), (b"k%d" % ((i * 3 + 1) % keys), None if i % 4 == 0 else b"w%d" % i)]


def test_each_key_keeps_its_last_record_at_its_offset(tmp_path):
    log = Log.open(tmp_path / "t-0", compact_config(), now_ms=BASE_TIME_MS)
    model = CompactionModel()
    fill(log, model, [rows(i) for i in range(80)])
    end = run_pass(log, model, None, BASE_TIME_MS + 10)
    assert end == log.active_segment.base_offset
    assert log_records(log) == model.records
    # Below the end, one record per key: its last, tombstones included (inside the horizon).
    cleaned = {offset: kv for offset, kv in log_records(log).items() if offset < end}
    assert len({key for key, _ in cleaned.values()}) == len(cleaned)
    assert (log.log_start_offset, log.log_end_offset) == (0, 160)
    # Reads see the holes: every fetch position still works.
    assert [r.offset for r in iter_records(log.read(1, 100_000).read_bytes())][0] >= 1


def test_tombstones_stay_until_the_delete_horizon_then_go(tmp_path):
    config = compact_config(delete_retention_ms=1000)
    log = Log.open(tmp_path / "t-0", config, now_ms=BASE_TIME_MS)
    model = CompactionModel()
    fill(log, model, [[(b"a", b"1"), (b"b", b"1")], [(b"a", None)]] + [[(b"c%d" % i, b"x" * 100)] for i in range(12)])
    checkpoint = run_pass(log, model, None, BASE_TIME_MS)
    assert (b"a", None) in log_records(log).values()
    horizon_batches = [h for h, records in log_batches(log) if h.has_delete_horizon]
    assert [h.base_timestamp for h in horizon_batches] == [BASE_TIME_MS + 1000]
    fill(log, model, [[(b"d%d" % i, b"y" * 100)] for i in range(12)], now_ms=BASE_TIME_MS + 10)
    checkpoint = run_pass(log, model, checkpoint, BASE_TIME_MS + 999)
    assert (b"a", None) in log_records(log).values()
    fill(log, model, [[(b"e%d" % i, b"z" * 100)] for i in range(12)], now_ms=BASE_TIME_MS + 20)
    run_pass(log, model, checkpoint, BASE_TIME_MS + 1000)
    assert (b"a", None) not in log_records(log).values()
    assert log_records(log) == model.records


def test_a_full_offset_map_ends_the_pass_early_and_the_next_pass_goes_on(tmp_path):
    log = Log.open(tmp_path / "t-0", compact_config(), now_ms=BASE_TIME_MS)
    model = CompactionModel()
    fill(log, model, [[(b"k%d" % i, b"v")] for i in range(40)] + [[(b"k%d" % i, b"w")] for i in range(40)])
    end = run_pass(log, model, None, BASE_TIME_MS, map_memory_bytes=12 * BYTES_PER_ENTRY)
    assert end == 10  # 12 slots at load factor 0.9: ten keys fit, offsets 0..9
    assert log_records(log) == model.records
    while end < log.active_segment.base_offset:
        end = run_pass(log, model, end, BASE_TIME_MS, map_memory_bytes=12 * BYTES_PER_ENTRY)
        assert log_records(log) == model.records
    # Reading the log in order rebuilds the latest value of every key; below the end of
    # the last pass no key appears twice.
    records = log_records(log)
    assert {key: value for _, (key, value) in sorted(records.items())} == {b"k%d" % i: b"w" for i in range(40)}
    below_end = [key for offset, (key, _) in records.items() if offset < end]
    assert len(below_end) == len(set(below_end)) and end == log.active_segment.base_offset


def test_segments_are_regrouped_after_compaction(tmp_path):
    log = Log.open(tmp_path / "t-0", compact_config(), now_ms=BASE_TIME_MS)
    model = CompactionModel()
    fill(log, model, [[(b"same", b"v" * 50)] for _ in range(60)])
    before = log.num_segments
    checkpoint = run_pass(log, model, None, BASE_TIME_MS)
    assert log.num_segments == before  # each segment alone was a group: now nearly empty
    assert [s.base_offset for s in log.segments] == [0, 8, 16, 24, 32, 40, 48, 56]
    fill(log, model, [[(b"same", b"w" * 50)] for _ in range(20)])
    log.roll(now_ms=BASE_TIME_MS)
    run_pass(log, model, checkpoint, BASE_TIME_MS)
    # The seven small cleaned segments fit segment.bytes together: one group, one segment.
    # The full ones (976 of 1024 bytes each) stay alone.
    assert [s.base_offset for s in log.segments] == [0, 56, 64, 72, 80]
    assert log_records(log) == model.records


def test_the_last_batch_of_an_active_producer_survives_empty_so_its_next_sequence_is_accepted(tmp_path):
    log = Log.open(tmp_path / "t-0", compact_config(), now_ms=BASE_TIME_MS)
    for sequence in range(3):
        log.append(keyed_batch([(b"a", b"%d" % sequence)], producer_id=9, producer_epoch=0, base_sequence=sequence),
                   now_ms=BASE_TIME_MS)
    log.roll(now_ms=BASE_TIME_MS)
    log.append(keyed_batch([(b"a", b"later")]), now_ms=BASE_TIME_MS)
    log.roll(now_ms=BASE_TIME_MS)
    clean_log(log, checkpoint_offset=None, now_ms=BASE_TIME_MS, force=True)
    batches = [(h.base_offset, h.producer_id, h.base_sequence, h.records_count) for h, _ in log_batches(log)]
    assert batches == [(2, 9, 2, 0), (3, -1, -1, 1)]
    log.close_handlers()
    for snapshot in (tmp_path / "t-0").glob("*.snapshot"):
        snapshot.unlink()
    log = Log.open(tmp_path / "t-0", compact_config(), now_ms=BASE_TIME_MS)  # rebuilt from the log itself
    assert log.last_sequence(9) == 2
    info = log.append(keyed_batch([(b"b", b"x")], producer_id=9, producer_epoch=0, base_sequence=3),
                      now_ms=BASE_TIME_MS)
    assert info.first_offset == 4


def test_the_checkpoint_file_holds_the_end_of_the_pass(tmp_path):
    log = Log.open(tmp_path / "t-0", compact_config(), now_ms=BASE_TIME_MS)
    fill(log, CompactionModel(), [rows(i) for i in range(40)])
    checkpoint = CleanerCheckpoint(tmp_path)
    result = clean_log(log, checkpoint_offset=checkpoint.get("t", 0), now_ms=BASE_TIME_MS, force=True)
    checkpoint.update("t", 0, result.end_offset)
    text = (tmp_path / files.CLEANER_OFFSET_CHECKPOINT_FILE_NAME).read_text()
    assert text == f"0\n1\nt 0 {result.end_offset}\n"
    # Nothing new is dirty: the next pass finds nothing to clean.
    assert clean_log(log, checkpoint_offset=checkpoint.get("t", 0), now_ms=BASE_TIME_MS) is None


def test_the_copy_runs_on_another_thread_and_only_the_swap_touches_the_log(tmp_path):
    log = Log.open(tmp_path / "t-0", compact_config(), now_ms=BASE_TIME_MS)
    model = CompactionModel()
    fill(log, model, [rows(i) for i in range(60)])
    job = prepare_cleaning(log, checkpoint_offset=None, now_ms=BASE_TIME_MS)
    before = log_records(log)
    outcome = {}
    worker = threading.Thread(target=lambda: outcome.update(result=job.run(BASE_TIME_MS)))
    worker.start()
    # Meanwhile the log takes appends to its active segment.
    fill(log, model, [rows(i) for i in range(60, 63)])
    worker.join()
    result = outcome["result"]
    assert log_records(log) == {**before, **{o: v for o, v in model.records.items() if o not in before}}
    assert all(g.new.log_path.name.endswith(".log.cleaned") for g in result.groups)
    below = min(s.base_offset for s in log.segments if s.base_offset >= result.end_offset)
    assert swap_cleaned(log, result, now_ms=BASE_TIME_MS) == result.end_offset
    model.clean(result.end_offset, below, BASE_TIME_MS, log.config.delete_retention_ms)
    assert log_records(log) == model.records
    assert not list((tmp_path / "t-0").glob("*.cleaned")) and not list((tmp_path / "t-0").glob("*.swap"))


def test_a_pass_is_abandoned_when_its_segments_went_meanwhile(tmp_path):
    log = Log.open(tmp_path / "t-0", compact_config(), now_ms=BASE_TIME_MS)
    fill(log, CompactionModel(), [rows(i) for i in range(60)])
    job = prepare_cleaning(log, checkpoint_offset=None, now_ms=BASE_TIME_MS)
    result = job.run(BASE_TIME_MS)
    log.delete_segments_below(log.segments[1].base_offset, now_ms=BASE_TIME_MS)  # retention ran
    before = log_records(log)
    assert swap_cleaned(log, result, now_ms=BASE_TIME_MS) is None
    assert log_records(log) == before
    assert not list((tmp_path / "t-0").glob("*.cleaned"))


def test_the_producer_snapshots_of_segments_merged_away_are_deleted(tmp_path):
    log = Log.open(tmp_path / "t-0", compact_config(), now_ms=BASE_TIME_MS)
    for i in range(3):
        log.append(keyed_batch([(b"k", b"%d" % i)]), now_ms=BASE_TIME_MS)
        log.roll(now_ms=BASE_TIME_MS)
    assert log.producer_snapshot_offsets == [1, 2, 3]
    result = clean_log(log, checkpoint_offset=None, now_ms=BASE_TIME_MS, force=True)
    assert [len(g.old) for g in result.groups] == [3]
    # Segments 1 and 2 are gone (merged into segment 0): so are their snapshots, as in Kafka.
    assert [s.base_offset for s in log.segments] == [0, 3]
    assert log.producer_snapshot_offsets == [3]
    assert sorted(p.name for p in (tmp_path / "t-0").glob("*.snapshot")) == ["00000000000000000003.snapshot"]


def test_an_aborted_job_stops_before_its_next_batch_and_leaves_no_cleaned_files(tmp_path):
    log = Log.open(tmp_path / "t-0", compact_config(), now_ms=BASE_TIME_MS)
    model = CompactionModel()
    fill(log, model, [rows(i) for i in range(80)])
    before = log_records(log)
    segment_names = sorted(p.name for p in log.dir.iterdir())

    job = prepare_cleaning(log, checkpoint_offset=None, now_ms=BASE_TIME_MS, force=True)
    job.abort()
    with pytest.raises(CleaningAborted):
        job.run(BASE_TIME_MS)

    # Abort from another thread in the middle of the copy: the transaction hook sees
    # every batch the copy reads, and holds the copy once a first `.cleaned` file exists.
    copying = threading.Event()
    resume = threading.Event()

    class HoldOnceCopying(TransactionFilter):
        def discard_batch(self, header):
            if not copying.is_set() and any(p.name.endswith(files.CLEANED_FILE_SUFFIX) for p in log.dir.iterdir()):
                copying.set()
                resume.wait(10)
            return False

    job = prepare_cleaning(log, checkpoint_offset=None, now_ms=BASE_TIME_MS, force=True,
                           transactions=HoldOnceCopying())
    outcome = []

    def run():
        try:
            outcome.append(job.run(BASE_TIME_MS))
        except CleaningAborted as exc:
            outcome.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    assert copying.wait(10), "the copy never wrote a .cleaned file"
    job.abort()
    resume.set()
    thread.join(10)
    assert isinstance(outcome[0], CleaningAborted)
    assert sorted(p.name for p in log.dir.iterdir()) == segment_names
    assert log_records(log) == before
