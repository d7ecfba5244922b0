"""The retention rules of storage/retention.py, on hand-made segment lists (Kafka's
UnifiedLog.deleteOldSegments / deletableSegments)."""

from __future__ import annotations

from storage.retention import (
    LOG_START_OFFSET_BREACH,
    RETENTION_SIZE_BREACH,
    RETENTION_TIME_BREACH,
    Deletion,
    SegmentInfo,
    plan_retention,
)

NOW_MS = 1_000_000


def plan(segments, *, log_start_offset=None, log_end_offset, high_watermark=None, retention_ms=-1,
         retention_bytes=-1, delete_policy=True):
    return plan_retention(
        [SegmentInfo(*s) for s in segments],
        log_start_offset=segments[0][0] if log_start_offset is None else log_start_offset,
        log_end_offset=log_end_offset,
        high_watermark=log_end_offset if high_watermark is None else high_watermark,
        now_ms=NOW_MS, retention_ms=retention_ms, retention_bytes=retention_bytes,
        delete_policy=delete_policy,
    )


# (base offset, size, largest timestamp): three segments of 100 bytes, ages 3000, 2000, 1000 ms.
THREE = [(0, 100, NOW_MS - 3000), (10, 100, NOW_MS - 2000), (20, 100, NOW_MS - 1000)]


def test_unlimited_retention_deletes_nothing():
    assert plan(THREE, log_end_offset=30) == []


def test_time_deletes_the_segments_strictly_older_than_retention_ms():
    assert plan(THREE, log_end_offset=30, retention_ms=2000) == [
        Deletion(RETENTION_TIME_BREACH, (0,), 100, False, 10)]
    assert plan(THREE, log_end_offset=30, retention_ms=1999) == [
        Deletion(RETENTION_TIME_BREACH, (0, 10), 200, False, 20)]


def test_time_stops_at_the_first_young_segment():
    segments = [(0, 100, NOW_MS), (10, 100, NOW_MS - 5000), (20, 100, NOW_MS)]
    assert plan(segments, log_end_offset=30, retention_ms=10) == []


def test_all_segments_due_rolls_first_and_the_log_starts_at_its_end():
    assert plan(THREE, log_end_offset=30, retention_ms=0) == [
        Deletion(RETENTION_TIME_BREACH, (0, 10, 20), 300, True, 30)]


def test_an_empty_last_segment_is_never_deleted():
    segments = [(0, 100, NOW_MS - 3000), (10, 0, NOW_MS - 3000)]
    assert plan(segments, log_end_offset=10, retention_ms=0) == [
        Deletion(RETENTION_TIME_BREACH, (0,), 100, False, 10)]


def test_nothing_at_or_past_the_high_watermark():
    # The second segment's upper bound is 20: a high watermark of 19 keeps it.
    assert plan(THREE, log_end_offset=30, high_watermark=19, retention_ms=0) == [
        Deletion(RETENTION_TIME_BREACH, (0,), 100, False, 10)]
    assert plan(THREE, log_end_offset=30, high_watermark=9, retention_ms=0) == []
    # The active segment's upper bound is the log end offset.
    assert plan(THREE, log_end_offset=30, high_watermark=29, retention_ms=0)[0].base_offsets == (0, 10)


def test_size_deletes_the_oldest_segments_without_going_under_the_limit():
    # Kafka keeps a segment whose removal would take the log below retention.bytes.
    assert plan(THREE, log_end_offset=30, retention_bytes=250) == []
    assert plan(THREE, log_end_offset=30, retention_bytes=200) == [
        Deletion(RETENTION_SIZE_BREACH, (0,), 100, False, 10)]
    assert plan(THREE, log_end_offset=30, retention_bytes=199)[0].base_offsets == (0,)
    assert plan(THREE, log_end_offset=30, retention_bytes=100)[0].base_offsets == (0, 10)
    assert plan(THREE, log_end_offset=30, retention_bytes=301) == []
    assert plan(THREE, log_end_offset=30, retention_bytes=0) == [
        Deletion(RETENTION_SIZE_BREACH, (0, 10, 20), 300, True, 30)]


def test_log_start_offset_rule_applies_even_without_the_delete_policy():
    for delete_policy in (True, False):
        assert plan(THREE, log_start_offset=20, log_end_offset=30, delete_policy=delete_policy) == [
            Deletion(LOG_START_OFFSET_BREACH, (0, 10), 200, False, 20)]
    # Inside the second segment: only the first one lies wholly below.
    assert plan(THREE, log_start_offset=15, log_end_offset=30)[0].base_offsets == (0,)
    # The log start offset at the log end offset never deletes the active segment.
    assert plan(THREE, log_start_offset=30, log_end_offset=30)[0].base_offsets == (0, 10)


def test_compact_only_logs_keep_old_and_large_segments():
    assert plan(THREE, log_end_offset=30, retention_ms=0, retention_bytes=0, delete_policy=False) == []


def test_rules_run_in_kafkas_order_each_on_what_the_previous_left():
    deletions = plan(THREE, log_start_offset=10, log_end_offset=30, retention_bytes=100, retention_ms=0)
    assert deletions == [
        Deletion(LOG_START_OFFSET_BREACH, (0,), 100, False, 10),
        Deletion(RETENTION_SIZE_BREACH, (10,), 100, False, 20),
        Deletion(RETENTION_TIME_BREACH, (20,), 100, True, 30),
    ]


def test_log_start_offset_inside_a_kept_segment_does_not_move_back():
    deletions = plan(THREE, log_start_offset=15, log_end_offset=30, retention_ms=2500)
    assert deletions == [Deletion(LOG_START_OFFSET_BREACH, (0,), 100, False, 15)]
