"""LogCleaner: the broker's side of compaction (Kafka's LogCleaner threads and its manager).

The cleaning itself is storage's (storage/cleaner/: what is kept, the copy, the swap);
this module decides when and where it runs:

    every pass        pick the filthiest compacted log no other pass holds:
                      `cleanup.policy` with `compact`, not paused, its dirty ratio above
                      `min.cleanable.dirty.ratio` (or a record past
                      `max.compaction.lag.ms`), the highest ratio first (Kafka's
                      grabFilthiestCompactedLog)
    prepare           on the loop: storage.cleaner.prepare_cleaning captures the
                      inactive segments to clean and the producers' last batches
    copy              on a cleaner thread: CleaningJob.run reads only inactive
                      segments and writes only `.cleaned` files, so the loop keeps
                      serving produce and fetch meanwhile
    swap              back on the loop: swap_cleaned renames the new segments in, or
                      abandons the pass if the log's segments changed meanwhile
    checkpoint        `cleaner-offset-checkpoint`: the log's new first dirty offset

and sleeps `log.cleaner.backoff.ms` when no log is cleanable. A pass that fails with
anything but a disk error (an OSError, tried again at a later pass) marks its partition
uncleanable, with one WARNING and the traceback: no later pass picks it, so that one log
the cleaner cannot read (a compressed batch kept as it came whose records cannot be read
whole) does not take every pass from the others; deleting the partition clears the mark
(Kafka's markPartitionUncleanable, until a restart). `log.cleaner.threads`
passes run at once (Kafka's default, 1; 0 runs none), each on its own thread of a pool
of that size, never two on one log. Between two passes a worker also applies retention to
the `compact,delete` logs no pass holds (Kafka's cleaner threads do: the broker's
retention task leaves compacted logs alone). The offset map of a pass may use
`log.cleaner.dedupe.buffer.size` bytes. `log.cleaner.enable=false` runs nothing.
Each pass logs one line: the log, the offsets cleaned, segments and bytes before and
after, the keys in the map and the time taken.

Pausing and aborting (Kafka's LogCleanerManager states, kept per partition):

    in_progress             partition -> the job a pass is copying
    abort_and_pause(tp)     no pass starts on tp until resume(tp) (calls nest, like
                            Kafka's paused count); a copy under way is asked to stop
                            (CleaningJob.abort) and the call returns once its thread has
                            let go of the log's files: the caller may then truncate,
                            delete or close the log
    resume(tp)              undoes one abort_and_pause
    abort_cleaning(tp)      both, for a log that is going away (Kafka's abortCleaning);
                            then `forget(tp)` drops its checkpoint entry
    truncated(tp, offset)   Kafka's maybeTruncateCheckpoint: a first dirty offset past a
                            truncation point comes back to it

The wait in abort_and_pause blocks the event loop, as Kafka's blocks the deleting thread:
the copy checks for an abort before each batch, so it is the time to read one batch.
Whoever truncates or deletes a log pauses it around the change (Broker.delete_topic and
Broker.truncate_log do); the broker's retention task skips the logs a pass holds (Kafka's
pauseCleaningForNonCompactedPartitions), which matters when `cleanup.policy` changes
during a pass.

Lifecycle: `start()` after the logs are open, `await stop()` before they close: it
aborts the copies under way and waits for them (their `.cleaned` files are deleted).

Concurrency: every method runs on the broker's event loop; only CleaningJob.run runs on
a cleaner thread, and it touches no Log object.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import time
from contextlib import contextmanager

from storage.cleaner.checkpoint import CleanerCheckpoint

from pylog.clock import now_ms
from pylog.log_retention import retention_pass

log = logging.getLogger("pylog.log_cleaner")

ABORT_WAIT_S = 60.0   # how long abort_and_pause waits for a copy to stop (a batch's read)


class LogCleaner:
    def __init__(self, broker):
        self.broker = broker
        self.checkpoint: CleanerCheckpoint | None = None
        self.in_progress: dict[tuple[str, int], object] = {}   # partition -> its CleaningJob
        self.passes = 0          # completed passes that swapped something in
        self.uncleanable: set[tuple[str, int]] = set()   # partitions a pass failed on, left alone
        self._paused: dict[tuple[str, int], int] = {}
        self._aborted: set[tuple[str, int]] = set()
        self._copies: dict[tuple[str, int], concurrent.futures.Future] = {}
        self._tasks: list[asyncio.Task] = []
        self._executor: concurrent.futures.ThreadPoolExecutor | None = None
        self._stopping = False
        self._restarting: asyncio.Task | None = None

    @property
    def enabled(self) -> bool:
        return self.broker.config.log_cleaner_enable

    def start(self) -> None:
        self.checkpoint = CleanerCheckpoint(self.broker.log_dir)
        if self.enabled:
            self.checkpoint.file.create_if_missing()   # as Kafka's cleaner, which exists only if enabled
        threads = self.broker.config.log_cleaner_threads
        if self.enabled and threads > 0:
            self._executor = concurrent.futures.ThreadPoolExecutor(threads, thread_name_prefix="pylog-log-cleaner")
            loop = asyncio.get_running_loop()
            self._tasks = [loop.create_task(self._run()) for _ in range(threads)]

    async def stop(self) -> None:
        self._stopping = True
        for job in self.in_progress.values():
            job.abort()
        if self._copies:
            await asyncio.gather(*(asyncio.wrap_future(copy) for copy in self._copies.values()),
                                 return_exceptions=True)
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None

    # -- pausing -----------------------------------------------------------------------

    def abort_and_pause(self, topic: str, partition: int) -> None:
        key = (topic, partition)
        self._paused[key] = self._paused.get(key, 0) + 1
        job = self.in_progress.get(key)
        if job is None:
            return
        self._aborted.add(key)
        job.abort()
        copy = self._copies.get(key)
        if copy is not None:
            done, _ = concurrent.futures.wait([copy], timeout=ABORT_WAIT_S)
            if not done:
                log.warning("The cleaning of %s-%d did not stop within %.0f s of its abort", topic, partition,
                            ABORT_WAIT_S)
        log.info("The cleaning of %s-%d is aborted and paused", topic, partition)

    def resume(self, topic: str, partition: int) -> None:
        key = (topic, partition)
        count = self._paused.get(key, 0) - 1
        if count > 0:
            self._paused[key] = count
        else:
            self._paused.pop(key, None)

    def abort_cleaning(self, topic: str, partition: int) -> None:
        self.abort_and_pause(topic, partition)
        self.resume(topic, partition)

    @contextmanager
    def paused(self, topic: str, partition: int):
        """`with cleaner.paused(tp): ...` - abort_and_pause, then resume however it ends."""
        self.abort_and_pause(topic, partition)
        try:
            yield
        finally:
            self.resume(topic, partition)

    def is_copying(self, topic: str, partition: int) -> bool:
        """Whether a cleaner thread is reading the log's segments right now."""
        copy = self._copies.get((topic, partition))
        return copy is not None and not copy.done()

    def is_paused(self, topic: str, partition: int) -> bool:
        return (topic, partition) in self._paused

    def forget(self, topic: str, partition: int) -> None:
        """Drop a deleted partition's checkpoint entry (a topic created again under its
        name starts dirty from its start) and its uncleanable mark."""
        self.uncleanable.discard((topic, partition))
        checkpoint = self.checkpoint or CleanerCheckpoint(self.broker.log_dir)
        if checkpoint.get(topic, partition) is not None:
            checkpoint.update(topic, partition, None)

    def truncated(self, topic: str, partition: int, offset: int) -> None:
        checkpoint = self.checkpoint or CleanerCheckpoint(self.broker.log_dir)
        first_dirty = checkpoint.get(topic, partition)
        if first_dirty is not None and first_dirty > offset:
            checkpoint.update(topic, partition, offset)

    # -- passes ------------------------------------------------------------------------

    def restart(self) -> None:
        """Stop the passes and start them again with the broker's current settings
        (`log.cleaner.threads` changed dynamically), as Kafka's cleaner restarts its threads."""
        async def again() -> None:
            await self.stop()
            self._stopping = False
            self.start()
        self._restarting = asyncio.get_running_loop().create_task(again())

    async def _run(self) -> None:
        while not self._stopping:
            backoff_s = self.broker.config.log_cleaner_backoff_ms / 1000
            try:
                cleaned = await self.clean_filthiest_log()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("log cleaning failed")
                cleaned = False
            # `compact,delete` logs: retention is the cleaner's, between two cleanings
            retention_pass(self.broker.partitions.values(), now_ms(), compacted=True, skip=self.in_progress)
            if not cleaned:
                await asyncio.sleep(backoff_s)

    def _compacted_partitions(self) -> list:
        """The partitions a pass may clean: compacted, open, not cleaned or paused now, not
        marked uncleanable."""
        return [partition for key, partition in self.broker.partitions.items()
                if not partition.log.closed and partition.log.config.compact
                and key not in self.in_progress and key not in self._paused and key not in self.uncleanable]

    def _candidates(self, partitions: list, now: int):
        from storage.cleaner.cleanable import cleanable_range
        offsets = self.checkpoint.read()
        for partition in partitions:
            partition_log = partition.log
            found = cleanable_range(
                partition_log.segments, partition_log.config, log_start_offset=partition_log.log_start_offset,
                log_end_offset=partition_log.log_end_offset, checkpoint_offset=offsets.get(partition.key), now_ms=now,
                last_stable_offset=partition.last_stable_offset)
            yield partition, found, partition_log.config.min_cleanable_dirty_ratio

    async def clean_filthiest_log(self) -> bool:
        """One pass over the filthiest cleanable log; whether one was cleaned."""
        partitions = self._compacted_partitions()
        if not partitions:
            return False
        # the choice, imported with the first compacted log (a broker without one, as a
        # fresh one is, never imports the cleaner)
        from storage.cleaner.cleanable import filthiest
        now = now_ms()
        chosen = filthiest(self._candidates(partitions, now))
        if chosen is None:
            return False
        partition, found = chosen
        try:
            return await self._clean(partition, found, now)
        except (asyncio.CancelledError, OSError):   # a failed read or write may pass: tried again later
            raise
        except Exception:
            self.uncleanable.add(partition.key)
            log.warning("Unexpected exception thrown when cleaning log %s. Marking its partition (%s-%d) as "
                        "uncleanable", partition.log.name, partition.topic, partition.index, exc_info=True)
            return False

    async def _clean(self, partition, found, now: int) -> bool:
        """Prepare, copy and swap one pass over `partition`'s log; whether it swapped."""
        # the copy and the swap, imported with the first log there is to clean
        from storage.cleaner.cleaning import CleaningAborted, prepare_cleaning, swap_cleaned
        key = (partition.topic, partition.index)
        partition_log = partition.log
        job = prepare_cleaning(partition_log, checkpoint_offset=found.first_dirty_offset, now_ms=now,
                               last_stable_offset=partition.last_stable_offset,
                               map_memory_bytes=self.broker.config.log_cleaner_dedupe_buffer_size)
        if job is None:
            return False
        started = time.perf_counter()
        self.in_progress[key] = job
        try:
            copy = self._copies[key] = self._executor.submit(job.run, now)
            result = await asyncio.wrap_future(copy)
        except CleaningAborted:
            log.info("Cleaning of log %s aborted after %.1f ms", partition_log.name,
                     (time.perf_counter() - started) * 1000)
            return False
        finally:
            self._copies.pop(key, None)
            self.in_progress.pop(key, None)
            aborted = key in self._aborted
            self._aborted.discard(key)
        if aborted or self._stopping or partition_log.closed or self.broker.partitions.get(key) is not partition:
            for group in result.groups:   # finished before it saw the abort
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
