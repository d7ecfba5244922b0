"""The leader's ISR state (Kafka's `CommittedPartitionState` / `PendingExpandIsr` /
`PendingShrinkIsr`) and the AlterPartition request that moves it.

The ISR is what the controller committed to the metadata log; only the controller changes
it. A leader that wants a change sends AlterPartition and, until the answer, is *pending*:

    state              isr (committed)   maximal_isr        in_flight
    CommittedIsr       I                 I                  no
    PendingExpandIsr   I                 I + [joining]      yes
    PendingShrinkIsr   I                 I                  yes

The maximal ISR (KIP-497) is the set the HW and acks=all wait for. It is never smaller than
what the controller may have committed: a joining follower counts at once (waiting for one
more replica is only stricter), a leaving one keeps counting until the controller agrees
(if the shrink fails the HW must not have moved past what it still holds).

Transitions (`PartitionState` drives them):
    Committed --expand or shrink proposed--> Pending (one AlterPartition sent; no other
        proposal while pending)
    Pending --accepted (same leader epoch, partition epoch not older)--> Committed(new ISR)
    Pending --refused with OPERATION_NOT_ATTEMPTED / INELIGIBLE_REPLICA--> its last
        Committed (the controller says it applied nothing)
    Pending --refused with an error of `AWAIT_METADATA_ERRORS`, or accepted with another
        leader epoch / an older partition epoch--> stays Pending until new metadata
    Pending --refused with any other error--> stays Pending, the same request is resent
    any --new partition metadata (make_leader)--> Committed(metadata ISR)

ISR order: members keep the order the metadata gave them; a joining member goes last (as
Kafka's small immutable sets iterate), so the request's ISR reads like the committed one.

Values are immutable; equality is structural, which is how an answer is matched with the
pending state it belongs to.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from protocol.error_codes import ErrorCode

LEADER_RECOVERY_RECOVERED = 0   # LeaderRecoveryState.RECOVERED; a leader here always is


@dataclass(frozen=True)
class AlterPartitionRequest:
    """One partition of an AlterPartition request, as the leader sends it (v3: each ISR
    member with the broker epoch of its latest fetch, -1 when unknown)."""

    broker_id: int
    broker_epoch: int
    leader_epoch: int
    partition_epoch: int
    new_isr_with_epochs: tuple[tuple[int, int], ...]
    leader_recovery_state: int = LEADER_RECOVERY_RECOVERED

    @property
    def new_isr(self) -> tuple[int, ...]:
        return tuple(broker_id for broker_id, _ in self.new_isr_with_epochs)


@dataclass(frozen=True)
class CommittedIsr:
    isr: tuple[int, ...]

    in_flight = False

    @property
    def maximal_isr(self) -> tuple[int, ...]:
        return self.isr


@dataclass(frozen=True)
class PendingExpandIsr:
    new_in_sync_replica_id: int
    sent: AlterPartitionRequest
    last_committed: CommittedIsr

    in_flight = True

    @property
    def isr(self) -> tuple[int, ...]:
        return self.last_committed.isr

    @property
    def maximal_isr(self) -> tuple[int, ...]:
        return self.isr + (self.new_in_sync_replica_id,)


@dataclass(frozen=True)
class PendingShrinkIsr:
    out_of_sync_replica_ids: tuple[int, ...]
    sent: AlterPartitionRequest
    last_committed: CommittedIsr

    in_flight = True

    @property
    def isr(self) -> tuple[int, ...]:
        return self.last_committed.isr

    @property
    def maximal_isr(self) -> tuple[int, ...]:
        return self.isr


IsrState = Union[CommittedIsr, PendingExpandIsr, PendingShrinkIsr]
PendingIsr = Union[PendingExpandIsr, PendingShrinkIsr]

# The controller applied nothing and says the partition epoch is right: start again from
# the committed state (Partition.handleAlterPartitionError).
RESET_TO_COMMITTED_ERRORS = frozenset({ErrorCode.OPERATION_NOT_ATTEMPTED, ErrorCode.INELIGIBLE_REPLICA})
# This leader's view is out of date (or, NEW_LEADER_ELECTED, it was just moved away): keep
# the pending state, propose nothing, wait for the metadata that replaces it.
AWAIT_METADATA_ERRORS = frozenset({
    ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.UNKNOWN_TOPIC_ID, ErrorCode.FENCED_LEADER_EPOCH,
    ErrorCode.INVALID_UPDATE_VERSION, ErrorCode.INVALID_REQUEST, ErrorCode.NEW_LEADER_ELECTED,
})
