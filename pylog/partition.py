"""A partition as the broker sees it: the storage log plus the replication state around it.

    log_start_offset      first offset a consumer can read (storage)
    log_end_offset (LEO)  offset the next appended record gets (storage)
    high_watermark (HW)   offsets below it are replicated to every in-sync replica and
                          visible to consumers (the replication state's, see below)
    last_stable_offset    offsets below it belong to no open transaction; consumers with
                          isolation_level=read_committed read up to it; without open
                          transactions it equals the HW
    leader_epoch          bumped on every leadership change, stamped into every batch a
                          leader appends (partitionLeaderEpoch)

Roles. A partition is led by this broker, followed (another broker leads; a replica
fetcher copies the leader's batches here), or neither (no leader known yet, or this broker
is no replica any more). Only the leader answers clients: every other role answers
NOT_LEADER_OR_FOLLOWER (`check_leader`, `append`). The role comes from the partition's
registration in the cluster metadata (`make_leader` / `make_follower`); a single node leads
every partition alone (`lead_alone`, the ISR is this broker only).

The HW and ISR rules live in `pylog.replication.partition_state.PartitionState`, a pure
state machine this class feeds: a leader's appends (`leader_appended`), follower fetches
(`follower_fetched`), AlterPartition answers, the ISR-shrink timer. With this broker as
the only replica the HW follows the LEO at every append, as it always did. A follower's HW
is the leader's, capped at its own LEO (`update_follower_offsets`). Every HW rise wakes the
requests parked on this partition (long-poll fetches, acks=-1 produces, through
`DataWaiters`), and so does every append and every role change.

Leader epochs. The current epoch is the state's: the one the controller's registration of
the partition gives (`lead_alone` takes one by hand, for tools and tests). The history,
which epoch wrote which offsets, is the log's leader-epoch cache
(storage/leader_epoch_cache.py); becoming leader at a new epoch records its start offset
there before any append (Kafka's Partition.makeLeader). A follower's cache learns the epochs
from the batches it appends.

At open the HW is the `replication-offset-checkpoint`'s value (clamped to [log start, LEO]
when the partition first takes a role), as Kafka's broker reads it; a lone leader then
moves it to its LEO at once.

Every method runs on the broker's event loop; the loop serializes access to the partition's
storage log (not thread-safe) and to the replication state.
"""

from __future__ import annotations

from typing import Mapping

from protocol.error_codes import ErrorCode
from storage.config import LogConfig
from storage.log import AppendInfo, Log
from storage.log_validator import AppendOrigin
from storage.segment import FetchResult

from pylog import clock
from pylog.delayed import DataWaiters
from pylog.errors import BrokerError
from pylog.replication.follower_state import RegisteredBroker
from pylog.replication.partition_state import NO_LEADER, AcksVerdict, Outcome, PartitionState


NO_LEADER_EPOCH = -1   # a request's current_leader_epoch when the client does not say
DELETE_TO_HIGH_WATERMARK = -1   # DeleteRecords' offset meaning "everything below the HW"
REPLICA_LAG_TIME_MAX_MS_DEFAULT = 30_000


def registered_brokers(brokers: Mapping) -> dict[int, RegisteredBroker]:
    """The state machine's view of `pylog.metadata_image.BrokerRegistration`s."""
    return {broker_id: RegisteredBroker(b.epoch, b.fenced, b.in_controlled_shutdown)
            for broker_id, b in brokers.items()}


