"""The leader's record of one follower of a partition (Kafka's `Replica` / `ReplicaState`).

A leader learns about a follower only from the follower's Fetch requests; this record is
what it keeps between them. Fields (offsets are record offsets, times are the leader's
clock in ms):

    log_start_offset                   the follower's log start offset, as its latest fetch said
    log_end_offset                     the `FetchOffset` of its latest fetch: the follower has
                                       every record below it (UNKNOWN_OFFSET: no fetch seen)
    last_fetch_leader_log_end_offset   the largest leader LEO seen at any of its fetches
    last_fetch_time_ms                 when its latest fetch arrived
    last_caught_up_time_ms             the latest time at which the follower was known to hold
                                       everything the leader had (see below)
    broker_epoch                       the broker epoch its latest fetch carried (-1: the fetch
                                       did not say); None: no fetch in this leadership

Rules
-----
After a fetch at `fetch_offset`, when the leader's LEO was `leader_log_end_offset`:
  - fetch_offset >= leader_log_end_offset: caught up now, so last_caught_up_time_ms rises
    to the fetch time;
  - else fetch_offset >= last_fetch_leader_log_end_offset: the follower has everything the
    leader had at its previous fetch, so it was caught up as of that previous fetch;
  - else last_caught_up_time_ms stays.
  Then the LEO, log start and broker epoch become the fetch's, the fetch time is stored and
  last_fetch_leader_log_end_offset keeps the largest leader LEO seen. The second case is
  why a follower that never quite reaches the LEO of a leader taking a stream of small
  produces still counts as in sync.

Caught up (`is_caught_up`): the follower's LEO equals the leader's, or it was caught up
within the last `replica.lag.time.max.ms`.

On a new leader epoch (`reset`): followers in the new ISR count as caught up now, the
others as never (0), so that a follower outside the ISR does not hold the HW back. A broker
that was not leader before knows nothing of any follower (LEO, log start and broker epoch
unknown); one that stays leader keeps what it knew and restarts the lag bookkeeping at the
epoch start offset.

ISR eligibility (`is_isr_eligible`, KRaft): the follower's broker is registered, not fenced,
not in controlled shutdown, and the broker epoch of its latest fetch is -1 or the one in
the cluster metadata. A fetch carrying a broker epoch older than the registered one comes
from a previous incarnation of the broker and is refused (`is_stale_fetch`).

Records are immutable values; `PartitionState` replaces them. No I/O, no clock.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

UNKNOWN_OFFSET = -1      # Kafka's UnifiedLog.UNKNOWN_OFFSET
NO_BROKER_EPOCH = -1     # a fetch or AlterPartition member that does not state its broker epoch


@dataclass(frozen=True)
class RegisteredBroker:
    """A broker as the cluster metadata shows it."""

    broker_epoch: int
    fenced: bool = False
    in_controlled_shutdown: bool = False

    @property
    def alive_broker_epoch(self) -> int | None:
        """Kafka's `MetadataCache.getAliveBrokerEpoch`: the epoch, unless fenced."""
        return None if self.fenced else self.broker_epoch


@dataclass(frozen=True)
class FollowerState:
    log_start_offset: int = UNKNOWN_OFFSET
    log_end_offset: int = UNKNOWN_OFFSET
    last_fetch_leader_log_end_offset: int = 0
    last_fetch_time_ms: int = 0
    last_caught_up_time_ms: int = 0
    broker_epoch: int | None = None

    def after_fetch(self, fetch_offset: int, log_start_offset: int, fetch_time_ms: int,
                    leader_log_end_offset: int, broker_epoch: int) -> FollowerState:
        if fetch_offset >= leader_log_end_offset:
            caught_up_ms = max(self.last_caught_up_time_ms, fetch_time_ms)
        elif fetch_offset >= self.last_fetch_leader_log_end_offset:
            caught_up_ms = max(self.last_caught_up_time_ms, self.last_fetch_time_ms)
        else:
            caught_up_ms = self.last_caught_up_time_ms
        return FollowerState(
            log_start_offset=log_start_offset,
            log_end_offset=fetch_offset,
            last_fetch_leader_log_end_offset=max(leader_log_end_offset, self.last_fetch_leader_log_end_offset),
            last_fetch_time_ms=fetch_time_ms,
            last_caught_up_time_ms=caught_up_ms,
            broker_epoch=broker_epoch,
        )

    def is_caught_up(self, leader_log_end_offset: int, now_ms: int, replica_lag_time_max_ms: int) -> bool:
        return (self.log_end_offset == leader_log_end_offset
                or now_ms - self.last_caught_up_time_ms <= replica_lag_time_max_ms)

    def reset(self, now_ms: int, leader_epoch_start_offset: int, is_new_leader: bool,
              in_isr: bool) -> FollowerState:
        caught_up_ms = now_ms if in_isr else 0
        if is_new_leader:
            return FollowerState(last_fetch_leader_log_end_offset=UNKNOWN_OFFSET,
                                 last_caught_up_time_ms=caught_up_ms)
        return replace(self, last_fetch_leader_log_end_offset=leader_epoch_start_offset,
                       last_fetch_time_ms=now_ms if in_isr else 0,
                       last_caught_up_time_ms=caught_up_ms)


def is_stale_fetch(fetch_broker_epoch: int, broker: RegisteredBroker | None) -> bool:
    """Whether a follower fetch carrying `fetch_broker_epoch` comes from an older
    incarnation of `broker` than the one registered (Kafka answers NOT_LEADER_OR_FOLLOWER)."""
    if fetch_broker_epoch == NO_BROKER_EPOCH or broker is None:
        return False
    alive = broker.alive_broker_epoch
    return alive is not None and alive > fetch_broker_epoch


def is_isr_eligible(follower: FollowerState, broker: RegisteredBroker | None) -> bool:
    if broker is None or broker.fenced or broker.in_controlled_shutdown:
        return False
    if follower.broker_epoch is None:
        return False
    return follower.broker_epoch == NO_BROKER_EPOCH or follower.broker_epoch == broker.alive_broker_epoch
