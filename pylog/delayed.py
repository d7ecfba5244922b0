"""Delayed operations ("purgatory"): requests that wait for data to arrive.

A long-poll Fetch that found fewer than `min_bytes` registers a waiter on the
partitions it reads, and sleeps until one of them gets an append or `max_wait_ms`
passes. An append calls `notify(partition_key)`, which wakes every waiter registered on
that key; so does deleting a topic, for each of its partitions (the woken fetch then
answers with the partition's error instead of waiting out `max_wait_ms`). Waking is
cheap and may be spurious: the woken fetch reads again and decides.

Runs on the broker's event loop only (not thread-safe).
"""

from __future__ import annotations

import asyncio
from collections import defaultdict


class DataWaiters:
    def __init__(self):
        self._waiters: dict[object, set[asyncio.Future]] = defaultdict(set)

    async def wait(self, keys, timeout_s: float) -> bool:
        """Wait until one of `keys` is notified or `timeout_s` passes; True if notified."""
        future = asyncio.get_running_loop().create_future()
        keys = list(keys)
        for key in keys:
            self._waiters[key].add(future)
        try:
            async with asyncio.timeout(timeout_s):
                await future
            return True
        except asyncio.TimeoutError:
            return False
        finally:
            for key in keys:
                waiting = self._waiters.get(key)
                if waiting is not None:
                    waiting.discard(future)
                    if not waiting:
                        del self._waiters[key]

    def notify(self, key) -> None:
        waiting = self._waiters.get(key)
        if waiting:
            for future in waiting:
                if not future.done():
                    future.set_result(None)
