"""A partition as the broker sees it: the storage log plus the replication state around it.

    log_start_offset      first offset a consumer can read (storage)
    log_end_offset (LEO)  offset the next appended record gets (storage)
    high_watermark (HW)   offsets below it are replicated to every in-sync replica and
                          visible to consumers; with one replica (pylog today) HW = LEO
    last_stable_offset    offsets below it belong to no open transaction; consumers with
                          isolation_level=read_committed read up to it; without open
                          transactions it equals the HW
    leader_epoch          bumped on every leadership change; one node keeps it at 0,
                          stamped into every appended batch (partitionLeaderEpoch)

The broker keeps these names even on one node so that replication does not reshape the
code later. Every method runs on the broker's event loop; the loop serializes access to
the partition's storage log, which is not thread-safe.
"""

from __future__ import annotations

from protocol.error_codes import ErrorCode
from protocol.primitives import INT16, INT32
from protocol.records import (
    ATTRIBUTES_POSITION,
    BATCH_HEADER_SIZE,
    BATCH_LENGTH_POSITION,
    CONTROL_BIT,
    LOG_OVERHEAD,
    MIN_BATCH_LENGTH,
    read_batch_header,
)
from storage.config import LONG_MAX, LogConfig
from storage.log import AppendInfo, Log
from storage.segment import FetchResult

from pylog.delayed import DataWaiters
from pylog.errors import BrokerError


NO_LEADER_EPOCH = -1   # a request's current_leader_epoch when the client does not say


class Partition:
    def __init__(self, topic: str, index: int, log: Log, node_id: int, waiters: DataWaiters,
                 leader_epoch: int = 0):
        self.topic = topic
        self.index = index
        self.log = log
        self.node_id = node_id
        self.leader_epoch = leader_epoch
        self.waiters = waiters
        self.key = (topic, index)

    # -- offsets -----------------------------------------------------------------------

    @property
    def log_start_offset(self) -> int:
        return self.log.log_start_offset

    @property
    def log_end_offset(self) -> int:
        return self.log.log_end_offset

    @property
    def high_watermark(self) -> int:
        return self.log.log_end_offset  # one replica: everything appended is replicated

    @property
    def last_stable_offset(self) -> int:
        return self.high_watermark  # no transactions yet

    @property
    def config(self) -> LogConfig:
        return self.log.config

    def visible_end(self, isolation_level: int) -> int:
        return self.last_stable_offset if isolation_level == 1 else self.high_watermark

    # -- leader epoch ------------------------------------------------------------------

    def check_leader_epoch(self, current_leader_epoch: int | None) -> int:
        """The error for a request made by a client that believes the leader is at
        `current_leader_epoch` (None: the client does not say, nothing to check; which
        raw values mean "not said" is each request's rule): FENCED_LEADER_EPOCH when the
        client is behind this leader, UNKNOWN_LEADER_EPOCH when it is ahead (it knows of a
        leader this node has not heard of yet), else NONE."""
        if current_leader_epoch is None or current_leader_epoch == self.leader_epoch:
            return ErrorCode.NONE
        if current_leader_epoch < self.leader_epoch:
            return ErrorCode.FENCED_LEADER_EPOCH
        return ErrorCode.UNKNOWN_LEADER_EPOCH

    def end_offset_for_epoch(self, leader_epoch: int) -> tuple[int, int]:
        """(epoch, end offset) answering "where did `leader_epoch` end?", or (-1, -1)
        (UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET) when the log cannot tell.

        The epoch history of this node is one entry: the current epoch, which began at the
        log start offset (the first offset still on the log) and is still being written.
          - the current epoch: it ends at the log end offset
          - -1 (undefined) or an epoch above the current one: (-1, -1)
          - any other epoch below the current one: the log has nothing before its first
            epoch, so the answer is that epoch with the first epoch's start offset
        """
        if leader_epoch == self.leader_epoch:
            return leader_epoch, self.log_end_offset
        if leader_epoch == -1 or leader_epoch > self.leader_epoch:
            return -1, -1
        return leader_epoch, self.log_start_offset

    # -- produce and fetch -------------------------------------------------------------

    def append(self, records, now_ms: int) -> AppendInfo:
        """Append a produced records blob (validated, stamped, written as it came)."""
        check_client_batches(records, now_ms, self.log.config)
        info = self.log.append(records, now_ms=now_ms, leader_epoch=self.leader_epoch)
        self.waiters.notify(self.key)
        return info

    def read(self, fetch_offset: int, max_bytes: int, isolation_level: int, min_one_batch: bool) -> FetchResult:
        return self.log.read(fetch_offset, max_bytes, max_offset=self.visible_end(isolation_level),
                             min_one_batch=min_one_batch)


def check_client_batches(records, now_ms: int, config: LogConfig) -> None:
    """What a client's batches may not be, beyond the format that storage checks.

    - Control batches (transaction markers) come from the transaction coordinator only.
    - CreateTime topics may bound how far record timestamps stray from the broker's
      clock (`message.timestamp.before.max.ms` / `.after.max.ms`), checked from the batch
      headers: the first record's timestamp against the lower bound, the largest against
      the upper one (Kafka looks at every record; the header is what this path reads).

    The walk reads two small fields per batch (its length and attributes) and parses the
    whole header only when timestamps are bounded; storage validates the batches next,
    so a malformed blob simply ends the walk and is reported there.
    """
    bounded = not config.log_append_time and (config.message_timestamp_before_max_ms < LONG_MAX
                                              or config.message_timestamp_after_max_ms < LONG_MAX)
    position, end = 0, len(records)
    while position + BATCH_HEADER_SIZE <= end:
        attributes, = INT16.unpack_from(records, position + ATTRIBUTES_POSITION)
        if attributes & CONTROL_BIT:
            raise BrokerError(ErrorCode.INVALID_RECORD, "clients may not append control batches")
        if bounded:
            check_timestamps(read_batch_header(records, position), now_ms, config)
        batch_length, = INT32.unpack_from(records, position + BATCH_LENGTH_POSITION)
        if batch_length < MIN_BATCH_LENGTH:
            return
        position += batch_length + LOG_OVERHEAD


def check_timestamps(header, now_ms: int, config: LogConfig) -> None:
    if header.base_timestamp >= 0 and now_ms - header.base_timestamp > config.message_timestamp_before_max_ms:
        raise BrokerError(ErrorCode.INVALID_TIMESTAMP,
                          f"timestamp {header.base_timestamp} is more than message.timestamp.before.max.ms="
                          f"{config.message_timestamp_before_max_ms} before the broker's time {now_ms}")
    if header.max_timestamp - now_ms > config.message_timestamp_after_max_ms:
        raise BrokerError(ErrorCode.INVALID_TIMESTAMP,
                          f"timestamp {header.max_timestamp} is more than message.timestamp.after.max.ms="
                          f"{config.message_timestamp_after_max_ms} after the broker's time {now_ms}")
