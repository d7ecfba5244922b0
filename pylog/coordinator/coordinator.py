"""GroupCoordinator: the consumer groups this broker coordinates, on the broker's event loop.

The state of each group is a `ClassicGroup` (group.py, pure). This module adds what the
pure machine leaves out:

- parked requests: a JoinGroup or SyncGroup that has to wait gets an asyncio future as its
  ticket; the handler awaits it, which holds that connection's later responses back
  (clients expect exactly that: one request at a time per connection);
- time: one timer per group, set for the group's next deadline (session, pending member,
  join, sync), through an injectable `scheduler` and `clock` so that tests step time
  by hand instead of sleeping. After every request the group is `tick`ed at the current
  time, so a deadline that is already due (the initial rebalance delay of 0, pylog's
  default) completes within the same request: the first join of a new group is
  answered at once;
- which groups: the coordinator of a group is the leader of its `__consumer_offsets`
  partition (`store.partition_for(group_id)`). `partitions` (partitions.py) says, per
  partition, NOT_COORDINATOR / LOADING / ACTIVE at which leader epoch; every group request
  checks it first (`_partition_error`, `coordinator_error` for the offsets handlers) and
  gets NOT_COORDINATOR or COORDINATOR_LOAD_IN_PROGRESS, Kafka's errors: JoinGroup and
  SyncGroup in their answer, Heartbeat the same except that a loading group's heartbeat
  is answered NONE (Kafka answers it blindly), LeaveGroup at the top level, DescribeGroups
  and DeleteGroups per group, OffsetCommit on every partition, ListGroups lists the groups
  of ACTIVE partitions only (COORDINATOR_LOAD_IN_PROGRESS while any partition loads).
  `on_elected(index, leader_epoch)` makes the partition LOADING and starts its load: wait
  until its high watermark reaches its log end offset of that moment, replay it
  (`store.load_partition`), rebuild its groups, ACTIVE. `on_resigned(index, leader_epoch)`
  gives its groups up as `shutdown()` does for all (parked JoinGroup/SyncGroup answered
  NOT_COORDINATOR, timers cancelled) and has the store forget them. An epoch not above
  the last one seen for the partition is stale (or a repeat) and changes nothing.
  `on_deleted(index)` (the topic was deleted) gives the groups up too, whatever the epoch,
  and forgets the epoch, so that a `__consumer_offsets` created again starts afresh. A
  coordinator built with `leads_every_partition=True` (the single-node broker) serves every
  partition never named in those calls; `load()` at start is then the load of all;
- replication: a write counts once the high watermark of its partition passes it
  (acks=all). `wait_replicated(written)` is that wait (replication_wait.py), bounded by
  `offsets.commit.timeout.ms`: NONE, NOT_COORDINATOR (resigned meanwhile) or
  COORDINATOR_NOT_AVAILABLE (timed out, Kafka's answer). The OffsetCommit and
  OffsetDelete handlers answer after it; answers that come with a group metadata record
  (the leader's SyncGroup and the assignment it hands every member, a static member taking
  its slot back) are held until the record is replicated, and carry that error if it is
  not. Unlike Kafka, the group does not go back to its state before the write then (its
  members get the error and rejoin). OffsetFetch shows offsets as replicated (the store's
  `committed`). With one replica the high watermark is the log end offset: nothing waits;
- persistence: an optional `store` gets the group metadata record (Kafka's
  GroupMetadataValue, version 3 layout) when a JoinGroup creates the group (generation 0,
  no protocol type, no members: Kafka's "empty group" record), when a rebalance completes
  (the leader's SyncGroup; written as the group was in CompletingRebalance), when a static
  member takes its slot back, when a group becomes Empty, and a tombstone (None) when it
  is deleted; at `load()` the groups come back from `store.loaded_groups()` as Empty or
  Stable, every member's session restarting;
- the offsets side: `validate_offset_commit`, `group_state`, `is_group_empty_or_dead`,
  `members_of`, `ensure_group`, `maybe_remove_empty_group`, and `on_group_deleted(group_id)`
  called when DeleteGroups removed a group (the offsets store drops its offsets);
- topic deletion: `on_partitions_deleted(partitions)`, called by the broker, has the store
  remove every group's offsets of those partitions.

Store interface (duck-typed; offsets.py OffsetStore is the real one):

    write_group_metadata(group_id: str, value: GroupMetadataValue | None) -> Written | None
    loaded_groups() -> dict[str, GroupMetadataValue]
    delete_partitions(partitions: list[tuple[str, int]]) -> dict[str, list[tuple[str, int]]]
    and, for leadership and replication (a store without `partition_for` puts every group
    in one partition that is always served):
    partition_for(group_id) -> int, load_partition(index), unload_partition(index),
    async wait_caught_up(index, still_current) -> ErrorCode,
    is_replicated(written) -> bool, async wait_replicated(written, still_leading) -> ErrorCode

Scheduler interface: `call_at(when_ms, callback) -> handle` with `handle.cancel()`.
`LoopScheduler` maps it onto the running loop's `call_later`.

Lifecycle: `load()` (single node, after the offsets store has read `__consumer_offsets`)
or leadership calls (a cluster broker) then serve; `shutdown()` before the listener stops:
parked requests are answered NOT_COORDINATOR (Kafka does this when it gives a group up),
timers and loads are cancelled, held answers get NOT_COORDINATOR, and later requests get
COORDINATOR_NOT_AVAILABLE.

Crash behaviour: nothing of its own on disk; what counts is in `__consumer_offsets`, and
a load replays it.

Concurrency: everything runs on the broker's event loop; no locks.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from dataclasses import dataclass
from typing import Awaitable, Callable, Iterable

from protocol.error_codes import ErrorCode
from protocol.internal.group_metadata_value import GroupMetadataValue, MemberMetadata
from pylog.clock import now_ms as wall_clock_ms
from pylog.errors import error_code_for
from pylog.coordinator import OFFSETS_TOPIC
from pylog.coordinator.offsets import in_kafkas_partition_order, write_error
from pylog.coordinator.partitions import CoordinatorPartitions, LoadState
from pylog.coordinator.group import (
    ClassicGroup,
    Effects,
    GroupConfig,
    GroupState,
    GroupSummary,
    JoinRequest,
    JoinResult,
    SyncRequest,
    SyncResult,
    check_session_timeout,
)

log = logging.getLogger("pylog.coordinator")

GROUP_METADATA_VALUE_VERSION = 3


class LoopScheduler:
    """Timers on the running asyncio loop; `when_ms` is on the `clock`'s scale."""

    def __init__(self, clock: Callable[[], int] = wall_clock_ms):
        self.clock = clock

    def call_at(self, when_ms: int, callback: Callable[[], None]):
        delay_s = max(0, when_ms - self.clock()) / 1000
        return asyncio.get_running_loop().call_later(delay_s, callback)


