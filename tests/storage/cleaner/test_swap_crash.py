"""A crash at every step of a pass: while `.cleaned` files are written, after each rename
of the swap, halfway through a rename. Reopening always gives either the log before
the pass or the log after it, group by group, and leaves no file in transit."""

from __future__ import annotations

import pytest

from storage import files
from storage.cleaner import prepare_cleaning, swap_cleaned
from storage.cleaner.swap import AFTER_OLD_SEGMENT_DELETED, AFTER_RENAME_TO_SWAP, AFTER_SWAP_DONE
from storage.log import Log
from tests.storage.builders import BASE_TIME_MS
from tests.storage.cleaner.support import CompactionModel, compact_config, keyed_batch, log_records


class Crash(Exception):
    pass


def build_log(tmp_path, config):
    """A log cleaned once (its old segments now small), then written on: the next
    pass regroups the small segments, so its first group replaces several."""
    log = Log.open(tmp_path / "t-0", config, now_ms=BASE_TIME_MS)
    model = CompactionModel()

    def write(start, count):
        for i in range(start, start + count):
            rows = [(b"k%d" % (i % 6), b"v%d" % i), (b"k%d" % ((i + 2) % 6), None if i % 7 == 0 else b"w")]
            info = log.append(keyed_batch(rows), now_ms=BASE_TIME_MS)
            model.append(info.first_offset, rows)

    write(0, 40)
    result = prepare_cleaning(log, checkpoint_offset=None, now_ms=BASE_TIME_MS).run(BASE_TIME_MS)
    expected_after(log, model, result)
    swap_cleaned(log, result, now_ms=BASE_TIME_MS)
    write(40, 40)
    return log, model


def expected_after(log, model, result):
    below = min(s.base_offset for s in log.segments if s.base_offset >= result.end_offset)
    model.clean(result.end_offset, below, BASE_TIME_MS, log.config.delete_retention_ms)
    return dict(model.records)


def reopen(tmp_path, log, config):
    log.close_handlers()  # a crash: nothing more is written
    return Log.open(tmp_path / "t-0", config, now_ms=BASE_TIME_MS + 1, recovery_point=0)


def files_in_transit(tmp_path):
    suffixes = (files.CLEANED_FILE_SUFFIX, files.SWAP_FILE_SUFFIX, files.DELETED_FILE_SUFFIX)
    return [p.name for p in (tmp_path / "t-0").iterdir() if p.name.endswith(suffixes)]


def check_between(log, before, after):
    """Every record after the crash was there before the pass; every record the pass
    keeps is still there; reading in order gives the same latest value of every key."""
    records = log_records(log)
    assert after.items() <= records.items() <= before.items()
    latest = lambda rs: {k: v for _, (k, v) in sorted(rs.items())}  # noqa: E731
    assert latest(records) == latest(before)


@pytest.mark.parametrize("delay_ms", [0, 60_000])
def test_a_crash_while_copying_leaves_the_log_as_it_was(tmp_path, delay_ms):
    config = compact_config(file_delete_delay_ms=delay_ms)
    log, model = build_log(tmp_path, config)
    before = log_records(log)
    job = prepare_cleaning(log, checkpoint_offset=None, now_ms=BASE_TIME_MS)
    result = job.run(BASE_TIME_MS)  # .cleaned files written, never swapped
    assert any(name.endswith(".log.cleaned") for name in files_in_transit(tmp_path))
    log = reopen(tmp_path, log, config)
    assert log_records(log) == before and files_in_transit(tmp_path) == []
    assert log.log_end_offset == 160 and result.end_offset > 0


STEPS = [
    (AFTER_RENAME_TO_SWAP, 0), (AFTER_OLD_SEGMENT_DELETED, 0), (AFTER_SWAP_DONE, 0),
    (AFTER_RENAME_TO_SWAP, -1), (AFTER_OLD_SEGMENT_DELETED, -1), (AFTER_SWAP_DONE, -1),
]


