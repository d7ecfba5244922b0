"""cleanable_range and filthiest: the first dirty and first uncleanable offsets, the
dirty ratio, min/max compaction lag, invalid checkpoints; group_segments_by_size."""

from __future__ import annotations

from storage.cleaner.cleanable import cleanable_range, filthiest
from storage.cleaner.grouping import group_segments_by_size
from storage.log import Log
from tests.storage.builders import BASE_TIME_MS
from tests.storage.cleaner.support import compact_config, keyed_batch


def log_with_segments(tmp_path, segment_timestamps, config=None, per_segment=3):
    """A log with one segment per timestamp (each `per_segment` one-record batches
    stamped with it), then an empty active segment."""
    log = Log.open(tmp_path / "t-0", config or compact_config(), now_ms=BASE_TIME_MS)
    for timestamp in segment_timestamps:
        for i in range(per_segment):
            log.append(keyed_batch([(b"k%d" % i, b"v")], timestamp_ms=timestamp), now_ms=BASE_TIME_MS)
        log.roll(now_ms=BASE_TIME_MS)
    return log


def range_of(log, checkpoint=None, now_ms=BASE_TIME_MS, **kwargs):
    return cleanable_range(log.segments, log.config, log_start_offset=log.log_start_offset,
                           log_end_offset=log.log_end_offset, checkpoint_offset=checkpoint,
                           now_ms=now_ms, **kwargs)


def test_without_checkpoint_everything_below_the_active_segment_is_dirty(tmp_path):
    log = log_with_segments(tmp_path, [BASE_TIME_MS] * 3)
    r = range_of(log)
    assert (r.first_dirty_offset, r.first_uncleanable_offset) == (0, 9)
    assert r.clean_bytes == 0 and r.cleanable_bytes == sum(s.size_bytes for s in log.segments[:3])
    assert r.dirty_ratio == 1.0 and not r.force_checkpoint


def test_the_checkpoint_splits_clean_and_dirty_bytes(tmp_path):
    log = log_with_segments(tmp_path, [BASE_TIME_MS] * 4)
    sizes = [s.size_bytes for s in log.segments]
    r = range_of(log, checkpoint=6)
    assert r.first_dirty_offset == 6
    assert r.clean_bytes == sizes[0] + sizes[1] and r.cleanable_bytes == sizes[2] + sizes[3]
    assert r.dirty_ratio == 0.5
    assert not r.is_cleanable(0.5) and r.is_cleanable(0.49)


def test_an_invalid_checkpoint_resets_to_the_log_start_and_asks_for_a_rewrite(tmp_path):
    log = log_with_segments(tmp_path, [BASE_TIME_MS] * 2)
    log.delete_segments_below(3, now_ms=BASE_TIME_MS)
    for checkpoint in (1, 99):  # below the log start offset, above the log end offset
        r = range_of(log, checkpoint=checkpoint)
        assert r.first_dirty_offset == 3 and r.force_checkpoint


def test_the_last_stable_offset_bounds_the_dirty_section_at_a_segment_boundary(tmp_path):
    log = log_with_segments(tmp_path, [BASE_TIME_MS] * 3)
    assert range_of(log, last_stable_offset=4).first_uncleanable_offset == 3


def test_min_compaction_lag_keeps_recent_segments_uncleanable(tmp_path):
    config = compact_config(min_compaction_lag_ms=1000)
    log = log_with_segments(tmp_path, [BASE_TIME_MS, BASE_TIME_MS + 500, BASE_TIME_MS + 100], config)
    # At now = BASE + 1200, the second segment (largest timestamp BASE + 500) is too recent,
    # and so is everything after it, whatever its timestamps.
    r = range_of(log, now_ms=BASE_TIME_MS + 1200)
    assert r.first_uncleanable_offset == 3
    assert range_of(log, now_ms=BASE_TIME_MS + 1500).first_uncleanable_offset == 9


def test_max_compaction_lag_makes_a_log_cleanable_below_the_ratio(tmp_path):
    config = compact_config(max_compaction_lag_ms=1000, min_cleanable_dirty_ratio=0.9)
    log = log_with_segments(tmp_path, [BASE_TIME_MS] * 4, config)
    fresh = range_of(log, checkpoint=6, now_ms=BASE_TIME_MS + 1000)
    assert not fresh.needs_compaction_now and not fresh.is_cleanable(0.9)
    late = range_of(log, checkpoint=6, now_ms=BASE_TIME_MS + 1500)
    assert late.needs_compaction_now and late.max_compaction_delay_ms == 500 and late.is_cleanable(0.9)


def test_a_log_with_only_its_active_segment_is_never_cleanable(tmp_path):
    log = Log.open(tmp_path / "t-0", compact_config(), now_ms=BASE_TIME_MS)
    log.append(keyed_batch([(b"a", b"1"), (b"a", b"2")]), now_ms=BASE_TIME_MS)
    r = range_of(log)
    assert r.cleanable_bytes == 0 and not r.is_cleanable(0.0)


def test_filthiest_takes_the_highest_ratio_among_cleanable_logs(tmp_path):
    logs = [log_with_segments(tmp_path / str(i), [BASE_TIME_MS] * 4) for i in range(3)]
    ranges = [range_of(logs[0], checkpoint=9), range_of(logs[1], checkpoint=3), range_of(logs[2], checkpoint=6)]
    chosen = filthiest([(log, r, 0.5) for log, r in zip(logs, ranges)])
    assert chosen[0] is logs[1] and chosen[1].dirty_ratio == 0.75
    assert filthiest([(logs[0], ranges[0], 0.5)]) is None


def test_groups_stay_within_segment_bytes(tmp_path):
    log = log_with_segments(tmp_path, [BASE_TIME_MS] * 5)
    segments = log.segments[:-1]
    size = segments[0].size_bytes
    groups = group_segments_by_size(segments, 2 * size, 10_000, 15)
    assert [[s.base_offset for s in g] for g in groups] == [[0, 3], [6, 9], [12]]
    assert [len(g) for g in group_segments_by_size(segments, 2 * size - 1, 10_000, 15)] == [1] * 5


def test_groups_stay_within_the_index_size(tmp_path):
    config = compact_config(index_interval_bytes=1)  # an index entry per batch
    log = log_with_segments(tmp_path, [BASE_TIME_MS] * 4, config)
    segments = log.segments[:-1]
    entry_bytes = segments[0].offset_index.size_bytes
    assert entry_bytes > 0
    groups = group_segments_by_size(segments, 1 << 30, 2 * entry_bytes, 12)
    assert [[s.base_offset for s in g] for g in groups] == [[0, 3], [6, 9]]


def test_groups_keep_offsets_within_an_int32_of_their_base(tmp_path):
    log = Log.open(tmp_path / "t-0", compact_config(), now_ms=BASE_TIME_MS)
    log.append(keyed_batch([(b"a", b"1")]), now_ms=BASE_TIME_MS)
    far = 2**31 + 10
    log.roll(now_ms=BASE_TIME_MS, expected_next_offset=far)
    log.append(keyed_batch([(b"a", b"2"), (b"b", b"3")], base_offset=far), now_ms=BASE_TIME_MS, assign_offsets=False)
    log.roll(now_ms=BASE_TIME_MS)
    segments = log.segments[:-1]
    assert [len(g) for g in group_segments_by_size(segments, 1 << 30, 1 << 20, far + 2)] == [1, 1]
