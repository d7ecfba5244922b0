"""Grouping the segments of a pass into the cleaned segments that replace them
(Kafka's Cleaner.groupSegmentsBySize).

Compaction shrinks segments; recopying each one alone would leave ever more, ever
smaller segments. So consecutive segments are cleaned into one: a group grows while
its `.log` sizes together stay within the segment size (`segment.bytes`, or
`internal.segment.bytes` when set), its offset-index sizes and its
time-index sizes each within `segment.index.bytes`, and its offsets stay within an
int32 of the group's base offset (the indexes store 4-byte relative offsets). A
segment's last offset is bounded by the next segment's base offset minus one (the
last segment of the pass: by the pass's upper bound minus one), which costs no read.
An empty segment never breaks a group on the offset check.

Pure function of the segments' sizes and base offsets.
"""

from __future__ import annotations

from typing import Sequence

from storage.index import RELATIVE_OFFSET_MAX
from storage.segment import LogSegment


def group_segments_by_size(
    segments: Sequence[LogSegment],
    max_size_bytes: int,
    max_index_size_bytes: int,
    first_uncleanable_offset: int,
) -> list[list[LogSegment]]:
    """Consecutive runs of `segments` (oldest first), each to be cleaned into one."""
    groups: list[list[LogSegment]] = []
    index = 0
    while index < len(segments):
        first = segments[index]
        group = [first]
        log_bytes = first.size_bytes
        offset_index_bytes = first.offset_index.size_bytes
        time_index_bytes = first.time_index.size_bytes
        index += 1
        while index < len(segments):
            candidate = segments[index]
            if candidate.size_bytes > 0:
                last_offset_bound = (
                    segments[index + 1].base_offset - 1 if index + 1 < len(segments) else first_uncleanable_offset - 1
                )
                if last_offset_bound - first.base_offset > RELATIVE_OFFSET_MAX:
                    break
            if (
                log_bytes + candidate.size_bytes > max_size_bytes
                or offset_index_bytes + candidate.offset_index.size_bytes > max_index_size_bytes
                or time_index_bytes + candidate.time_index.size_bytes > max_index_size_bytes
            ):
                break
            group.append(candidate)
            log_bytes += candidate.size_bytes
            offset_index_bytes += candidate.offset_index.size_bytes
            time_index_bytes += candidate.time_index.size_bytes
            index += 1
        groups.append(group)
    return groups
