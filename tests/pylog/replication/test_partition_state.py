"""The leader's HW and ISR rules (pylog/replication/partition_state.py), event by event.

Part 1 walks each rule once, in the spirit of Kafka's PartitionTest (names in the test
docstrings). Part 2 is a Hypothesis state machine that drives the partition with random
events and compares every outcome with a model that keeps only the history (fetches,
appends, metadata, answers) and recomputes the HW, the ISR and the verdicts from it.

Times are in ms on a made-up clock that starts far from 0, as a broker's would; broker 0
is the local broker and leads unless a test says otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import hypothesis.strategies as st
import pytest
from hypothesis import HealthCheck, settings
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from protocol.error_codes import ErrorCode
from pylog.replication.follower_state import UNKNOWN_OFFSET, FollowerState, RegisteredBroker
from pylog.replication.isr_state import (
    AWAIT_METADATA_ERRORS,
    RESET_TO_COMMITTED_ERRORS,
    AlterPartitionRequest,
    CommittedIsr,
    PendingExpandIsr,
    PendingShrinkIsr,
)
from pylog.replication.alter_partition_manager import isr_expiration_interval_ms
from pylog.replication.partition_state import AcksVerdict, PartitionState

LAG_MS = 10_000
T0 = 1_000_000
LOCAL = 0
LOCAL_EPOCH = 50


def broker_epoch(broker_id: int) -> int:
    return 100 + broker_id


def make_partition(*, replicas=(0, 1, 2), isr=(0, 1, 2), log_end_offset=10, high_watermark=0,
                   min_insync_replicas=1, leader_epoch=5, partition_epoch=1, now_ms=T0,
                   log_start_offset=0) -> PartitionState:
    p = PartitionState(LOCAL, min_insync_replicas=min_insync_replicas, replica_lag_time_max_ms=LAG_MS,
                       local_broker_epoch=LOCAL_EPOCH)
    p.update_brokers({b: RegisteredBroker(broker_epoch(b)) for b in range(5)})
    p.make_leader(leader_epoch=leader_epoch, partition_epoch=partition_epoch, replicas=replicas, isr=isr,
                  log_start_offset=log_start_offset, log_end_offset=log_end_offset,
                  high_watermark=high_watermark, now_ms=now_ms)
    return p


def fetch(p: PartitionState, replica: int, offset: int, now_ms: int, *, epoch: int | None = None,
          sent_leader_epoch: bool = True):
    return p.follower_fetch(replica, fetch_offset=offset, log_start_offset=0,
                            broker_epoch=broker_epoch(replica) if epoch is None else epoch,
                            now_ms=now_ms, sent_leader_epoch=sent_leader_epoch)


def accept(p: PartitionState, request: AlterPartitionRequest, now_ms: int, *, partition_epoch=None,
           leader_epoch=None, isr=None):
    return p.alter_partition_accepted(
        request, leader_epoch=request.leader_epoch if leader_epoch is None else leader_epoch,
        partition_epoch=request.partition_epoch + 1 if partition_epoch is None else partition_epoch,
        isr=request.new_isr if isr is None else isr, now_ms=now_ms)


# =======================================================================================
# Part 1: each rule once
# =======================================================================================


class TestHighWatermark:
    def test_hw_is_the_minimum_leo_of_the_isr(self):
        p = make_partition()
        assert p.high_watermark == 0
        out = fetch(p, 1, 10, T0 + 1)
        assert (out.high_watermark, out.high_watermark_moved) == (0, False)   # 2 still at unknown
        out = fetch(p, 2, 7, T0 + 2)
        assert (out.high_watermark, out.high_watermark_moved) == (7, True)
        out = fetch(p, 2, 10, T0 + 3)
        assert (out.high_watermark, out.high_watermark_moved) == (10, True)

    def test_single_replica_hw_follows_the_leader_append(self):
        p = make_partition(replicas=(0,), isr=(0,), log_end_offset=0)
        out = p.leader_appended(3, T0)
        assert (out.high_watermark, out.high_watermark_moved) == (3, True)

    def test_hw_never_decreases_when_a_follower_goes_back(self):
        p = make_partition(replicas=(0, 1), isr=(0, 1))
        fetch(p, 1, 10, T0 + 1)
        assert p.high_watermark == 10
        out = fetch(p, 1, 4, T0 + 2)     # e.g. a follower that restarted and lost unflushed data
        assert (out.high_watermark, out.high_watermark_moved) == (10, False)
        assert p.followers[1].log_end_offset == 4

    def test_hw_only_recomputed_when_the_follower_leo_changes(self):
        """Kafka's updateFollowerFetchState: a fetch that leaves the follower's LEO as it was
        does not retry the HW, even though time took a caught-up follower out of the set
        the HW waits for; the next trigger (here a leader append) does."""
        p = make_partition(replicas=(0, 1, 2, 3), isr=(0, 1), log_end_offset=10)
        assert fetch(p, 3, 10, T0 + 1).alter_partition.new_isr == (0, 1, 3)
        assert fetch(p, 2, 10, T0 + 1).alter_partition is None    # caught up, but one change at a time
        p.leader_appended(20, T0 + 2)
        fetch(p, 1, 20, T0 + 2)
        fetch(p, 3, 20, T0 + 2)
        fetch(p, 2, 15, T0 + 2)                  # caught up as of its previous fetch: holds the HW
        assert p.high_watermark == 15
        later = T0 + 1 + LAG_MS + 1              # follower 2 is no longer caught up
        out = fetch(p, 1, 20, later)
        assert (out.high_watermark, out.high_watermark_moved) == (15, False)
        out = p.leader_appended(22, later)
        assert (out.high_watermark, out.high_watermark_moved) == (20, True)

    def test_joining_follower_holds_the_hw_at_once(self):
        """A follower outside the ISR that has never been caught up does not hold the HW;
        once it reaches the HW it joins, and the maximal ISR waits for it before the
        controller has agreed (KIP-497)."""
        p = make_partition(replicas=(0, 1, 2), isr=(0, 1), log_end_offset=10, high_watermark=0)
        fetch(p, 1, 10, T0 + 1)
        assert p.high_watermark == 10
        # 2 is outside the ISR with lastCaughtUpTimeMs 0: not caught up, does not hold the HW
        p.leader_appended(20, T0 + 2)
        out = fetch(p, 1, 20, T0 + 3)
        assert out.high_watermark == 20
        # 2 fetches at the leader's LEO: caught up; it joins (pending) and holds from now on
        out = fetch(p, 2, 20, T0 + 4)
        assert out.alter_partition is not None and out.alter_partition.new_isr == (0, 1, 2)
        p.leader_appended(30, T0 + 5)
        fetch(p, 1, 30, T0 + 6)
        assert p.high_watermark == 20

    def test_fenced_or_shutting_down_follower_does_not_hold_the_hw(self):
        """PartitionTest.testHighWatermarkIncreasesWithFencedOrShutdownFollower."""
        p = make_partition(replicas=(0, 1, 2), isr=(0, 1), log_end_offset=10)
        p.update_brokers({0: RegisteredBroker(LOCAL_EPOCH), 1: RegisteredBroker(broker_epoch(1)),
                          2: RegisteredBroker(broker_epoch(2), fenced=True)})
        out = fetch(p, 2, 10, T0 + 1)                      # caught up, but fenced: no expansion
        assert out.alter_partition is None
        p.leader_appended(20, T0 + 2)
        fetch(p, 2, 15, T0 + 3)                             # caught up as of its previous fetch
        assert fetch(p, 1, 20, T0 + 4).high_watermark == 20   # fenced 2 does not hold it at 15
        p.update_brokers({0: RegisteredBroker(LOCAL_EPOCH), 1: RegisteredBroker(broker_epoch(1)),
                          2: RegisteredBroker(broker_epoch(2), in_controlled_shutdown=True)})
        p.leader_appended(30, T0 + 5)
        fetch(p, 2, 25, T0 + 6)
        assert fetch(p, 1, 30, T0 + 7).high_watermark == 30
        p.update_brokers({b: RegisteredBroker(broker_epoch(b)) for b in range(3)})
        p.leader_appended(40, T0 + 8)
        out = fetch(p, 2, 35, T0 + 9)                       # eligible now: joins and holds
        assert out.alter_partition is not None
        assert fetch(p, 1, 40, T0 + 10).high_watermark == 35

    def test_hw_does_not_advance_under_min_isr(self):
        """PartitionTest.testHighWatermarkAdvanceShouldNotAdvanceWhenUnderMinISR."""
        p = make_partition(replicas=(0, 1, 2), isr=(0,), min_insync_replicas=2, log_end_offset=0)
        assert p.under_min_isr
        assert p.leader_appended(5, T0 + 1).high_watermark == 0        # even acks=1 data stays invisible
        out = fetch(p, 1, 5, T0 + 2)                                    # joins: pending, ISR still {0}
        assert isinstance(p.isr_state, PendingExpandIsr)
        assert out.high_watermark == 0
        out = accept(p, out.alter_partition, T0 + 3)
        assert (out.high_watermark, out.high_watermark_moved) == (5, True)
        assert p.isr == (0, 1) and not p.under_min_isr

    def test_effective_min_isr_is_capped_by_the_replica_count(self):
        p = make_partition(replicas=(0, 1), isr=(0, 1), min_insync_replicas=3)
        assert p.effective_min_isr == 2 and not p.under_min_isr
        assert fetch(p, 1, 10, T0 + 1).high_watermark == 10

    def test_hw_never_exceeds_leo_and_starts_clamped(self):
        p = make_partition(log_end_offset=10, high_watermark=50)
        assert p.high_watermark == 10
        p = make_partition(log_end_offset=10, high_watermark=2, log_start_offset=4)
        assert p.high_watermark == 4


class TestLastCaughtUpTime:
    def test_fetch_at_leader_leo_is_caught_up_now(self):
        f = FollowerState().after_fetch(10, 0, T0, leader_log_end_offset=10, broker_epoch=1)
        assert f.last_caught_up_time_ms == T0
        assert f.log_end_offset == 10 and f.broker_epoch == 1

    def test_fetch_reaching_the_previous_fetch_leo_is_caught_up_then(self):
        f = FollowerState().after_fetch(5, 0, T0, leader_log_end_offset=10, broker_epoch=1)
        assert f.last_caught_up_time_ms == 0
        f = f.after_fetch(10, 0, T0 + 500, leader_log_end_offset=15, broker_epoch=1)
        assert f.last_caught_up_time_ms == T0          # it has what the leader had at T0
        f = f.after_fetch(12, 0, T0 + 900, leader_log_end_offset=20, broker_epoch=1)
        assert f.last_caught_up_time_ms == T0          # below 15: no news
        assert f.last_fetch_leader_log_end_offset == 20

    def test_should_not_shrink_isr_if_previous_fetch_is_caught_up(self):
        """PartitionTest.testShouldNotShrinkIsrIfPreviousFetchIsCaughtUp: a follower that
        never reaches the leader's moving LEO stays in the ISR while each fetch reaches
        the LEO of the one before."""
        p = make_partition(replicas=(0, 1), isr=(0, 1), log_end_offset=10)
        assert p.followers[1].last_caught_up_time_ms == T0
        assert p.followers[1].log_end_offset == UNKNOWN_OFFSET
        first = T0 + 5000
        fetch(p, 1, 5, first)
        assert p.followers[1].last_caught_up_time_ms == T0
        p.leader_appended(15, first + 1)
        second = first + LAG_MS - 1
        fetch(p, 1, 10, second)                      # 10 = leader LEO at the first fetch
        assert p.followers[1].last_caught_up_time_ms == first
        assert p.maybe_shrink_isr(first + LAG_MS).alter_partition is None
        assert p.maybe_shrink_isr(first + LAG_MS + 1).alter_partition.new_isr == (0,)

    def test_caught_up_by_equal_leo_regardless_of_time(self):
        f = FollowerState(log_end_offset=10, last_caught_up_time_ms=0)
        assert f.is_caught_up(10, T0, LAG_MS)
        assert not f.is_caught_up(11, T0, LAG_MS)
        assert FollowerState(last_caught_up_time_ms=T0).is_caught_up(11, T0 + LAG_MS, LAG_MS)
        assert not FollowerState(last_caught_up_time_ms=T0).is_caught_up(11, T0 + LAG_MS + 1, LAG_MS)


class TestIsrExpansion:
    def test_isr_expansion(self):
        """PartitionTest.testIsrExpansion: the follower joins when it reaches the HW."""
        p = make_partition(replicas=(0, 1), isr=(0,), log_end_offset=10, high_watermark=10)
        assert fetch(p, 1, 3, T0 + 1).alter_partition is None
        assert p.isr_state == CommittedIsr((0,))
        out = fetch(p, 1, 10, T0 + 2)
        req = out.alter_partition
        assert req == AlterPartitionRequest(broker_id=0, broker_epoch=LOCAL_EPOCH, leader_epoch=5,
                                            partition_epoch=1, new_isr_with_epochs=((0, LOCAL_EPOCH),
                                                                                     (1, broker_epoch(1))))
        assert p.isr == (0,) and p.maximal_isr == (0, 1) and p.in_flight
        out = accept(p, req, T0 + 3)
        assert not out.ignored
        assert p.isr_state == CommittedIsr((0, 1)) and p.partition_epoch == 2

    def test_joins_at_the_hw_not_the_leo(self):
        p = make_partition(replicas=(0, 1), isr=(0,), log_end_offset=10, high_watermark=10)
        p.leader_appended(20, T0 + 1)
        assert p.high_watermark == 20
        out = fetch(p, 1, 20, T0 + 2)
        assert out.alter_partition is not None

    def test_does_not_join_until_caught_up_to_the_leader_epoch_start(self):
        """PartitionTest.testFollowerDoesNotJoinISRUntilCaughtUpToOffsetWithinCurrentLeaderEpoch."""
        p = make_partition(replicas=(0, 1, 2), isr=(0, 2), log_end_offset=10, high_watermark=0)
        assert p.leader_epoch_start_offset == 10
        assert fetch(p, 1, 5, T0 + 1).alter_partition is None      # >= HW 0, but in an old epoch
        p.leader_appended(12, T0 + 2)
        assert fetch(p, 1, 10, T0 + 3).alter_partition.new_isr == (0, 2, 1)

    def test_not_expanded_if_fenced_shutting_down_or_other_broker_epoch(self):
        """PartitionTest.testIsrNotExpandedIfReplicaIsFencedOrShutdown, and the broker epoch
        rule (KIP-903)."""
        p = make_partition(replicas=(0, 1), isr=(0,), log_end_offset=10, high_watermark=10)
        for view in (RegisteredBroker(broker_epoch(1), fenced=True),
                     RegisteredBroker(broker_epoch(1), in_controlled_shutdown=True)):
            p.update_brokers({0: RegisteredBroker(LOCAL_EPOCH), 1: view})
            assert fetch(p, 1, 10, T0 + 1).alter_partition is None
        p.update_brokers({0: RegisteredBroker(LOCAL_EPOCH)})                  # not registered
        assert fetch(p, 1, 10, T0 + 2).alter_partition is None
        p.update_brokers({0: RegisteredBroker(LOCAL_EPOCH), 1: RegisteredBroker(broker_epoch(1))})
        # a fetch that carries a newer broker epoch than the metadata has yet: not eligible
        out = fetch(p, 1, 10, T0 + 3, epoch=broker_epoch(1) + 1)
        assert out.error == ErrorCode.NONE and out.alter_partition is None
        # no broker epoch in the fetch (-1) skips the epoch comparison
        assert fetch(p, 1, 10, T0 + 4, epoch=-1).alter_partition.new_isr_with_epochs == \
            ((0, LOCAL_EPOCH), (1, -1))

    def test_fetch_with_a_stale_broker_epoch_is_fenced(self):
        """PartitionTest.testFenceFollowerFetchWithStaleBrokerEpoch."""
        p = make_partition(replicas=(0, 1), isr=(0,), log_end_offset=10, high_watermark=10)
        out = fetch(p, 1, 10, T0 + 1, epoch=broker_epoch(1) - 1)
        assert out.error == ErrorCode.NOT_LEADER_OR_FOLLOWER and out.alter_partition is None
        assert p.followers[1].log_end_offset == UNKNOWN_OFFSET      # nothing recorded

    def test_fetch_from_a_replica_not_assigned(self):
        p = make_partition(replicas=(0, 1), isr=(0, 1))
        assert fetch(p, 3, 0, T0).error == ErrorCode.UNKNOWN_LEADER_EPOCH
        assert fetch(p, 3, 0, T0, sent_leader_epoch=False).error == ErrorCode.NOT_LEADER_OR_FOLLOWER
        assert fetch(p, LOCAL, 0, T0).error == ErrorCode.UNKNOWN_LEADER_EPOCH

    def test_fetch_when_not_leader(self):
        p = make_partition(replicas=(0, 1), isr=(0, 1))
        p.make_follower(leader_id=1, leader_epoch=6, partition_epoch=2, replicas=(0, 1))
        assert fetch(p, 1, 0, T0).error == ErrorCode.NOT_LEADER_OR_FOLLOWER

    def test_fetch_past_the_leo_is_a_caller_bug(self):
        p = make_partition(replicas=(0, 1), isr=(0, 1), log_end_offset=10)
        with pytest.raises(ValueError):
            fetch(p, 1, 11, T0)


class TestIsrShrink:
    def test_maybe_shrink_isr(self):
        """PartitionTest.testMaybeShrinkIsr: a stuck follower leaves after the lag time."""
        p = make_partition(replicas=(0, 1, 2), isr=(0, 1, 2), log_end_offset=10)
        fetch(p, 1, 10, T0 + 1)
        assert p.high_watermark == 0                      # 2 has not fetched in this epoch
        assert p.maybe_shrink_isr(T0 + LAG_MS).alter_partition is None   # reset counts as caught up
        out = p.maybe_shrink_isr(T0 + LAG_MS + 1)
        assert out.alter_partition.new_isr == (0, 1)
        assert isinstance(p.isr_state, PendingShrinkIsr) and p.isr_state.out_of_sync_replica_ids == (2,)
        assert p.maximal_isr == (0, 1, 2) and out.high_watermark == 0   # still waits for 2
        out = accept(p, out.alter_partition, T0 + LAG_MS + 2)
        assert (out.high_watermark, out.high_watermark_moved) == (10, True)
        assert p.isr == (0, 1)

    def test_follower_at_leader_leo_is_never_out_of_sync(self):
        p = make_partition(replicas=(0, 1), isr=(0, 1), log_end_offset=10)
        fetch(p, 1, 10, T0 + 1)
        assert p.out_of_sync_replicas(T0 + 100 * LAG_MS) == ()

    def test_slow_follower_leaves_too(self):
        p = make_partition(replicas=(0, 1), isr=(0, 1), log_end_offset=10)
        t = T0
        for step in range(12):                  # fetches keep coming, each behind the leader
            t += LAG_MS // 4
            p.leader_appended(p.log_end_offset + 10, t)
            fetch(p, 1, p.log_end_offset - 15, t)
        assert p.out_of_sync_replicas(t) == (1,)

    def test_shrink_can_leave_the_leader_alone_below_min_isr(self):
        p = make_partition(replicas=(0, 1), isr=(0, 1), min_insync_replicas=2)
        assert p.maybe_shrink_isr(T0 + LAG_MS + 1).alter_partition.new_isr == (0,)

    def test_failed_shrink_does_not_move_the_hw(self):
        p = make_partition(replicas=(0, 1, 2), isr=(0, 1, 2), log_end_offset=10)
        fetch(p, 1, 10, T0 + 1)
        fetch(p, 2, 4, T0 + 1)
        out = p.maybe_shrink_isr(T0 + LAG_MS + 1)
        assert out.alter_partition.new_isr == (0, 1)
        p.leader_appended(11, T0 + LAG_MS + 2)
        assert fetch(p, 1, 11, T0 + LAG_MS + 3).high_watermark == 4
        p.alter_partition_refused(out.alter_partition, ErrorCode.INELIGIBLE_REPLICA)
        assert p.isr_state == CommittedIsr((0, 1, 2)) and p.high_watermark == 4

    def test_isr_expiration_interval(self):
        assert isr_expiration_interval_ms(30_000) == 15_000


class TestAlterPartitionAnswers:
    def _pending_expand(self):
        p = make_partition(replicas=(0, 1, 2), isr=(0,), log_end_offset=10, high_watermark=10)
        req = fetch(p, 1, 10, T0 + 1).alter_partition
        assert req is not None
        return p, req

    def test_single_in_flight_alter_partition(self):
        """PartitionTest.testSingleInFlightAlterIsr: nothing more is proposed while pending."""
        p, req = self._pending_expand()
        assert fetch(p, 2, 10, T0 + 2).alter_partition is None
        assert p.out_of_sync_replicas(T0 + 10 * LAG_MS) == ()
        assert p.maybe_shrink_isr(T0 + 10 * LAG_MS).alter_partition is None
        accept(p, req, T0 + 3)
        assert fetch(p, 2, 10, T0 + 4).alter_partition.new_isr == (0, 1, 2)

    @pytest.mark.parametrize("error", sorted(AWAIT_METADATA_ERRORS, key=int))
    def test_invalid_requests_are_not_retried(self, error):
        """PartitionTest.testInvalidAlterPartitionRequestsAreNotRetried and
        testAlterIsrNewLeaderElected: stay pending, send nothing, until new metadata."""
        p, req = self._pending_expand()
        out = p.alter_partition_refused(req, error)
        assert out.alter_partition is None and not out.ignored
        assert p.isr_state.in_flight and p.maximal_isr == (0, 1)
        assert fetch(p, 2, 10, T0 + 2).alter_partition is None
        p.make_leader(leader_epoch=5, partition_epoch=3, replicas=(0, 1, 2), isr=(0,), log_start_offset=0,
                      log_end_offset=10, high_watermark=10, now_ms=T0 + 3)
        assert p.isr_state == CommittedIsr((0,))
        assert fetch(p, 2, 10, T0 + 4).alter_partition.new_isr == (0, 2)

    @pytest.mark.parametrize("error", sorted(RESET_TO_COMMITTED_ERRORS, key=int))
    def test_refusal_that_applied_nothing_goes_back_to_committed(self, error):
        p, req = self._pending_expand()
        p.alter_partition_refused(req, error)
        assert p.isr_state == CommittedIsr((0,))
        assert fetch(p, 1, 10, T0 + 2).alter_partition == req        # proposed again on the next fetch

    @pytest.mark.parametrize("error", [ErrorCode.UNKNOWN_SERVER_ERROR, ErrorCode.NOT_CONTROLLER,
                                       ErrorCode.REQUEST_TIMED_OUT])
    def test_other_errors_resend_the_same_request(self, error):
        p, req = self._pending_expand()
        out = p.alter_partition_refused(req, error)
        assert out.alter_partition == req and p.isr_state.sent == req

    def test_answers_with_another_leader_epoch_or_older_partition_epoch_are_ignored(self):
        p, req = self._pending_expand()
        assert accept(p, req, T0 + 2, leader_epoch=6).ignored
        assert accept(p, req, T0 + 2, partition_epoch=0).ignored
        assert isinstance(p.isr_state, PendingExpandIsr) and p.partition_epoch == 1
        out = accept(p, req, T0 + 2, partition_epoch=1)          # same epoch: the controller had it already
        assert not out.ignored and p.isr_state == CommittedIsr((0, 1))

    def test_answer_to_a_request_no_longer_pending_is_ignored(self):
        p, req = self._pending_expand()
        p.make_leader(leader_epoch=5, partition_epoch=2, replicas=(0, 1, 2), isr=(0, 2), log_start_offset=0,
                      log_end_offset=10, high_watermark=10, now_ms=T0 + 2)
        assert accept(p, req, T0 + 3).ignored
        assert p.alter_partition_refused(req, ErrorCode.INELIGIBLE_REPLICA).ignored
        assert p.isr_state == CommittedIsr((0, 2)) and p.partition_epoch == 2

    def test_accepted_isr_is_the_controllers(self):
        p, req = self._pending_expand()
        accept(p, req, T0 + 2, isr=(0, 1, 2), partition_epoch=7)
        assert p.isr == (0, 1, 2) and p.partition_epoch == 7


class TestLeaderChange:
    def test_new_leader_keeps_its_hw_and_forgets_follower_leos(self):
        """PartitionTest.testMonotonicOffsetsAfterLeaderChange / REPLICATION.md §4 "HW on
        leader change": the HW does not rise until every ISR member fetched in this epoch."""
        p = PartitionState(LOCAL, replica_lag_time_max_ms=LAG_MS, local_broker_epoch=LOCAL_EPOCH)
        p.update_brokers({b: RegisteredBroker(broker_epoch(b)) for b in range(3)})
        p.make_follower(leader_id=1, leader_epoch=4, partition_epoch=3, replicas=(0, 1, 2))
        out = p.make_leader(leader_epoch=5, partition_epoch=4, replicas=(0, 1, 2), isr=(0, 1, 2),
                            log_start_offset=0, log_end_offset=10, high_watermark=5, now_ms=T0)
        assert (out.high_watermark, out.high_watermark_moved) == (5, False)
        assert all(f.log_end_offset == UNKNOWN_OFFSET and f.broker_epoch is None for f in p.followers.values())
        assert p.leader_appended(12, T0 + 1).high_watermark == 5
        assert fetch(p, 1, 12, T0 + 2).high_watermark == 5
        out = fetch(p, 2, 8, T0 + 3)
        assert (out.high_watermark, out.high_watermark_moved) == (8, True)

    def test_new_epoch_same_leader_keeps_follower_leos(self):
        p = make_partition(replicas=(0, 1, 2), isr=(0, 1, 2), log_end_offset=10)
        fetch(p, 1, 10, T0 + 1)
        fetch(p, 2, 10, T0 + 1)
        assert p.high_watermark == 10
        p.leader_appended(14, T0 + 2)
        out = p.make_leader(leader_epoch=6, partition_epoch=2, replicas=(0, 1, 2), isr=(0, 1), log_start_offset=0,
                            log_end_offset=14, high_watermark=0, now_ms=T0 + 3)
        assert out.high_watermark == 10 and p.leader_epoch_start_offset == 14
        assert p.followers[2].log_end_offset == 10 and p.followers[2].last_caught_up_time_ms == 0
        assert p.followers[1].last_caught_up_time_ms == T0 + 3
        assert p.followers[1].last_fetch_leader_log_end_offset == 14

    def test_same_epoch_metadata_keeps_follower_state(self):
        """PartitionTest.testDoNotResetReplicaStateIfLeaderEpochIsNotBumped."""
        p = make_partition(replicas=(0, 1), isr=(0,), log_end_offset=10, high_watermark=10)
        req = fetch(p, 1, 10, T0 + 1).alter_partition
        before = p.followers[1]
        p.make_leader(leader_epoch=5, partition_epoch=2, replicas=(0, 1), isr=(0, 1), log_start_offset=0,
                      log_end_offset=10, high_watermark=10, now_ms=T0 + 2)
        assert p.followers[1] == before and p.leader_epoch_start_offset == 10
        assert p.isr_state == CommittedIsr((0, 1))
        assert accept(p, req, T0 + 3).ignored            # metadata replaced the pending state

    def test_older_partition_epoch_is_ignored(self):
        """PartitionTest.testIgnoreLeaderPartitionStateChangeWithOlderPartitionEpoch."""
        p = make_partition(partition_epoch=3)
        out = p.make_leader(leader_epoch=6, partition_epoch=2, replicas=(0, 1), isr=(0,), log_start_offset=0,
                            log_end_offset=10, high_watermark=0, now_ms=T0)
        assert out.ignored and p.leader_epoch == 5 and p.isr == (0, 1, 2)
        assert p.make_follower(leader_id=1, leader_epoch=6, partition_epoch=2, replicas=(0, 1)) is False
        assert p.is_leader

    def test_make_follower_reports_a_new_leader_epoch(self):
        p = make_partition()
        assert p.make_follower(leader_id=1, leader_epoch=6, partition_epoch=2, replicas=(0, 1, 2)) is True
        assert p.make_follower(leader_id=1, leader_epoch=6, partition_epoch=3, replicas=(0, 1, 2)) is False
        assert not p.is_leader and p.followers == {} and p.isr == ()

    def test_replica_added_at_the_same_epoch_starts_unknown(self):
        p = make_partition(replicas=(0, 1), isr=(0, 1))
        p.make_leader(leader_epoch=5, partition_epoch=2, replicas=(0, 1, 3), isr=(0, 1), log_start_offset=0,
                      log_end_offset=10, high_watermark=0, now_ms=T0 + 1)
        assert p.followers[3] == FollowerState()
        assert p.effective_min_isr == 1