@pytest.mark.parametrize("delay_ms", [0, 60_000])
@pytest.mark.parametrize("step,group_index", STEPS)
def test_a_crash_at_a_step_of_the_swap_recovers_to_before_or_after_each_group(tmp_path, delay_ms, step, group_index):
    config = compact_config(file_delete_delay_ms=delay_ms)
    log, model = build_log(tmp_path, config)
    before = log_records(log)
    job = prepare_cleaning(log, checkpoint_offset=None, now_ms=BASE_TIME_MS)
    result = job.run(BASE_TIME_MS)
    assert len(result.groups[0].old) > 1 and len(result.groups) > 1
    after = expected_after(log, model, result)
    # The step names the new segment, or for deletions each old one: stop at the first.
    target = result.groups[group_index].old[0] if step == AFTER_OLD_SEGMENT_DELETED else result.groups[group_index].new

    def on_step(name, segment):
        if name == step and segment is target:
            raise Crash(name)

    with pytest.raises(Crash):
        swap_cleaned(log, result, now_ms=BASE_TIME_MS, on_step=on_step)
    log = reopen(tmp_path, log, config)
    assert files_in_transit(tmp_path) == []
    check_between(log, before, after)
    group = result.groups[group_index]
    group_end = min(s.base_offset for s in log.segments if s.base_offset > group.new.base_offset)
    # The crashed group itself was swapped in: from .swap on, the new segment is the truth.
    in_group = lambda rs: {o: v for o, v in rs.items() if group.old[0].base_offset <= o < group_end}  # noqa: E731
    assert in_group(log_records(log)) == in_group(after)
    assert log.log_end_offset == 160
    # A pass after recovery completes the job.
    job = prepare_cleaning(log, checkpoint_offset=None, now_ms=BASE_TIME_MS)
    swap_cleaned(log, job.run(BASE_TIME_MS), now_ms=BASE_TIME_MS)
    assert log_records(log) == after


def test_a_crash_halfway_through_renaming_to_swap_undoes_the_group(tmp_path):
    # The indexes are renamed before the .log: the .log still ends in .cleaned.
    config = compact_config()
    log, model = build_log(tmp_path, config)
    before = log_records(log)
    result = prepare_cleaning(log, checkpoint_offset=None, now_ms=BASE_TIME_MS).run(BASE_TIME_MS)
    first = result.groups[0].new

    def crash(name, segment):
        raise Crash(name)

    with pytest.raises(Crash):
        swap_cleaned(log, result, now_ms=BASE_TIME_MS, on_step=crash)
    swapped_log = files.log_file_path(first.dir, first.base_offset, files.SWAP_FILE_SUFFIX)
    swapped_log.rename(files.log_file_path(first.dir, first.base_offset, files.CLEANED_FILE_SUFFIX))
    log = reopen(tmp_path, log, config)
    assert log_records(log) == before and files_in_transit(tmp_path) == []


def test_a_crash_halfway_through_the_final_rename_completes_the_group(tmp_path):
    # Step 3 renamed the new indexes to their final names, not yet the .log.
    config = compact_config()
    log, model = build_log(tmp_path, config)
    before = log_records(log)
    result = prepare_cleaning(log, checkpoint_offset=None, now_ms=BASE_TIME_MS).run(BASE_TIME_MS)
    after = expected_after(log, model, result)
    group = result.groups[0]

    def crash(name, segment):
        if name == AFTER_OLD_SEGMENT_DELETED and segment is group.old[-1]:
            raise Crash(name)

    with pytest.raises(Crash):
        swap_cleaned(log, result, now_ms=BASE_TIME_MS, on_step=crash)
    new = group.new
    for suffix in (files.INDEX_FILE_SUFFIX, files.TIME_INDEX_FILE_SUFFIX):
        path = files.segment_file_path(new.dir, new.base_offset, suffix, files.SWAP_FILE_SUFFIX)
        path.rename(files.segment_file_path(new.dir, new.base_offset, suffix))
    log = reopen(tmp_path, log, config)
    assert files_in_transit(tmp_path) == []
    check_between(log, before, after)
    end = log.segments[1].base_offset
    assert {o: v for o, v in log_records(log).items() if o < end} == {o: v for o, v in after.items() if o < end}
