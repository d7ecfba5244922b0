"""The classic group state machine (pylog/coordinator/group.py), driven by hand.

No sockets, no event loop, no sleeping: requests go in with a ticket and a fake time,
answers come out of `take_effects()`. Each test names the transition it walks.
"""

from __future__ import annotations

import itertools

import pytest

from protocol.error_codes import ErrorCode
from pylog.coordinator.group import (
    NEW_MEMBER_JOIN_TIMEOUT_MS,
    TRANSITIONS,
    ClassicGroup,
    Event,
    GroupConfig,
    GroupState,
    InvalidTransition,
    JoinRequest,
    JoinResult,
    SyncRequest,
    SyncResult,
)

EMPTY, PREPARING, COMPLETING, STABLE, DEAD = (GroupState.EMPTY, GroupState.PREPARING_REBALANCE,
                                              GroupState.COMPLETING_REBALANCE, GroupState.STABLE,
                                              GroupState.DEAD)
CONFIG = GroupConfig(min_session_timeout_ms=1000, max_session_timeout_ms=60_000, max_size=100,
                     initial_rebalance_delay_ms=0)
SESSION = 10_000
REBALANCE = 30_000
RANGE = (("range", b"range-meta"),)


class Ticket:
    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"<ticket {self.name}>"


class Harness:
    """One group, a fake clock, and every answer the group has given so far."""

    def __init__(self, config: GroupConfig = CONFIG, start_ms: int = 1_000_000):
        self.now = start_ms
        counter = itertools.count(1)
        self.group = ClassicGroup("g", config, self.now, member_id_suffix=lambda: str(next(counter)))
        self.answers: dict[Ticket, object] = {}
        self.stores = 0
        self.notes: list[str] = []
        self._tickets = itertools.count(1)

    # requests
    def join(self, member_id: str = "", *, protocols=RANGE, session_ms: int = SESSION,
             rebalance_ms: int = REBALANCE, instance: str | None = None, client: str = "client",
             protocol_type: str = "consumer", require_known: bool = False) -> Ticket:
        ticket = Ticket(f"join{next(self._tickets)}")
        self.group.join(JoinRequest(member_id=member_id, session_timeout_ms=session_ms,
                                    rebalance_timeout_ms=rebalance_ms, protocol_type=protocol_type,
                                    protocols=tuple(protocols), group_instance_id=instance, client_id=client,
                                    client_host="/127.0.0.1", require_known_member_id=require_known),
                        ticket, self.now)
        self._settle()
        return ticket

    def sync(self, member_id: str, generation: int, assignments: dict | None = None, *,
             instance: str | None = None, protocol_type=None, protocol_name=None) -> Ticket:
        ticket = Ticket(f"sync{next(self._tickets)}")
        self.group.sync(SyncRequest(member_id=member_id, generation_id=generation,
                                    assignments=assignments or {}, group_instance_id=instance,
                                    protocol_type=protocol_type, protocol_name=protocol_name),
                        ticket, self.now)
        self._settle()
        return ticket

    def heartbeat(self, member_id: str, generation: int, instance: str | None = None) -> ErrorCode:
        error = self.group.heartbeat(member_id, instance, generation, self.now)
        self._settle()
        return error

    def leave(self, *members) -> tuple[ErrorCode, list[ErrorCode]]:
        result = self.group.leave(list(members), self.now)
        self._settle()
        return result

    def advance(self, ms: int) -> None:
        self.now += ms
        self._settle()

    def _settle(self) -> None:
        self.group.tick(self.now)
        effects = self.group.take_effects()
        for ticket, result in effects.joins + effects.syncs:
            assert ticket not in self.answers, f"{ticket} answered twice"
            self.answers[ticket] = result
        self.stores += effects.record is not None
        self.notes += effects.notes

    # answers
    def answer(self, ticket: Ticket):
        return self.answers.get(ticket)

    def joined(self, ticket: Ticket) -> JoinResult:
        result = self.answers[ticket]
        assert isinstance(result, JoinResult)
        assert result.error == ErrorCode.NONE, result
        return result

    def synced(self, ticket: Ticket) -> SyncResult:
        result = self.answers[ticket]
        assert isinstance(result, SyncResult)
        assert result.error == ErrorCode.NONE, result
        return result

    @property
    def state(self) -> GroupState:
        return self.group.state

    # compound steps
    def form_stable(self, count: int, **join_kwargs) -> list[str]:
        """`count` members through join and sync; returns their ids (leader first)."""
        first = self.joined(self.join(**join_kwargs))
        member_ids = [first.member_id]
        self.sync(first.member_id, first.generation_id, {first.member_id: b"a-" + first.member_id.encode()})
        for _ in range(count - 1):
            new = self.join(**join_kwargs)
            # the others learn through heartbeats and rejoin
            rejoins = [self.join(m, **join_kwargs) for m in member_ids]
            results = [self.joined(t) for t in rejoins] + [self.joined(new)]
            member_ids.append(results[-1].member_id)
            generation = results[0].generation_id
            leader = results[0].leader
            assignments = {m: b"a-" + m.encode() for m in member_ids}
            syncs = [self.sync(m, generation, assignments if m == leader else None) for m in member_ids]
            for ticket in syncs:
                self.synced(ticket)
        assert self.state is STABLE
        leader = self.group.leader_id
        return [leader] + [m for m in member_ids if m != leader]


