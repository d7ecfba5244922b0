"""LogFlusher: runs the fsyncs that segment rolls leave pending, off the event loop.

A roll happens inside an append, on the broker's event loop; it fsyncs nothing itself
(see "Flush policy" in storage/log.py). Instead the Log calls its `flush_listener`, which
is `LogFlusher.schedule`: that starts, at most once per log at a time, a task which

    takes the log's PendingFlush                    on the loop
    runs it in the loop's default thread pool        fsyncs by path, inactive files only
    gives it back to the log with `mark_flushed`     on the loop: the recovery point moves

and loops while rolls left more. Kafka does the same on its scheduler thread
(UnifiedLog.roll's "flush-log" task). The thread touches no Log object (a PendingFlush
names files by their paths), so the loop's serialization of each log still holds.

Lifecycle: `stop()`, awaited before the logs are closed, waits for the running flushes;
a flush that fails is logged and its work stays undone (the recovery point does not
move; the next flush or the clean shutdown's flush covers it).

Concurrency: every method runs on the broker's event loop.
"""

from __future__ import annotations

import asyncio
import logging

from storage.log import Log

from pylog.clock import now_ms

log = logging.getLogger("pylog.log_flusher")


class LogFlusher:
    def __init__(self) -> None:
        self._running: dict[int, asyncio.Task] = {}  # id(Log) -> its flush task

    def schedule(self, partition_log: Log) -> None:
        """Flush what `partition_log` has pending, soon, off the loop (the Log's
        flush_listener; called inside an append, so it only starts a task)."""
        key = id(partition_log)
        running = self._running.get(key)
        if running is not None and not running.done():
            return  # the running task takes the new work before it ends
        task = asyncio.get_running_loop().create_task(self._flush(partition_log))
        self._running[key] = task
        task.add_done_callback(lambda done: self._running.pop(key) if self._running.get(key) is done else None)

    async def _flush(self, partition_log: Log) -> None:
        loop = asyncio.get_running_loop()
        while not partition_log.closed:
            job = partition_log.take_pending_flush()
            if job is None:
                return
            try:
                await loop.run_in_executor(None, job.run)
            except OSError:
                log.exception("flushing %s up to offset %d failed", partition_log.name, job.offset)
                return
            partition_log.mark_flushed(job, now_ms=now_ms())

    async def stop(self) -> None:
        """Wait for the flushes under way."""
        while self._running:
            await asyncio.gather(*self._running.values(), return_exceptions=True)
