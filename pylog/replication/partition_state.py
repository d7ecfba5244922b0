"""One partition's replication state on this broker: the leader's high-watermark and ISR
rules as a pure state machine (Kafka's `Partition`, leader side).

Events in, decisions out. The caller (the broker) feeds what happened; each call returns
an `Outcome` with the HW after the event, whether it rose (then delayed fetches and
acks=all produces may complete), and an AlterPartition request to send, if any. Nothing
here does I/O, reads a clock, or touches the log: offsets and times come in as arguments.

    event                                   method                              Kafka
    this broker leads (new epoch or new     make_leader                         Partition.makeLeader
      metadata for the partition it leads)
    this broker follows                     make_follower                       Partition.makeFollower
    cluster metadata changed (brokers       update_brokers                      MetadataCache
      fenced, shutting down, re-registered)
    a follower fetched at an offset         follower_fetch                      updateFollowerFetchState
    the leader appended (its LEO moved)     leader_appended                     appendRecordsToLeader
    isr-expiration timer (every             maybe_shrink_isr                    ReplicaManager.maybeShrinkIsr
      replica.lag.time.max.ms / 2)
    AlterPartition answered                 alter_partition_accepted / _refused submitAlterPartition callback
    produce with acks=-1, before append     check_append                        appendRecordsToLeader
    acks=-1 produce waiting at an offset    check_enough_replicas_reach_offset  DelayedProduce.tryComplete

The rules
---------
Effective min ISR = min(`min.insync.replicas`, number of assigned replicas).

HW (`_maybe_increment_high_watermark`, after a follower's LEO changed, a leader append, an
accepted AlterPartition and make_leader; never on time alone):
  - nothing moves while the committed ISR is smaller than the effective min ISR;
  - candidate = the leader's LEO, lowered to the LEO of every follower that is in the
    maximal ISR, or is caught up (see follower_state.py) and ISR-eligible: a caught-up
    follower about to join holds the HW back, so that it can join at all;
  - the HW takes the candidate if it is larger, never a smaller one.

ISR expansion (`_maybe_expand_isr`, after each follower fetch): no AlterPartition in flight,
the follower not in the ISR, ISR-eligible, and its LEO >= HW and >= the leader epoch start
offset (caught up to the HW, and into this leader's epoch, so that electing it cannot lose
committed records). The lag time is not checked. The follower is in the maximal ISR at once.

ISR shrink (`maybe_shrink_isr`): no AlterPartition in flight; every ISR follower that is
not caught up (LEO != leader LEO and not caught up within the lag time) leaves, in one
request. The maximal ISR keeps them until the controller agrees. The min ISR is not
consulted: the ISR may shrink to the leader alone.

acks=-1 (`min.insync.replicas`): before the append, a committed ISR smaller than the
effective min ISR refuses with NOT_ENOUGH_REPLICAS (nothing written). A waiting produce
whose required offset (last offset + 1) the HW has reached is done, with
NOT_ENOUGH_REPLICAS_AFTER_APPEND when the maximal ISR is then smaller than the effective
min ISR (its records are written and may already be visible), else NONE.

HW on a leader change: the new leader keeps the HW it had (as a follower, or from
`replication-offset-checkpoint`), clamped to [log start, LEO], even when it is behind the
old leader's; it forgets every follower LEO, so the HW rises only once each maximal-ISR
member has fetched in the new epoch up to the new value. A leader that stays leader
through a new epoch keeps its followers' LEOs.

Invariants (checked against a model in tests/pylog/replication/test_partition_state.py):
  - while this broker leads the HW never decreases, and log start <= HW <= LEO;
  - when the HW rises to h, every maximal-ISR follower had LEO >= h at that moment;
  - maximal ISR = ISR, or ISR + one joining follower; the ISR itself changes only by
    metadata (make_leader) or an accepted AlterPartition;
  - at most one AlterPartition is in flight: a request is proposed only from Committed,
    and always for the current leader and partition epochs;
  - an acks=-1 produce is done exactly when the HW has reached its required offset.

Access: the broker's event loop serializes every call; the object is not thread-safe.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, NamedTuple

from protocol.error_codes import ErrorCode

from pylog.replication.follower_state import (
    UNKNOWN_OFFSET,
    FollowerState,
    RegisteredBroker,
    is_isr_eligible,
    is_stale_fetch,
)
from pylog.replication.isr_state import (
    AWAIT_METADATA_ERRORS,
    RESET_TO_COMMITTED_ERRORS,
    AlterPartitionRequest,
    CommittedIsr,
    IsrState,
    PendingExpandIsr,
    PendingShrinkIsr,
)

NO_LEADER = -1
INITIAL_PARTITION_EPOCH = 0
REPLICA_LAG_TIME_MAX_MS_DEFAULT = 30_000
ACKS_ALL = -1


@dataclass(frozen=True)
class Outcome:
    """What one event changed. `high_watermark` is the HW after it; `high_watermark_moved`
    says it rose (complete delayed fetches and produces); `alter_partition` is a request
    to send to the controller; `error` is the answer for the event's request (a follower
    fetch), NONE if it was accepted; `ignored` says the event was stale and changed nothing."""

    high_watermark: int
    high_watermark_moved: bool = False
    alter_partition: AlterPartitionRequest | None = None
    error: ErrorCode = ErrorCode.NONE
    ignored: bool = False


class AcksVerdict(NamedTuple):
    """Kafka's `checkEnoughReplicasReachOffset`: `done` false means keep waiting."""

    done: bool
    error: ErrorCode


