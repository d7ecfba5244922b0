"""Retention: which whole segments a log deletes, and why (pure; no file I/O).

`plan_retention` takes a description of a log -- its segments oldest first (base offset,
size, largest timestamp), log start / end offsets, high watermark -- its config and the
time, and returns the deletions a pass makes, in order. `Log.delete_old_segments` applies
them. Kafka's rules (UnifiedLog.deleteOldSegments and deletableSegments):

A pass runs three rules one after the other, each seeing what the previous one left:

    log start offset   a segment whose next segment starts at or below the log start
                       offset holds nothing readable (always applied)
    retention size     while the log is over `retention.bytes`, the oldest segments whose
                       removal keeps it at or above the limit, i.e. as many as bring the
                       log down towards it without going under (policy `delete` only)
    retention time     a segment whose largest timestamp (the `.log` file's mtime when it
                       has none) is more than `retention.ms` before now (`delete` only)

Each rule walks the segments from the oldest and stops at the first one it keeps, so what
it deletes is always a prefix. A segment is a candidate only if the high watermark is at or
past its upper bound (the next segment's base offset, or the log end offset for the last
one): the log start offset never passes the high watermark. The last segment, when empty,
is never deleted. When a rule deletes every segment, the active one included, the log
first rolls a new empty segment at the log end offset (`Deletion.roll`), since a log always
has a segment. After a deletion the log start offset becomes the base offset of the first
segment left, if that is higher.

`retention.ms` < 0 or `retention.bytes` < 0 mean no limit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

__all__ = ["SegmentInfo", "Deletion", "plan_retention",
           "LOG_START_OFFSET_BREACH", "RETENTION_SIZE_BREACH", "RETENTION_TIME_BREACH"]

LOG_START_OFFSET_BREACH = "log start offset breach"
RETENTION_SIZE_BREACH = "retention size breach"
RETENTION_TIME_BREACH = "retention time breach"


@dataclass(frozen=True, slots=True)
class SegmentInfo:
    """What retention needs of one segment (its largest timestamp only where the time
    rule applies: the caller may leave it -1 otherwise)."""

    base_offset: int
    size_bytes: int
    largest_timestamp_ms: int


@dataclass(frozen=True, slots=True)
class Deletion:
    """One rule's deletion: the segments it removes (base offsets, oldest first), their
    bytes, whether the active segment must roll first (all segments go), and the log start
    offset after it."""

    reason: str
    base_offsets: tuple[int, ...]
    size_bytes: int
    roll: bool
    log_start_offset: int


def plan_retention(
    segments: Sequence[SegmentInfo],
    *,
    log_start_offset: int,
    log_end_offset: int,
    high_watermark: int,
    now_ms: int,
    retention_ms: int,
    retention_bytes: int,
    delete_policy: bool,
) -> list[Deletion]:
    """The deletions of one retention pass, in the order they are to be made (at most one
    per rule; see the module docstring)."""
    state = _State(list(segments), log_start_offset, log_end_offset, high_watermark, now_ms)
    deletions: list[Deletion] = []

    def apply(reason: str, keep_deleting: Callable[[SegmentInfo, SegmentInfo | None], bool]) -> None:
        deletion = state.delete_prefix(reason, keep_deleting)
        if deletion is not None:
            deletions.append(deletion)

    apply(LOG_START_OFFSET_BREACH,
          lambda segment, following: following is not None and following.base_offset <= state.log_start_offset)
    if delete_policy:
        size = sum(segment.size_bytes for segment in state.segments)
        if retention_bytes >= 0 and size >= retention_bytes:
            excess = [size - retention_bytes]

            def over_size(segment: SegmentInfo, following: SegmentInfo | None) -> bool:
                if excess[0] - segment.size_bytes < 0:
                    return False
                excess[0] -= segment.size_bytes
                return True

            apply(RETENTION_SIZE_BREACH, over_size)
        if retention_ms >= 0:
            apply(RETENTION_TIME_BREACH,
                  lambda segment, following: now_ms - segment.largest_timestamp_ms > retention_ms)
    return deletions


class _State:
    """The log as the rules of one pass see it, changed by each deletion."""

    def __init__(self, segments: list[SegmentInfo], log_start_offset: int, log_end_offset: int,
                 high_watermark: int, now_ms: int):
        self.segments = segments
        self.log_start_offset = log_start_offset
        self.log_end_offset = log_end_offset
        self.high_watermark = high_watermark
        self.now_ms = now_ms

    def delete_prefix(
        self, reason: str, keep_deleting: Callable[[SegmentInfo, SegmentInfo | None], bool]
    ) -> Deletion | None:
        doomed: list[SegmentInfo] = []
        for i, segment in enumerate(self.segments):
            following = self.segments[i + 1] if i + 1 < len(self.segments) else None
            upper_bound = following.base_offset if following is not None else self.log_end_offset
            if self.high_watermark < upper_bound or not keep_deleting(segment, following):
                break
            if following is None and segment.size_bytes == 0:
                break
            doomed.append(segment)
        if not doomed:
            return None
        roll = len(doomed) == len(self.segments)
        if roll:
            # The new active segment, empty, at the log end offset (its timestamp does not
            # matter: an empty last segment is never deleted).
            self.segments.append(SegmentInfo(self.log_end_offset, 0, self.now_ms))
        self.segments = self.segments[len(doomed):]
        self.log_start_offset = max(self.log_start_offset, self.segments[0].base_offset)
        return Deletion(reason, tuple(s.base_offset for s in doomed), sum(s.size_bytes for s in doomed),
                        roll, self.log_start_offset)
