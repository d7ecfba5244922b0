"""A partition as the broker sees it: the storage log plus the replication state around it.

    log_start_offset      first offset a consumer can read (storage)
    log_end_offset (LEO)  offset the next appended record gets (storage)
    high_watermark (HW)   offsets below it are replicated to every in-sync replica and
                          visible to consumers; with one replica (pylog today) HW = LEO
    last_stable_offset    offsets below it belong to no open transaction; consumers with
                          isolation_level=read_committed read up to it; without open
                          transactions it equals the HW
    leader_epoch          bumped on every leadership change (on one node: +2 at each
                          start, see pylog/metadata.py), stamped into every appended
                          batch (partitionLeaderEpoch)

The current leader epoch is the partition's (what the controller decided; one node: the
epoch kept in pylog-topics.json, or the latest the log's cache holds if that is higher); the history of epochs, which epoch wrote
which offsets, is the log's leader-epoch cache (storage/leader_epoch_cache.py), and
becoming leader at an epoch records its start there.

The broker keeps these names even on one node so that replication does not reshape the
code later. Every method runs on the broker's event loop; the loop serializes access to
the partition's storage log, which is not thread-safe.
"""

from __future__ import annotations

from protocol.error_codes import ErrorCode
from storage.config import LogConfig
from storage.log import AppendInfo, Log
from storage.log_validator import AppendOrigin
from storage.segment import FetchResult

from pylog.delayed import DataWaiters
from pylog.errors import BrokerError


NO_LEADER_EPOCH = -1   # a request's current_leader_epoch when the client does not say
DELETE_TO_HIGH_WATERMARK = -1   # DeleteRecords' offset meaning "everything below the HW"


class Partition:
    def __init__(self, topic: str, index: int, log: Log, node_id: int, waiters: DataWaiters,
                 leader_epoch: int = 0):
        self.topic = topic
        self.index = index
        self.log = log
        self.node_id = node_id
        self.waiters = waiters
        self.key = (topic, index)
        self.leader_epoch = -1
        # never below an epoch the log already holds: assigning a lower one would cut its history
        self.make_leader(max(leader_epoch, log.latest_epoch or 0))

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

    def make_leader(self, leader_epoch: int) -> None:
        """Lead this partition at `leader_epoch`. A new epoch starts at the log end offset
        and is recorded in the log's epoch cache before any append (Kafka's
        Partition.makeLeader), so that OffsetForLeaderEpoch knows it even while nothing
        has been written in it. An epoch not above the current one changes nothing (Kafka
        skips such a become-leader change)."""
        if leader_epoch > self.leader_epoch:
            self.log.assign_epoch_start_offset(leader_epoch, self.log.log_end_offset)
            self.leader_epoch = leader_epoch

    def end_offset_for_epoch(self, leader_epoch: int) -> tuple[int, int]:
        """(epoch, end offset) answering "where did `leader_epoch` end?", or (-1, -1)
        (UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET) when the log cannot tell: the log's
        epoch cache answers (Kafka's LeaderEpochFileCache.endOffsetFor)."""
        return self.log.end_offset_for_epoch(leader_epoch)

    # -- DeleteRecords ---------------------------------------------------------------

    def delete_records(self, offset: int) -> int:
        """Move the log start offset (the low watermark) up to `offset` (-1: the high
        watermark) and return the low watermark; an offset at or below the current log
        start changes nothing. Kafka's rules: a topic whose cleanup.policy lacks `delete`
        refuses (POLICY_VIOLATION); a negative offset other than -1, or one past the high
        watermark, is OFFSET_OUT_OF_RANGE. The segments below stay until retention
        removes them; fetches below the new start get OFFSET_OUT_OF_RANGE at once. The
        producers stay until they expire, as in Kafka. The caller makes the move durable
        (LogManager.write_log_start_offsets) before it answers."""
        if not self.config.delete:
            raise BrokerError(ErrorCode.POLICY_VIOLATION,
                              f"Records of partition {self.topic}-{self.index} can not be deleted "
                              "due to the configured policy")
        target = self.high_watermark if offset == DELETE_TO_HIGH_WATERMARK else offset
        if target < 0 or target > self.high_watermark:
            raise BrokerError(ErrorCode.OFFSET_OUT_OF_RANGE,
                              f"cannot move the log start offset of {self.topic}-{self.index} to {target}: "
                              f"the high watermark is {self.high_watermark}")
        self.log.advance_log_start_offset(target)
        return self.log_start_offset

    # -- produce and fetch -------------------------------------------------------------

    def append(self, records, now_ms: int, origin: AppendOrigin = AppendOrigin.CLIENT) -> AppendInfo:
        """Append records as this partition's leader: Kafka's rules for a batch from
        `origin` (storage/log_validator.py), then offsets and the leader epoch stamped in
        place, then written as they came (or as the topic's compression.type rebuilt them)."""
        info = self.log.append(records, now_ms=now_ms, leader_epoch=self.leader_epoch, origin=origin)
        self.waiters.notify(self.key)
        return info

    def read(self, fetch_offset: int, max_bytes: int, isolation_level: int, min_one_batch: bool) -> FetchResult:
        return self.log.read(fetch_offset, max_bytes, max_offset=self.visible_end(isolation_level),
                             min_one_batch=min_one_batch)