@dataclass(frozen=True)
class MemberInfo:
    """One member, for the lag tool and DescribeGroups-like views."""

    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    assignment: bytes
    subscription: bytes      # its metadata for the group's protocol (b"" while rebalancing)


@dataclass(frozen=True)
class ListedGroup:
    group_id: str
    protocol_type: str
    state: GroupState


DEAD_SUMMARY = GroupSummary(GroupState.DEAD, "", "", ())
# the type of every group this coordinator keeps (Kafka's "classic" protocol groups)
CLASSIC_GROUP_TYPE = "classic"
NO_SUMMARY = GroupSummary(None, "", "", ())


class GroupCoordinator:
    def __init__(self, config: GroupConfig, *, clock: Callable[[], int] = wall_clock_ms,
                 scheduler=None, store=None, on_group_deleted: Callable[[str], None] | None = None,
                 member_id_suffix: Callable[[], str] | None = None, leads_every_partition: bool = True):
        self.config = config
        self.clock = clock
        self.scheduler = scheduler if scheduler is not None else LoopScheduler(clock)
        self.store = store
        self.on_group_deleted = on_group_deleted
        self.member_id_suffix = member_id_suffix
        self.groups: dict[str, ClassicGroup] = {}
        # simple groups created by an OffsetCommit that stored nothing: no record holds them
        # yet, so reads do not see them (group id -> its partition, `hold_uncommitted`)
        self._uncommitted: dict[str, int | None] = {}
        self.active = True
        self._timers: dict[str, tuple[int, object]] = {}    # group id -> (when_ms, handle)
        self.partitions = CoordinatorPartitions(leads_every_partition)
        self._loads: dict[int, asyncio.Task] = {}            # partition index -> its load
        self._held: dict[asyncio.Task, tuple[list, Awaitable]] = {}   # answers waiting for replication

    @classmethod
    def for_broker(cls, broker_config, **kwargs) -> GroupCoordinator:
        return cls(GroupConfig.from_broker_config(broker_config), **kwargs)

    # -- lifecycle ---------------------------------------------------------------------

    def load(self) -> int:
        """The single-node start: rebuild every group the store has loaded (of the
        partitions this coordinator serves; call on the loop, before serving)."""
        self.active = True
        count = self._load_groups(lambda group_id: self._partition_error(group_id) == ErrorCode.NONE)
        if count:
            log.info("loaded %d group(s)", count)
        return count

    def _load_groups(self, wanted: Callable[[str], bool]) -> int:
        """Rebuild the groups of the store for which `wanted(group_id)`; how many."""
        if self.store is None:
            return 0
        now = self.clock()
        count = 0
        for group_id, value in self.store.loaded_groups().items():
            if value is None or not wanted(group_id):
                continue
            group = ClassicGroup.from_record(group_id, record_from_value(value), self.config, now,
                                             member_id_suffix=self.member_id_suffix)
            self.groups[group_id] = group
            self._settle(group)
            count += 1
        # groups that only have committed offsets exist too, Empty (Kafka loads them so)
        for group_id in getattr(self.store, "group_ids", lambda: ())():
            if wanted(group_id) and group_id not in self.groups:
                self.ensure_group(group_id)
                count += 1
        return count

    def shutdown(self) -> None:
        self.active = False
        self._unload(list(self.groups.values()))
        for _, handle in self._timers.values():
            handle.cancel()
        self._timers.clear()
        for task in self._loads.values():
            task.cancel()
        self._loads.clear()
        for task, (answers, replicated) in list(self._held.items()):
            task.cancel()
            if inspect.getcoroutinestate(replicated) == inspect.CORO_CREATED:
                replicated.close()     # the task never started: nothing will await it
            _answer([(ticket, _with_error(result, ErrorCode.NOT_COORDINATOR)) for ticket, result in answers])
        self._held.clear()

    def _unload(self, groups: list[ClassicGroup]) -> None:
        """Give these groups up: parked JoinGroup/SyncGroup answered NOT_COORDINATOR (the
        client looks for the coordinator again), timers cancelled, nothing written."""
        now = self.clock()
        for group in groups:
            group.unload(ErrorCode.NOT_COORDINATOR, now)
            self._deliver(group, group.take_effects(), persist=False)
            self._forget(group.group_id)

    # -- leadership of the __consumer_offsets partitions -------------------------------

    def on_elected(self, index: int, leader_epoch: int) -> bool:
        """This broker leads `__consumer_offsets` partition `index` at `leader_epoch`: its
        groups answer COORDINATOR_LOAD_IN_PROGRESS until the load is done. The load waits
        until the high watermark reaches the log end offset as it is now (what earlier
        leaders wrote counts once it is replicated), then replays the partition and
        rebuilds its groups. A partition already loaded (or loading) only takes the new
        epoch (a load under way starts again at it). False (nothing done) for a stale or
        repeated epoch."""
        seen_epoch = self.partitions.get(index).leader_epoch
        before = self.partitions.elect(index, leader_epoch)
        if before is None:
            log.info("%s-%d: election at leader epoch %d ignored (epoch %d seen)", OFFSETS_TOPIC, index,
                     leader_epoch, seen_epoch)
            return False
        if before is LoadState.ACTIVE:
            log.info("%s-%d: still leader, now at leader epoch %d", OFFSETS_TOPIC, index, leader_epoch)
            return True
        previous = self._loads.pop(index, None)
        if previous is not None:
            previous.cancel()
        task = asyncio.get_running_loop().create_task(self._load_partition(index, leader_epoch))
        self._loads[index] = task
        task.add_done_callback(lambda done: self._loads.pop(index, None) if self._loads.get(index) is done else None)
        return True

    def on_resigned(self, index: int, leader_epoch: int) -> bool:
        """This broker no longer leads `__consumer_offsets` partition `index` (now at
        `leader_epoch`): its groups are given up (parked requests answered NOT_COORDINATOR,
        timers cancelled), the store forgets them, and writes still waiting for their
        replication answer NOT_COORDINATOR. False (nothing done) for a stale or repeated
        epoch."""
        if not self.partitions.resign(index, leader_epoch):
            log.info("%s-%d: resignation at leader epoch %d ignored (epoch %d seen)", OFFSETS_TOPIC, index,
                     leader_epoch, self.partitions.get(index).leader_epoch)
            return False
        count = self._give_up(index)
        log.info("%s-%d: resigned at leader epoch %d; %d group(s) unloaded", OFFSETS_TOPIC, index, leader_epoch,
                 count)
        return True

    def on_deleted(self, index: int) -> None:
        """`__consumer_offsets` partition `index` is gone (the topic was deleted): its groups
        are given up as on a resignation, whatever the epoch (Kafka's onResignation without
        one), and its epoch is forgotten, so that the topic created again is elected afresh."""
        self.partitions.forget(index)
        count = self._give_up(index)
        if count:
            log.info("%s-%d: deleted; %d group(s) unloaded", OFFSETS_TOPIC, index, count)

    def _give_up(self, index: int) -> int:
        """Stop a load under way, unload the partition's groups, have the store forget
        them; how many groups there were."""
        load = self._loads.pop(index, None)
        if load is not None:
            load.cancel()
        groups = self._groups_of(index)
        self._unload(groups)
        if self.store is not None:
            self.store.unload_partition(index)
        return len(groups)

    async def _load_partition(self, index: int, leader_epoch: int) -> None:
        """The load `on_elected` starts; a failed one leaves the partition NOT_COORDINATOR
        with nothing of it kept (Kafka's FAILED coordinator)."""
        def current() -> bool:
            return self.partitions.is_loading(index, leader_epoch)

        try:
            if self.store is not None:
                error = await self.store.wait_caught_up(index, current)
                if not current():
                    return
                if error:
                    log.warning("%s-%d: cannot load at leader epoch %d: %s", OFFSETS_TOPIC, index, leader_epoch,
                                error.name)
                    self.partitions.failed(index, leader_epoch)
                    return
                self.store.load_partition(index)
                count = self._load_groups(lambda group_id: self._partition_of(group_id) == index)
            else:
                count = 0
            self.partitions.loaded(index, leader_epoch)
            log.info("%s-%d: loaded at leader epoch %d, %d group(s)", OFFSETS_TOPIC, index, leader_epoch, count)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("%s-%d: loading at leader epoch %d failed", OFFSETS_TOPIC, index, leader_epoch)
            if self.partitions.failed(index, leader_epoch):
                self._unload(self._groups_of(index))
                if self.store is not None:
                    self.store.unload_partition(index)

    def answer_order(self, group_ids: Iterable[str], deleting: bool = False) -> list[str]:
        """The groups of a request naming several (DescribeGroups, DeleteGroups: `deleting`)
        in the order Kafka's coordinator answers them (offsets.py
        `in_kafkas_partition_order`); in request order while this coordinator is not active,
        as Kafka's error answer lists them, or with a store without partitions."""
        partition_count = getattr(self.store, "partition_count", None)
        if not self.active or partition_count is None:
            return list(group_ids)
        return in_kafkas_partition_order(group_ids, partition_count, deleting)

    def _groups_of(self, index: int) -> list[ClassicGroup]:
        return [g for g in self.groups.values() if self._partition_of(g.group_id) == index]

    def _partition_of(self, group_id: str) -> int | None:
        """The group's `__consumer_offsets` partition (None: a store without partitions)."""
        partition_for = getattr(self.store, "partition_for", None)
        return None if partition_for is None else partition_for(group_id)

    def _partition_error(self, group_id: str) -> ErrorCode:
        index = self._partition_of(group_id)
        return ErrorCode.NONE if index is None else self.partitions.error(index)

    def coordinator_error(self, group_id: str | None) -> ErrorCode:
        """Whether this coordinator answers for `group_id` now: NONE, or the error every
        request of that group gets (COORDINATOR_NOT_AVAILABLE after shutdown,
        INVALID_GROUP_ID for a null id, NOT_COORDINATOR when this broker does not lead the
        group's partition, COORDINATOR_LOAD_IN_PROGRESS while it loads it)."""
        if not self.active:
            return ErrorCode.COORDINATOR_NOT_AVAILABLE
        if group_id is None:
            return ErrorCode.INVALID_GROUP_ID
        return self._partition_error(group_id)

    def written_so_far(self, group_id: str):
        """Where the group's partition ends now (for a wait covering every write made so
        far for the group; None without a store that says)."""
        written_so_far = getattr(self.store, "written_so_far", None)
        return None if written_so_far is None else written_so_far(group_id)

    def wait_replicated(self, written) -> Awaitable[ErrorCode]:
        """The wait for a write of the store (`written`, from its write methods) to be
        replicated, answered as a write is: NONE, NOT_COORDINATOR (the partition was
        resigned meanwhile) or COORDINATOR_NOT_AVAILABLE (`offsets.commit.timeout.ms`
        passed: Kafka's answer to a write that timed out). The partition's leadership term
        is taken now: call it right after the write."""
        return self._replication(written, write_error)

    def wait_stable(self, group_id: str) -> Awaitable[ErrorCode]:
        """OffsetFetch with `require_stable`: wait until every write made so far for the
        group is replicated (Kafka runs such a fetch as a write). A timeout answers
        NOT_COORDINATOR, Kafka's choice for a fetch (older consumers retry only that one)."""
        return self._replication(self.written_so_far(group_id), _stable_fetch_error)

    def _replication(self, written, mapping: Callable[[ErrorCode], ErrorCode]) -> Awaitable[ErrorCode]:
        """The wait for `written`, its outcome through `mapping`; the leadership term of its
        partition is taken now, the wait itself starts when awaited."""
        if written is None or self.store is None:
            return _answered(ErrorCode.NONE)
        term = self.partitions.get(written.index).term

        async def replicated() -> ErrorCode:
            return mapping(await self.store.wait_replicated(
                written, lambda: self.partitions.is_active(written.index, term)))

        return replicated()

    # -- JoinGroup / SyncGroup (may wait) ----------------------------------------------

    async def join_group(self, group_id: str, request: JoinRequest) -> JoinResult:
        error = self.check_group_id(group_id)
        if not error:
            error = check_session_timeout(self.config, request.session_timeout_ms)
        if error:
            return JoinResult(error, member_id=request.member_id)
        error = self._partition_error(group_id)
        if error:
            return JoinResult(error)
        group = self.groups.get(group_id)
        if group is None:
            if request.member_id:
                return JoinResult(ErrorCode.UNKNOWN_MEMBER_ID, member_id=request.member_id)
            group = self._new_group(group_id)
            error = self._write_new_group(group)
            if error:
                return JoinResult(error, member_id=request.member_id)
            self.groups[group_id] = group
        ticket = asyncio.get_running_loop().create_future()
        group.join(request, ticket, self.clock())
        self._settle(group)
        return await ticket

    async def sync_group(self, group_id: str, request: SyncRequest) -> SyncResult:
        error = self.check_group_id(group_id) or self._partition_error(group_id)
        if error:
            return SyncResult(error)
        group = self.groups.get(group_id)
        if group is None:
            return SyncResult(ErrorCode.UNKNOWN_MEMBER_ID)
        ticket = asyncio.get_running_loop().create_future()
        group.sync(request, ticket, self.clock())
        self._settle(group)
        return await ticket

    # -- Heartbeat / LeaveGroup --------------------------------------------------------

    def heartbeat(self, group_id: str, member_id: str, group_instance_id: str | None,
                  generation_id: int) -> ErrorCode:
        error = self.check_group_id(group_id) or self._partition_error(group_id)
        if error == ErrorCode.COORDINATOR_LOAD_IN_PROGRESS:
            return ErrorCode.NONE       # Kafka answers a heartbeat of a loading group blindly
        if error:
            return error
        group = self.groups.get(group_id)
        if group is None:
            return ErrorCode.UNKNOWN_MEMBER_ID
        result = group.heartbeat(member_id, group_instance_id, generation_id, self.clock())
        self._settle(group)
        return result

    def leave_group(self, group_id: str, members: list[tuple[str, str | None]]) -> tuple[ErrorCode, list[ErrorCode]]:
        """(top-level error, one error per (member id, group.instance.id) in order)."""
        error = self.check_group_id(group_id) or self._partition_error(group_id)
        if error:
            return error, []
        group = self.groups.get(group_id)
        if group is None:
            return ErrorCode.NONE, [ErrorCode.UNKNOWN_MEMBER_ID for _ in members]
        result = group.leave(members, self.clock())
        self._settle(group)
        return result

    # -- admin -------------------------------------------------------------------------

    def describe_group(self, group_id: str) -> tuple[ErrorCode, GroupSummary]:
        if not self.active:
            return ErrorCode.COORDINATOR_NOT_AVAILABLE, NO_SUMMARY
        if group_id is None:
            return ErrorCode.INVALID_GROUP_ID, NO_SUMMARY
        error = self._partition_error(group_id)
        if error:
            return error, NO_SUMMARY
        group = self.groups.get(group_id)
        if group is None or group_id in self._uncommitted:
            return ErrorCode.GROUP_ID_NOT_FOUND, DEAD_SUMMARY
        return ErrorCode.NONE, group.summary()

    def list_groups(self, states: Iterable[str] = (), types: Iterable[str] = ()) -> tuple[ErrorCode, list[ListedGroup]]:
        """The groups, or those in one of `states` (state names, any case, as ListGroups v4+
        filters) and of one of `types` (group types, any case, ListGroups v5+). Every group
        here is of type "classic"; a name that is no state or type matches nothing. Listed in
        Kafka's order (offsets.py `groups_in_kafkas_order`)."""
        if not self.active:
            return ErrorCode.COORDINATOR_NOT_AVAILABLE, []
        if self.partitions.any_loading():
            return ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, []
        wanted_states = {s.strip().lower() for s in states}
        wanted_types = {t.lower() for t in types if t is not None}
        if types and CLASSIC_GROUP_TYPE not in wanted_types:
            return ErrorCode.NONE, []
        listed = {g.group_id: ListedGroup(g.group_id, g.protocol_type or "", g.state)
                  for g in self.groups.values()
                  if g.state is not GroupState.DEAD and g.group_id not in self._uncommitted
                  and (not wanted_states or g.state.value.lower() in wanted_states)}
        in_kafkas_order = getattr(self.store, "groups_in_kafkas_order", None)
        if in_kafkas_order is None:   # a store without partitions
            return ErrorCode.NONE, list(listed.values())
        shards = [index for index in range(self.store.partition_count)
                  if self.partitions.state(index) is not LoadState.NOT_COORDINATOR]
        return ErrorCode.NONE, [listed[group_id] for group_id in in_kafkas_order(listed, shards)]

    def delete_groups(self, group_ids: Iterable[str]) -> dict[str, ErrorCode]:
        results: dict[str, ErrorCode] = {}
        for group_id in group_ids:
            if not self.active:
                results[group_id] = ErrorCode.COORDINATOR_NOT_AVAILABLE
                continue
            if group_id is None:
                results[group_id] = ErrorCode.INVALID_GROUP_ID
                continue
            error = self._partition_error(group_id)
            if error:
                results[group_id] = error
                continue
            group = self.groups.get(group_id)
            if group is None and self._store_has_group(group_id):
                group = self.ensure_group(group_id)
            if group is None:
                results[group_id] = ErrorCode.GROUP_ID_NOT_FOUND
                continue
            error = group.remove(self.clock())
            results[group_id] = error
            if not error:
                self._forget(group_id)
                try:
                    if self.store is not None:
                        self.store.write_group_metadata(group_id, None)
                    if self.on_group_deleted is not None:
                        self.on_group_deleted(group_id)
                except Exception as exc:
                    results[group_id] = error_code_for(exc)
                    log.warning("group %s: deleting its records failed: %s", group_id, exc)
                    continue
                log.info("deleted group %s", group_id)
        return results

    def on_partitions_deleted(self, partitions: Iterable[tuple[str, int]]) -> None:
        """Partitions of a deleted topic: every group's committed offsets of them are
        removed (the store writes the tombstones). A failed write is logged and the topic
        deletion stands, as in Kafka."""
        partitions = list(partitions)
        if self.store is None or not partitions:
            return
        try:
            removed = self.store.delete_partitions(partitions)
        except Exception as exc:
            log.error("deleting the committed offsets of %d deleted partition(s) failed: %s", len(partitions), exc)
            return
        if removed:
            log.info("removed %d committed offset(s) of deleted partitions, in %d group(s)",
                     sum(len(tps) for tps in removed.values()), len(removed))

    # -- for the offsets side ----------------------------------------------------------

    def validate_offset_commit(self, group_id: str, generation_id: int, member_id: str,
                               group_instance_id: str | None, api_version: int = 0) -> ErrorCode:
        """Kafka's checks on an OffsetCommit. A commit with generation -1 (and no member
        id) into an unknown group creates it Empty, as Kafka's "simple consumer group"; a
        generation >= 0 for an unknown group is GROUP_ID_NOT_FOUND from OffsetCommit v9
        (`api_version`), ILLEGAL_GENERATION before. The generation is v9's member epoch
        field; the rules are the classic group's whatever the version."""
        if not self.active:
            return ErrorCode.COORDINATOR_NOT_AVAILABLE
        if group_id is None:
            return ErrorCode.INVALID_GROUP_ID
        error = self._partition_error(group_id)
        if error:
            return error
        group = self.groups.get(group_id)
        if group is None:
            if generation_id >= 0:   # a member of a generation this group never had
                return ErrorCode.GROUP_ID_NOT_FOUND if api_version >= 9 else ErrorCode.ILLEGAL_GENERATION
            group = self.ensure_group(group_id)
        result = group.validate_offset_commit(member_id or "", group_instance_id, generation_id, self.clock())
        self._settle(group)
        return result

    def hold_uncommitted(self, group_id: str) -> None:
        """A simple group an OffsetCommit created (`validate_offset_commit`) that then stored
        no offset (every partition refused). Kafka's coordinator made the change in its
        in-memory state but wrote no record: its writes (a commit, a join, a delete) see the
        group, its reads (DescribeGroups, ListGroups) read what is committed and do not,
        until a record written to the group's partition commits it along
        (`on_partition_written`); a restart forgets it."""
        self._uncommitted[group_id] = self._partition_of(group_id)

    def on_partition_written(self, index: int) -> None:
        """A record was written to `__consumer_offsets` partition `index`: the groups held
        uncommitted there are committed with it."""
        if self._uncommitted:
            for group_id in [g for g, i in self._uncommitted.items() if i == index]:
                del self._uncommitted[group_id]

    def ensure_group(self, group_id: str) -> ClassicGroup:
        """The group, created Empty if unknown (a group that only has committed offsets)."""
        group = self.groups.get(group_id)
        if group is None:
            group = self.groups[group_id] = self._new_group(group_id)
        return group

    def maybe_remove_empty_group(self, group_id: str) -> bool:
        """Offsets expiry: an Empty group whose last offset expired is removed (Dead). The
        caller (the offsets store's expiry) writes the tombstone with its own batch."""
        group = self.groups.get(group_id)
        if group is None or group.state is not GroupState.EMPTY:
            return False
        group.remove(self.clock())
        self._forget(group_id)
        return True

    def group_state(self, group_id: str) -> GroupState | None:
        group = self.groups.get(group_id)
        return group.state if group is not None else None

    def is_group_empty_or_dead(self, group_id: str) -> bool:
        group = self.groups.get(group_id)
        return group is None or group.state in (GroupState.EMPTY, GroupState.DEAD)

    def members_of(self, group_id: str) -> list[MemberInfo]:
        group = self.groups.get(group_id)
        if group is None:
            return []
        return [MemberInfo(m.member_id, m.group_instance_id, m.client_id, m.client_host, m.assignment,
                           m.metadata(group.protocol_name) if group.protocol_name else b"")
                for m in group.members.values()]

    def protocol_type_of(self, group_id: str) -> str | None:
        group = self.groups.get(group_id)
        return group.protocol_type if group is not None else None

    def group(self, group_id: str) -> ClassicGroup | None:
        return self.groups.get(group_id)

    # -- plumbing ----------------------------------------------------------------------

    def check_group_id(self, group_id) -> ErrorCode:
        """The first checks of a group request that needs a group id (JoinGroup, SyncGroup,
        Heartbeat, LeaveGroup, OffsetDelete), in Kafka's order: a coordinator shutting down,
        then a null or empty id."""
        if not self.active:
            return ErrorCode.COORDINATOR_NOT_AVAILABLE
        if not group_id:
            return ErrorCode.INVALID_GROUP_ID
        return ErrorCode.NONE

    def _store_has_group(self, group_id: str) -> bool:
        has_group = getattr(self.store, "has_group", None)
        return bool(has_group is not None and has_group(group_id))

    def _new_group(self, group_id: str) -> ClassicGroup:
        return ClassicGroup(group_id, self.config, self.clock(), member_id_suffix=self.member_id_suffix)

    def _write_new_group(self, group: ClassicGroup) -> ErrorCode:
        """A JoinGroup created the group: its empty generation-0 record (no protocol type,
        no members) is written first, as Kafka does to have the group in its log. A failed
        write fails the join and the group is not created."""
        if self.store is None:
            return ErrorCode.NONE
        try:
            self.store.write_group_metadata(group.group_id, value_from_record(group.to_record()))
        except Exception as exc:
            log.warning("group %s: writing the new group failed: %s", group.group_id, exc)
            return error_code_for(exc)
        return ErrorCode.NONE

    def _forget(self, group_id: str) -> None:
        self.groups.pop(group_id, None)
        self._uncommitted.pop(group_id, None)
        timer = self._timers.pop(group_id, None)
        if timer is not None:
            timer[1].cancel()

    def _settle(self, group: ClassicGroup) -> None:
        """After a call into the group: run what is due, deliver, set the timer."""
        group.tick(self.clock())
        self._deliver(group, group.take_effects())
        self._schedule(group)

    def _on_timer(self, group_id: str) -> None:
        self._timers.pop(group_id, None)
        group = self.groups.get(group_id)
        if group is None or not self.active:
            return
        try:
            self._settle(group)
        except Exception:
            log.exception("group %s: timer failed", group_id)

    def _schedule(self, group: ClassicGroup) -> None:
        when = group.next_deadline_ms()
        current = self._timers.get(group.group_id)
        if when is None:
            if current is not None:
                current[1].cancel()
                del self._timers[group.group_id]
            return
        if current is not None:
            if current[0] <= when:
                return        # fires earlier; `_on_timer` looks again then
            current[1].cancel()
        group_id = group.group_id
        handle = self.scheduler.call_at(when, lambda: self._on_timer(group_id))
        self._timers[group_id] = (when, handle)

    def _deliver(self, group: ClassicGroup, effects: Effects, persist: bool = True) -> None:
        """Log the notes, write the group's record, answer the tickets: at once, or, when
        the record is not replicated yet, once it is (Kafka completes those answers when
        the write commits)."""
        for note in effects.notes:
            log.info("group %s: %s", group.group_id, note)
        written = None
        if effects.record is not None and persist and self.store is not None:
            try:
                written = self.store.write_group_metadata(group.group_id, value_from_record(effects.record))
            except Exception:
                # Kafka answers the members with the storage error and rebalances; pylog's
                # store is a local append, so this is a bug or a full disk: log it and go on.
                log.exception("group %s: writing the group metadata failed", group.group_id)
        answers = [*effects.joins, *effects.syncs]
        if written is None or self.store.is_replicated(written):
            _answer(answers)
        elif answers:
            self._hold(group.group_id, answers, written)

    def _hold(self, group_id: str, answers: list, written) -> None:
        """Answer these tickets once `written` is replicated; if it is not (timeout,
        resignation, shutdown), each gets that error instead."""
        replicated = self.wait_replicated(written)

        async def answer_when_replicated() -> None:
            error = await replicated
            if error:
                log.warning("group %s: its metadata was not replicated (%s); answering %d request(s) so",
                            group_id, error.name, len(answers))
            _answer([(ticket, _with_error(result, error)) for ticket, result in answers])

        task = asyncio.get_running_loop().create_task(answer_when_replicated())
        self._held[task] = (answers, replicated)
        task.add_done_callback(lambda done: self._held.pop(done, None))


