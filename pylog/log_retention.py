"""Log retention: every `log.retention.check.interval.ms`, a retention pass over every log.

A pass calls `Log.delete_old_segments(now_ms, high_watermark)` (storage decides which
segments go: storage/retention.py) on each partition whose `cleanup.policy` does not
contain `compact`, as Kafka's LogManager.cleanupLogs does; a compacted log's segments are
the log cleaner's to delete, even with `compact,delete` (pylog/log_cleaner.py runs the same
pass over those between its cleanings, as Kafka's cleaner thread does). One INFO line per log that lost
segments names them, their bytes and why. The log start offset a pass moves is written
to log-start-offset-checkpoint by the broker's periodic checkpoint; a crash before that
loses nothing, since the load takes the first segment's base offset when it is higher.

The first pass runs one interval after the start (Kafka waits `log.initial.task.delay.ms`,
30 s by default, before its first one).

Concurrency: runs on the broker's event loop, which serializes access to each log. A pass
only renames files (`.deleted`, removed `file.delete.delay.ms` later by housekeeping) and
fsyncs the directory; it is short enough not to be moved to a thread.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Callable, Container, Iterable

from pylog.clock import now_ms

if TYPE_CHECKING:
    from pylog.partition import Partition

log = logging.getLogger("pylog.log_retention")


def retention_pass(partitions: Iterable[Partition], current_ms: int, *, compacted: bool = False,
                   skip: Container[tuple[str, int]] = ()) -> int:
    """One pass over those of `partitions` that are not compacted (with `compacted`: over
    the compacted ones, which the log cleaner passes here between its cleanings), except
    the partitions in `skip` (those a cleaning pass holds); return how many segments were
    deleted."""
    deleted = 0
    for partition in list(partitions):
        partition_log = partition.log
        if partition_log.closed or partition_log.config.compact != compacted \
                or (partition.topic, partition.index) in skip:
            continue
        try:
            deletions = partition_log.delete_old_segments(current_ms, partition.high_watermark)
        except Exception:
            log.exception("retention of %s failed", partition_log.name)
            continue
        if not deletions:
            continue
        bases = [base for deletion in deletions for base in deletion.base_offsets]
        deleted += len(bases)
        config = partition_log.config
        log.info(
            "Deleted %d segment(s) of %s (base offsets %s, %d bytes) due to %s "
            "(retention.ms=%d, retention.bytes=%d); log start offset now %d",
            len(bases), partition_log.name, ", ".join(map(str, bases)),
            sum(deletion.size_bytes for deletion in deletions),
            ", ".join(deletion.reason for deletion in deletions),
            config.retention_ms, config.retention_bytes, partition_log.log_start_offset,
        )
    return deleted


async def run_retention(partitions: Callable[[], Iterable[Partition]], interval_ms: int,
                        skip: Container[tuple[str, int]] = ()) -> None:
    """Run a pass every `interval_ms` until cancelled, leaving out the partitions in
    `skip` (the log cleaner's `in_progress`: a log whose policy changed from compact
    while a pass copies it keeps its segments until the pass ends)."""
    while True:
        await asyncio.sleep(interval_ms / 1000)
        retention_pass(partitions(), now_ms(), skip=skip)