class PartitionState:
    def __init__(self, local_broker_id: int, *, min_insync_replicas: int = 1,
                 replica_lag_time_max_ms: int = REPLICA_LAG_TIME_MAX_MS_DEFAULT,
                 local_broker_epoch: int = -1):
        self.local_broker_id = local_broker_id
        self.min_insync_replicas = min_insync_replicas    # the topic's config; may change any time
        self.replica_lag_time_max_ms = replica_lag_time_max_ms
        self.local_broker_epoch = local_broker_epoch
        self.leader_id = NO_LEADER
        self.leader_epoch = -1
        self.partition_epoch = INITIAL_PARTITION_EPOCH
        self.leader_epoch_start_offset: int | None = None   # set while leader
        self.replicas: tuple[int, ...] = ()
        self.followers: dict[int, FollowerState] = {}        # kept while leader
        self.isr_state: IsrState = CommittedIsr(())
        self.brokers: Mapping[int, RegisteredBroker] = {}
        self.log_start_offset = 0
        self.log_end_offset = 0
        self.high_watermark = 0

    # -- views -----------------------------------------------------------------------

    @property
    def is_leader(self) -> bool:
        return self.leader_id == self.local_broker_id

    @property
    def isr(self) -> tuple[int, ...]:
        """The committed ISR (the controller's)."""
        return self.isr_state.isr

    @property
    def maximal_isr(self) -> tuple[int, ...]:
        return self.isr_state.maximal_isr

    @property
    def in_flight(self) -> bool:
        return self.isr_state.in_flight

    @property
    def effective_min_isr(self) -> int:
        return min(self.min_insync_replicas, len(self.followers) + 1)

    @property
    def under_min_isr(self) -> bool:
        return self.is_leader and len(self.isr) < self.effective_min_isr

    def _outcome(self, moved: bool = False, request: AlterPartitionRequest | None = None,
                 error: ErrorCode = ErrorCode.NONE, ignored: bool = False) -> Outcome:
        return Outcome(self.high_watermark, moved, request, error, ignored)

    # -- metadata --------------------------------------------------------------------

    def update_brokers(self, brokers: Mapping[int, RegisteredBroker]) -> None:
        """The registered brokers as the cluster metadata shows them (absent: not
        registered). The mapping is kept, not copied: a broker may hand every partition the
        same one and update it in place. Eligibility is read at the next event; a change
        alone moves nothing (as in Kafka, where a broker's fencing retries no HW)."""
        self.brokers = brokers

    def make_leader(self, *, leader_epoch: int, partition_epoch: int, replicas: Iterable[int],
                    isr: Iterable[int], log_start_offset: int, log_end_offset: int,
                    high_watermark: int, now_ms: int) -> Outcome:
        """This broker leads the partition, per metadata at (`leader_epoch`,
        `partition_epoch`). The log offsets are the local log's as they are now; the HW
        given is used only when this broker was not leading already (it then keeps it,
        clamped to [log start, LEO]). Metadata with an older partition epoch is ignored."""
        if partition_epoch < self.partition_epoch:
            return self._outcome(ignored=True)
        is_new_leader = not self.is_leader
        is_new_leader_epoch = leader_epoch > self.leader_epoch
        self.replicas = tuple(replicas)
        wanted = [r for r in self.replicas if r != self.local_broker_id]
        if not is_new_leader:
            self.followers = {r: self.followers.get(r, FollowerState()) for r in wanted}
        else:
            self.followers = {r: FollowerState() for r in wanted}
        isr = tuple(isr)
        self.isr_state = CommittedIsr(isr)
        self.log_start_offset = log_start_offset
        self.log_end_offset = log_end_offset
        if is_new_leader:
            self.high_watermark = min(max(high_watermark, log_start_offset), log_end_offset)
        if is_new_leader_epoch:
            start = log_end_offset
            in_isr = set(isr)
            self.followers = {
                r: f.reset(now_ms, start, is_new_leader, r in in_isr) for r, f in self.followers.items()
            }
            self.leader_epoch = leader_epoch
            self.leader_epoch_start_offset = start
        self.partition_epoch = partition_epoch
        self.leader_id = self.local_broker_id
        return self._outcome(self._maybe_increment_high_watermark(now_ms))

    def make_follower(self, *, leader_id: int, leader_epoch: int, partition_epoch: int,
                      replicas: Iterable[int]) -> bool:
        """This broker follows `leader_id` (NO_LEADER: none). Returns whether the leader
        epoch rose (the caller restarts its fetcher). Older partition epochs are ignored.
        The HW stays as it is; the follower side moves it."""
        if partition_epoch < self.partition_epoch:
            return False
        is_new_leader_epoch = leader_epoch > self.leader_epoch
        self.leader_id = leader_id
        self.leader_epoch = leader_epoch
        self.leader_epoch_start_offset = None
        self.partition_epoch = partition_epoch
        self.replicas = tuple(replicas)
        self.followers = {}
        self.isr_state = CommittedIsr(())
        return is_new_leader_epoch

    # -- leader events ---------------------------------------------------------------

    def follower_fetch(self, replica_id: int, *, fetch_offset: int, log_start_offset: int,
                       broker_epoch: int, now_ms: int, sent_leader_epoch: bool = True) -> Outcome:
        """Follower `replica_id` fetched from `fetch_offset` (its LEO), after the read
        succeeded without a diverging epoch (a diverging fetch tells nothing about the
        follower and is not reported). `broker_epoch` is the fetch's ReplicaEpoch (-1: not
        sent). Errors: NOT_LEADER_OR_FOLLOWER when not leading or the broker epoch is stale;
        a replica id that is not a follower gets UNKNOWN_LEADER_EPOCH when the fetch named
        a leader epoch (it may be a replica this leader has not heard of yet), else
        NOT_LEADER_OR_FOLLOWER."""
        if not self.is_leader:
            return self._outcome(error=ErrorCode.NOT_LEADER_OR_FOLLOWER)
        follower = self.followers.get(replica_id)
        if follower is None:
            code = ErrorCode.UNKNOWN_LEADER_EPOCH if sent_leader_epoch else ErrorCode.NOT_LEADER_OR_FOLLOWER
            return self._outcome(error=code)
        if fetch_offset > self.log_end_offset:
            raise ValueError(f"fetch offset {fetch_offset} is past the leader's LEO {self.log_end_offset}")
        if is_stale_fetch(broker_epoch, self.brokers.get(replica_id)):
            return self._outcome(error=ErrorCode.NOT_LEADER_OR_FOLLOWER)
        self.followers[replica_id] = follower.after_fetch(
            fetch_offset, log_start_offset, now_ms, self.log_end_offset, broker_epoch)
        request = self._maybe_expand_isr(replica_id)
        moved = False
        if fetch_offset != follower.log_end_offset:
            moved = self._maybe_increment_high_watermark(now_ms)
        return self._outcome(moved, request)

    def check_append(self, required_acks: int) -> ErrorCode:
        """The verdict before a produce appends here: NOT_LEADER_OR_FOLLOWER when not
        leading; NOT_ENOUGH_REPLICAS for acks=-1 while the committed ISR is smaller than the
        effective min ISR; else NONE. (Whether `required_acks` is one of -1, 0, 1 is the
        Produce request's check, INVALID_REQUIRED_ACKS.)"""
        if not self.is_leader:
            return ErrorCode.NOT_LEADER_OR_FOLLOWER
        if required_acks == ACKS_ALL and len(self.isr) < self.effective_min_isr:
            return ErrorCode.NOT_ENOUGH_REPLICAS
        return ErrorCode.NONE

    def leader_appended(self, log_end_offset: int, now_ms: int) -> Outcome:
        """The leader's log grew to `log_end_offset` (an append as leader: a produce, a
        coordinator's write). With no follower to wait for, the HW follows at once."""
        if not self.is_leader:
            raise ValueError("leader_appended on a partition this broker does not lead")
        if log_end_offset < self.log_end_offset:
            raise ValueError(f"the leader's LEO cannot go back from {self.log_end_offset} to {log_end_offset}")
        self.log_end_offset = log_end_offset
        return self._outcome(self._maybe_increment_high_watermark(now_ms))

    def out_of_sync_replicas(self, now_ms: int) -> tuple[int, ...]:
        """ISR followers that are not caught up (Kafka's `getOutOfSyncReplicas`); none while
        an AlterPartition is in flight."""
        if self.in_flight:
            return ()
        out = []
        for r in self.isr:
            if r == self.local_broker_id:
                continue
            f = self.followers.get(r)
            if f is None or not f.is_caught_up(self.log_end_offset, now_ms, self.replica_lag_time_max_ms):
                out.append(r)
        return tuple(out)

    def maybe_shrink_isr(self, now_ms: int) -> Outcome:
        if not self.is_leader or self.in_flight:
            return self._outcome()
        out = self.out_of_sync_replicas(now_ms)
        if not out:
            return self._outcome()
        committed = self.isr_state
        assert isinstance(committed, CommittedIsr)
        leaving = set(out)
        request = self._request([r for r in committed.isr if r not in leaving])
        self.isr_state = PendingShrinkIsr(out, request, committed)
        return self._outcome(request=request)

    # -- AlterPartition answers --------------------------------------------------------

    def alter_partition_accepted(self, request: AlterPartitionRequest, *, leader_epoch: int,
                                 partition_epoch: int, isr: Iterable[int], now_ms: int) -> Outcome:
        """The controller answered `request` with NONE and this partition state. Ignored
        (the state stays as it is) when `request` is no longer the pending one, or the
        answer has another leader epoch or an older partition epoch; else the ISR is
        committed, the partition epoch adopted, and the HW retried."""
        if not self._is_pending(request):
            return self._outcome(ignored=True)
        if leader_epoch != self.leader_epoch or partition_epoch < self.partition_epoch:
            return self._outcome(ignored=True)
        self.isr_state = CommittedIsr(tuple(isr))
        self.partition_epoch = partition_epoch
        return self._outcome(self._maybe_increment_high_watermark(now_ms))

    def alter_partition_refused(self, request: AlterPartitionRequest, error: ErrorCode) -> Outcome:
        """The controller answered `request` with `error` for this partition. The outcome's
        `alter_partition` is set when the same request must be sent again."""
        if not self._is_pending(request):
            return self._outcome(ignored=True)
        if error in RESET_TO_COMMITTED_ERRORS:
            self.isr_state = self.isr_state.last_committed
            return self._outcome()
        if error in AWAIT_METADATA_ERRORS:
            return self._outcome()
        return self._outcome(request=request)

    def _is_pending(self, request: AlterPartitionRequest) -> bool:
        return self.isr_state.in_flight and self.isr_state.sent == request

    # -- acks=-1 ---------------------------------------------------------------------

    def check_enough_replicas_reach_offset(self, required_offset: int) -> AcksVerdict:
        if not self.is_leader:
            return AcksVerdict(False, ErrorCode.NOT_LEADER_OR_FOLLOWER)
        if self.high_watermark < required_offset:
            return AcksVerdict(False, ErrorCode.NONE)
        if len(self.maximal_isr) < self.effective_min_isr:
            return AcksVerdict(True, ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND)
        return AcksVerdict(True, ErrorCode.NONE)

    # -- the rules -------------------------------------------------------------------

    def _eligible(self, replica_id: int) -> bool:
        follower = self.followers.get(replica_id)
        return follower is not None and is_isr_eligible(follower, self.brokers.get(replica_id))

    def _maybe_increment_high_watermark(self, now_ms: int) -> bool:
        if self.under_min_isr:
            return False
        leader_leo = self.log_end_offset
        maximal = set(self.maximal_isr)
        candidate = leader_leo
        for r, f in self.followers.items():
            if f.log_end_offset >= candidate:
                continue
            if r in maximal or (f.is_caught_up(leader_leo, now_ms, self.replica_lag_time_max_ms)
                                and self._eligible(r)):
                candidate = f.log_end_offset
        if candidate > self.high_watermark:
            self.high_watermark = candidate
            return True
        return False

    def _maybe_expand_isr(self, replica_id: int) -> AlterPartitionRequest | None:
        state = self.isr_state
        if state.in_flight or replica_id in state.isr or not self._eligible(replica_id):
            return None
        leo = self.followers[replica_id].log_end_offset
        if leo < self.high_watermark or self.leader_epoch_start_offset is None \
                or leo < self.leader_epoch_start_offset:
            return None
        request = self._request(state.isr + (replica_id,))
        self.isr_state = PendingExpandIsr(replica_id, request, state)
        return request

    def _request(self, new_isr: Iterable[int]) -> AlterPartitionRequest:
        members = []
        for r in new_isr:
            if r == self.local_broker_id:
                epoch = self.local_broker_epoch
            else:
                f = self.followers.get(r)
                epoch = f.broker_epoch if f is not None and f.broker_epoch is not None else -1
            members.append((r, epoch))
        return AlterPartitionRequest(broker_id=self.local_broker_id, broker_epoch=self.local_broker_epoch,
                                     leader_epoch=self.leader_epoch, partition_epoch=self.partition_epoch,
                                     new_isr_with_epochs=tuple(members))


__all__ = ["AcksVerdict", "Outcome", "PartitionState", "UNKNOWN_OFFSET"]