class TestAcksAll:
    def test_not_enough_replicas_before_append(self):
        p = make_partition(replicas=(0, 1, 2), isr=(0,), min_insync_replicas=2)
        assert p.check_append(-1) == ErrorCode.NOT_ENOUGH_REPLICAS
        assert p.check_append(1) == ErrorCode.NONE
        assert p.check_append(0) == ErrorCode.NONE

    def test_pending_expand_does_not_count_before_append(self):
        """Before the append only the committed ISR counts (the maximal ISR is for waiting)."""
        p = make_partition(replicas=(0, 1, 2), isr=(0,), min_insync_replicas=2, log_end_offset=10,
                           high_watermark=10)
        fetch(p, 1, 10, T0 + 1)
        assert p.maximal_isr == (0, 1)
        assert p.check_append(-1) == ErrorCode.NOT_ENOUGH_REPLICAS

    def test_wait_then_done(self):
        p = make_partition(replicas=(0, 1, 2), isr=(0, 1, 2), min_insync_replicas=2, log_end_offset=0)
        assert p.check_append(-1) == ErrorCode.NONE
        p.leader_appended(5, T0 + 1)
        assert p.check_enough_replicas_reach_offset(5) == AcksVerdict(False, ErrorCode.NONE)
        fetch(p, 1, 5, T0 + 2)
        assert p.check_enough_replicas_reach_offset(5) == AcksVerdict(False, ErrorCode.NONE)
        out = fetch(p, 2, 5, T0 + 3)
        assert out.high_watermark_moved
        assert p.check_enough_replicas_reach_offset(5) == AcksVerdict(True, ErrorCode.NONE)

    def test_not_enough_replicas_after_append(self):
        """The records reached the HW, but the ISR shrank below min.insync.replicas before
        the waiting produce was checked (ProducerFailureHandlingTest's
        testNotEnoughReplicasAfterBrokerShutdown, reduced to its rule)."""
        p = make_partition(replicas=(0, 1, 2), isr=(0, 1), min_insync_replicas=2, log_end_offset=0)
        p.leader_appended(5, T0 + 1)
        fetch(p, 1, 5, T0 + 2)
        assert p.high_watermark == 5
        req = p.maybe_shrink_isr(T0 + 2 + LAG_MS + 1)
        assert req.alter_partition is None               # 1 is at the LEO: in sync
        p.leader_appended(6, T0 + 3)
        req = p.maybe_shrink_isr(T0 + 3 + LAG_MS + 1).alter_partition
        assert req.new_isr == (0,)
        assert p.check_enough_replicas_reach_offset(5) == AcksVerdict(True, ErrorCode.NONE)   # maximal ISR kept
        accept(p, req, T0 + 3 + LAG_MS + 2)
        assert p.check_enough_replicas_reach_offset(5) == AcksVerdict(True, ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND)
        assert p.check_enough_replicas_reach_offset(6) == AcksVerdict(False, ErrorCode.NONE)   # HW stuck: times out

    def test_a_joining_follower_counts_for_the_verdict_after_append(self):
        """After the append it is the maximal ISR that must reach min.insync.replicas."""
        p = make_partition(replicas=(0, 1, 2), isr=(0, 1), min_insync_replicas=2, log_end_offset=0)
        p.leader_appended(5, T0 + 1)
        fetch(p, 1, 5, T0 + 2)
        request = fetch(p, 2, 5, T0 + 3).alter_partition
        assert p.high_watermark == 5 and p.maximal_isr == (0, 1, 2)
        p.min_insync_replicas = 3
        assert p.check_enough_replicas_reach_offset(5) == AcksVerdict(True, ErrorCode.NONE)
        p.alter_partition_refused(request, ErrorCode.INELIGIBLE_REPLICA)
        assert p.check_enough_replicas_reach_offset(5) == AcksVerdict(True, ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND)

    def test_not_leader(self):
        p = make_partition()
        p.make_follower(leader_id=1, leader_epoch=6, partition_epoch=2, replicas=(0, 1, 2))
        assert p.check_append(-1) == ErrorCode.NOT_LEADER_OR_FOLLOWER
        assert p.check_enough_replicas_reach_offset(1) == AcksVerdict(False, ErrorCode.NOT_LEADER_OR_FOLLOWER)


