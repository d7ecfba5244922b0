"""The wait of a coordinator write for its replication: until the high watermark passes it.

A write of the group coordinator (an offset commit, a group's metadata) is one batch
appended to the group's `__consumer_offsets` partition. It counts, and its answer goes
out, only once the partition's high watermark has reached the batch's end offset (the
records are on every in-sync replica: acks=all). `wait_for_high_watermark` is that wait:

    NONE                 the high watermark is at or past `end_offset`
    NOT_COORDINATOR      `still_leading()` turned False first (this broker resigned the
                         partition, or the partition went away): the write may be lost
    REQUEST_TIMED_OUT    `timeout_ms` passed first (None: no limit)

The caller maps these to its API's answer (offsets.py `coordinator_error`). The wait
wakes on `waiters.notify(partition.key)` (the partition calls it when its high watermark
moves; the coordinator calls it when it resigns) and looks again; a spurious wake is
harmless. With one replica the high watermark is the log end offset, so the first look
already answers NONE and nothing waits.

Runs on the broker's event loop.
"""

from __future__ import annotations

import time
from typing import Callable

from protocol.error_codes import ErrorCode


async def wait_for_high_watermark(partition, waiters, end_offset: int, timeout_ms: int | None,
                                  still_leading: Callable[[], bool]) -> ErrorCode:
    deadline = None if timeout_ms is None else time.monotonic() + timeout_ms / 1000
    while True:
        if not still_leading():
            return ErrorCode.NOT_COORDINATOR
        if partition.high_watermark >= end_offset:
            return ErrorCode.NONE
        remaining_s = None
        if deadline is not None:
            remaining_s = deadline - time.monotonic()
            if remaining_s <= 0:
                return ErrorCode.REQUEST_TIMED_OUT
        await waiters.wait([partition.key], remaining_s)
