"""One consumer group of the classic group protocol, as a pure state machine.

Owns: the members of one group (dynamic and static), its generation, the selected
protocol, the leader, the assignment of each member, and every deadline of the group.
It does no I/O, starts no timers and never reads a clock: time comes in as `now_ms`
arguments, and whatever must leave the machine (answers to parked requests, "write the
group metadata now") collects in `Effects`, which the caller takes with
`take_effects()` after each call. `coordinator.py` is the asyncio side.

Theory of operation
-------------------
Members agree on a *generation* in two phases. JoinGroup: every member announces itself
with the protocols it supports (for consumers: the assignors, each with its opaque
subscription metadata). The coordinator parks those requests until every known member
has rejoined (or the rebalance timeout passes, and the laggards are dropped), then picks
the protocol all members support by a vote, bumps the generation, elects a leader and
answers them all at once; the leader's answer lists every member with its metadata.
SyncGroup: the leader computes the assignment on the client side and sends it; the
followers' SyncGroups wait for it; each member gets its own slice. Heartbeats keep a
member's session alive and tell it (REBALANCE_IN_PROGRESS) when it has to rejoin.

The coordinator only relays bytes: it never decodes subscriptions or assignments, which
is why eager, cooperative (two rebalances in a row) and custom assignors all work.

Callers hand in a *ticket* (any object; the coordinator uses an asyncio future) with a
JoinGroup or SyncGroup. The machine stores it on the member while the request is parked
and later emits `(ticket, JoinResult)` / `(ticket, SyncResult)`; an answer that is known
at once is emitted the same way, before the call returns.

States and transitions
----------------------
`TRANSITIONS` below is the table; `ClassicGroup._transition` refuses anything else.

Empty — no members; a group that only stores offsets, or whose members all left.
    action:     JoinGroup from a new member is accepted; SyncGroup, Heartbeat, LeaveGroup
                and member-checked offset commits get UNKNOWN_MEMBER_ID; simple offset
                commits (generation -1, no member id) are allowed.
    transition: a member joins => PreparingRebalance, with the initial rebalance delay
                (`group.initial.rebalance.delay.ms`, extended while new members keep
                coming, Kafka's InitialDelayedJoin);
                DeleteGroups / expiry of its last offsets => Dead.

PreparingRebalance — collecting JoinGroups for the next generation.
    action:     JoinGroups are parked until every known member has rejoined; Heartbeat and
                SyncGroup get REBALANCE_IN_PROGRESS; LeaveGroup removes the member; offset
                commits of the current generation are still accepted.
    transition: all members rejoined, or the rebalance timeout passed (members that did
                not rejoin are removed, static members are kept) => CompletingRebalance
                (new generation, protocol voted, leader elected, JoinGroups answered);
                the same with no member left => Empty (the generation is bumped too).

CompletingRebalance — the generation is formed; waiting for the leader's assignment.
    action:     SyncGroups from followers are parked; a JoinGroup with unchanged metadata
                is answered with the current generation again; heartbeats are normal;
                offset commits get REBALANCE_IN_PROGRESS.
    transition: the leader's SyncGroup => Stable (assignment stored, parked SyncGroups
                answered);
                a new member, a member with new metadata, a leaving or expired member, a
                static member coming back with a new id => PreparingRebalance (parked
                SyncGroups get REBALANCE_IN_PROGRESS).

Stable — every member has its assignment.
    action:     heartbeats are normal; SyncGroup returns the member's assignment;
                JoinGroup from a follower with unchanged metadata returns the current
                generation; a static member rejoining with an unknown member id takes its
                old slot and assignment without a rebalance (if the protocol vote does not
                change; were it the leader, JoinGroup v9+ tells it to skip the assignment,
                older versions name the previous leader id); offset commits of members of this generation are accepted.
    transition: JoinGroup from the leader, or from a member with new metadata, a new
                member, LeaveGroup, an expired session, a member that did not send
                SyncGroup within the rebalance timeout => PreparingRebalance.

Dead — removed (DeleteGroups, offsets expired, or the coordinator shut down).
    action:     every request gets COORDINATOR_NOT_AVAILABLE (the client looks for the
                coordinator again and recreates the group if it still wants one).
    transition: none.

Deadlines (all in ms, handled by `tick(now_ms)` in time order)
--------------------------------------------------------------
- member session: `session_timeout_ms` after its last heartbeat (or other sign of life);
  new members not yet through their first rebalance get `NEW_MEMBER_JOIN_TIMEOUT_MS`
  (they cannot heartbeat yet). A member whose JoinGroup or SyncGroup is parked does not
  expire: its deadline is dropped and set again when the phase completes. Expiry removes
  the member, which starts a rebalance of the rest.
- pending member (JoinGroup v4+ answered MEMBER_ID_REQUIRED): forgotten after its session
  timeout unless it joins with the id it was given.
- join: the rebalance timeout (the largest of the members') in PreparingRebalance; the
  initial delay instead when the rebalance started from Empty.
- sync: the rebalance timeout after the generation formed; members that have not sent
  SyncGroup by then are removed and the group rebalances.

Invariants: `leader_id` is a member (or None when there are none); `static_members` maps
each group.instance.id to the member holding it; a member with a parked JoinGroup is
counted in `_awaiting_join`; `protocol_name` is set exactly in CompletingRebalance and
Stable.

Concurrency: none; the caller serializes calls (the broker's event loop does).
"""

from __future__ import annotations

import enum
import uuid
from dataclasses import dataclass, field, replace
from typing import Callable

from protocol.error_codes import ErrorCode
from protocol.java_order import JavaHashMap

NEW_MEMBER_JOIN_TIMEOUT_MS = 5 * 60 * 1000   # Kafka's GroupCoordinator.NewMemberJoinTimeoutMs


class GroupState(enum.Enum):
    """The classic group states; each value is the name DescribeGroups and ListGroups send."""

    EMPTY = "Empty"
    PREPARING_REBALANCE = "PreparingRebalance"
    COMPLETING_REBALANCE = "CompletingRebalance"
    STABLE = "Stable"
    DEAD = "Dead"


