"""LogCleaner: the broker's side of compaction (Kafka's LogCleaner thread and its manager).

The cleaning itself is storage's (storage/cleaner/: what is kept, the copy, the swap);
this module decides when and where it runs:

    every pass        pick the filthiest compacted log: `cleanup.policy` with `compact`,
                      its dirty ratio above `min.cleanable.dirty.ratio` (or a record past
                      `max.compaction.lag.ms`), the highest ratio first (Kafka's
                      grabFilthiestCompactedLog)
    prepare           on the loop: storage.cleaner.prepare_cleaning captures the
                      inactive segments to clean and the producers' last batches
    copy              in a worker thread (loop.run_in_executor): CleaningJob.run reads
                      only inactive segments and writes only `.cleaned` files, so the
                      loop keeps serving produce and fetch meanwhile
    swap              back on the loop: swap_cleaned renames the new segments in, or
                      abandons the pass if the log's segments changed meanwhile
                      (retention, truncation or deletion took some)
    checkpoint        `cleaner-offset-checkpoint`: the log's new first dirty offset

and sleeps `log.cleaner.backoff.ms` when no log is cleanable. Between two passes it also
applies retention to the `compact,delete` logs (Kafka's cleaner thread does: the
broker's retention task leaves compacted logs alone), never during a cleaning. One pass runs at a time
(`log.cleaner.threads` = 1, Kafka's default); the offset map of a pass may use
`log.cleaner.dedupe.buffer.size` bytes. `log.cleaner.enable=false` runs nothing.
Each pass logs one line: the log, the offsets cleaned, segments and bytes before and
after, the keys in the map and the time taken.

`in_progress` names the partition being cleaned. Retention of compacted logs runs in
this task, never during a copy, so it cannot take segments from under one, as Kafka
pauses it; a truncation or a deletion meanwhile makes the swap abandon the pass.

Lifecycle: `start()` after the logs are open, `await stop()` before they close: it
waits for the copy under way (its `.cleaned` files would otherwise be left for the
next start to delete) and does not swap it in.

Concurrency: every method runs on the broker's event loop; only CleaningJob.run runs on
a worker thread, and it touches no Log object.
"""

from __future__ import annotations

import asyncio
import logging
import time

from storage.cleaner import CleanerCheckpoint, cleanable_range, filthiest, prepare_cleaning, swap_cleaned

from pylog.clock import now_ms
from pylog.log_retention import retention_pass

log = logging.getLogger("pylog.log_cleaner")


class LogCleaner:
    def __init__(self, broker):
        self.broker = broker
        self.checkpoint: CleanerCheckpoint | None = None
        self.in_progress: tuple[str, int] | None = None
        self.passes = 0          # completed passes that swapped something in
        self._task: asyncio.Task | None = None
        self._stopping = False
        self._copy: asyncio.Future | None = None

    @property
    def enabled(self) -> bool:
        return self.broker.config.log_cleaner_enable

    def start(self) -> None:
        self.checkpoint = CleanerCheckpoint(self.broker.log_dir)
        if not self.checkpoint.file.path.exists():
            self.checkpoint.file.write({})   # Kafka's cleaner creates it empty at start
        if self.enabled:
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        self._stopping = True
        if self._copy is not None:
            await asyncio.gather(self._copy, return_exceptions=True)
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

    async def _run(self) -> None:
        backoff_s = self.broker.config.log_cleaner_backoff_ms / 1000
        while not self._stopping:
            try:
                cleaned = await self.clean_filthiest_log()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("log cleaning failed")
                cleaned = False
            # `compact,delete` logs: retention is the cleaner's, between two cleanings
            retention_pass(self.broker.partitions.values(), now_ms(), compacted=True)
            if not cleaned:
                await asyncio.sleep(backoff_s)

    def _candidates(self, now: int):
        offsets = self.checkpoint.read()
        for key, partition in self.broker.partitions.items():
            partition_log = partition.log
            if partition_log.closed or not partition_log.config.compact:
                continue
            found = cleanable_range(
                partition_log.segments, partition_log.config, log_start_offset=partition_log.log_start_offset,
                log_end_offset=partition_log.log_end_offset, checkpoint_offset=offsets.get(key), now_ms=now,
                last_stable_offset=partition.last_stable_offset)
            yield partition, found, partition_log.config.min_cleanable_dirty_ratio

    async def clean_filthiest_log(self) -> bool:
        """One pass over the filthiest cleanable log; whether one was cleaned."""
        now = now_ms()
        chosen = filthiest(self._candidates(now))
        if chosen is None:
            return False
        partition, found = chosen
        key = (partition.topic, partition.index)
        partition_log = partition.log
        job = prepare_cleaning(partition_log, checkpoint_offset=found.first_dirty_offset, now_ms=now,
                               last_stable_offset=partition.last_stable_offset,
                               map_memory_bytes=self.broker.config.log_cleaner_dedupe_buffer_size)
        if job is None:
            return False
        started = time.perf_counter()
        self.in_progress = key
        try:
            self._copy = asyncio.get_running_loop().run_in_executor(None, job.run, now)
            result = await self._copy
        finally:
            self._copy = None
            self.in_progress = None
        if self._stopping or partition_log.closed or self.broker.partitions.get(key) is not partition:
            for group in result.groups:
                group.new.delete()
            return False
        before_segments = sum(len(group.old) for group in result.groups)
        end_offset = swap_cleaned(partition_log, result, now_ms=now_ms())
        if end_offset is None:
            return False
        self.checkpoint.update(partition.topic, partition.index, end_offset)
        self.passes += 1
        stats = result.stats
        log.info("Cleaned log %s offsets [%d, %d): %d segment(s) into %d, %d bytes into %d, %d key(s), "
                 "%.1f ms", partition_log.name, result.first_dirty_offset, end_offset, before_segments,
                 len(result.groups), stats.bytes_read, stats.bytes_written, stats.map_entries,
                 (time.perf_counter() - started) * 1000)
        return True
