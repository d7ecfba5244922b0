"""Which `__consumer_offsets` partitions the group coordinator serves, and at which leader epoch.

The coordinator of a group is the leader of the group's `__consumer_offsets` partition
(`partition_for_group`). Each partition is, for this coordinator, in one of three states:

    NOT_COORDINATOR   this broker does not lead the partition (or resigned): its groups
                      get NOT_COORDINATOR, and nothing of them is kept
    LOADING           elected; its records are being replayed: its groups get
                      COORDINATOR_LOAD_IN_PROGRESS
    ACTIVE            loaded: its groups are served

Transitions, each carrying the partition's leader epoch:

    elect(index, epoch)    NOT_COORDINATOR -> LOADING (a new term); LOADING and ACTIVE stay
                           as they are, at the new epoch (Kafka's runtime does not load a
                           coordinator twice: a loading one goes on, a loaded one is kept)
    loaded(index, epoch)   LOADING -> ACTIVE, only if `epoch` is still the current one
    failed(index, epoch)   LOADING -> NOT_COORDINATOR (the load could not finish), same rule
    resign(index, epoch)   -> NOT_COORDINATOR (a new term)
    forget(index)          -> NOT_COORDINATOR (a new term) with no epoch: the topic was
                           deleted, and the one created again is elected from epoch 0

A *term* is one uninterrupted stretch of leadership: it changes at every resignation and
at every election that starts a load, not at an epoch bump while this broker keeps
leading. A write waiting for its replication belongs to the term it was made in
(`is_active(index, term)`).

A leadership call (`elect`, `resign`) whose epoch is not above the last epoch seen for
that partition is stale or a repeat and changes nothing (Kafka's CoordinatorRuntime
loads and unloads only for a strictly newer partition epoch); the call returns False.

`leads_every_partition` (the single-node broker, which leads every partition of the
topic, including those of a topic created later): a partition never named in a call is
ACTIVE. Otherwise (a broker of a cluster, told by its metadata publisher) a partition
never named is NOT_COORDINATOR.

Pure bookkeeping, no I/O; used on the broker's event loop only.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from protocol.error_codes import ErrorCode

NO_EPOCH = -1


class LoadState(enum.Enum):
    NOT_COORDINATOR = "not coordinator"
    LOADING = "loading"
    ACTIVE = "active"


@dataclass(frozen=True)
class PartitionLeadership:
    state: LoadState
    leader_epoch: int
    term: int = 0


ERROR_OF_STATE = {
    LoadState.NOT_COORDINATOR: ErrorCode.NOT_COORDINATOR,
    LoadState.LOADING: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
    LoadState.ACTIVE: ErrorCode.NONE,
}


class CoordinatorPartitions:
    def __init__(self, leads_every_partition: bool = True):
        self.leads_every_partition = leads_every_partition
        self._partitions: dict[int, PartitionLeadership] = {}

    def get(self, index: int) -> PartitionLeadership:
        found = self._partitions.get(index)
        if found is not None:
            return found
        default = LoadState.ACTIVE if self.leads_every_partition else LoadState.NOT_COORDINATOR
        return PartitionLeadership(default, NO_EPOCH)

    def state(self, index: int) -> LoadState:
        return self.get(index).state

    def error(self, index: int) -> ErrorCode:
        """NONE for an ACTIVE partition, else the error its groups get."""
        return ERROR_OF_STATE[self.state(index)]

    def is_active(self, index: int, term: int | None = None) -> bool:
        """ACTIVE (and, if given, still in `term`)."""
        current = self.get(index)
        return current.state is LoadState.ACTIVE and (term is None or current.term == term)

    def is_loading(self, index: int, leader_epoch: int) -> bool:
        current = self.get(index)
        return current.state is LoadState.LOADING and current.leader_epoch == leader_epoch

    def any_loading(self) -> bool:
        return any(p.state is LoadState.LOADING for p in self._partitions.values())

    def elect(self, index: int, leader_epoch: int) -> LoadState | None:
        """The state before the election (None: a stale or repeated epoch, nothing changed)."""
        current = self.get(index)
        if leader_epoch <= current.leader_epoch:
            return None
        if current.state is LoadState.NOT_COORDINATOR:
            self._partitions[index] = PartitionLeadership(LoadState.LOADING, leader_epoch, current.term + 1)
        else:
            self._partitions[index] = PartitionLeadership(current.state, leader_epoch, current.term)
        return current.state

    def loaded(self, index: int, leader_epoch: int) -> bool:
        return self._end_load(index, leader_epoch, LoadState.ACTIVE)

    def failed(self, index: int, leader_epoch: int) -> bool:
        return self._end_load(index, leader_epoch, LoadState.NOT_COORDINATOR)

    def _end_load(self, index: int, leader_epoch: int, state: LoadState) -> bool:
        if not self.is_loading(index, leader_epoch):
            return False
        self._partitions[index] = PartitionLeadership(state, leader_epoch, self.get(index).term)
        return True

    def resign(self, index: int, leader_epoch: int) -> bool:
        current = self.get(index)
        if leader_epoch <= current.leader_epoch:
            return False
        self._partitions[index] = PartitionLeadership(LoadState.NOT_COORDINATOR, leader_epoch, current.term + 1)
        return True

    def forget(self, index: int) -> None:
        current = self.get(index)
        self._partitions[index] = PartitionLeadership(LoadState.NOT_COORDINATOR, NO_EPOCH, current.term + 1)
