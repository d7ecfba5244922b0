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
from pylog.replication.partition_state import AcksVerdict, PartitionState, isr_expiration_interval_ms

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

    def test_not_leader(self):
        p = make_partition()
        p.make_follower(leader_id=1, leader_epoch=6, partition_epoch=2, replicas=(0, 1, 2))
        assert p.check_append(-1) == ErrorCode.NOT_LEADER_OR_FOLLOWER
        assert p.check_enough_replicas_reach_offset(1) == AcksVerdict(False, ErrorCode.NOT_LEADER_OR_FOLLOWER)
