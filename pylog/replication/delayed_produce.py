"""acks=-1 produces waiting for the in-sync replicas (Kafka's DelayedProduce).

A produce with acks=-1 appends on the leader first, then waits, per partition that
appended, until the partition's high watermark reaches the offset after its last record
(`PartitionState.check_enough_replicas_reach_offset(last_offset + 1)`):

    verdict                               the partition's answer
    done, NONE                            as the append answered
    done, NOT_ENOUGH_REPLICAS_AFTER_APPEND that error; the records stay written
    not done with an error (this broker   that error (NOT_LEADER_OR_FOLLOWER)
      no longer leads)
    the partition deleted meanwhile       UNKNOWN_TOPIC_OR_PARTITION
    not done when `timeout_ms` passes     REQUEST_TIMED_OUT; the records stay written

The base offset and the other fields of the append's answer are kept whatever the error
(Kafka sets only the error code). With one replica the HW is at the LEO as soon as the
append returns, so nothing waits.

Waiting parks the produce's own connection only: the coroutine sleeps on the partitions'
keys in `DataWaiters`, which every append, HW rise and role change notifies; each wake
checks again (wakes may be spurious). Runs on the broker's event loop.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

from protocol.error_codes import ErrorCode

from pylog.delayed import DataWaiters


@dataclass
class PendingAcks:
    """One partition of a produce waiting for its acks: `required_offset` is the append's
    last offset + 1; `error` is the answer once `done`."""

    partition: object     # pylog.partition.Partition
    required_offset: int
    is_open: Callable[[], bool] = lambda: True   # False once the partition is deleted
    done: bool = False
    error: ErrorCode = ErrorCode.NONE

    def check(self) -> bool:
        if not self.done and not self.is_open():
            self.done, self.error = True, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
        if not self.done:
            verdict = self.partition.check_enough_replicas_reach_offset(self.required_offset)
            if verdict.done or verdict.error != ErrorCode.NONE:
                self.done, self.error = True, verdict.error
        return self.done


async def await_acks(waiters: DataWaiters, pending: list[PendingAcks], timeout_ms: int) -> None:
    """Wait until every one of `pending` is done or `timeout_ms` passes; the ones still
    waiting then get REQUEST_TIMED_OUT."""
    deadline = time.monotonic() + max(timeout_ms, 0) / 1000
    while True:
        waiting = [p for p in pending if not p.check()]
        remaining = deadline - time.monotonic()
        if not waiting:
            return
        if remaining <= 0:
            for p in waiting:
                p.done, p.error = True, ErrorCode.REQUEST_TIMED_OUT
            return
        await waiters.wait([p.partition.key for p in waiting], remaining)
