"""Which logs the cleaner may compact, how far, and which one first (Kafka's
LogCleanerManager.cleanableOffsets / grabFilthiestCompactedLog and LogToClean).

A compacted log splits in three at two offsets:

    [log start ........ first dirty) [first dirty ...... first uncleanable) [..... log end)
           clean: compacted before        dirty: cleanable now                 uncleanable

first dirty offset   where the last pass stopped: the log's entry in
                     `cleaner-offset-checkpoint`, or the log start offset when there is
                     none, when it lies below the log start offset (retention or
                     DeleteRecords moved past it), or when it lies above the log end
                     offset (the log was truncated); the last two reset it and ask for
                     the checkpoint to be rewritten (`force_checkpoint`).
first uncleanable    the lowest of: the active segment's base offset (the active
                     segment is never cleaned), the last stable offset / high watermark
                     when given, and the base offset of the first dirty inactive segment
                     whose largest timestamp is within `min.compaction.lag.ms` of now.
                     Rounded down to a segment boundary: the base offset of the segment
                     holding it.

dirty ratio = cleanable bytes / (clean bytes + cleanable bytes), counted in whole
segments: clean bytes are the segments below the first dirty offset, cleanable bytes
those from the one holding the first dirty offset up to the first uncleanable one.

A log is cleanable when its ratio exceeds `min.cleanable.dirty.ratio`, or when it has
cleanable bytes and must be compacted now: the first batch of one of its dirty inactive
segments is older than `max.compaction.lag.ms`. Of the cleanable logs the cleaner takes
the one with the highest ratio ("the filthiest").

Pure functions of a log's segments, offsets and config, the checkpointed offset and
now_ms; they read segment sizes and timestamps but change nothing. Call them where the
log is owned (the broker serializes access per partition).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from storage.config import LogConfig
from storage.segment import LogSegment


@dataclass(frozen=True)
class CleanableRange:
    """Where a log's dirty section lies, and how dirty it is."""

    first_dirty_offset: int
    first_uncleanable_offset: int
    clean_bytes: int
    cleanable_bytes: int
    needs_compaction_now: bool   # some dirty record is past max.compaction.lag.ms
    max_compaction_delay_ms: int  # how far past it the oldest one is (0: none)
    force_checkpoint: bool       # the checkpointed offset was invalid and was reset

    @property
    def total_bytes(self) -> int:
        return self.clean_bytes + self.cleanable_bytes

    @property
    def dirty_ratio(self) -> float:
        return self.cleanable_bytes / self.total_bytes if self.total_bytes else 0.0

    def is_cleanable(self, min_cleanable_dirty_ratio: float) -> bool:
        if self.total_bytes == 0:
            return False
        return (self.needs_compaction_now and self.cleanable_bytes > 0) or (
            self.dirty_ratio > min_cleanable_dirty_ratio
        )


def cleanable_range(
    segments: Sequence[LogSegment],
    config: LogConfig,
    *,
    log_start_offset: int,
    log_end_offset: int,
    checkpoint_offset: int | None,
    now_ms: int,
    last_stable_offset: int | None = None,
) -> CleanableRange:
    """The dirty section of a log whose segments (oldest first, the active one last)
    are `segments`; see the module docstring."""
    checkpointed = log_start_offset if checkpoint_offset is None else checkpoint_offset
    force_checkpoint = not log_start_offset <= checkpointed <= log_end_offset
    first_dirty = log_start_offset if force_checkpoint else checkpointed

    active = segments[-1]
    inactive_dirty = _inactive_segments_from(segments, first_dirty)
    candidates = [active.base_offset]
    if last_stable_offset is not None:
        candidates.append(last_stable_offset)
    min_lag_ms = max(config.min_compaction_lag_ms, 0)
    if min_lag_ms > 0:
        for segment in inactive_dirty:
            if segment.largest_timestamp_ms() > now_ms - min_lag_ms:
                candidates.append(segment.base_offset)
                break
    uncleanable = max(first_dirty, min(candidates))
    # Down to a segment boundary: the segment holding it is not cleaned.
    uncleanable_segments = _inactive_segments_from(segments, uncleanable)
    first_uncleanable = (uncleanable_segments[0] if uncleanable_segments else active).base_offset

    clean_bytes = sum(s.size_bytes for s in _segments_overlapping(segments, -1, first_dirty))
    cleanable_bytes = sum(
        s.size_bytes
        for s in _segments_overlapping(segments, min(first_dirty, first_uncleanable), first_uncleanable)
    )
    delay_ms = _max_compaction_delay_ms(inactive_dirty, config, now_ms)
    return CleanableRange(
        first_dirty_offset=first_dirty,
        first_uncleanable_offset=first_uncleanable,
        clean_bytes=clean_bytes,
        cleanable_bytes=cleanable_bytes,
        needs_compaction_now=delay_ms > 0,
        max_compaction_delay_ms=delay_ms,
        force_checkpoint=force_checkpoint,
    )


def filthiest(candidates: Iterable[tuple[object, CleanableRange, float]]):
    """Of (log, range, min.cleanable.dirty.ratio) triples, the (log, range) of the
    cleanable log with the highest dirty ratio; None when no log is cleanable."""
    cleanable = [(log, r) for log, r, min_ratio in candidates if r.is_cleanable(min_ratio)]
    if not cleanable:
        return None
    return max(cleanable, key=lambda item: item[1].dirty_ratio)


def _max_compaction_delay_ms(inactive_dirty: Sequence[LogSegment], config: LogConfig, now_ms: int) -> int:
    """How long ago the oldest dirty first batch passed max.compaction.lag.ms (0: none)."""
    timestamps = [t for t in (s.first_batch_timestamp_ms() for s in inactive_dirty) if t > 0]
    if not timestamps:
        return 0
    clean_until_ms = now_ms - max(config.max_compaction_lag_ms, 0)
    earliest = min(timestamps)
    return clean_until_ms - earliest if earliest < clean_until_ms else 0


def _inactive_segments_from(segments: Sequence[LogSegment], offset: int) -> list[LogSegment]:
    """The inactive segments holding `offset` or later ones (Kafka's nonActiveLogSegmentsFrom)."""
    return [s for s in _segments_overlapping(segments, offset, None) if s is not segments[-1]]


def _segments_overlapping(segments: Sequence[LogSegment], from_offset: int, to_offset: int | None) -> list[LogSegment]:
    """The segments holding offsets in [from_offset, to_offset): the one holding
    `from_offset` (or the first after it) up to the last whose base is below `to_offset`;
    none when the range is empty (Kafka's LocalLog.logSegments)."""
    if to_offset is not None and from_offset >= to_offset:
        return []
    result = []
    for index, segment in enumerate(segments):
        next_base = segments[index + 1].base_offset if index + 1 < len(segments) else None
        if next_base is not None and next_base <= from_offset:
            continue
        if to_offset is not None and segment.base_offset >= to_offset:
            break
        result.append(segment)
    return result