class Partition:
    def __init__(self, topic: str, index: int, log: Log, node_id: int, waiters: DataWaiters,
                 leader_epoch: int | None = 0, *, high_watermark: int = 0,
                 replica_lag_time_max_ms: int = REPLICA_LAG_TIME_MAX_MS_DEFAULT):
        """`leader_epoch`: lead alone at that epoch (never below an epoch the log already
        holds: assigning a lower one would cut its history); None: no role until the
        cluster metadata gives one. `high_watermark`: the checkpointed HW (Kafka's default
        without one: 0), clamped to [log start, LEO]."""
        self.topic = topic
        self.index = index
        self.log = log
        self.node_id = node_id
        self.waiters = waiters
        self.key = (topic, index)
        self.state = PartitionState(node_id, min_insync_replicas=log.config.min_insync_replicas,
                                    replica_lag_time_max_ms=replica_lag_time_max_ms)
        self.state.log_start_offset = log.log_start_offset
        self.state.log_end_offset = log.log_end_offset
        self.state.high_watermark = self._clamped(high_watermark)
        if leader_epoch is not None:
            self.lead_alone(max(leader_epoch, log.latest_epoch or 0))

    # -- offsets -----------------------------------------------------------------------

    @property
    def log_start_offset(self) -> int:
        return self.log.log_start_offset

    @property
    def log_end_offset(self) -> int:
        return self.log.log_end_offset

    @property
    def high_watermark(self) -> int:
        self._follow_log_end()
        return self.state.high_watermark

    def _follow_log_end(self) -> None:
        """Bring the state's LEO to the log's when the log moved without this class (a
        caller that appends to or cuts the storage log directly): a leader's log that grew
        counts as a leader append, one that shrank as a truncation."""
        log_end_offset = self.log.log_end_offset
        if log_end_offset == self.state.log_end_offset:
            return
        if self.state.is_leader and log_end_offset > self.state.log_end_offset:
            self._publish(self.state.leader_appended(log_end_offset, clock.now_ms()))
        else:
            self.truncated()

    @property
    def last_stable_offset(self) -> int:
        return self.high_watermark  # no transactions yet

    @property
    def config(self) -> LogConfig:
        return self.log.config

    def visible_end(self, isolation_level: int) -> int:
        return self.last_stable_offset if isolation_level == 1 else self.high_watermark

    def _clamped(self, offset: int) -> int:
        return min(max(offset, self.log.log_start_offset), self.log.log_end_offset)

    # -- roles -------------------------------------------------------------------------

    @property
    def leader_epoch(self) -> int:
        return self.state.leader_epoch

    @property
    def leader_id(self) -> int:
        return self.state.leader_id

    @property
    def is_leader(self) -> bool:
        return self.state.is_leader

    def check_leader_epoch(self, current_leader_epoch: int | None) -> int:
        """The error for a request made by a client that believes the leader is at
        `current_leader_epoch` (None: the client does not say, nothing to check; which
        raw values mean "not said" is each request's rule): FENCED_LEADER_EPOCH when the
        client is behind this replica, UNKNOWN_LEADER_EPOCH when it is ahead (it knows of a
        leader this node has not heard of yet), else NONE."""
        if current_leader_epoch is None or current_leader_epoch == self.leader_epoch:
            return ErrorCode.NONE
        if current_leader_epoch < self.leader_epoch:
            return ErrorCode.FENCED_LEADER_EPOCH
        return ErrorCode.UNKNOWN_LEADER_EPOCH

    def check_leader(self, current_leader_epoch: int | None) -> int:
        """The error for a request only the leader serves (Kafka's
        localLogWithEpochOrThrow with requireLeader): the epoch check first, then
        NOT_LEADER_OR_FOLLOWER when this broker does not lead."""
        error = self.check_leader_epoch(current_leader_epoch)
        if error == ErrorCode.NONE and not self.is_leader:
            return ErrorCode.NOT_LEADER_OR_FOLLOWER
        return error

    def not_leader_error(self) -> BrokerError:
        return BrokerError(ErrorCode.NOT_LEADER_OR_FOLLOWER,
                           f"Leader not local for partition {self.topic}-{self.index} on broker {self.node_id}")

    def _start_epoch(self, leader_epoch: int) -> None:
        """A new leader epoch starts at the LEO, recorded before any append so that
        OffsetForLeaderEpoch knows it even while nothing has been written in it; the
        checkpoint file takes it with the epoch's first append (no fsync on the event loop
        for each partition a restart or a leader change elects here)."""
        if leader_epoch > self.state.leader_epoch or not self.state.is_leader:
            self.log.assign_epoch_start_offset(leader_epoch, self.log.log_end_offset, write=False)

    def _sync_log_offsets(self) -> None:
        self.state.log_start_offset = self.log.log_start_offset
        self.state.log_end_offset = self.log.log_end_offset

    def lead_alone(self, leader_epoch: int) -> None:
        """Lead this partition at `leader_epoch` as its only replica (a single node). An
        epoch not above the current one changes nothing (Kafka skips such a become-leader
        change)."""
        state = self.state
        if state.is_leader and leader_epoch <= state.leader_epoch:
            return
        self._start_epoch(leader_epoch)
        self._sync_log_offsets()
        state.make_leader(leader_epoch=leader_epoch, partition_epoch=state.partition_epoch,
                          replicas=(self.node_id,), isr=(self.node_id,),
                          log_start_offset=self.log.log_start_offset, log_end_offset=self.log.log_end_offset,
                          high_watermark=state.high_watermark, now_ms=0)
        self.waiters.notify(self.key)

    def make_leader(self, registration, brokers: Mapping, now_ms: int) -> Outcome:
        """Lead per `registration` (a pylog.metadata_image.PartitionRegistration naming this
        broker leader); `brokers` are the registered brokers (BrokerRegistration by id).
        The registration this broker already leads by (same leader and partition epochs)
        only updates the brokers."""
        self._take_brokers(brokers)
        state = self.state
        if state.is_leader and (registration.leader_epoch, registration.partition_epoch) == \
                (state.leader_epoch, state.partition_epoch):
            # the same registration again (the brokers changed): a pending ISR change stays pending
            return Outcome(state.high_watermark)
        if registration.partition_epoch >= self.state.partition_epoch:
            self._start_epoch(registration.leader_epoch)
        self._sync_log_offsets()
        outcome = self.state.make_leader(
            leader_epoch=registration.leader_epoch, partition_epoch=registration.partition_epoch,
            replicas=registration.replicas, isr=registration.isr, log_start_offset=self.log.log_start_offset,
            log_end_offset=self.log.log_end_offset, high_watermark=self._clamped(self.state.high_watermark),
            now_ms=now_ms)
        self.waiters.notify(self.key)
        return outcome

    def make_follower(self, registration, brokers: Mapping) -> bool:
        """Follow `registration.leader` (NO_LEADER: none). True when the leader epoch
        rose (the fetcher must start again from this log's end)."""
        self._take_brokers(brokers)
        was_leader = self.state.is_leader
        rose = self.state.make_follower(leader_id=registration.leader, leader_epoch=registration.leader_epoch,
                                        partition_epoch=registration.partition_epoch,
                                        replicas=registration.replicas)
        self.state.high_watermark = self._clamped(self.state.high_watermark)
        if was_leader or rose:
            self.waiters.notify(self.key)   # parked produces and fetches answer NOT_LEADER_OR_FOLLOWER
        return rose

    def stop_replica(self) -> None:
        """This broker is no replica of the partition any more: no role, the log stays."""
        state = self.state
        state.make_follower(leader_id=NO_LEADER, leader_epoch=state.leader_epoch,
                            partition_epoch=state.partition_epoch, replicas=())
        self.waiters.notify(self.key)

    def _take_brokers(self, brokers: Mapping) -> None:
        registered = registered_brokers(brokers)
        own = registered.get(self.node_id)
        if own is not None:
            self.state.local_broker_epoch = own.broker_epoch
        self.state.update_brokers(registered)
        self.state.min_insync_replicas = self.config.min_insync_replicas

    def end_offset_for_epoch(self, leader_epoch: int) -> tuple[int, int]:
        """(epoch, end offset) answering "where did `leader_epoch` end?", or (-1, -1)
        (UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET) when the log cannot tell: the log's
        epoch cache answers (Kafka's LeaderEpochFileCache.endOffsetFor)."""
        return self.log.end_offset_for_epoch(leader_epoch)

    # -- the leader's side of replication -----------------------------------------------

    def _publish(self, outcome: Outcome) -> Outcome:
        if outcome.high_watermark_moved:
            self.waiters.notify(self.key)
        return outcome

    def check_follower_fetch(self, replica_id: int, current_leader_epoch: int | None) -> int:
        """The error for follower `replica_id`'s fetch before anything is read (Kafka's
        Partition.fetchRecords: localLogWithEpochOrThrow, then followerReplicaOrThrow)."""
        error = self.check_leader(current_leader_epoch)
        if error != ErrorCode.NONE:
            return error
        if replica_id not in self.state.followers:
            # a replica this leader has not heard of yet (a reassignment) retries on UNKNOWN_LEADER_EPOCH
            return ErrorCode.UNKNOWN_LEADER_EPOCH if current_leader_epoch is not None \
                else ErrorCode.NOT_LEADER_OR_FOLLOWER
        return ErrorCode.NONE

    def diverging_epoch(self, fetch_offset: int, last_fetched_epoch: int) -> tuple[int, int] | None:
        """Kafka's check of a fetcher's last fetched epoch (a follower's or a consumer's)
        against this leader's epoch cache (Partition.readRecords): (epoch, end offset) when
        the fetcher's log diverges (its epoch is unknown here or ended before
        `fetch_offset`), else None.
        Raises OFFSET_OUT_OF_RANGE (Kafka's messages) when the cache cannot tell, or the fetch
        offset is below the log start."""
        epoch, end_offset = self.end_offset_for_epoch(last_fetched_epoch)
        if epoch == -1 or end_offset == -1:
            raise BrokerError(ErrorCode.OFFSET_OUT_OF_RANGE, "Could not determine the end offset of the last "
                                                             f"fetched epoch {last_fetched_epoch} from the request")
        if fetch_offset < self.log_start_offset:
            raise BrokerError(ErrorCode.OFFSET_OUT_OF_RANGE,
                              f"Received request for offset {fetch_offset} for partition {self.topic}-{self.index}, "
                              f"but we only have log segments in the range {self.log_start_offset} to "
                              f"{self.log_end_offset}.")
        if epoch < last_fetched_epoch or end_offset < fetch_offset:
            return epoch, end_offset
        return None

    def read_for_follower(self, fetch_offset: int, max_bytes: int, min_one_batch: bool) -> FetchResult:
        """A follower reads up to the LEO, not the HW."""
        return self.log.read(fetch_offset, max_bytes, max_offset=self.log.log_end_offset,
                             min_one_batch=min_one_batch)

    def follower_fetched(self, replica_id: int, fetch_offset: int, log_start_offset: int,
                         broker_epoch: int, now_ms: int, sent_leader_epoch: bool) -> Outcome:
        return self._publish(self.state.follower_fetch(
            replica_id, fetch_offset=fetch_offset, log_start_offset=log_start_offset,
            broker_epoch=broker_epoch, now_ms=now_ms, sent_leader_epoch=sent_leader_epoch))

    def maybe_shrink_isr(self, now_ms: int) -> Outcome:
        return self.state.maybe_shrink_isr(now_ms)

    def alter_partition_accepted(self, request, *, leader_epoch: int, partition_epoch: int, isr,
                                 now_ms: int) -> Outcome:
        return self._publish(self.state.alter_partition_accepted(
            request, leader_epoch=leader_epoch, partition_epoch=partition_epoch, isr=isr, now_ms=now_ms))

    def alter_partition_refused(self, request, error: ErrorCode) -> Outcome:
        return self.state.alter_partition_refused(request, error)

    # -- acks ------------------------------------------------------------------------

    def check_append(self, required_acks: int) -> None:
        """Raise the refusal of a produce with `required_acks` before it appends:
        NOT_LEADER_OR_FOLLOWER, or NOT_ENOUGH_REPLICAS (acks=-1 with the ISR below the
        effective min.insync.replicas; Kafka's message)."""
        self.state.min_insync_replicas = self.config.min_insync_replicas
        code = self.state.check_append(required_acks)
        if code == ErrorCode.NOT_LEADER_OR_FOLLOWER:
            raise self.not_leader_error()
        if code == ErrorCode.NOT_ENOUGH_REPLICAS:
            isr = ", ".join(str(r) for r in self.state.isr)
            raise BrokerError(code, f"The size of the current ISR Set({isr}) is insufficient to satisfy "
                                    f"the min.isr requirement of {self.state.effective_min_isr} for partition "
                                    f"{self.topic}-{self.index}")
        if code != ErrorCode.NONE:
            raise BrokerError(code)

    def check_enough_replicas_reach_offset(self, required_offset: int) -> AcksVerdict:
        return self.state.check_enough_replicas_reach_offset(required_offset)

    # -- DeleteRecords ---------------------------------------------------------------

    def delete_records(self, offset: int) -> int:
        """Move the log start offset (the low watermark) up to `offset` (-1: the high
        watermark) and return the low watermark; an offset at or below the current log
        start changes nothing. Kafka's rules: only the leader (NOT_LEADER_OR_FOLLOWER); a
        topic whose cleanup.policy lacks `delete` refuses (POLICY_VIOLATION); a negative
        offset other than -1, or one past the high watermark, is OFFSET_OUT_OF_RANGE. The
        segments below stay until retention removes them; fetches below the new start get
        OFFSET_OUT_OF_RANGE at once. The producers stay until they expire, as in Kafka.
        The caller makes the move durable (LogManager.write_log_start_offsets) before it
        answers."""
        if not self.is_leader:
            raise self.not_leader_error()
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
        self.state.log_start_offset = self.log.log_start_offset
        return self.log_start_offset

    # -- produce and fetch -------------------------------------------------------------

    def append(self, records, now_ms: int, origin: AppendOrigin = AppendOrigin.CLIENT) -> AppendInfo:
        """Append records as this partition's leader (NOT_LEADER_OR_FOLLOWER otherwise):
        Kafka's rules for a batch from `origin` (storage/log_validator.py), then offsets
        and the leader epoch stamped in place, then written as they came (or as the
        topic's compression.type rebuilt them). The HW follows as the ISR allows."""
        if not self.is_leader:
            raise self.not_leader_error()
        self._follow_log_end()
        info = self.log.append(records, now_ms=now_ms, leader_epoch=self.leader_epoch, origin=origin)
        self.state.leader_appended(self.log.log_end_offset, now_ms)
        self.waiters.notify(self.key)   # follower fetches wait for the LEO, consumers for the HW
        return info

    def append_as_follower(self, records, now_ms: int) -> AppendInfo:
        """Append what the leader sent: offsets and epochs as they are (the epoch cache
        learns each batch's partitionLeaderEpoch)."""
        info = self.log.append(records, now_ms=now_ms, assign_offsets=False)
        self._sync_log_offsets()
        return info

    def update_follower_offsets(self, leader_high_watermark: int, leader_log_start_offset: int) -> bool:
        """A follower takes the leader's HW (capped at its LEO) and log start (capped at
        its HW); True when the HW changed."""
        new_high_watermark = min(leader_high_watermark, self.log.log_end_offset)
        moved = new_high_watermark != self.state.high_watermark
        self.state.high_watermark = new_high_watermark
        if leader_log_start_offset > self.log.log_start_offset:
            self.log.advance_log_start_offset(min(leader_log_start_offset, new_high_watermark))
        self._sync_log_offsets()
        if moved:
            self.waiters.notify(self.key)
        return moved

    def truncated(self) -> None:
        """The log was cut (a follower matching its leader): the HW stays below the LEO."""
        self._sync_log_offsets()
        self.state.high_watermark = self._clamped(self.state.high_watermark)

    def read(self, fetch_offset: int, max_bytes: int, isolation_level: int, min_one_batch: bool) -> FetchResult:
        return self.log.read(fetch_offset, max_bytes, max_offset=self.visible_end(isolation_level),
                             min_one_batch=min_one_batch)