# =======================================================================================
# Part 2: random events against a model that keeps only the history
# =======================================================================================
#
# The model stores facts: every follower fetch (time, offset, broker epoch, the leader's
# LEO when it arrived) since this broker became leader, the point where each follower's
# lag bookkeeping last restarted (a new leader epoch), the leader's LEO, the committed ISR
# and the one proposal in flight. Every derived quantity (a follower's LEO, its last
# caught-up time, who the HW waits for, the HW a trigger yields, who is out of sync, the
# request a proposal sends, the produce verdicts) is recomputed from those facts each time
# it is asked for, by the rules as REPLICATION.md §2 states them.
#
# Rules of the machine: leader append, follower fetch (any offset up to the leader's LEO,
# with the registered, no, a stale or a newer broker epoch; or from a non-replica), time
# passing, the isr-expiration tick, AlterPartition answers (accepted at the next, the same,
# an older partition epoch or another leader epoch; refused with each kind of error),
# answers to requests that are no longer pending, new metadata (same leader epoch, new
# leader epoch, older partition epoch), leadership moving away and coming back (with a
# new log end and an HW from its follower days), brokers fenced / shutting down /
# re-registered / unregistered, produces with acks -1, 0, 1, min.insync.replicas changes.
# After every step: the machine's HW, ISR, maximal ISR, epochs and follower records equal
# the model's, and the invariants of partition_state.py hold.