class Event(enum.Enum):
    PREPARE_REBALANCE = "a member joined, changed, left or expired"
    JOIN_COMPLETED = "the join phase ended with members"
    JOIN_COMPLETED_EMPTY = "the join phase ended without members"
    ASSIGNMENT_RECEIVED = "the leader sent the assignment"
    REMOVE = "the group is deleted or expired"
    UNLOAD = "the coordinator gives the group up"


E, P, C, S, D = (GroupState.EMPTY, GroupState.PREPARING_REBALANCE, GroupState.COMPLETING_REBALANCE,
                 GroupState.STABLE, GroupState.DEAD)

# (state, event) -> next state. Anything not listed is a bug in the caller.
TRANSITIONS: dict[tuple[GroupState, Event], GroupState] = {
    (E, Event.PREPARE_REBALANCE): P,
    (S, Event.PREPARE_REBALANCE): P,
    (C, Event.PREPARE_REBALANCE): P,
    (P, Event.JOIN_COMPLETED): C,
    (P, Event.JOIN_COMPLETED_EMPTY): E,
    (C, Event.ASSIGNMENT_RECEIVED): S,
    (E, Event.REMOVE): D,
    (E, Event.UNLOAD): D,
    (P, Event.UNLOAD): D,
    (C, Event.UNLOAD): D,
    (S, Event.UNLOAD): D,
}


class InvalidTransition(Exception):
    pass


# ---------------------------------------------------------------------------------------
# inputs and outputs


@dataclass(frozen=True)
class GroupConfig:
    """The broker settings a group obeys (`group.*`)."""

    min_session_timeout_ms: int = 6000
    max_session_timeout_ms: int = 1_800_000
    max_size: int = 2**31 - 1
    initial_rebalance_delay_ms: int = 0

    @classmethod
    def from_broker_config(cls, config) -> GroupConfig:
        return cls(min_session_timeout_ms=config.group_min_session_timeout_ms,
                   max_session_timeout_ms=config.group_max_session_timeout_ms,
                   max_size=config.group_max_size,
                   initial_rebalance_delay_ms=config.group_initial_rebalance_delay_ms)


@dataclass(frozen=True)
class JoinRequest:
    member_id: str
    session_timeout_ms: int
    rebalance_timeout_ms: int
    protocol_type: str
    protocols: tuple[tuple[str, bytes], ...]          # (name, metadata), in preference order
    group_instance_id: str | None = None
    client_id: str = ""
    client_host: str = ""
    require_known_member_id: bool = False              # JoinGroup v4+ from a dynamic member
    reason: str | None = None
    supports_skip_assignment: bool = False             # JoinGroup v9+ (KIP-814)


@dataclass(frozen=True)
class SyncRequest:
    member_id: str
    generation_id: int
    assignments: dict[str, bytes]                       # only the leader's is non-empty
    group_instance_id: str | None = None
    protocol_type: str | None = None                    # v5+
    protocol_name: str | None = None                    # v5+


@dataclass(frozen=True)
class JoinedMember:
    member_id: str
    group_instance_id: str | None
    metadata: bytes


@dataclass(frozen=True)
class JoinResult:
    error: ErrorCode
    member_id: str = ""
    generation_id: int = -1
    protocol_type: str | None = None
    protocol_name: str | None = None
    leader: str = ""
    members: tuple[JoinedMember, ...] = ()
    skip_assignment: bool = False                      # the leader keeps the current assignment


@dataclass(frozen=True)
class SyncResult:
    error: ErrorCode
    protocol_type: str | None = None
    protocol_name: str | None = None
    assignment: bytes = b""


@dataclass
class Effects:
    """What a call produced for the outside world."""

    joins: list[tuple[object, JoinResult]] = field(default_factory=list)
    syncs: list[tuple[object, SyncResult]] = field(default_factory=list)
    # the group metadata record to write (`ClassicGroup.to_record()`), taken when the change
    # happened, as Kafka builds it: the leader's assignment is written with the group
    # still in CompletingRebalance, before it turns Stable
    record: dict | None = None
    notes: list[str] = field(default_factory=list)   # what happened, for the log

    def __bool__(self) -> bool:
        return bool(self.joins or self.syncs or self.record is not None or self.notes)


@dataclass(frozen=True)
class MemberSummary:
    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    metadata: bytes
    assignment: bytes


@dataclass(frozen=True)
class GroupSummary:
    """What DescribeGroups shows (`state` None: the group could not be described)."""

    state: GroupState | None
    protocol_type: str
    protocol_data: str
    members: tuple[MemberSummary, ...]


# ---------------------------------------------------------------------------------------
# members


@dataclass
class Member:
    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    rebalance_timeout_ms: int
    session_timeout_ms: int
    protocol_type: str
    protocols: tuple[tuple[str, bytes], ...]
    assignment: bytes = b""
    awaiting_join: object | None = None      # ticket of a parked JoinGroup
    awaiting_sync: object | None = None      # ticket of a parked SyncGroup
    is_new: bool = False                     # has not completed a join phase yet
    session_deadline_ms: int | None = None

    def metadata(self, protocol: str | None) -> bytes:
        for name, metadata in self.protocols:
            if name == protocol:
                return metadata
        return b""

    def protocol_names(self) -> list[str]:
        return [name for name, _ in self.protocols]

    def vote(self, candidates: set[str]) -> str:
        """The member's most preferred protocol among `candidates`."""
        for name, _ in self.protocols:
            if name in candidates:
                return name
        raise ValueError(f"member {self.member_id} supports none of {sorted(candidates)}")

    def matches(self, protocols) -> bool:
        return tuple(protocols) == self.protocols


