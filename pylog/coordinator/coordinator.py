"""GroupCoordinator: every consumer group of this broker, on the broker's event loop.

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

Store interface (duck-typed):

    write_group_metadata(group_id: str, value: GroupMetadataValue | None) -> None
    loaded_groups() -> dict[str, GroupMetadataValue]
    delete_partitions(partitions: list[tuple[str, int]]) -> dict[str, list[tuple[str, int]]]

Scheduler interface: `call_at(when_ms, callback) -> handle` with `handle.cancel()`.
`LoopScheduler` maps it onto the running loop's `call_later`.

Lifecycle: `load()` (after the offsets store has read `__consumer_offsets`) then serve;
`shutdown()` before the listener stops: parked requests are answered NOT_COORDINATOR
(Kafka does this when it gives a group up), timers are cancelled, and later requests get
COORDINATOR_NOT_AVAILABLE.

Concurrency: everything runs on the broker's event loop; no locks.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Callable, Iterable

from protocol.error_codes import ErrorCode
from protocol.internal.group_metadata_value import GroupMetadataValue, MemberMetadata
from pylog.clock import now_ms as wall_clock_ms
from pylog.errors import error_code_for
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
NO_SUMMARY = GroupSummary(None, "", "", ())


class GroupCoordinator:
    def __init__(self, config: GroupConfig, *, clock: Callable[[], int] = wall_clock_ms,
                 scheduler=None, store=None, on_group_deleted: Callable[[str], None] | None = None,
                 member_id_suffix: Callable[[], str] | None = None):
        self.config = config
        self.clock = clock
        self.scheduler = scheduler if scheduler is not None else LoopScheduler(clock)
        self.store = store
        self.on_group_deleted = on_group_deleted
        self.member_id_suffix = member_id_suffix
        self.groups: dict[str, ClassicGroup] = {}
        self.active = True
        self._timers: dict[str, tuple[int, object]] = {}    # group id -> (when_ms, handle)

    @classmethod
    def for_broker(cls, broker_config, **kwargs) -> GroupCoordinator:
        return cls(GroupConfig.from_broker_config(broker_config), **kwargs)

    # -- lifecycle ---------------------------------------------------------------------

    def load(self) -> int:
        """Rebuild the groups the store has (call on the loop, before serving)."""
        self.active = True
        if self.store is None:
            return 0
        now = self.clock()
        loaded = self.store.loaded_groups()
        for group_id, value in loaded.items():
            if value is None:
                continue
            group = ClassicGroup.from_record(group_id, record_from_value(value), self.config, now,
                                             member_id_suffix=self.member_id_suffix)
            self.groups[group_id] = group
            self._settle(group)
        # groups that only have committed offsets exist too, Empty (Kafka loads them so)
        for group_id in getattr(self.store, "group_ids", lambda: ())():
            self.ensure_group(group_id)
        if self.groups:
            log.info("loaded %d group(s)", len(self.groups))
        return len(self.groups)

    def shutdown(self) -> None:
        self.active = False
        now = self.clock()
        for group in list(self.groups.values()):
            group.unload(ErrorCode.NOT_COORDINATOR, now)
            self._deliver(group, group.take_effects(), persist=False)
        for _, handle in self._timers.values():
            handle.cancel()
        self._timers.clear()
        self.groups.clear()

    # -- JoinGroup / SyncGroup (may wait) ----------------------------------------------

    async def join_group(self, group_id: str, request: JoinRequest) -> JoinResult:
        error = self._check_group_id(group_id)
        if not error:
            error = check_session_timeout(self.config, request.session_timeout_ms)
        if error:
            return JoinResult(error, member_id=request.member_id)
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
        error = self._check_group_id(group_id)
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
        error = self._check_group_id(group_id)
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
        error = self._check_group_id(group_id)
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
        group = self.groups.get(group_id)
        if group is None:
            return ErrorCode.NONE, DEAD_SUMMARY      # Kafka before DescribeGroups v6
        return ErrorCode.NONE, group.summary()

    def list_groups(self, states: Iterable[str] = ()) -> tuple[ErrorCode, list[ListedGroup]]:
        """The groups, or those in one of `states` (state names, any case, as ListGroups v4+
        filters; a name that is no state matches nothing)."""
        if not self.active:
            return ErrorCode.COORDINATOR_NOT_AVAILABLE, []
        wanted = {s.lower() for s in states}
        listed = [ListedGroup(g.group_id, g.protocol_type or "", g.state)
                  for g in self.groups.values()
                  if g.state is not GroupState.DEAD and (not wanted or g.state.value.lower() in wanted)]
        return ErrorCode.NONE, listed

    def delete_groups(self, group_ids: Iterable[str]) -> dict[str, ErrorCode]:
        results: dict[str, ErrorCode] = {}
        for group_id in group_ids:
            if not self.active:
                results[group_id] = ErrorCode.COORDINATOR_NOT_AVAILABLE
                continue
            if group_id is None:
                results[group_id] = ErrorCode.INVALID_GROUP_ID
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
                               group_instance_id: str | None) -> ErrorCode:
        """Kafka's checks on an OffsetCommit. A commit with generation -1 (and no member
        id) into an unknown group creates it Empty, as Kafka's "simple consumer group"."""
        if not self.active:
            return ErrorCode.COORDINATOR_NOT_AVAILABLE
        if group_id is None:
            return ErrorCode.INVALID_GROUP_ID
        group = self.groups.get(group_id)
        if group is None:
            if generation_id >= 0:
                return ErrorCode.ILLEGAL_GENERATION     # a member of a generation we never had
            group = self.ensure_group(group_id)
        result = group.validate_offset_commit(member_id or "", group_instance_id, generation_id, self.clock())
        self._settle(group)
        return result

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

    def _check_group_id(self, group_id) -> ErrorCode:
        if not group_id:
            return ErrorCode.INVALID_GROUP_ID
        if not self.active:
            return ErrorCode.COORDINATOR_NOT_AVAILABLE
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
        for note in effects.notes:
            log.info("group %s: %s", group.group_id, note)
        if effects.record is not None and persist and self.store is not None:
            try:
                self.store.write_group_metadata(group.group_id, value_from_record(effects.record))
            except Exception:
                # Kafka answers the members with the storage error and rebalances; pylog's
                # store is a local append, so this is a bug or a full disk: log it and go on.
                log.exception("group %s: writing the group metadata failed", group.group_id)
        for ticket, result in effects.joins:
            if not ticket.done():
                ticket.set_result(result)
        for ticket, result in effects.syncs:
            if not ticket.done():
                ticket.set_result(result)


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