MODEL_LAG_MS = 1000


@dataclass(frozen=True)
class FetchFact:
    time_ms: int
    offset: int
    broker_epoch: int
    leader_log_end_offset: int


@dataclass(frozen=True)
class LagRestart:
    """Where a follower's lag bookkeeping starts again (a new leader epoch)."""

    caught_up_ms: int
    leader_log_end_offset: int
    fetch_time_ms: int
    first_fetch: int          # index into the follower's fetch facts


@dataclass
class Proposal:
    kind: str                  # "expand" or "shrink"
    members: tuple[int, ...]   # the joining one, or those leaving
    new_isr: tuple[int, ...]
    request: AlterPartitionRequest
    last_committed: tuple[int, ...]


@dataclass
class Model:
    replicas: tuple[int, ...]
    min_isr: int
    brokers: dict[int, RegisteredBroker]
    leading: bool = False
    leader_epoch: int = -1
    partition_epoch: int = 0
    epoch_start_offset: int | None = None
    log_start_offset: int = 0
    log_end_offset: int = 0
    high_watermark: int = 0
    committed: tuple[int, ...] = ()
    proposal: Proposal | None = None
    fetches: dict[int, list[FetchFact]] = field(default_factory=dict)
    restarts: dict[int, LagRestart] = field(default_factory=dict)

    # -- facts -> quantities ---------------------------------------------------------

    @property
    def followers(self) -> tuple[int, ...]:
        return tuple(r for r in self.replicas if r != LOCAL)

    def leo(self, r: int) -> int:
        facts = self.fetches.get(r, [])
        return facts[-1].offset if facts else UNKNOWN_OFFSET

    def fetch_epoch(self, r: int) -> int | None:
        facts = self.fetches.get(r, [])
        return facts[-1].broker_epoch if facts else None

    def last_caught_up_ms(self, r: int) -> int:
        start = self.restarts[r]
        facts = self.fetches.get(r, [])[start.first_fetch:]
        times = [start.caught_up_ms]
        for i, f in enumerate(facts):
            if f.offset >= f.leader_log_end_offset:
                times.append(f.time_ms)
                continue
            leader_leo_before = max([start.leader_log_end_offset] + [g.leader_log_end_offset for g in facts[:i]])
            if f.offset >= leader_leo_before:
                times.append(facts[i - 1].time_ms if i else start.fetch_time_ms)
        return max(times)

    def caught_up(self, r: int, now_ms: int) -> bool:
        return self.leo(r) == self.log_end_offset or now_ms - self.last_caught_up_ms(r) <= MODEL_LAG_MS

    def eligible(self, r: int) -> bool:
        b = self.brokers.get(r)
        epoch = self.fetch_epoch(r)
        return (b is not None and not b.fenced and not b.in_controlled_shutdown and epoch is not None
                and epoch in (-1, b.broker_epoch))

    def maximal(self) -> tuple[int, ...]:
        if self.proposal is not None and self.proposal.kind == "expand":
            return self.committed + self.proposal.members
        return self.committed

    @property
    def effective_min_isr(self) -> int:
        return min(self.min_isr, len(self.replicas))

    def hw_target(self, now_ms: int) -> int | None:
        if len(self.committed) < self.effective_min_isr:
            return None
        waited_for = [r for r in self.followers
                      if r in self.maximal() or (self.caught_up(r, now_ms) and self.eligible(r))]
        return min([self.log_end_offset] + [self.leo(r) for r in waited_for])

    def retry_hw(self, now_ms: int) -> bool:
        target = self.hw_target(now_ms)
        if target is not None and target > self.high_watermark:
            self.high_watermark = target
            return True
        return False

    def request_for(self, new_isr: tuple[int, ...]) -> AlterPartitionRequest:
        members = tuple((r, LOCAL_EPOCH if r == LOCAL else (self.fetch_epoch(r) if self.fetch_epoch(r) is not None
                                                            else -1)) for r in new_isr)
        return AlterPartitionRequest(LOCAL, LOCAL_EPOCH, self.leader_epoch, self.partition_epoch, members)

    def verdict(self, required_offset: int) -> AcksVerdict:
        if not self.leading:
            return AcksVerdict(False, ErrorCode.NOT_LEADER_OR_FOLLOWER)
        if self.high_watermark < required_offset:
            return AcksVerdict(False, ErrorCode.NONE)
        if len(self.maximal()) < self.effective_min_isr:
            return AcksVerdict(True, ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND)
        return AcksVerdict(True, ErrorCode.NONE)

    # -- events ----------------------------------------------------------------------

    def lead(self, leader_epoch, partition_epoch, isr, log_start_offset, log_end_offset, high_watermark, now_ms):
        if partition_epoch < self.partition_epoch:
            return None
        newly = not self.leading
        if newly:
            self.fetches = {r: [] for r in self.followers}
            self.high_watermark = min(max(high_watermark, log_start_offset), log_end_offset)
        self.committed = tuple(isr)
        self.proposal = None
        self.log_start_offset, self.log_end_offset = log_start_offset, log_end_offset
        if leader_epoch > self.leader_epoch:
            for r in self.followers:
                in_isr = r in isr
                self.restarts[r] = LagRestart(
                    caught_up_ms=now_ms if in_isr else 0,
                    leader_log_end_offset=UNKNOWN_OFFSET if newly else log_end_offset,
                    fetch_time_ms=0 if newly or not in_isr else now_ms,
                    first_fetch=len(self.fetches[r]))
            self.leader_epoch = leader_epoch
            self.epoch_start_offset = log_end_offset
        self.partition_epoch = partition_epoch
        self.leading = True
        return self.retry_hw(now_ms)

    def follow(self, leader_epoch, partition_epoch):
        self.leading = False
        self.leader_epoch, self.partition_epoch = leader_epoch, partition_epoch
        self.epoch_start_offset = None
        self.committed, self.proposal = (), None
        self.fetches, self.restarts = {}, {}

    def fetch(self, r, offset, broker_epoch, now_ms):
        """(error, hw moved, request)"""
        if r not in self.followers:
            return ErrorCode.UNKNOWN_LEADER_EPOCH, False, None
        b = self.brokers.get(r)
        if broker_epoch != -1 and b is not None and not b.fenced and b.broker_epoch > broker_epoch:
            return ErrorCode.NOT_LEADER_OR_FOLLOWER, False, None
        before = self.leo(r)
        self.fetches[r].append(FetchFact(now_ms, offset, broker_epoch, self.log_end_offset))
        request = None
        if (self.proposal is None and r not in self.committed and self.eligible(r)
                and offset >= self.high_watermark and offset >= self.epoch_start_offset):
            new_isr = self.committed + (r,)
            request = self.request_for(new_isr)
            self.proposal = Proposal("expand", (r,), new_isr, request, self.committed)
        moved = self.retry_hw(now_ms) if offset != before else False
        return ErrorCode.NONE, moved, request

    def out_of_sync(self, now_ms) -> tuple[int, ...]:
        if self.proposal is not None:
            return ()
        return tuple(r for r in self.committed
                     if r != LOCAL and (r not in self.followers or not self.caught_up(r, now_ms)))

    def shrink(self, now_ms):
        leaving = self.out_of_sync(now_ms)
        if not self.leading or not leaving:
            return None
        new_isr = tuple(r for r in self.committed if r not in leaving)
        request = self.request_for(new_isr)
        self.proposal = Proposal("shrink", leaving, new_isr, request, self.committed)
        return request