def _answer(answers: list) -> None:
    for ticket, result in answers:
        if not ticket.done():
            ticket.set_result(result)


def _with_error(result, error: ErrorCode):
    """`result` itself for NONE, else the same kind of answer carrying `error`."""
    if not error:
        return result
    if isinstance(result, JoinResult):
        return JoinResult(error, member_id=result.member_id)
    return SyncResult(error)


async def _answered(error: ErrorCode) -> ErrorCode:
    return error


def _stable_fetch_error(code: ErrorCode) -> ErrorCode:
    """A stable OffsetFetch that timed out answers NOT_COORDINATOR (Kafka: consumers before
    3.9 retry only that one, and it makes them look for the coordinator again)."""
    return ErrorCode.NOT_COORDINATOR if code == ErrorCode.REQUEST_TIMED_OUT else code


# ---------------------------------------------------------------------------------------
# GroupMetadataValue <-> the group's record


def value_from_record(record: dict) -> GroupMetadataValue:
    return GroupMetadataValue(
        protocol_type=record["protocol_type"], generation=record["generation"],
        protocol=record["protocol"], leader=record["leader"],
        current_state_timestamp=record["current_state_timestamp"],
        members=[MemberMetadata(**m) for m in record["members"]])


def record_from_value(value: GroupMetadataValue) -> dict:
    return dict(protocol_type=value.protocol_type, generation=value.generation, protocol=value.protocol,
                leader=value.leader, current_state_timestamp=value.current_state_timestamp,
                members=[dict(member_id=m.member_id, group_instance_id=m.group_instance_id,
                              client_id=m.client_id, client_host=m.client_host,
                              rebalance_timeout=m.rebalance_timeout, session_timeout=m.session_timeout,
                              subscription=m.subscription, assignment=m.assignment)
                         for m in value.members])