# ---------------------------------------------------------------------------------------
# the table


def test_transition_table_is_exactly_the_documented_one():
    assert TRANSITIONS == {
        (EMPTY, Event.PREPARE_REBALANCE): PREPARING,
        (STABLE, Event.PREPARE_REBALANCE): PREPARING,
        (COMPLETING, Event.PREPARE_REBALANCE): PREPARING,
        (PREPARING, Event.JOIN_COMPLETED): COMPLETING,
        (PREPARING, Event.JOIN_COMPLETED_EMPTY): EMPTY,
        (COMPLETING, Event.ASSIGNMENT_RECEIVED): STABLE,
        (EMPTY, Event.REMOVE): DEAD,
        (EMPTY, Event.UNLOAD): DEAD,
        (PREPARING, Event.UNLOAD): DEAD,
        (COMPLETING, Event.UNLOAD): DEAD,
        (STABLE, Event.UNLOAD): DEAD,
    }


@pytest.mark.parametrize("state", list(GroupState))
@pytest.mark.parametrize("event", list(Event))
def test_transitions_outside_the_table_are_refused(state, event):
    group = ClassicGroup("g", CONFIG, 0)
    group.state = state
    if (state, event) in TRANSITIONS:
        group._transition(event, 5)
        assert group.state is TRANSITIONS[(state, event)]
        assert group.previous_state is state and group.state_timestamp_ms == 5
    else:
        with pytest.raises(InvalidTransition):
            group._transition(event, 5)
        assert group.state is state


# ---------------------------------------------------------------------------------------
# Empty -> PreparingRebalance -> CompletingRebalance -> Stable


def test_first_join_of_a_new_group_is_answered_at_once():
    h = Harness()
    ticket = h.join(client="consumer-1")
    result = h.joined(ticket)          # no time passed: no wait on any session timeout
    assert result.member_id == "consumer-1-1"
    assert result.generation_id == 1 and result.leader == result.member_id
    assert result.protocol_type == "consumer" and result.protocol_name == "range"
    assert [(m.member_id, m.metadata) for m in result.members] == [("consumer-1-1", b"range-meta")]
    assert h.state is COMPLETING
    assert h.group.previous_state is PREPARING


def test_leader_sync_makes_the_group_stable_and_relays_assignments():
    h = Harness()
    a = h.joined(h.join(client="a"))
    follower_join = h.join(client="b")          # second member: a new generation is needed
    assert h.state is PREPARING
    assert h.answer(follower_join) is None       # parked until "a" rejoins
    assert h.heartbeat(a.member_id, 1) == ErrorCode.REBALANCE_IN_PROGRESS
    leader_join = h.join(a.member_id)
    leader, follower = h.joined(leader_join), h.joined(follower_join)
    assert leader.generation_id == follower.generation_id == 2
    assert leader.leader == a.member_id == follower.leader
    assert {m.member_id for m in leader.members} == {a.member_id, follower.member_id}
    assert follower.members == ()                # only the leader gets the member list

    follower_sync = h.sync(follower.member_id, 2)
    assert h.answer(follower_sync) is None       # parked until the leader's assignment
    stores = h.stores
    leader_sync = h.sync(a.member_id, 2, {a.member_id: b"A", follower.member_id: b"B"})
    assert h.state is STABLE and h.stores == stores + 1
    assert h.synced(leader_sync).assignment == b"A"
    assert h.synced(follower_sync).assignment == b"B"
    assert h.synced(follower_sync).protocol_name == "range"
    # a later SyncGroup in Stable returns the assignment again
    assert h.synced(h.sync(follower.member_id, 2)).assignment == b"B"


def test_leader_sync_without_an_assignment_for_a_member_gives_it_an_empty_one():
    h = Harness()
    ids = h.form_stable(2)
    leader_join = h.join(ids[0])
    follower_join = h.join(ids[1])
    generation = h.joined(leader_join).generation_id
    h.sync(ids[0], generation, {ids[0]: b"all"})
    assert h.synced(h.sync(ids[1], generation)).assignment == b""
    assert h.joined(follower_join).generation_id == generation


def test_heartbeat_in_completing_rebalance_is_fine():
    h = Harness()
    a = h.joined(h.join())
    assert h.state is COMPLETING
    assert h.heartbeat(a.member_id, 1) == ErrorCode.NONE


# ---------------------------------------------------------------------------------------
# JoinGroup v4+: MEMBER_ID_REQUIRED


def test_member_id_required_then_join_with_the_given_id():
    h = Harness()
    first = h.answer(h.join(client="kp", require_known=True))
    assert first.error == ErrorCode.MEMBER_ID_REQUIRED and first.member_id == "kp-1"
    assert h.state is EMPTY and "kp-1" in h.group.pending_members
    result = h.joined(h.join("kp-1", require_known=True))
    assert result.member_id == "kp-1" and result.generation_id == 1
    assert not h.group.pending_members