class PartitionStateMachine(RuleBasedStateMachine):
    @initialize(rf=st.sampled_from([1, 2, 3, 3, 4]), min_isr=st.integers(1, 3), isr_bits=st.integers(0, 7),
                log_end_offset=st.integers(0, 20), high_watermark=st.integers(0, 25),
                log_start_offset=st.integers(0, 5))
    def start(self, rf, min_isr, isr_bits, log_end_offset, high_watermark, log_start_offset):
        self.now = T0
        replicas = tuple(range(rf))
        brokers = {r: RegisteredBroker(broker_epoch(r)) for r in replicas}
        self.p = PartitionState(LOCAL, min_insync_replicas=min_isr, replica_lag_time_max_ms=MODEL_LAG_MS,
                                local_broker_epoch=LOCAL_EPOCH)
        self.p.update_brokers(dict(brokers))
        self.m = Model(replicas=replicas, min_isr=min_isr, brokers=dict(brokers))
        self.sent: list[AlterPartitionRequest] = []
        self.produces: list[int] = []           # required offsets of waiting acks=-1 produces
        self._lead(0, 0, self._isr(isr_bits), min(log_start_offset, log_end_offset), log_end_offset,
                   high_watermark)

    # -- helpers ---------------------------------------------------------------------

    def _isr(self, bits: int) -> tuple[int, ...]:
        return (LOCAL,) + tuple(r for r in self.m.followers if bits & (1 << (r - 1)))

    def _lead(self, leader_epoch, partition_epoch, isr, log_start_offset, log_end_offset, high_watermark):
        newly = not self.p.is_leader
        out = self.p.make_leader(leader_epoch=leader_epoch, partition_epoch=partition_epoch,
                                 replicas=self.m.replicas, isr=isr, log_start_offset=log_start_offset,
                                 log_end_offset=log_end_offset, high_watermark=high_watermark, now_ms=self.now)
        moved = self.m.lead(leader_epoch, partition_epoch, isr, log_start_offset, log_end_offset,
                            high_watermark, self.now)
        if moved is None:
            assert out.ignored
        else:
            assert not out.ignored and out.high_watermark_moved == moved
        if newly:
            self.hw_floor = self.m.high_watermark
        self._check_moved(out)

    def _check_moved(self, out):
        assert out.high_watermark == self.m.high_watermark
        if out.high_watermark_moved:
            for r in self.p.maximal_isr:
                if r != LOCAL:
                    assert self.p.followers[r].log_end_offset >= out.high_watermark

    def _expect_request(self, got, expected):
        assert got == expected
        if got is not None:
            self.sent.append(got)

    # -- rules -----------------------------------------------------------------------

    @rule(n=st.integers(1, 5))
    def leader_append(self, n):
        if not self.p.is_leader:
            return
        out = self.p.leader_appended(self.p.log_end_offset + n, self.now)
        self.m.log_end_offset += n
        assert out.high_watermark_moved == self.m.retry_hw(self.now)
        self._check_moved(out)

    @rule(data=st.data())
    def follower_fetch(self, data):
        if not self.p.is_leader or not self.m.followers:
            return
        r = data.draw(st.sampled_from(self.m.followers + (7,)), label="replica")
        m = self.m
        leader_leo = m.log_end_offset
        known = max(m.leo(r), 0) if r in m.followers else 0
        previous_leader_leo = (max([m.restarts[r].leader_log_end_offset]
                                   + [f.leader_log_end_offset for f in m.fetches[r]])
                               if r in m.followers else 0)
        offset = data.draw(st.sampled_from([
            leader_leo, leader_leo, known, known + 1, known + 3, m.high_watermark, m.epoch_start_offset,
            previous_leader_leo, data.draw(st.integers(0, leader_leo), label="any offset")]), label="offset")
        offset = min(max(offset, 0), leader_leo)
        registered = self.m.brokers.get(r, RegisteredBroker(broker_epoch(r))).broker_epoch
        epoch = data.draw(st.sampled_from([registered, registered, -1, registered - 1, registered + 1]),
                          label="broker epoch")
        out = self.p.follower_fetch(r, fetch_offset=offset, log_start_offset=0, broker_epoch=epoch,
                                    now_ms=self.now)
        error, moved, request = self.m.fetch(r, offset, epoch, self.now)
        assert out.error == error
        assert out.high_watermark_moved == moved
        self._expect_request(out.alter_partition, request)
        self._check_moved(out)

    @rule(ms=st.sampled_from([0, 1, 10, 200, 499, 500, 999, 1000, 1001, 1500]))
    def time_passes(self, ms):
        self.now += ms

    @rule()
    def isr_expiration(self):
        assert self.p.out_of_sync_replicas(self.now) == (self.m.out_of_sync(self.now) if self.m.leading else ())
        out = self.p.maybe_shrink_isr(self.now)
        self._expect_request(out.alter_partition, self.m.shrink(self.now) if self.m.leading else None)
        assert not out.high_watermark_moved

    @precondition(lambda self: self.m.proposal is not None)
    @rule(answer=st.sampled_from(["next epoch", "same epoch", "older epoch", "other leader epoch"]))
    def alter_partition_accepted(self, answer):
        request = self.m.proposal.request
        leader_epoch = request.leader_epoch + (1 if answer == "other leader epoch" else 0)
        partition_epoch = request.partition_epoch + {"next epoch": 1, "same epoch": 0, "older epoch": -1,
                                                     "other leader epoch": 1}[answer]
        out = self.p.alter_partition_accepted(request, leader_epoch=leader_epoch, partition_epoch=partition_epoch,
                                              isr=request.new_isr, now_ms=self.now)
        if answer in ("next epoch", "same epoch"):
            assert not out.ignored
            self.m.committed, self.m.proposal = request.new_isr, None
            self.m.partition_epoch = partition_epoch
            assert out.high_watermark_moved == self.m.retry_hw(self.now)
        else:
            assert out.ignored and not out.high_watermark_moved
        self._check_moved(out)

    @precondition(lambda self: self.m.proposal is not None)
    @rule(error=st.sampled_from(sorted(RESET_TO_COMMITTED_ERRORS | AWAIT_METADATA_ERRORS, key=int)
                                + [ErrorCode.UNKNOWN_SERVER_ERROR, ErrorCode.NETWORK_EXCEPTION]))
    def alter_partition_refused(self, error):
        proposal = self.m.proposal
        out = self.p.alter_partition_refused(proposal.request, error)
        assert not out.ignored and not out.high_watermark_moved
        if error in RESET_TO_COMMITTED_ERRORS:
            self.m.proposal = None
            assert out.alter_partition is None
        elif error in AWAIT_METADATA_ERRORS:
            assert out.alter_partition is None
        else:
            assert out.alter_partition == proposal.request

    @precondition(lambda self: self.sent)
    @rule(data=st.data())
    def answer_to_an_old_request(self, data):
        request = data.draw(st.sampled_from(self.sent))
        if self.m.proposal is not None and request == self.m.proposal.request:
            return
        assert self.p.alter_partition_accepted(request, leader_epoch=request.leader_epoch,
                                               partition_epoch=request.partition_epoch + 1,
                                               isr=request.new_isr, now_ms=self.now).ignored
        assert self.p.alter_partition_refused(request, ErrorCode.INELIGIBLE_REPLICA).ignored

    @rule(kind=st.sampled_from(["same leader epoch", "same leader epoch, same partition epoch",
                                "new leader epoch", "older partition epoch"]),
          isr_bits=st.integers(0, 7))
    def new_metadata(self, kind, isr_bits):
        if not self.p.is_leader:
            return
        leader_epoch = self.m.leader_epoch + (1 if kind == "new leader epoch" else 0)
        partition_epoch = self.m.partition_epoch + {"same leader epoch": 1, "new leader epoch": 1,
                                                    "same leader epoch, same partition epoch": 0,
                                                    "older partition epoch": -1}[kind]
        self._lead(leader_epoch, partition_epoch, self._isr(isr_bits), self.m.log_start_offset,
                   self.m.log_end_offset, 0)

    @rule(log_end_offset_change=st.integers(-10, 10), high_watermark=st.integers(0, 40),
          isr_bits=st.integers(0, 7))
    def leadership_moves_away_and_back(self, log_end_offset_change, high_watermark, isr_bits):
        other = self.m.followers[0] if self.m.followers else -1
        restart = self.p.make_follower(leader_id=other, leader_epoch=self.m.leader_epoch + 1,
                                       partition_epoch=self.m.partition_epoch + 1, replicas=self.m.replicas)
        assert restart is True
        self.m.follow(self.m.leader_epoch + 1, self.m.partition_epoch + 1)
        for required in self.produces:
            assert self.p.check_enough_replicas_reach_offset(required) == \
                AcksVerdict(False, ErrorCode.NOT_LEADER_OR_FOLLOWER)
        self.produces.clear()
        assert self.p.check_append(1) == ErrorCode.NOT_LEADER_OR_FOLLOWER
        self.now += 7
        log_end_offset = max(0, self.m.log_end_offset + log_end_offset_change)
        self._lead(self.m.leader_epoch + 1, self.m.partition_epoch + 1, self._isr(isr_bits),
                   min(self.m.log_start_offset, log_end_offset), log_end_offset, high_watermark)

    @rule(r=st.integers(1, 3), change=st.sampled_from(["fence", "unfence", "shutdown", "no shutdown",
                                                         "re-register", "unregister"]))
    def broker_changes(self, r, change):
        b = self.m.brokers.get(r, RegisteredBroker(broker_epoch(r)))
        if change == "unregister":
            self.m.brokers.pop(r, None)
        else:
            self.m.brokers[r] = {
                "fence": RegisteredBroker(b.broker_epoch, True, b.in_controlled_shutdown),
                "unfence": RegisteredBroker(b.broker_epoch, False, b.in_controlled_shutdown),
                "shutdown": RegisteredBroker(b.broker_epoch, b.fenced, True),
                "no shutdown": RegisteredBroker(b.broker_epoch, b.fenced, False),
                "re-register": RegisteredBroker(b.broker_epoch + 10),
            }[change]
        self.p.update_brokers(dict(self.m.brokers))

    @rule(acks=st.sampled_from([-1, -1, 1, 0]), n=st.integers(1, 3))
    def produce(self, acks, n):
        expected = ErrorCode.NONE
        if not self.m.leading:
            expected = ErrorCode.NOT_LEADER_OR_FOLLOWER
        elif acks == -1 and len(self.m.committed) < self.m.effective_min_isr:
            expected = ErrorCode.NOT_ENOUGH_REPLICAS
        assert self.p.check_append(acks) == expected
        if expected != ErrorCode.NONE:
            return
        self.leader_append(n)
        if acks == -1:
            self.produces.append(self.m.log_end_offset)

    @precondition(lambda self: self.produces)
    @rule()
    def complete_waiting_produces(self):
        """The caller answers the produces that are done. It may be late (in Kafka, another
        thread's check), which is when NOT_ENOUGH_REPLICAS_AFTER_APPEND can show."""
        self.produces = [r for r in self.produces if not self.p.check_enough_replicas_reach_offset(r).done]

    @rule(value=st.integers(1, 4))
    def min_insync_replicas_changes(self, value):
        self.p.min_insync_replicas = self.m.min_isr = value

    # -- after every step ------------------------------------------------------------

    @invariant()
    def matches_the_model(self):
        p, m = self.p, self.m
        assert p.is_leader == m.leading
        assert (p.high_watermark, p.log_end_offset) == (m.high_watermark, m.log_end_offset)
        assert (p.leader_epoch, p.partition_epoch) == (m.leader_epoch, m.partition_epoch)
        assert p.isr == m.committed and p.maximal_isr == m.maximal()
        assert p.in_flight == (m.proposal is not None)
        if m.proposal is not None:
            assert p.isr_state.sent == m.proposal.request
            assert p.isr_state.last_committed == CommittedIsr(m.proposal.last_committed)
        if m.leading:
            assert p.leader_epoch_start_offset == m.epoch_start_offset
            for r in m.followers:
                f = p.followers[r]
                assert f.log_end_offset == m.leo(r)
                assert f.broker_epoch == m.fetch_epoch(r)
                assert f.last_caught_up_time_ms == m.last_caught_up_ms(r)

    @invariant()
    def high_watermark_rules(self):
        p = self.p
        if not p.is_leader:
            return
        assert p.log_start_offset <= p.high_watermark <= p.log_end_offset
        assert p.high_watermark >= self.hw_floor
        self.hw_floor = p.high_watermark
        assert set(p.isr) <= set(p.maximal_isr)
        assert len(p.maximal_isr) - len(p.isr) in (0, 1)
        if p.in_flight:
            sent = p.isr_state.sent
            assert sent.leader_epoch == p.leader_epoch and sent.partition_epoch == p.partition_epoch
            assert set(sent.new_isr) ^ set(p.isr)      # a change, never a no-op

    @invariant()
    def waiting_produces(self):
        for required in self.produces:
            verdict = self.p.check_enough_replicas_reach_offset(required)
            assert verdict == self.m.verdict(required)
            assert verdict.done == (self.p.is_leader and self.p.high_watermark >= required)


PartitionStateMachine.TestCase.settings = settings(
    max_examples=300,
    stateful_step_count=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestPartitionStateMachine = PartitionStateMachine.TestCase