def dedupe_protocols(protocols) -> tuple[tuple[str, bytes], ...]:
    """(name, metadata) pairs in order, a name given twice counted once (the first)."""
    seen: set[str] = set()
    result = []
    for name, metadata in protocols:
        if name not in seen:
            seen.add(name)
            result.append((name, bytes(metadata or b"")))
    return tuple(result)


def check_session_timeout(config: GroupConfig, session_timeout_ms: int) -> ErrorCode:
    if not config.min_session_timeout_ms <= session_timeout_ms <= config.max_session_timeout_ms:
        return ErrorCode.INVALID_SESSION_TIMEOUT
    return ErrorCode.NONE


# ---------------------------------------------------------------------------------------
# the group


class ClassicGroup:
    def __init__(self, group_id: str, config: GroupConfig, now_ms: int, *,
                 member_id_suffix: Callable[[], str] | None = None):
        self.group_id = group_id
        self.config = config
        self.state = GroupState.EMPTY
        self.previous_state = GroupState.DEAD
        self.state_timestamp_ms = now_ms
        self.generation_id = 0
        self.protocol_type: str | None = None
        self.protocol_name: str | None = None
        self.leader_id: str | None = None
        # iterated in the order of Kafka's HashMap of members: DescribeGroups and the leader's
        # JoinGroup list them in it, and the leader that replaces one is its first
        self.members: dict[str, Member] = JavaHashMap()
        self.static_members: dict[str, str] = {}           # group.instance.id -> member id
        self.pending_members: dict[str, int] = {}          # MEMBER_ID_REQUIRED ids -> deadline
        self.pending_sync: set[str] = set()
        self.new_member_added = False
        self.join_deadline_ms: int | None = None
        self.initial_delay: tuple[int, int] | None = None   # (delay_ms, remaining_ms) while initial
        self.sync_deadline_ms: int | None = None
        self._awaiting_join = 0
        self._member_id_suffix = member_id_suffix or (lambda: str(uuid.uuid4()))
        self._effects = Effects()

    # -- reading -----------------------------------------------------------------------

    def __repr__(self) -> str:
        return (f"ClassicGroup({self.group_id!r}, {self.state.value}, generation {self.generation_id}, "
                f"{len(self.members)} member(s))")

    def is_leader(self, member_id: str) -> bool:
        return self.leader_id is not None and self.leader_id == member_id

    def has_member(self, member_id: str) -> bool:
        return member_id in self.members

    def rebalance_timeout_ms(self) -> int:
        return max((m.rebalance_timeout_ms for m in self.members.values()), default=0)

    def has_all_members_joined(self) -> bool:
        return self._awaiting_join == len(self.members) and not self.pending_members

    def candidate_protocols(self) -> set[str]:
        members = list(self.members.values())
        if not members:
            return set()
        common = set(members[0].protocol_names())
        for member in members[1:]:
            common &= set(member.protocol_names())
        return common

    def supports_protocols(self, protocol_type: str, names) -> bool:
        names = list(names)
        if self.state is GroupState.EMPTY:
            return bool(protocol_type) and bool(names)
        if protocol_type != self.protocol_type:
            return False
        if not self.members:
            return True
        candidates = self.candidate_protocols()
        return any(name in candidates for name in names)

    def select_protocol(self) -> str:
        """Kafka's vote: among the protocols every member supports, each member votes for
        its most preferred; the most votes win. A tie goes to the protocol that comes first
        in the order of Kafka's HashMap of the votes (`Stream.max` keeps the first of equals),
        which is the order of the names' hashes, not of who voted first."""
        if not self.members:
            raise ValueError("cannot select a protocol for a group without members")
        candidates = self.candidate_protocols()
        votes: JavaHashMap = JavaHashMap()
        for member in self.members.values():
            choice = member.vote(candidates)
            votes[choice] = votes.get(choice, 0) + 1
        best = max(votes.values())
        return next(name for name, count in votes.items() if count == best)

    def summary(self) -> GroupSummary:
        """DescribeGroups' view. Out of Stable the members show no metadata (no protocol is
        chosen) but still the assignment they hold: the last one SyncGroup gave them, kept
        through a rebalance until the next SyncGroup, or emptied when a rebalance cut
        CompletingRebalance short (Kafka's `describeNoMetadata`; Kafka's older Scala
        coordinator showed it empty)."""
        stable = self.state is GroupState.STABLE
        members = tuple(
            MemberSummary(m.member_id, m.group_instance_id, m.client_id, m.client_host,
                          m.metadata(self.protocol_name) if stable else b"", m.assignment)
            for m in self.members.values())
        return GroupSummary(self.state, self.protocol_type or "",
                            (self.protocol_name or "") if stable else "", members)

    def next_deadline_ms(self) -> int | None:
        deadlines = [d for d in self._deadlines()]
        return min(deadlines) if deadlines else None

    def _deadlines(self):
        if self.state is GroupState.DEAD:
            return
        for member in self.members.values():
            if member.session_deadline_ms is not None:
                yield member.session_deadline_ms
        yield from self.pending_members.values()
        if self.join_deadline_ms is not None:
            yield self.join_deadline_ms
        if self.sync_deadline_ms is not None:
            yield self.sync_deadline_ms

    def take_effects(self) -> Effects:
        effects, self._effects = self._effects, Effects()
        return effects

    # -- JoinGroup ---------------------------------------------------------------------

    def join(self, request: JoinRequest, ticket: object, now_ms: int) -> None:
        """Handle a JoinGroup; its answer (now or later) goes to `ticket` via the effects."""
        member_id = request.member_id
        protocols = dedupe_protocols(request.protocols)
        error = check_session_timeout(self.config, request.session_timeout_ms)
        if error:
            self._answer_join(ticket, JoinResult(error, member_id=member_id))
        elif self.state is GroupState.DEAD:
            self._answer_join(ticket, JoinResult(ErrorCode.COORDINATOR_NOT_AVAILABLE, member_id=member_id))
        elif not self._accepts_joining_member(member_id):
            if member_id in self.members:
                self._remove_member(self.members[member_id], now_ms, "the group is over group.max.size")
            self._answer_join(ticket, JoinResult(ErrorCode.GROUP_MAX_SIZE_REACHED))
        elif not self.supports_protocols(request.protocol_type, [name for name, _ in protocols]):
            self._answer_join(ticket, JoinResult(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, member_id=member_id))
        elif not member_id:
            self._join_new_member(request, protocols, ticket, now_ms)
        else:
            self._join_known_member(request, protocols, ticket, now_ms)
        if self.state is GroupState.PREPARING_REBALANCE:
            self._maybe_complete_join(now_ms)

    def _accepts_joining_member(self, member_id: str) -> bool:
        """group.max.size: in PreparingRebalance count the members that rejoined (the
        size may exceed the limit after it was lowered); otherwise the members."""
        if self.state in (GroupState.EMPTY, GroupState.DEAD):
            return True
        member = self.members.get(member_id)
        if self.state is GroupState.PREPARING_REBALANCE:
            return (member is not None and member.awaiting_join is not None) or \
                self._awaiting_join < self.config.max_size
        return member is not None or len(self.members) < self.config.max_size

    def _join_new_member(self, request: JoinRequest, protocols, ticket, now_ms: int) -> None:
        instance_id = request.group_instance_id
        new_id = f"{instance_id if instance_id is not None else request.client_id}-{self._member_id_suffix()}"
        if instance_id is not None:
            old_id = self.static_members.get(instance_id)
            if old_id is not None:
                self._rejoin_static_member(request, protocols, old_id, new_id, ticket, now_ms)
            else:
                self._add_member_and_rebalance(request, protocols, new_id, ticket, now_ms)
        elif request.require_known_member_id:
            # v4+: hand out the id first, so that a client that times out and retries
            # comes back with the same id instead of leaving a ghost member behind.
            self.pending_members[new_id] = now_ms + request.session_timeout_ms
            self._answer_join(ticket, JoinResult(ErrorCode.MEMBER_ID_REQUIRED, member_id=new_id))
        else:
            self._add_member_and_rebalance(request, protocols, new_id, ticket, now_ms)

    def _join_known_member(self, request: JoinRequest, protocols, ticket, now_ms: int) -> None:
        member_id = request.member_id
        if member_id in self.pending_members:
            if request.group_instance_id is not None:
                # pending ids are only given to dynamic members
                self._answer_join(ticket, JoinResult(ErrorCode.UNKNOWN_MEMBER_ID, member_id=member_id))
                return
            self._add_member_and_rebalance(request, protocols, member_id, ticket, now_ms)
            return
        error = self.validate_member(member_id, request.group_instance_id)
        if error:
            self._answer_join(ticket, JoinResult(error, member_id=member_id))
            return
        member = self.members[member_id]
        if self.state is GroupState.PREPARING_REBALANCE:
            self._update_member_and_rebalance(member, request, protocols, ticket, now_ms,
                                              f"member {member_id} rejoined")
        elif self.state is GroupState.COMPLETING_REBALANCE:
            if member.matches(protocols):
                # it probably missed the JoinGroup answer: the same generation again
                self._answer_join(ticket, self._join_result(member))
            else:
                self._update_member_and_rebalance(member, request, protocols, ticket, now_ms,
                                                  f"member {member_id} changed its metadata")
        elif self.state is GroupState.STABLE:
            if self.is_leader(member_id):
                # the leader may rejoin to have the assignment recomputed (e.g. new partitions)
                self._update_member_and_rebalance(member, request, protocols, ticket, now_ms,
                                                  f"leader {member_id} rejoined")
            elif not member.matches(protocols):
                self._update_member_and_rebalance(member, request, protocols, ticket, now_ms,
                                                  f"member {member_id} changed its metadata")
            else:
                self._answer_join(ticket, self._join_result(member, with_members=False))
        else:  # Empty: no members, so validate_member already failed
            self._answer_join(ticket, JoinResult(ErrorCode.UNKNOWN_MEMBER_ID, member_id=member_id))

    def _add_member_and_rebalance(self, request: JoinRequest, protocols, member_id: str, ticket,
                                  now_ms: int) -> None:
        member = Member(member_id=member_id, group_instance_id=request.group_instance_id,
                        client_id=request.client_id, client_host=request.client_host,
                        rebalance_timeout_ms=request.rebalance_timeout_ms,
                        session_timeout_ms=request.session_timeout_ms,
                        protocol_type=request.protocol_type, protocols=protocols, is_new=True)
        if self.state is GroupState.PREPARING_REBALANCE and self.generation_id == 0:
            self.new_member_added = True     # lets the initial delay stretch
        self._add(member, ticket)
        # A new member cannot heartbeat before its first JoinGroup answer, and its parked
        # request hides a disconnect: it gets a long fixed timeout instead of its session.
        member.session_deadline_ms = now_ms + NEW_MEMBER_JOIN_TIMEOUT_MS
        self._maybe_prepare_rebalance(now_ms, f"new member {member_id} joined")

    def _update_member_and_rebalance(self, member: Member, request: JoinRequest, protocols, ticket,
                                     now_ms: int, reason: str) -> None:
        self._update_member(member, request, protocols, ticket)
        self._maybe_prepare_rebalance(now_ms, reason)

    def _rejoin_static_member(self, request: JoinRequest, protocols, old_id: str, new_id: str, ticket,
                              now_ms: int) -> None:
        """A static member came back without its member id (it restarted): it takes over
        its old slot, assignment included, under a new id; the old id is fenced."""
        current_leader = self.leader_id
        member = self._replace_static_member(request.group_instance_id, old_id, new_id)
        member.session_deadline_ms = now_ms + member.session_timeout_ms
        self._update_member(member, request, protocols, ticket)
        self._effects.notes.append(f"static member {request.group_instance_id} rejoined as {new_id} "
                                   f"(was {old_id}) in {self.state.value}")
        if self.state is GroupState.STABLE:
            if self.select_protocol() == self.protocol_name:
                # No rebalance; the member syncs and gets its old assignment back. Were the
                # rejoining member the leader and told so, it would run its assignor, and a
                # Stable group would drop that assignment: a JoinGroup v9+ leader is told it
                # leads (with the members) and to skip the assignment; an older one is
                # answered the *previous* leader id, so that it does not see itself leading.
                self._effects.record = self.to_record()
                member.awaiting_join = None
                self._awaiting_join -= 1
                if request.supports_skip_assignment:
                    leading = self.is_leader(new_id)
                    result = self._join_result(member)
                    self._answer_join(ticket, replace(result, skip_assignment=leading))
                else:
                    self._answer_join(ticket, JoinResult(
                        ErrorCode.NONE, member_id=new_id, generation_id=self.generation_id,
                        protocol_type=self.protocol_type, protocol_name=self.protocol_name,
                        leader=current_leader or ""))
            else:
                self._maybe_prepare_rebalance(now_ms, f"static member {new_id} changes the protocol vote")
        elif self.state is GroupState.COMPLETING_REBALANCE:
            # The leader may already be assigning to the old id: start over.
            self._prepare_rebalance(now_ms, f"static member {new_id} replaced {old_id} during CompletingRebalance")
        # PreparingRebalance: it simply waits for the join phase like everyone else.

    # -- SyncGroup ---------------------------------------------------------------------

    def sync(self, request: SyncRequest, ticket: object, now_ms: int) -> None:
        if self.state is GroupState.DEAD:
            self._answer_sync(ticket, SyncResult(ErrorCode.COORDINATOR_NOT_AVAILABLE))
            return
        error = self.validate_member(request.member_id, request.group_instance_id)
        if not error and request.generation_id != self.generation_id:
            error = ErrorCode.ILLEGAL_GENERATION
        if not error and request.protocol_type is not None and request.protocol_type != self.protocol_type:
            error = ErrorCode.INCONSISTENT_GROUP_PROTOCOL
        if not error and request.protocol_name is not None and request.protocol_name != self.protocol_name:
            error = ErrorCode.INCONSISTENT_GROUP_PROTOCOL
        if error:
            self._answer_sync(ticket, SyncResult(error))
            return
        member = self.members[request.member_id]
        if self.state is GroupState.EMPTY:
            self._answer_sync(ticket, SyncResult(ErrorCode.UNKNOWN_MEMBER_ID))
        elif self.state is GroupState.PREPARING_REBALANCE:
            self._answer_sync(ticket, SyncResult(ErrorCode.REBALANCE_IN_PROGRESS))
        elif self.state is GroupState.COMPLETING_REBALANCE:
            self._replace_ticket(member, "awaiting_sync", ticket)
            member.awaiting_sync = ticket
            self._synced(member.member_id)
            if self.is_leader(member.member_id):
                assignment = {m: bytes(request.assignments.get(m, b"") or b"") for m in self.members}
                for m in self.members.values():
                    m.assignment = assignment[m.member_id]
                self._effects.record = self.to_record()
                self._transition(Event.ASSIGNMENT_RECEIVED, now_ms)
                self._effects.notes.append(f"generation {self.generation_id} is Stable with "
                                           f"{len(self.members)} member(s)")
                self._propagate_assignment(ErrorCode.NONE, now_ms)
        else:  # Stable: the assignment of this generation is known
            self._synced(member.member_id)
            member.session_deadline_ms = now_ms + member.session_timeout_ms
            self._answer_sync(ticket, SyncResult(ErrorCode.NONE, self.protocol_type, self.protocol_name,
                                                 member.assignment))

    def _synced(self, member_id: str) -> None:
        self.pending_sync.discard(member_id)
        if not self.pending_sync:
            self.sync_deadline_ms = None

    def _propagate_assignment(self, error: ErrorCode, now_ms: int) -> None:
        for member in self.members.values():
            if member.awaiting_sync is None:
                continue
            ticket, member.awaiting_sync = member.awaiting_sync, None
            if error:
                self._answer_sync(ticket, SyncResult(error))
            else:
                self._answer_sync(ticket, SyncResult(ErrorCode.NONE, self.protocol_type, self.protocol_name,
                                                     member.assignment))
            # its session was on hold while it waited
            member.session_deadline_ms = now_ms + member.session_timeout_ms

    # -- Heartbeat, LeaveGroup, offset commits -----------------------------------------

    def heartbeat(self, member_id: str, group_instance_id: str | None, generation_id: int,
                  now_ms: int) -> ErrorCode:
        if self.state is GroupState.DEAD:
            return ErrorCode.COORDINATOR_NOT_AVAILABLE
        error = self.validate_member(member_id, group_instance_id)
        if not error and generation_id != self.generation_id:
            error = ErrorCode.ILLEGAL_GENERATION
        if error:
            return error
        if self.state is GroupState.EMPTY:
            return ErrorCode.UNKNOWN_MEMBER_ID
        member = self.members[member_id]
        member.session_deadline_ms = now_ms + member.session_timeout_ms
        if self.state is GroupState.PREPARING_REBALANCE:
            return ErrorCode.REBALANCE_IN_PROGRESS
        return ErrorCode.NONE

    def leave(self, leaving: list[tuple[str, str | None]], now_ms: int) -> tuple[ErrorCode, list[ErrorCode]]:
        """LeaveGroup for (member id, group.instance.id) pairs. A member id of "" names a
        static member by its instance id alone (the admin client's removeMembers)."""
        if self.state is GroupState.DEAD:
            return ErrorCode.COORDINATOR_NOT_AVAILABLE, []
        errors = []
        for member_id, instance_id in leaving:
            if not member_id:
                current = self.static_members.get(instance_id) if instance_id is not None else None
                if current is None:
                    errors.append(ErrorCode.UNKNOWN_MEMBER_ID)
                else:
                    self._remove_member(self.members[current], now_ms, f"static member {instance_id} left")
                    errors.append(ErrorCode.NONE)
            elif member_id in self.pending_members:
                del self.pending_members[member_id]
                self._maybe_complete_join(now_ms)
                errors.append(ErrorCode.NONE)
            else:
                error = self.validate_member(member_id, instance_id)
                if not error:
                    self._remove_member(self.members[member_id], now_ms, f"member {member_id} left")
                errors.append(error)
        return ErrorCode.NONE, errors

    def validate_offset_commit(self, member_id: str, group_instance_id: str | None, generation_id: int,
                               now_ms: int) -> ErrorCode:
        """Kafka's ClassicGroup.validateOffsetCommit (non-transactional). A valid commit
        of a member also counts as a sign of life."""
        if self.state is GroupState.DEAD:
            return ErrorCode.COORDINATOR_NOT_AVAILABLE
        if generation_id < 0 and self.state is GroupState.EMPTY:
            return ErrorCode.NONE        # a simple consumer or the admin client
        if generation_id >= 0 or member_id or group_instance_id is not None:
            error = self.validate_member(member_id, group_instance_id)
            if error:
                return error
            if generation_id != self.generation_id:
                return ErrorCode.ILLEGAL_GENERATION
        elif self.state is not GroupState.EMPTY:
            return ErrorCode.UNKNOWN_MEMBER_ID    # only members commit into an active group
        if self.state is GroupState.COMPLETING_REBALANCE:
            return ErrorCode.REBALANCE_IN_PROGRESS
        member = self.members.get(member_id)
        if member is not None:
            member.session_deadline_ms = now_ms + member.session_timeout_ms
        return ErrorCode.NONE

    def validate_member(self, member_id: str, group_instance_id: str | None) -> ErrorCode:
        """UNKNOWN_MEMBER_ID, or FENCED_INSTANCE_ID when the instance id is held by another member."""
        if group_instance_id is not None:
            current = self.static_members.get(group_instance_id)
            if current is None:
                return ErrorCode.UNKNOWN_MEMBER_ID
            if current != member_id:
                return ErrorCode.FENCED_INSTANCE_ID
        if member_id not in self.members:
            return ErrorCode.UNKNOWN_MEMBER_ID
        return ErrorCode.NONE

    # -- removal -----------------------------------------------------------------------

    def remove(self, now_ms: int) -> ErrorCode:
        """DeleteGroups (or offsets expiry): only an Empty group goes."""
        if self.state is GroupState.DEAD:
            return ErrorCode.GROUP_ID_NOT_FOUND
        if self.state is not GroupState.EMPTY:
            return ErrorCode.NON_EMPTY_GROUP
        self._transition(Event.REMOVE, now_ms)
        return ErrorCode.NONE

    def unload(self, error: ErrorCode, now_ms: int) -> None:
        """The coordinator gives the group up (shutdown): parked requests get `error`."""
        if self.state is GroupState.DEAD:
            return
        for member in self.members.values():
            if member.awaiting_join is not None:
                ticket, member.awaiting_join = member.awaiting_join, None
                self._awaiting_join -= 1
                self._answer_join(ticket, JoinResult(error, member_id=member.member_id))
            if member.awaiting_sync is not None:
                ticket, member.awaiting_sync = member.awaiting_sync, None
                self._answer_sync(ticket, SyncResult(error))
        self._transition(Event.UNLOAD, now_ms)
        self.join_deadline_ms = self.sync_deadline_ms = None
        self.initial_delay = None

    # -- time --------------------------------------------------------------------------

    def tick(self, now_ms: int) -> None:
        """Handle every deadline at or before `now_ms`, earliest first."""
        while self.state is not GroupState.DEAD:
            due = self._earliest_due(now_ms)
            if due is None:
                return
            deadline, kind, key = due
            if kind == "pending":
                del self.pending_members[key]
                self._effects.notes.append(f"pending member {key} did not join in time")
                self._maybe_complete_join(now_ms)
            elif kind == "session":
                self._session_expired(self.members[key], now_ms)
            elif kind == "join":
                self._join_deadline_passed(now_ms)
            else:
                self._sync_deadline_passed(now_ms)

    def _earliest_due(self, now_ms: int):
        best = None
        for member in self.members.values():
            d = member.session_deadline_ms
            if d is not None and d <= now_ms and (best is None or d < best[0]):
                best = (d, "session", member.member_id)
        for member_id, d in self.pending_members.items():
            if d <= now_ms and (best is None or d < best[0]):
                best = (d, "pending", member_id)
        d = self.join_deadline_ms
        if d is not None and d <= now_ms and (best is None or d < best[0]):
            best = (d, "join", None)
        d = self.sync_deadline_ms
        if d is not None and d <= now_ms and (best is None or d < best[0]):
            best = (d, "sync", None)
        return best

    def _session_expired(self, member: Member, now_ms: int) -> None:
        if not member.is_new and (member.awaiting_join is not None or member.awaiting_sync is not None):
            # Parked in a rebalance: it is alive as far as we know. Its deadline comes back
            # when the phase completes.
            member.session_deadline_ms = None
            return
        self._remove_member(member, now_ms, f"member {member.member_id} session expired")

    def _join_deadline_passed(self, now_ms: int) -> None:
        self.join_deadline_ms = None
        if self.initial_delay is not None:
            delay_ms, remaining_ms = self.initial_delay
            if self.new_member_added and remaining_ms != 0:
                # more members arrived during the delay: wait again, within the rebalance timeout
                self.new_member_added = False
                next_delay = min(self.config.initial_rebalance_delay_ms, remaining_ms)
                self.initial_delay = (next_delay, max(remaining_ms - delay_ms, 0))
                self.join_deadline_ms = now_ms + next_delay
                return
            self.initial_delay = None
        self._complete_join(now_ms)

    def _sync_deadline_passed(self, now_ms: int) -> None:
        self.sync_deadline_ms = None
        if self.state not in (GroupState.COMPLETING_REBALANCE, GroupState.STABLE) or not self.pending_sync:
            return
        missing = sorted(self.pending_sync)
        for member_id in missing:
            member = self.members.get(member_id)
            if member is not None:
                self._drop_member(member)
        self._prepare_rebalance(now_ms, f"members {missing} did not send SyncGroup in time")

    # -- the rebalance itself ----------------------------------------------------------

    def _maybe_prepare_rebalance(self, now_ms: int, reason: str) -> None:
        if (self.state, Event.PREPARE_REBALANCE) in TRANSITIONS:
            self._prepare_rebalance(now_ms, reason)

    def _prepare_rebalance(self, now_ms: int, reason: str) -> None:
        if self.state is GroupState.COMPLETING_REBALANCE:
            # followers waiting for an assignment that will not come: have them rejoin
            for member in self.members.values():
                member.assignment = b""
            self._propagate_assignment(ErrorCode.REBALANCE_IN_PROGRESS, now_ms)
        self.pending_sync.clear()
        self.sync_deadline_ms = None
        if self.state is GroupState.EMPTY:
            delay_ms = self.config.initial_rebalance_delay_ms
            self.initial_delay = (delay_ms, max(self.rebalance_timeout_ms() - delay_ms, 0))
            self.join_deadline_ms = now_ms + delay_ms
        else:
            self.initial_delay = None
            self.join_deadline_ms = now_ms + self.rebalance_timeout_ms()
        self._effects.notes.append(f"preparing rebalance of generation {self.generation_id} "
                                   f"from {self.state.value}: {reason}")
        self._transition(Event.PREPARE_REBALANCE, now_ms)

    def _maybe_complete_join(self, now_ms: int) -> None:
        if (self.state is GroupState.PREPARING_REBALANCE and self.initial_delay is None
                and self.has_all_members_joined()):
            self._complete_join(now_ms)

    def _complete_join(self, now_ms: int) -> None:
        self.join_deadline_ms = None
        self.initial_delay = None
        laggards = [m for m in self.members.values() if m.awaiting_join is None and m.group_instance_id is None]
        for member in laggards:
            self._drop_member(member)
        if laggards:
            self._effects.notes.append(f"removed members that did not rejoin: {[m.member_id for m in laggards]}")
        if self.members and not self._elect_joined_leader():
            # only static members that have not rejoined: wait another rebalance timeout
            # (their sessions will expire if they are gone)
            self.join_deadline_ms = now_ms + max(self.rebalance_timeout_ms(), 1)
            return
        self.generation_id += 1
        if not self.members:
            self.protocol_name = None
            self._transition(Event.JOIN_COMPLETED_EMPTY, now_ms)
            self._effects.record = self.to_record()
            self._effects.notes.append(f"generation {self.generation_id} is Empty")
            return
        self.protocol_name = self.select_protocol()
        self._transition(Event.JOIN_COMPLETED, now_ms)
        self.pending_sync.clear()
        for member in self.members.values():
            if member.awaiting_join is not None:
                ticket, member.awaiting_join = member.awaiting_join, None
                self._awaiting_join -= 1
                self._answer_join(ticket, self._join_result(member))
            member.session_deadline_ms = now_ms + member.session_timeout_ms
            member.is_new = False
            self.pending_sync.add(member.member_id)
        self.sync_deadline_ms = now_ms + self.rebalance_timeout_ms()
        self._effects.notes.append(f"generation {self.generation_id} formed with {len(self.members)} "
                                   f"member(s), protocol {self.protocol_name}, leader {self.leader_id}")

    def _elect_joined_leader(self) -> bool:
        """Keep the leader if it rejoined, else take the first member that did."""
        if self.leader_id is None:
            return False
        if self.members[self.leader_id].awaiting_join is not None:
            return True
        for member in self.members.values():
            if member.awaiting_join is not None:
                self.leader_id = member.member_id
                return True
        return False

    def _join_result(self, member: Member, with_members: bool | None = None) -> JoinResult:
        leader = self.is_leader(member.member_id)
        if with_members is None:
            with_members = leader
        members = ()
        if with_members and leader:
            members = tuple(JoinedMember(m.member_id, m.group_instance_id, m.metadata(self.protocol_name))
                            for m in self.members.values())
        return JoinResult(ErrorCode.NONE, member_id=member.member_id, generation_id=self.generation_id,
                          protocol_type=self.protocol_type, protocol_name=self.protocol_name,
                          leader=self.leader_id or "", members=members)

    # -- membership bookkeeping --------------------------------------------------------

    def _add(self, member: Member, ticket) -> None:
        if member.group_instance_id is not None:
            self.static_members[member.group_instance_id] = member.member_id
        if not self.members:
            self.protocol_type = member.protocol_type
        if self.leader_id is None:
            self.leader_id = member.member_id
        self.members[member.member_id] = member
        member.awaiting_join = ticket
        if ticket is not None:
            self._awaiting_join += 1
        self.pending_members.pop(member.member_id, None)

    def _update_member(self, member: Member, request: JoinRequest, protocols, ticket) -> None:
        member.protocols = protocols
        member.rebalance_timeout_ms = request.rebalance_timeout_ms
        member.session_timeout_ms = request.session_timeout_ms
        if member.awaiting_join is None:
            self._awaiting_join += 1
        else:
            # the client gave up on its earlier JoinGroup (timed out, new connection)
            self._answer_join(member.awaiting_join, JoinResult(ErrorCode.REBALANCE_IN_PROGRESS,
                                                               member_id=member.member_id))
        member.awaiting_join = ticket

    def _replace_ticket(self, member: Member, attribute: str, ticket) -> None:
        old = getattr(member, attribute)
        if old is not None and old is not ticket:
            self._answer_sync(old, SyncResult(ErrorCode.REBALANCE_IN_PROGRESS))

    def _replace_static_member(self, instance_id: str, old_id: str, new_id: str) -> Member:
        old = self.members.pop(old_id)
        # whoever still waits under the old id is a duplicate instance: fence it
        if old.awaiting_join is not None:
            self._awaiting_join -= 1
            self._answer_join(old.awaiting_join, JoinResult(ErrorCode.FENCED_INSTANCE_ID, member_id=old_id))
        if old.awaiting_sync is not None:
            self._answer_sync(old.awaiting_sync, SyncResult(ErrorCode.FENCED_INSTANCE_ID))
        member = Member(member_id=new_id, group_instance_id=instance_id, client_id=old.client_id,
                        client_host=old.client_host, rebalance_timeout_ms=old.rebalance_timeout_ms,
                        session_timeout_ms=old.session_timeout_ms, protocol_type=old.protocol_type,
                        protocols=old.protocols, assignment=old.assignment, is_new=old.is_new)
        self.members[new_id] = member
        if self.leader_id == old_id:
            self.leader_id = new_id
        if old_id in self.pending_sync:
            self.pending_sync.discard(old_id)
            self.pending_sync.add(new_id)
        self.static_members[instance_id] = new_id
        return member

    def _remove_member(self, member: Member, now_ms: int, reason: str) -> None:
        """A member leaves (LeaveGroup, expiry, max size); the rest rebalance."""
        self._drop_member(member)
        self._effects.notes.append(reason)
        if self.state in (GroupState.STABLE, GroupState.COMPLETING_REBALANCE):
            self._maybe_prepare_rebalance(now_ms, reason)
        elif self.state is GroupState.PREPARING_REBALANCE:
            self._maybe_complete_join(now_ms)

    def _drop_member(self, member: Member) -> None:
        """Remove a member from the books; any request of it still parked is answered
        UNKNOWN_MEMBER_ID (a live client then joins again from scratch)."""
        if member.awaiting_join is not None:
            self._awaiting_join -= 1
            self._answer_join(member.awaiting_join, JoinResult(ErrorCode.UNKNOWN_MEMBER_ID))
            member.awaiting_join = None
        if member.awaiting_sync is not None:
            self._answer_sync(member.awaiting_sync, SyncResult(ErrorCode.UNKNOWN_MEMBER_ID))
            member.awaiting_sync = None
        del self.members[member.member_id]
        if member.group_instance_id is not None and self.static_members.get(member.group_instance_id) == member.member_id:
            del self.static_members[member.group_instance_id]
        if self.leader_id == member.member_id:
            self.leader_id = next(iter(self.members), None)
        self.pending_members.pop(member.member_id, None)
        self.pending_sync.discard(member.member_id)

    def _transition(self, event: Event, now_ms: int) -> None:
        target = TRANSITIONS.get((self.state, event))
        if target is None:
            raise InvalidTransition(f"group {self.group_id}: no transition from {self.state.value} on "
                                    f"{event.name}")
        self.previous_state, self.state = self.state, target
        self.state_timestamp_ms = now_ms

    def _answer_join(self, ticket, result: JoinResult) -> None:
        self._effects.joins.append((ticket, result))

    def _answer_sync(self, ticket, result: SyncResult) -> None:
        self._effects.syncs.append((ticket, result))

    # -- persistence -------------------------------------------------------------------

    def to_record(self) -> dict:
        """The group as Kafka's GroupMetadataValue fields (the coordinator builds the
        message; this stays free of the schema classes)."""
        stable_like = self.state in (GroupState.STABLE, GroupState.COMPLETING_REBALANCE)
        members = []
        if self.state is not GroupState.EMPTY:
            for m in self.members.values():
                members.append(dict(member_id=m.member_id, group_instance_id=m.group_instance_id,
                                    client_id=m.client_id, client_host=m.client_host,
                                    rebalance_timeout=m.rebalance_timeout_ms, session_timeout=m.session_timeout_ms,
                                    subscription=m.metadata(self.protocol_name), assignment=m.assignment))
        return dict(protocol_type=self.protocol_type or "", generation=self.generation_id,
                    protocol=self.protocol_name if stable_like else None,
                    leader=self.leader_id if stable_like else None,
                    current_state_timestamp=self.state_timestamp_ms, members=members)

    @classmethod
    def from_record(cls, group_id: str, record: dict, config: GroupConfig, now_ms: int, *,
                    member_id_suffix: Callable[[], str] | None = None) -> ClassicGroup:
        """Rebuild a group written by `to_record` (Kafka loads groups as Empty or Stable;
        every member's session starts again at `now_ms`)."""
        group = cls(group_id, config, now_ms, member_id_suffix=member_id_suffix)
        group.generation_id = record["generation"]
        group.protocol_type = record.get("protocol_type") or None
        members = record.get("members") or []
        timestamp = record.get("current_state_timestamp", -1)
        group.state_timestamp_ms = timestamp if timestamp is not None and timestamp >= 0 else now_ms
        if not members:
            return group
        group.state = GroupState.STABLE
        group.protocol_name = record.get("protocol")
        for m in members:
            rebalance_timeout = m.get("rebalance_timeout", -1)
            member = Member(member_id=m["member_id"], group_instance_id=m.get("group_instance_id"),
                            client_id=m.get("client_id", ""), client_host=m.get("client_host", ""),
                            rebalance_timeout_ms=rebalance_timeout if rebalance_timeout >= 0 else m["session_timeout"],
                            session_timeout_ms=m["session_timeout"], protocol_type=group.protocol_type or "",
                            protocols=((group.protocol_name or "", bytes(m.get("subscription") or b"")),),
                            assignment=bytes(m.get("assignment") or b""))
            member.session_deadline_ms = now_ms + member.session_timeout_ms
            group.members[member.member_id] = member
            if member.group_instance_id is not None:
                group.static_members[member.group_instance_id] = member.member_id
        leader = record.get("leader")
        group.leader_id = leader if leader in group.members else next(iter(group.members))
        if len(group.members) > config.max_size:
            group._prepare_rebalance(now_ms, "the loaded group is over group.max.size")
        return group