def test_pending_member_is_forgotten_after_its_session_timeout():
    h = Harness()
    ids = h.form_stable(1)
    h.answer(h.join(client="late", require_known=True))
    assert set(h.group.pending_members) == {"late-2"}
    rejoin = h.join(ids[0])          # leader rejoins: a rebalance that waits for the pending member
    assert h.state is PREPARING and h.answer(rejoin) is None
    h.advance(SESSION - 1)
    assert h.answer(rejoin) is None
    h.advance(1)
    assert not h.group.pending_members
    assert h.joined(rejoin).generation_id == 2
    late = h.answer(h.join("late-2"))
    assert late.error == ErrorCode.UNKNOWN_MEMBER_ID


def test_pending_member_leaving_unblocks_the_rebalance():
    h = Harness()
    ids = h.form_stable(1)
    h.join(client="late", require_known=True)
    rejoin = h.join(ids[0])
    assert h.answer(rejoin) is None
    assert h.leave(("late-2", None)) == (ErrorCode.NONE, [ErrorCode.NONE])
    assert h.joined(rejoin).generation_id == 2


# ---------------------------------------------------------------------------------------
# PreparingRebalance: timeouts


def test_member_that_does_not_rejoin_is_removed_at_the_rebalance_timeout():
    h = Harness()
    ids = h.form_stable(2)
    rejoin = h.join(ids[0])                      # the leader rejoins, the follower never does
    assert h.state is PREPARING
    for _ in range(REBALANCE // 5000 - 1):       # but its heartbeats keep its session alive
        h.advance(5000)
        assert h.heartbeat(ids[1], 2) == ErrorCode.REBALANCE_IN_PROGRESS
    h.advance(4999)
    assert h.answer(rejoin) is None
    h.advance(1)
    result = h.joined(rejoin)
    assert result.generation_id == 3 and [m.member_id for m in result.members] == [ids[0]]
    assert h.state is COMPLETING and list(h.group.members) == [ids[0]]
    # the removed member is told so when it comes back
    assert h.heartbeat(ids[1], 2) == ErrorCode.UNKNOWN_MEMBER_ID


def test_new_leader_is_elected_when_the_leader_does_not_rejoin():
    h = Harness()
    leader, follower = h.form_stable(2)
    rejoin = h.join(follower, protocols=(("range", b"changed"),))
    assert h.state is PREPARING
    for _ in range(REBALANCE // 5000):
        h.heartbeat(leader, 2)
        h.advance(5000)
    result = h.joined(rejoin)
    assert result.leader == follower and h.group.leader_id == follower
    assert [m.member_id for m in result.members] == [follower]


def test_parked_member_does_not_expire_while_waiting():
    h = Harness()
    ids = h.form_stable(2)
    rejoin = h.join(ids[0])
    for _ in range(3):                           # beyond its session timeout, before the rebalance one
        h.advance(SESSION // 2)
        h.heartbeat(ids[1], 2)
    assert ids[0] in h.group.members
    assert h.answer(rejoin) is None
    h.advance(REBALANCE)
    assert h.joined(rejoin).generation_id == 3


def test_new_member_parked_in_its_first_join_expires_after_the_new_member_timeout():
    h = Harness()
    ids = h.form_stable(1)
    new = h.join(client="new", rebalance_ms=10 * 60_000)
    assert h.state is PREPARING
    # the old member keeps heartbeating but never rejoins
    for _ in range(NEW_MEMBER_JOIN_TIMEOUT_MS // 5000):
        h.advance(5000)
        if h.answer(new) is not None:
            break
        h.heartbeat(ids[0], 1)
    assert h.answer(new).error == ErrorCode.UNKNOWN_MEMBER_ID
    assert "new-2" not in h.group.members


# ---------------------------------------------------------------------------------------
# session expiry, LeaveGroup, back to Empty


def test_expired_member_in_stable_group_triggers_a_rebalance_of_the_rest():
    h = Harness()
    a, b = h.form_stable(2)
    for _ in range(2):
        h.advance(SESSION * 2 // 5)
        assert h.heartbeat(a, 2) == ErrorCode.NONE      # b stays silent
    assert b in h.group.members
    h.advance(SESSION // 5)
    assert b not in h.group.members
    assert h.state is PREPARING
    assert h.heartbeat(a, 2) == ErrorCode.REBALANCE_IN_PROGRESS
    result = h.joined(h.join(a))
    assert result.generation_id == 3 and [m.member_id for m in result.members] == [a]


def test_all_members_expiring_leaves_the_group_empty():
    h = Harness()
    h.form_stable(2)
    stores = h.stores
    h.advance(SESSION)
    assert h.state is EMPTY
    assert h.group.generation_id == 3            # the empty generation counts too
    assert h.group.leader_id is None and h.group.protocol_name is None
    assert h.group.protocol_type == "consumer"
    assert h.stores == stores + 1                # the Empty group is written


def test_leave_group_rebalances_the_rest_without_waiting_for_sessions():
    h = Harness()
    a, b, c = h.form_stable(3)
    assert h.leave((b, None)) == (ErrorCode.NONE, [ErrorCode.NONE])
    assert h.state is PREPARING
    rejoins = [h.join(a), h.join(c)]             # as soon as both rejoin: no timer involved
    results = [h.joined(t) for t in rejoins]
    assert {r.generation_id for r in results} == {4}
    assert h.state is COMPLETING


def test_last_member_leaving_makes_the_group_empty():
    h = Harness()
    (a,) = h.form_stable(1)
    assert h.leave((a, None)) == (ErrorCode.NONE, [ErrorCode.NONE])
    assert h.state is EMPTY and h.group.generation_id == 2
    assert h.heartbeat(a, 1) == ErrorCode.UNKNOWN_MEMBER_ID
    assert h.answer(h.sync(a, 2)).error == ErrorCode.UNKNOWN_MEMBER_ID
    assert h.leave((a, None)) == (ErrorCode.NONE, [ErrorCode.UNKNOWN_MEMBER_ID])


def test_batched_leave_by_member_id_and_by_instance_id():
    h = Harness()
    static = h.joined(h.join(instance="i-1", client="s"))
    h.sync(static.member_id, 1, {})
    dynamic = h.join(client="d")
    h.join(static.member_id, instance="i-1")
    d = h.joined(dynamic).member_id
    error, errors = h.leave(("", "i-1"), (d, None), ("nobody", None), ("", "i-unknown"))
    assert error == ErrorCode.NONE
    assert errors == [ErrorCode.NONE, ErrorCode.NONE, ErrorCode.UNKNOWN_MEMBER_ID, ErrorCode.UNKNOWN_MEMBER_ID]
    assert h.state is EMPTY


def test_leave_while_a_rebalance_waits_for_the_leaver_completes_it():
    h = Harness()
    a, b = h.form_stable(2)
    rejoin = h.join(a)
    assert h.answer(rejoin) is None
    h.leave((b, None))
    assert h.joined(rejoin).generation_id == 3


# ---------------------------------------------------------------------------------------
# CompletingRebalance -> PreparingRebalance, sync timeout


def test_new_member_during_completing_rebalance_sends_parked_followers_back():
    h = Harness()
    a = h.joined(h.join(client="a"))
    b_join = h.join(client="b")
    h.join(a.member_id)
    b = h.joined(b_join)
    follower_sync = h.sync(b.member_id, 2)
    assert h.state is COMPLETING and h.answer(follower_sync) is None
    h.join(client="c")
    assert h.state is PREPARING
    assert h.answer(follower_sync).error == ErrorCode.REBALANCE_IN_PROGRESS
    assert h.answer(h.sync(a.member_id, 2, {})).error == ErrorCode.REBALANCE_IN_PROGRESS


def test_join_with_unchanged_metadata_during_completing_rebalance_gets_the_generation_again():
    h = Harness()
    a = h.joined(h.join())
    again = h.joined(h.join(a.member_id))
    assert again.generation_id == a.generation_id == 1 and h.state is COMPLETING
    assert [m.member_id for m in again.members] == [a.member_id]


def test_join_with_new_metadata_during_completing_rebalance_rebalances():
    h = Harness()
    a = h.joined(h.join())
    ticket = h.join(a.member_id, protocols=(("range", b"other"),))
    assert h.joined(ticket).generation_id == 2


def test_member_that_never_syncs_is_removed_after_the_rebalance_timeout():
    h = Harness()
    a, b = h.form_stable(2)
    join_a, join_b = h.join(a), h.join(b)
    generation = h.joined(join_a).generation_id
    h.sync(a, generation, {a: b"x", b: b"y"})    # the leader syncs, b never does
    assert h.state is STABLE
    for _ in range(REBALANCE // 5000):
        h.advance(5000)
        h.heartbeat(a, generation)
        h.heartbeat(b, generation)               # alive, but no SyncGroup
    assert b not in h.group.members
    assert h.state is PREPARING
    assert "did not send SyncGroup" in " ".join(h.notes)


# ---------------------------------------------------------------------------------------
# Stable: JoinGroup from members


def test_follower_join_with_unchanged_metadata_in_stable_changes_nothing():
    h = Harness()
    a, b = h.form_stable(2)
    result = h.joined(h.join(b))
    assert result.generation_id == 2 and result.members == () and result.leader == a
    assert h.state is STABLE


def test_leader_join_in_stable_forces_a_rebalance():
    h = Harness()
    a, b = h.form_stable(2)
    h.join(a)
    assert h.state is PREPARING


def test_cooperative_member_rejoining_with_new_metadata_rebalances_twice():
    """The cooperative protocol: after the first rebalance a member that gave partitions up
    rejoins at once with its new owned partitions; the broker just runs another round."""
    h = Harness()
    coop = (("cooperative-sticky", b"owned:none"),)
    a, b = h.form_stable(2, protocols=coop)
    generation = h.group.generation_id
    joins = [h.join(b, protocols=(("cooperative-sticky", b"owned:p1"),)), h.join(a, protocols=coop)]
    assert all(h.joined(t).generation_id == generation + 1 for t in joins)
    assert h.joined(joins[1]).protocol_name == "cooperative-sticky"
    assert {m.metadata for m in h.joined(joins[1]).members} == {b"owned:p1", b"owned:none"}


# ---------------------------------------------------------------------------------------
# errors: stale generations, unknown members, protocols, limits


def test_stale_generation_gets_illegal_generation():
    h = Harness()
    a, b = h.form_stable(2)
    assert h.group.generation_id == 2
    assert h.heartbeat(a, 1) == ErrorCode.ILLEGAL_GENERATION
    assert h.answer(h.sync(a, 1)).error == ErrorCode.ILLEGAL_GENERATION
    assert h.group.validate_offset_commit(a, None, 1, h.now) == ErrorCode.ILLEGAL_GENERATION


def test_unknown_member_gets_unknown_member_id():
    h = Harness()
    h.form_stable(1)
    assert h.heartbeat("ghost", 1) == ErrorCode.UNKNOWN_MEMBER_ID
    assert h.answer(h.sync("ghost", 1)).error == ErrorCode.UNKNOWN_MEMBER_ID
    result = h.answer(h.join("ghost"))
    assert result.error == ErrorCode.UNKNOWN_MEMBER_ID and result.member_id == "ghost"
    assert h.group.validate_offset_commit("ghost", None, 1, h.now) == ErrorCode.UNKNOWN_MEMBER_ID


def test_sync_during_preparing_rebalance_gets_rebalance_in_progress():
    h = Harness()
    a, b = h.form_stable(2)
    h.join(a)
    assert h.answer(h.sync(b, 2)).error == ErrorCode.REBALANCE_IN_PROGRESS


@pytest.mark.parametrize("session_ms", [999, 60_001])
def test_session_timeout_outside_the_bounds(session_ms):
    h = Harness()
    result = h.answer(h.join(session_ms=session_ms))
    assert result.error == ErrorCode.INVALID_SESSION_TIMEOUT
    assert h.state is EMPTY and not h.group.members


@pytest.mark.parametrize("session_ms", [1000, 60_000])
def test_session_timeout_bounds_are_inclusive(session_ms):
    h = Harness()
    h.joined(h.join(session_ms=session_ms))


def test_inconsistent_protocol_type_or_no_common_protocol():
    h = Harness()
    h.form_stable(1)
    other_type = h.answer(h.join(protocol_type="connect"))
    assert other_type.error == ErrorCode.INCONSISTENT_GROUP_PROTOCOL
    no_common = h.answer(h.join(protocols=(("roundrobin", b""),)))
    assert no_common.error == ErrorCode.INCONSISTENT_GROUP_PROTOCOL
    assert len(h.group.members) == 1 and h.state is STABLE


def test_empty_group_refuses_an_empty_protocol_list_or_type():
    h = Harness()
    assert h.answer(h.join(protocols=())).error == ErrorCode.INCONSISTENT_GROUP_PROTOCOL
    assert h.answer(h.join(protocol_type="")).error == ErrorCode.INCONSISTENT_GROUP_PROTOCOL
    assert h.state is EMPTY


def test_sync_protocol_type_and_name_are_checked():
    h = Harness()
    a = h.joined(h.join())
    wrong_name = h.sync(a.member_id, 1, {}, protocol_type="consumer", protocol_name="roundrobin")
    assert h.answer(wrong_name).error == ErrorCode.INCONSISTENT_GROUP_PROTOCOL
    wrong_type = h.sync(a.member_id, 1, {}, protocol_type="connect", protocol_name="range")
    assert h.answer(wrong_type).error == ErrorCode.INCONSISTENT_GROUP_PROTOCOL
    good = h.sync(a.member_id, 1, {a.member_id: b"x"}, protocol_type="consumer", protocol_name="range")
    assert h.synced(good).protocol_type == "consumer"


def test_protocol_vote_picks_the_most_preferred_common_protocol():
    h = Harness()
    both = (("roundrobin", b"rr"), ("range", b"rg"))
    reverse = (("range", b"rg"), ("roundrobin", b"rr"))
    first = h.joined(h.join(protocols=both))
    assert first.protocol_name == "roundrobin"
    h.sync(first.member_id, 1, {})
    second = h.join(protocols=reverse)
    third = h.join(protocols=reverse)
    leader = h.joined(h.join(first.member_id, protocols=both))
    # votes: roundrobin 1, range 2
    assert h.joined(second).protocol_name == h.joined(third).protocol_name == leader.protocol_name == "range"
    assert h.group.select_protocol() == "range"
    assert leader.leader == first.member_id
    assert [m.metadata for m in leader.members] == [b"rg"] * 3   # metadata of the chosen protocol


@pytest.mark.parametrize("first_prefers", ["roundrobin", "range"])
def test_a_tied_vote_goes_to_the_first_protocol_of_kafkas_hash_map(first_prefers):
    """One vote each: Kafka picks the first of equals in its HashMap of the votes, ordered by
    the names' hashes ("range" in bucket 9 before "roundrobin" in bucket 10), whichever
    member voted first."""
    h = Harness()
    rr_first = (("roundrobin", b"rr"), ("range", b"rg"))
    range_first = (("range", b"rg"), ("roundrobin", b"rr"))
    mine, theirs = (rr_first, range_first) if first_prefers == "roundrobin" else (range_first, rr_first)
    first = h.joined(h.join(protocols=mine))
    h.sync(first.member_id, 1, {})
    second = h.join(protocols=theirs)
    leader = h.joined(h.join(first.member_id, protocols=mine))
    assert leader.protocol_name == h.joined(second).protocol_name == "range"


def test_only_protocols_every_member_supports_are_candidates():
    h = Harness()
    first = h.joined(h.join(protocols=(("sticky", b""), ("range", b""))))
    h.sync(first.member_id, 1, {})
    h.join(protocols=(("range", b""),))
    h.join(first.member_id, protocols=(("sticky", b""), ("range", b"")))
    assert h.group.protocol_name == "range"


def test_group_max_size_reached():
    h = Harness(GroupConfig(min_session_timeout_ms=1000, max_session_timeout_ms=60_000, max_size=2))
    a, b = h.form_stable(2)
    result = h.answer(h.join(client="third"))
    assert result.error == ErrorCode.GROUP_MAX_SIZE_REACHED and result.member_id == ""
    assert len(h.group.members) == 2 and h.state is STABLE
    # while rebalancing, the members that rejoined count
    h.join(a)
    assert h.answer(h.join(client="fourth")) is None        # 1 rejoined < 2
    assert h.answer(h.join(client="fifth")).error == ErrorCode.GROUP_MAX_SIZE_REACHED


def test_dead_group_refuses_everything():
    h = Harness()
    assert h.group.remove(h.now) == ErrorCode.NONE
    assert h.state is DEAD
    assert h.answer(h.join()).error == ErrorCode.COORDINATOR_NOT_AVAILABLE
    assert h.answer(h.sync("m", 0)).error == ErrorCode.COORDINATOR_NOT_AVAILABLE
    assert h.heartbeat("m", 0) == ErrorCode.COORDINATOR_NOT_AVAILABLE
    assert h.leave(("m", None)) == (ErrorCode.COORDINATOR_NOT_AVAILABLE, [])
    assert h.group.validate_offset_commit("", None, -1, h.now) == ErrorCode.COORDINATOR_NOT_AVAILABLE
    assert h.group.remove(h.now) == ErrorCode.GROUP_ID_NOT_FOUND


def test_only_an_empty_group_can_be_removed():
    h = Harness()
    h.form_stable(1)
    assert h.group.remove(h.now) == ErrorCode.NON_EMPTY_GROUP
    assert h.state is STABLE


# ---------------------------------------------------------------------------------------
# offset commit checks


def test_offset_commit_validation_by_state():
    h = Harness()
    group = h.group
    assert group.validate_offset_commit("", None, -1, h.now) == ErrorCode.NONE       # simple consumer, Empty
    a = h.joined(h.join())
    assert group.validate_offset_commit(a.member_id, None, 1, h.now) == ErrorCode.REBALANCE_IN_PROGRESS
    h.sync(a.member_id, 1, {a.member_id: b""})
    assert group.validate_offset_commit(a.member_id, None, 1, h.now) == ErrorCode.NONE
    # a simple commit into an active group
    assert group.validate_offset_commit("", None, -1, h.now) == ErrorCode.UNKNOWN_MEMBER_ID
    # during a rebalance the current generation may still commit
    h.join(client="b")
    assert h.state is PREPARING
    assert group.validate_offset_commit(a.member_id, None, 1, h.now) == ErrorCode.NONE


def test_offset_commit_counts_as_a_sign_of_life():
    h = Harness()
    (a,) = h.form_stable(1)
    for _ in range(4):
        h.advance(SESSION // 2)
        assert h.group.validate_offset_commit(a, None, 1, h.now) == ErrorCode.NONE
    assert a in h.group.members


# ---------------------------------------------------------------------------------------
# static membership


def test_static_member_restart_gets_its_slot_and_assignment_back_without_a_rebalance():
    h = Harness()
    leader = h.joined(h.join(instance="i-a", client="a"))
    b_join = h.join(instance="i-b", client="b")
    h.join(leader.member_id, instance="i-a")
    b = h.joined(b_join)
    generation = b.generation_id
    h.sync(leader.member_id, generation, {leader.member_id: b"A", b.member_id: b"B"}, instance="i-a")
    h.sync(b.member_id, generation, instance="i-b")
    assert h.state is STABLE
    stores = h.stores

    # b restarts: no member id, same instance id
    back = h.joined(h.join(instance="i-b", client="b"))
    assert back.member_id != b.member_id and back.member_id.startswith("i-b-")
    assert back.generation_id == generation and back.leader == leader.member_id
    assert h.state is STABLE and h.stores == stores + 1
    assert h.synced(h.sync(back.member_id, generation, instance="i-b")).assignment == b"B"
    # the leader notices nothing
    assert h.heartbeat(leader.member_id, generation, "i-a") == ErrorCode.NONE
    # the old incarnation is fenced
    assert h.heartbeat(b.member_id, generation, "i-b") == ErrorCode.FENCED_INSTANCE_ID
    assert h.answer(h.join(b.member_id, instance="i-b")).error == ErrorCode.FENCED_INSTANCE_ID
    assert h.answer(h.sync(b.member_id, generation, instance="i-b")).error == ErrorCode.FENCED_INSTANCE_ID
    assert h.group.validate_offset_commit(b.member_id, "i-b", generation, h.now) == ErrorCode.FENCED_INSTANCE_ID


def test_static_leader_restart_is_told_the_old_leader_id_so_it_does_not_assign():
    h = Harness()
    leader = h.joined(h.join(instance="i-a", client="a"))
    h.sync(leader.member_id, 1, {leader.member_id: b"A"}, instance="i-a")
    back = h.joined(h.join(instance="i-a", client="a"))
    assert back.leader == leader.member_id != back.member_id
    assert back.members == ()
    assert h.group.leader_id == back.member_id           # it is the leader from now on
    assert h.state is STABLE
    assert h.synced(h.sync(back.member_id, 1, instance="i-a")).assignment == b"A"


def test_static_member_restart_with_a_protocol_change_rebalances():
    h = Harness()
    a = h.joined(h.join(instance="i-a"))
    h.sync(a.member_id, 1, {}, instance="i-a")
    ticket = h.join(instance="i-a", protocols=(("roundrobin", b""), ("range", b"")))
    result = h.joined(ticket)
    assert result.generation_id == 2 and result.protocol_name == "roundrobin"


def test_static_member_restart_during_completing_rebalance_rebalances():
    h = Harness()
    a = h.joined(h.join(instance="i-a"))
    assert h.state is COMPLETING
    ticket = h.join(instance="i-a")
    result = h.joined(ticket)
    assert result.generation_id == 2 and result.member_id != a.member_id


def test_static_member_restart_while_its_old_join_is_parked_fences_the_old_request():
    h = Harness()
    a = h.joined(h.join(instance="i-a", client="a"))
    c_join = h.join(client="c")
    h.join(a.member_id, instance="i-a")
    c = h.joined(c_join)
    h.sync(a.member_id, 2, {}, instance="i-a")
    h.sync(c.member_id, 2)
    assert h.state is STABLE
    b_join = h.join(client="b")                   # rebalance: "i-a" and c must rejoin
    old = h.join(a.member_id, instance="i-a")
    assert h.answer(old) is None and h.answer(b_join) is None
    # meanwhile "i-a" restarted and joins as a new incarnation (still PreparingRebalance)
    new = h.join(instance="i-a", client="a")
    assert h.answer(old).error == ErrorCode.FENCED_INSTANCE_ID
    assert h.answer(new) is None
    h.join(c.member_id)
    assert h.joined(new).generation_id == h.joined(b_join).generation_id == 3


def test_static_members_are_kept_when_they_miss_a_rebalance_but_expire_with_their_session():
    h = Harness()
    s = h.joined(h.join(instance="i-s", client="s", session_ms=20_000, rebalance_ms=5_000))
    h.sync(s.member_id, 1, {}, instance="i-s")
    d = h.join(client="d", rebalance_ms=5_000)
    h.advance(5_000)                                 # rebalance timeout: s did not rejoin
    assert s.member_id in h.group.members           # static: kept
    assert h.joined(d).generation_id == 2
    h.advance(15_000)                                # s's session ends
    assert s.member_id not in h.group.members and "i-s" not in h.group.static_members


# ---------------------------------------------------------------------------------------
# the initial rebalance delay (group.initial.rebalance.delay.ms)


def test_initial_rebalance_delay_collects_members_that_come_meanwhile():
    config = GroupConfig(min_session_timeout_ms=1000, max_session_timeout_ms=60_000, initial_rebalance_delay_ms=3000)
    h = Harness(config)
    first = h.join(client="a")
    h.advance(1000)
    second = h.join(client="b")
    h.advance(1999)
    assert h.answer(first) is None and h.answer(second) is None
    h.advance(1)                        # the first delay ends, a member came: wait once more
    assert h.answer(first) is None
    h.advance(3000)
    a, b = h.joined(first), h.joined(second)
    assert a.generation_id == b.generation_id == 1
    assert len(a.members) == 2 and h.state is COMPLETING


def test_initial_rebalance_delay_alone():
    config = GroupConfig(min_session_timeout_ms=1000, max_session_timeout_ms=60_000, initial_rebalance_delay_ms=3000)
    h = Harness(config)
    first = h.join()
    h.advance(2999)
    assert h.answer(first) is None
    h.advance(1)
    assert h.joined(first).generation_id == 1


def test_initial_delay_is_bounded_by_the_rebalance_timeout():
    config = GroupConfig(min_session_timeout_ms=1000, max_session_timeout_ms=60_000, initial_rebalance_delay_ms=3000)
    h = Harness(config)
    first = h.join(rebalance_ms=5000)
    for _ in range(10):                 # a new member every second, forever
        h.advance(1000)
        h.join(rebalance_ms=5000)
        if h.answer(first) is not None:
            break
    assert h.joined(first).generation_id == 1
    assert h.now - 1_000_000 <= 8000


def test_no_initial_delay_for_a_group_that_is_not_empty():
    config = GroupConfig(min_session_timeout_ms=1000, max_session_timeout_ms=60_000, initial_rebalance_delay_ms=3000)
    h = Harness(config)
    first = h.join()
    h.advance(3000)
    a = h.joined(first)
    h.sync(a.member_id, 1, {})
    rejoin = h.join(a.member_id)
    assert h.joined(rejoin).generation_id == 2


# ---------------------------------------------------------------------------------------
# describe, persistence round trip


def test_summary_shows_metadata_only_when_stable_and_the_held_assignment_in_every_state():
    """Kafka's DescribeGroups out of Stable (`describeNoMetadata`): no metadata, but the
    assignment each member holds, kept through a rebalance until the next SyncGroup, and
    emptied when a rebalance cuts CompletingRebalance short."""
    h = Harness()
    a = h.joined(h.join())
    summary = h.group.summary()
    assert summary.state is COMPLETING and summary.protocol_data == ""
    assert summary.members[0].metadata == b"" and summary.members[0].assignment == b""
    h.sync(a.member_id, 1, {a.member_id: b"assigned"})
    summary = h.group.summary()
    assert (summary.state, summary.protocol_type, summary.protocol_data) == (STABLE, "consumer", "range")
    member = summary.members[0]
    assert (member.member_id, member.client_id, member.client_host) == (a.member_id, "client", "/127.0.0.1")
    assert (member.metadata, member.assignment) == (b"range-meta", b"assigned")

    b_join = h.join()   # a new member: the group prepares a rebalance
    summary = h.group.summary()
    assert summary.state is PREPARING and summary.protocol_data == ""
    held = {m.member_id: (m.metadata, m.assignment) for m in summary.members}
    assert held[a.member_id] == (b"", b"assigned")

    h.join(a.member_id)
    b = h.joined(b_join)
    summary = h.group.summary()
    assert summary.state is COMPLETING
    assert {m.member_id: m.assignment for m in summary.members} == {a.member_id: b"assigned", b.member_id: b""}

    h.join()   # a rebalance before SyncGroup: the assignments go with the generation
    summary = h.group.summary()
    assert summary.state is PREPARING
    assert len(summary.members) == 3 and {m.assignment for m in summary.members} == {b""}


def test_record_round_trip_restarts_the_sessions():
    h = Harness()
    static = h.joined(h.join(instance="i-1", client="s"))
    h.sync(static.member_id, 1, {})
    d_join = h.join(client="d")
    h.join(static.member_id, instance="i-1")
    d = h.joined(d_join)
    h.sync(static.member_id, 2, {static.member_id: b"S", d.member_id: b"D"}, instance="i-1")
    record = h.group.to_record()
    assert record["generation"] == 2 and record["protocol"] == "range" and record["leader"] == static.member_id
    # the members in the order of Kafka's HashMap of them, as its group metadata record has them
    assert [m["member_id"] for m in record["members"]] == list(h.group.members)
    assert {m["member_id"]: m["assignment"] for m in record["members"]} == {static.member_id: b"S", d.member_id: b"D"}

    later = h.now + 60_000
    loaded = ClassicGroup.from_record("g", record, CONFIG, later)
    assert loaded.state is STABLE and loaded.generation_id == 2
    assert loaded.static_members == {"i-1": static.member_id}
    assert loaded.members[d.member_id].session_deadline_ms == later + SESSION
    assert loaded.heartbeat(d.member_id, None, 2, later) == ErrorCode.NONE
    ticket = Ticket("s")
    loaded.sync(SyncRequest(member_id=d.member_id, generation_id=2, assignments={}), ticket, later)
    assert loaded.take_effects().syncs == [(ticket, SyncResult(ErrorCode.NONE, "consumer", "range", b"D"))]


def test_empty_record_loads_an_empty_group():
    h = Harness()
    (a,) = h.form_stable(1)
    h.leave((a, None))
    record = h.group.to_record()
    assert record["members"] == [] and record["protocol"] is None and record["leader"] is None
    loaded = ClassicGroup.from_record("g", record, CONFIG, h.now)
    assert loaded.state is EMPTY and loaded.generation_id == 2 and loaded.protocol_type == "consumer"


def test_unload_answers_parked_requests():
    h = Harness()
    a, b = h.form_stable(2)
    parked = h.join(a)
    h.group.unload(ErrorCode.NOT_COORDINATOR, h.now)
    h._settle()
    assert h.answer(parked).error == ErrorCode.NOT_COORDINATOR
    assert h.state is DEAD and h.group.next_deadline_ms() is None
