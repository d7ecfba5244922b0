"""GroupCoordinator (pylog/coordinator/coordinator.py) with a fake clock and scheduler, and
the group handlers (pylog/handlers/groups.py) called with request dataclasses.

Time only moves when a test calls `scheduler.advance(ms)`; parked JoinGroup/SyncGroup
requests are asyncio tasks that the test inspects between steps. Nothing sleeps.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from types import SimpleNamespace

import pytest

from protocol import codec, headers
from protocol.error_codes import ErrorCode
from protocol.internal.group_metadata_value import GroupMetadataValue
from protocol.messages import (
    DeleteGroupsRequest,
    DescribeGroupsRequest,
    HeartbeatRequest,
    JoinGroupRequest,
    LeaveGroupRequest,
    ListGroupsRequest,
    RequestHeader,
    SyncGroupRequest,
)
from pylog.coordinator.coordinator import GroupCoordinator, value_from_record
from pylog.coordinator.group import GroupConfig, GroupState, JoinRequest, SyncRequest
from pylog.dispatch import RequestContext
from pylog.handlers import SERVED
from pylog.handlers import groups as group_handlers

CONFIG = GroupConfig(min_session_timeout_ms=1000, max_session_timeout_ms=60_000)
SESSION = 10_000
REBALANCE = 30_000
RANGE = (("range", b"meta"),)
START_MS = 1_700_000_000_000


class FakeClock:
    def __init__(self, now_ms: int = START_MS):
        self.now_ms = now_ms

    def __call__(self) -> int:
        return self.now_ms


class FakeHandle:
    def __init__(self):
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class FakeScheduler:
    """`call_at` records; `advance` runs what falls due, in time order, moving the clock."""

    def __init__(self, clock: FakeClock):
        self.clock = clock
        self.timers: list = []
        self.sequence = itertools.count()
        self.scheduled = 0

    def call_at(self, when_ms: int, callback) -> FakeHandle:
        handle = FakeHandle()
        heapq.heappush(self.timers, (when_ms, next(self.sequence), callback, handle))
        self.scheduled += 1
        return handle

    def pending(self) -> list[int]:
        return sorted(when for when, _, _, handle in self.timers if not handle.cancelled)

    def advance(self, ms: int) -> None:
        target = self.clock.now_ms + ms
        while self.timers and self.timers[0][0] <= target:
            when, _, callback, handle = heapq.heappop(self.timers)
            if handle.cancelled:
                continue
            self.clock.now_ms = max(self.clock.now_ms, when)
            callback()
        self.clock.now_ms = target


class FakeStore:
    def __init__(self, groups: dict | None = None, offset_groups: set | None = None):
        self.writes: list[tuple[str, GroupMetadataValue | None]] = []
        self.groups = dict(groups or {})
        self.offset_groups = set(offset_groups or ())

    def write_group_metadata(self, group_id, value):
        self.writes.append((group_id, value))
        if value is None:
            self.groups.pop(group_id, None)
        else:
            self.groups[group_id] = value

    def loaded_groups(self):
        return dict(self.groups)

    def group_ids(self):
        return set(self.offset_groups)

    def has_group(self, group_id):
        return group_id in self.offset_groups or group_id in self.groups


def make_coordinator(config: GroupConfig = CONFIG, store=None, deleted: list | None = None):
    clock = FakeClock()
    scheduler = FakeScheduler(clock)
    counter = itertools.count(1)
    coordinator = GroupCoordinator(config, clock=clock, scheduler=scheduler, store=store,
                                   on_group_deleted=None if deleted is None else deleted.append,
                                   member_id_suffix=lambda: str(next(counter)))
    return coordinator, scheduler


def join_request(member_id="", client="client", instance=None, protocols=RANGE, session_ms=SESSION,
                 rebalance_ms=REBALANCE) -> JoinRequest:
    return JoinRequest(member_id=member_id, session_timeout_ms=session_ms, rebalance_timeout_ms=rebalance_ms,
                       protocol_type="consumer", protocols=protocols, group_instance_id=instance,
                       client_id=client, client_host="/127.0.0.1")


async def settle():
    for _ in range(5):
        await asyncio.sleep(0)


def run(scenario):
    return asyncio.run(scenario())


async def form_stable(coordinator, count: int, group: str = "g") -> list[str]:
    """`count` members through join and sync; their ids, leader first."""
    joins = [asyncio.create_task(coordinator.join_group(group, join_request(client=f"c{i}"))) for i in range(count)]
    await settle()
    # the first formed generation 1 alone; every later one waits for it to rejoin
    first = joins[0].result()
    rejoin = asyncio.create_task(coordinator.join_group(group, join_request(first.member_id)))
    await settle()
    results = [rejoin.result()] + [t.result() for t in joins[1:]]
    generation = results[0].generation_id
    leader = results[0].leader
    member_ids = [r.member_id for r in results]
    syncs = [asyncio.create_task(coordinator.sync_group(group, SyncRequest(
        member_id=m, generation_id=generation,
        assignments={x: x.encode() for x in member_ids} if m == leader else {}))) for m in member_ids]
    await settle()
    assert all(s.result().error == ErrorCode.NONE for s in syncs)
    return [leader] + [m for m in member_ids if m != leader]


# ---------------------------------------------------------------------------------------
# joining


def test_first_join_is_answered_without_any_timer():
    async def scenario():
        coordinator, scheduler = make_coordinator()
        result = await asyncio.wait_for(coordinator.join_group("g", join_request(client="kp")), 1)
        return coordinator, scheduler, result

    coordinator, scheduler, result = run(scenario)
    assert result.error == ErrorCode.NONE and result.member_id == "kp-1" and result.generation_id == 1
    assert coordinator.group_state("g") is GroupState.COMPLETING_REBALANCE


def test_parked_join_and_sync_are_answered_when_the_group_moves():
    async def scenario():
        coordinator, scheduler = make_coordinator()
        a = await coordinator.join_group("g", join_request(client="a"))
        b_join = asyncio.create_task(coordinator.join_group("g", join_request(client="b")))
        await settle()
        assert not b_join.done()                     # waits for "a" to rejoin
        assert coordinator.heartbeat("g", a.member_id, None, 1) == ErrorCode.REBALANCE_IN_PROGRESS
        a2 = await coordinator.join_group("g", join_request(a.member_id))
        b = await b_join
        assert a2.generation_id == b.generation_id == 2 and a2.leader == a.member_id
        b_sync = asyncio.create_task(coordinator.sync_group("g", SyncRequest(b.member_id, 2, {})))
        await settle()
        assert not b_sync.done()
        a_sync = await coordinator.sync_group("g", SyncRequest(a.member_id, 2, {a.member_id: b"A",
                                                                                 b.member_id: b"B"}))
        return a_sync, await b_sync, coordinator

    a_sync, b_sync, coordinator = run(scenario)
    assert (a_sync.assignment, b_sync.assignment) == (b"A", b"B")
    assert coordinator.group_state("g") is GroupState.STABLE


def test_session_expiry_runs_on_the_scheduler():
    async def scenario():
        coordinator, scheduler = make_coordinator()
        a, b = await form_stable(coordinator, 2)
        scheduler.advance(SESSION // 2)
        assert coordinator.heartbeat("g", a, None, 2) == ErrorCode.NONE
        scheduler.advance(SESSION // 2)                 # b never heartbeats: gone
        members = {m.member_id for m in coordinator.members_of("g")}
        heartbeat = coordinator.heartbeat("g", a, None, 2)
        rejoin = await asyncio.wait_for(coordinator.join_group("g", join_request(a)), 1)
        return members, heartbeat, rejoin, b

    members, heartbeat, rejoin, b = run(scenario)
    assert b not in members and heartbeat == ErrorCode.REBALANCE_IN_PROGRESS
    assert rejoin.generation_id == 3 and [m.member_id for m in rejoin.members] == [rejoin.member_id]


def test_rebalance_timeout_answers_the_parked_join():
    async def scenario():
        coordinator, scheduler = make_coordinator()
        a, b = await form_stable(coordinator, 2)
        parked = asyncio.create_task(coordinator.join_group("g", join_request(a)))
        await settle()
        for _ in range(REBALANCE // 5000 - 1):
            scheduler.advance(5000)
            coordinator.heartbeat("g", b, None, 2)      # alive, never rejoins
            await settle()
            assert not parked.done()
        scheduler.advance(5000)
        await settle()
        return parked.result(), b, coordinator

    result, b, coordinator = run(scenario)
    assert result.generation_id == 3 and b not in {m.member_id for m in coordinator.members_of("g")}


def test_initial_rebalance_delay_on_the_scheduler():
    config = GroupConfig(min_session_timeout_ms=1000, max_session_timeout_ms=60_000, initial_rebalance_delay_ms=3000)

    async def scenario():
        coordinator, scheduler = make_coordinator(config)
        first = asyncio.create_task(coordinator.join_group("g", join_request(client="a")))
        await settle()
        assert scheduler.pending() == [START_MS + 3000]
        scheduler.advance(2999)
        await settle()
        assert not first.done()
        scheduler.advance(1)
        await settle()
        return first.result()

    assert run(scenario).generation_id == 1


def test_heartbeats_do_not_pile_up_timers():
    async def scenario():
        coordinator, scheduler = make_coordinator()
        (a,) = await form_stable(coordinator, 1)
        before = len(scheduler.pending())
        for _ in range(100):
            scheduler.advance(100)
            coordinator.heartbeat("g", a, None, 1)
        return before, len(scheduler.pending())

    before, after = run(scenario)
    assert after <= before + 1


def test_a_cancelled_parked_join_does_not_break_the_group():
    """A connection that closes while its JoinGroup waits cancels the handler's await."""
    async def scenario():
        coordinator, scheduler = make_coordinator()
        a, b = await form_stable(coordinator, 2)
        parked = asyncio.create_task(coordinator.join_group("g", join_request(a)))
        await settle()
        parked.cancel()
        await settle()
        b_join = await asyncio.wait_for(coordinator.join_group("g", join_request(b)), 1)
        return b_join

    assert run(scenario).generation_id == 3


def test_unknown_group_and_invalid_group_id():
    async def scenario():
        coordinator, _ = make_coordinator()
        return (await coordinator.join_group("g", join_request("someone")),
                await coordinator.join_group("", join_request()),
                await coordinator.sync_group("g", SyncRequest("someone", 1, {})),
                coordinator.heartbeat("g", "someone", None, 1),
                coordinator.leave_group("g", [("someone", None)]),
                coordinator.group_state("g"))

    join, invalid, sync, heartbeat, leave, state = run(scenario)
    assert join.error == ErrorCode.UNKNOWN_MEMBER_ID and invalid.error == ErrorCode.INVALID_GROUP_ID
    assert sync.error == ErrorCode.UNKNOWN_MEMBER_ID and heartbeat == ErrorCode.UNKNOWN_MEMBER_ID
    assert leave == (ErrorCode.NONE, [ErrorCode.UNKNOWN_MEMBER_ID])
    assert state is None          # a rejected join does not create the group


def test_a_group_of_one_member_id_required_round_stays_empty_and_stored():
    """Kafka writes the new group at the first JoinGroup, MEMBER_ID_REQUIRED or not; the
    pending member goes after its session timeout, the Empty group stays (until the offsets
    expiry removes groups without offsets)."""
    store = FakeStore()

    async def scenario():
        coordinator, scheduler = make_coordinator(store=store)
        request = JoinRequest(member_id="", session_timeout_ms=SESSION, rebalance_timeout_ms=REBALANCE,
                              protocol_type="consumer", protocols=RANGE, client_id="c",
                              require_known_member_id=True)
        first = await coordinator.join_group("g", request)
        pending = dict(coordinator.group("g").pending_members)
        scheduler.advance(SESSION)
        return first, pending, coordinator.group("g")

    first, pending, group = run(scenario)
    assert first.error == ErrorCode.MEMBER_ID_REQUIRED and list(pending) == [first.member_id]
    assert (group.state, group.generation_id, group.pending_members, group.members) == (GroupState.EMPTY, 0, {}, {})
    assert [(g, v.generation, v.protocol_type) for g, v in store.writes] == [("g", 0, "")]


def test_invalid_session_timeout_does_not_create_the_group():
    async def scenario():
        coordinator, _ = make_coordinator()
        result = await coordinator.join_group("g", join_request(session_ms=500))
        return result, coordinator.group_state("g")

    result, state = run(scenario)
    assert result.error == ErrorCode.INVALID_SESSION_TIMEOUT and state is None


def test_shutdown_answers_parked_requests_and_refuses_new_ones():
    async def scenario():
        coordinator, scheduler = make_coordinator()
        a, b = await form_stable(coordinator, 2)
        parked = asyncio.create_task(coordinator.join_group("g", join_request(a)))
        await settle()
        coordinator.shutdown()
        await settle()
        later = await coordinator.join_group("g", join_request())
        return parked.result(), later, scheduler

    parked, later, scheduler = run(scenario)
    assert parked.error == ErrorCode.NOT_COORDINATOR
    assert later.error == ErrorCode.COORDINATOR_NOT_AVAILABLE
    assert scheduler.pending() == []


# ---------------------------------------------------------------------------------------
# persistence


def test_group_metadata_is_written_when_stable_empty_and_deleted():
    store = FakeStore()
    deleted: list[str] = []

    async def scenario():
        coordinator, _ = make_coordinator(store=store, deleted=deleted)
        a, b = await form_stable(coordinator, 2)
        assert len(store.writes) == 2
        coordinator.leave_group("g", [(a, None), (b, None)])
        assert coordinator.delete_groups(["g", "g-unknown"]) == {"g": ErrorCode.NONE,
                                                                  "g-unknown": ErrorCode.GROUP_ID_NOT_FOUND}
        return a, b, coordinator

    a, b, coordinator = run(scenario)
    (new_id, new), (stable_id, stable), (empty_id, empty), (tomb_id, tomb) = store.writes
    assert new_id == stable_id == empty_id == tomb_id == "g" and tomb is None
    # the first JoinGroup wrote Kafka's empty group: generation 0, no protocol type, no members
    assert (new.protocol_type, new.generation, new.protocol, new.leader, new.current_state_timestamp,
            new.members) == ("", 0, None, None, START_MS, [])
    assert (stable.protocol_type, stable.generation, stable.protocol, stable.leader) == ("consumer", 2, "range", a)
    assert [(m.member_id, m.client_id, m.client_host, m.session_timeout, m.rebalance_timeout, m.subscription,
             m.assignment) for m in stable.members] == [
        (a, "c0", "/127.0.0.1", SESSION, REBALANCE, b"meta", a.encode()),
        (b, "c1", "/127.0.0.1", SESSION, REBALANCE, b"meta", b.encode())]
    assert stable.current_state_timestamp == START_MS
    assert (empty.generation, empty.protocol, empty.leader, empty.members) == (3, None, None, [])
    assert deleted == ["g"]
    assert coordinator.group_state("g") is None
    # the value encodes as GroupMetadataValue v3
    codec.encode(stable, 3)
    codec.encode(empty, 3)


def test_the_assignment_is_written_with_the_time_the_group_entered_completing_rebalance():
    """Kafka builds the record before the group turns Stable: its timestamp is that of the
    CompletingRebalance transition, not of the leader's SyncGroup."""
    store = FakeStore()

    async def scenario():
        coordinator, scheduler = make_coordinator(store=store)
        joined = await coordinator.join_group("g", join_request())
        scheduler.advance(700)
        synced = await coordinator.sync_group("g", SyncRequest(member_id=joined.member_id,
                                                               generation_id=joined.generation_id,
                                                               assignments={joined.member_id: b"a"}))
        return synced, coordinator.group("g").state_timestamp_ms

    synced, stable_since = run(scenario)
    assert synced.error == ErrorCode.NONE
    (_, new), (_, stable) = store.writes
    assert new.current_state_timestamp == START_MS and new.generation == 0
    assert (stable.generation, stable.current_state_timestamp, stable_since) == (1, START_MS, START_MS + 700)


class FailingStore(FakeStore):
    def write_group_metadata(self, group_id, value):
        from pylog.errors import BrokerError
        raise BrokerError(ErrorCode.NOT_COORDINATOR, "the log is gone")


def test_a_join_whose_new_group_cannot_be_written_fails_and_creates_nothing():
    async def scenario():
        coordinator, _ = make_coordinator(store=FailingStore())
        result = await coordinator.join_group("g", join_request())
        return result, coordinator.group_state("g")

    result, state = run(scenario)
    assert (result.error, result.member_id, state) == (ErrorCode.NOT_COORDINATOR, "", None)


def test_groups_are_loaded_from_the_store_and_their_sessions_restart():
    source = FakeStore()

    async def build():
        coordinator, _ = make_coordinator(store=source)
        await form_stable(coordinator, 2)
        return coordinator.group("g")

    group = run(build)
    value = value_from_record(group.to_record())
    leader, follower = list(group.members)
    store = FakeStore(groups={"g": value, "gone": None}, offset_groups={"offsets-only"})

    async def scenario():
        coordinator, scheduler = make_coordinator(store=store)
        coordinator.load()
        state = coordinator.group_state("g")
        offsets_only = coordinator.group_state("offsets-only")
        sync = await coordinator.sync_group("g", SyncRequest(follower, 2, {}))
        scheduler.advance(SESSION // 2)
        assert coordinator.heartbeat("g", leader, None, 2) == ErrorCode.NONE
        scheduler.advance(SESSION // 2)           # the follower's session restarted at load: now over
        return state, offsets_only, sync, coordinator

    state, offsets_only, sync, coordinator = run(scenario)
    assert state is GroupState.STABLE and offsets_only is GroupState.EMPTY
    assert sync.assignment == follower.encode()
    assert coordinator.group_state("g") is GroupState.PREPARING_REBALANCE
    assert [m.member_id for m in coordinator.members_of("g")] == [leader]


def test_delete_groups_checks_the_state():
    async def scenario():
        coordinator, _ = make_coordinator(store=FakeStore(offset_groups={"only-offsets"}))
        await form_stable(coordinator, 1, group="busy")
        coordinator.load()
        return coordinator.delete_groups(["busy", "only-offsets", "nothing"])

    assert run(scenario) == {"busy": ErrorCode.NON_EMPTY_GROUP, "only-offsets": ErrorCode.NONE,
                             "nothing": ErrorCode.GROUP_ID_NOT_FOUND}


# ---------------------------------------------------------------------------------------
# for the offsets side


def test_validate_offset_commit():
    async def scenario():
        coordinator, _ = make_coordinator()
        results = {
            "unknown group, member generation": coordinator.validate_offset_commit("x", 3, "m", None),
            "unknown group, simple": coordinator.validate_offset_commit("simple", -1, "", None),
        }
        results["simple group state"] = coordinator.group_state("simple")
        results["simple group empty"] = coordinator.is_group_empty_or_dead("simple")
        a, b = await form_stable(coordinator, 2)
        results["member"] = coordinator.validate_offset_commit("g", 2, a, None)
        results["stale generation"] = coordinator.validate_offset_commit("g", 1, a, None)
        results["not a member"] = coordinator.validate_offset_commit("g", 2, "stranger", None)
        results["simple into active group"] = coordinator.validate_offset_commit("g", -1, "", None)
        results["active group empty"] = coordinator.is_group_empty_or_dead("g")
        return results

    results = run(scenario)
    assert results == {
        "unknown group, member generation": ErrorCode.ILLEGAL_GENERATION,
        "unknown group, simple": ErrorCode.NONE,
        "simple group state": GroupState.EMPTY,
        "simple group empty": True,
        "member": ErrorCode.NONE,
        "stale generation": ErrorCode.ILLEGAL_GENERATION,
        "not a member": ErrorCode.UNKNOWN_MEMBER_ID,
        "simple into active group": ErrorCode.UNKNOWN_MEMBER_ID,
        "active group empty": False,
    }


def test_members_of_for_the_lag_tool():
    async def scenario():
        coordinator, _ = make_coordinator()
        await form_stable(coordinator, 2)
        return coordinator.members_of("g"), coordinator.members_of("nope")

    members, none = run(scenario)
    assert none == []
    assert [(m.client_id, m.client_host, m.assignment, m.subscription) for m in members] == [
        ("c0", "/127.0.0.1", b"c0-1", b"meta"), ("c1", "/127.0.0.1", b"c1-2", b"meta")]


def test_list_and_describe():
    async def scenario():
        coordinator, _ = make_coordinator()
        await form_stable(coordinator, 1, group="stable")
        await coordinator.join_group("completing", join_request())
        coordinator.validate_offset_commit("empty", -1, "", None)
        return (coordinator.list_groups(), coordinator.list_groups(["STABLE", "empty"]),
                coordinator.describe_group("stable"), coordinator.describe_group("unknown"))

    (error, all_groups), (_, filtered), (d_error, stable), (u_error, unknown) = run(scenario)
    assert error == ErrorCode.NONE
    assert sorted((g.group_id, g.protocol_type, g.state) for g in all_groups) == [
        ("completing", "consumer", GroupState.COMPLETING_REBALANCE), ("empty", "", GroupState.EMPTY),
        ("stable", "consumer", GroupState.STABLE)]
    assert sorted(g.group_id for g in filtered) == ["empty", "stable"]
    assert d_error == ErrorCode.NONE and (stable.state, stable.protocol_data) == (GroupState.STABLE, "range")
    assert u_error == ErrorCode.GROUP_ID_NOT_FOUND and (unknown.state, unknown.members) == (GroupState.DEAD, ())


# ---------------------------------------------------------------------------------------
# the handlers: versions and shapes (each response is encoded at its version)


def handler_broker(coordinator):
    return SimpleNamespace(group_coordinator=coordinator, node_id=1)


def context(api_key: int, version: int, client_id: str = "client") -> RequestContext:
    header = RequestHeader(request_api_key=api_key, request_api_version=version, correlation_id=1,
                           client_id=client_id)
    return RequestContext(header, version, "127.0.0.1", 5555)


GROUP_APIS = [(key, low, high, factory) for key, low, high, module, factory in SERVED if module == "groups"]


def handlers(coordinator) -> dict:
    broker = handler_broker(coordinator)
    return {key: getattr(group_handlers, factory)(broker) for key, _, _, factory in GROUP_APIS}


async def call(table, api_key: int, version: int, request, client_id: str = "client"):
    response = await table[api_key](request, context(api_key, version, client_id))
    headers.encode_response_frame(1, api_key, version, response)     # must encode at this version
    return response


def test_advertised_versions():
    table = {key: (low, high) for key, low, high, _ in GROUP_APIS}
    assert table == {11: (0, 9), 12: (0, 4), 13: (0, 5), 14: (0, 5), 15: (0, 6), 16: (0, 5), 42: (0, 2)}


def join_body(member_id="", instance=None, session_ms=SESSION):
    return JoinGroupRequest(group_id="g", session_timeout_ms=session_ms, rebalance_timeout_ms=REBALANCE,
                            member_id=member_id, group_instance_id=instance, protocol_type="consumer",
                            protocols=[JoinGroupRequest.JoinGroupRequestProtocol(name="range", metadata=b"m")])


@pytest.mark.parametrize("version", range(0, 10))
def test_join_sync_heartbeat_leave_at_every_version(version):
    async def scenario():
        coordinator, _ = make_coordinator()
        table = handlers(coordinator)
        join = await call(table, 11, version, join_body(), client_id="kp")
        if version >= 4:
            assert join.error_code == ErrorCode.MEMBER_ID_REQUIRED and join.member_id.startswith("kp-")
            join = await call(table, 11, version, join_body(join.member_id), client_id="kp")
        assert join.error_code == ErrorCode.NONE and join.generation_id == 1
        assert join.protocol_name == "range" and join.leader == join.member_id
        assert join.protocol_type == ("consumer" if version >= 7 else None)
        assert join.skip_assignment is False
        assert [(m.member_id, bytes(m.metadata)) for m in join.members] == [(join.member_id, b"m")]
        if version == 0:
            assert coordinator.group("g").members[join.member_id].rebalance_timeout_ms == SESSION
        sync_version = min(version, 5)
        sync = SyncGroupRequest(group_id="g", generation_id=1, member_id=join.member_id,
                                protocol_type="consumer", protocol_name="range",
                                assignments=[SyncGroupRequest.SyncGroupRequestAssignment(
                                    member_id=join.member_id, assignment=b"mine")])
        synced = await call(table, 14, sync_version, sync)
        assert synced.error_code == ErrorCode.NONE and bytes(synced.assignment) == b"mine"
        heartbeat = await call(table, 12, min(version, 4),
                               HeartbeatRequest(group_id="g", generation_id=1, member_id=join.member_id))
        assert heartbeat.error_code == ErrorCode.NONE
        stale = await call(table, 12, min(version, 4),
                           HeartbeatRequest(group_id="g", generation_id=0, member_id=join.member_id))
        assert stale.error_code == ErrorCode.ILLEGAL_GENERATION
        leave_version = min(version, 5)
        if leave_version >= 3:
            leave = LeaveGroupRequest(group_id="g", members=[
                LeaveGroupRequest.MemberIdentity(member_id=join.member_id, reason="done"),
                LeaveGroupRequest.MemberIdentity(member_id="ghost")])
        else:
            leave = LeaveGroupRequest(group_id="g", member_id=join.member_id)
        left = await call(table, 13, leave_version, leave)
        assert left.error_code == ErrorCode.NONE
        if leave_version >= 3:
            assert [(m.member_id, m.error_code) for m in left.members] == [
                (join.member_id, ErrorCode.NONE), ("ghost", ErrorCode.UNKNOWN_MEMBER_ID)]
        again = await call(table, 13, leave_version, leave)
        if leave_version < 3:
            assert again.error_code == ErrorCode.UNKNOWN_MEMBER_ID    # the member's error, at the top
        return coordinator.group_state("g")

    assert run(scenario) is GroupState.EMPTY


def test_join_errors_encode_with_null_protocol_in_v7_and_empty_before():
    async def scenario():
        coordinator, _ = make_coordinator()
        table = handlers(coordinator)
        return (await call(table, 11, 7, join_body(session_ms=1)), await call(table, 11, 6, join_body(session_ms=1)))

    v7, v6 = run(scenario)
    assert v7.error_code == v6.error_code == ErrorCode.INVALID_SESSION_TIMEOUT
    assert v7.protocol_name is None and v6.protocol_name == ""


def test_sync_v5_without_protocol_type_is_inconsistent():
    async def scenario():
        coordinator, _ = make_coordinator()
        table = handlers(coordinator)
        request = SyncGroupRequest(group_id="g", generation_id=1, member_id="m", protocol_type=None,
                                   protocol_name="range")
        return await call(table, 14, 5, request)

    assert run(scenario).error_code == ErrorCode.INCONSISTENT_GROUP_PROTOCOL


@pytest.mark.parametrize("version", range(0, 7))
def test_describe_groups(version):
    async def scenario():
        coordinator, _ = make_coordinator()
        await form_stable(coordinator, 1)
        table = handlers(coordinator)
        request = DescribeGroupsRequest(groups=["g", "unknown"], include_authorized_operations=True)
        return await call(table, 15, version, request)

    response = run(scenario)
    known, unknown = response.groups
    assert (known.error_code, known.group_state, known.protocol_type, known.protocol_data) == (
        ErrorCode.NONE, "Stable", "consumer", "range")
    member = known.members[0]
    assert (member.client_id, member.client_host, bytes(member.member_metadata), bytes(member.member_assignment)) == (
        "c0", "/127.0.0.1", b"meta", member.member_id.encode())
    assert (unknown.group_state, unknown.members) == ("Dead", [])
    if version >= 6:
        assert (unknown.error_code, unknown.error_message) == (ErrorCode.GROUP_ID_NOT_FOUND, "Group unknown not found.")
        assert known.error_message is None
    else:
        assert unknown.error_code == ErrorCode.NONE
    if version >= 3:
        # READ, DELETE, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS: Kafka's group operations without an authorizer
        assert known.authorized_operations == (1 << 3) | (1 << 6) | (1 << 8) | (1 << 10) | (1 << 11) == 3400
        assert unknown.authorized_operations == (-2147483648 if version >= 6 else 3400)   # only a group found


@pytest.mark.parametrize("version", range(0, 6))
def test_list_groups(version):
    async def scenario():
        coordinator, _ = make_coordinator()
        await form_stable(coordinator, 1, group="stable")
        coordinator.validate_offset_commit("empty", -1, "", None)
        table = handlers(coordinator)
        return await call(table, 16, version, ListGroupsRequest(states_filter=["Empty"]))

    response = run(scenario)
    listed = sorted((g.group_id, g.protocol_type) for g in response.groups)
    if version >= 4:
        assert listed == [("empty", "")] and response.groups[0].group_state == "Empty"
    else:
        assert listed == [("empty", ""), ("stable", "consumer")]
    if version >= 5:
        assert {g.group_type for g in response.groups} == {"classic"}


@pytest.mark.parametrize("types, listed", [([], ["empty", "stable"]), (["Classic"], ["empty", "stable"]),
                                           (["consumer"], []), (["share", "streams"], []), (["nonsense"], [])])
def test_list_groups_v5_types_filter(types, listed):
    async def scenario():
        coordinator, _ = make_coordinator()
        await form_stable(coordinator, 1, group="stable")
        coordinator.validate_offset_commit("empty", -1, "", None)
        table = handlers(coordinator)
        return await call(table, 16, 5, ListGroupsRequest(types_filter=types))

    response = run(scenario)
    assert response.error_code == ErrorCode.NONE
    assert sorted(g.group_id for g in response.groups) == listed


@pytest.mark.parametrize("version", range(0, 3))
def test_delete_groups(version):
    async def scenario():
        coordinator, _ = make_coordinator()
        await form_stable(coordinator, 1, group="busy")
        coordinator.validate_offset_commit("idle", -1, "", None)
        table = handlers(coordinator)
        return await call(table, 42, version, DeleteGroupsRequest(groups_names=["busy", "idle", "none"]))

    results = {r.group_id: r.error_code for r in run(scenario).results}
    assert results == {"busy": ErrorCode.NON_EMPTY_GROUP, "idle": ErrorCode.NONE, "none": ErrorCode.GROUP_ID_NOT_FOUND}


def test_a_group_named_twice_is_deleted_and_answered_once():
    """Kafka's handler takes the names `distinct`: one answer, NONE, not GROUP_ID_NOT_FOUND for
    the second mention of a group the first deleted."""
    async def scenario():
        coordinator, _ = make_coordinator()
        coordinator.validate_offset_commit("idle", -1, "", None)
        table = handlers(coordinator)
        return await call(table, 42, 2, DeleteGroupsRequest(groups_names=["idle", "none", "idle"]))

    assert [(r.group_id, r.error_code) for r in run(scenario).results] == [
        ("idle", ErrorCode.NONE), ("none", ErrorCode.GROUP_ID_NOT_FOUND)]


def test_offsets_expiry_removes_only_empty_groups():
    async def scenario():
        coordinator, _ = make_coordinator()
        await form_stable(coordinator, 1, group="busy")
        coordinator.validate_offset_commit("idle", -1, "", None)
        return (coordinator.maybe_remove_empty_group("busy"), coordinator.maybe_remove_empty_group("idle"),
                coordinator.maybe_remove_empty_group("unknown"), coordinator.group_state("idle"))

    assert run(scenario) == (False, True, False, None)


@pytest.mark.parametrize("version", [8, 9])
def test_static_leader_rejoining_stable_group(version):
    """KIP-814: from JoinGroup v9 the static leader coming back with an unknown member id
    is told it leads, with the members, and to skip the assignment; before, it is
    answered the previous leader id and no members."""
    async def scenario():
        coordinator, _ = make_coordinator()
        table = handlers(coordinator)
        first = await call(table, 11, version, join_body(instance="i-1"), client_id="kp")
        sync = SyncGroupRequest(group_id="g", generation_id=first.generation_id, member_id=first.member_id,
                                group_instance_id="i-1", protocol_type="consumer", protocol_name="range",
                                assignments=[SyncGroupRequest.SyncGroupRequestAssignment(
                                    member_id=first.member_id, assignment=b"mine")])
        assert (await call(table, 14, 5, sync)).error_code == ErrorCode.NONE
        again = await call(table, 11, version, join_body(instance="i-1"), client_id="kp")
        return first, again, coordinator.group_state("g")

    first, again, state = run(scenario)
    assert again.error_code == ErrorCode.NONE and again.member_id != first.member_id
    assert again.generation_id == first.generation_id and state is GroupState.STABLE
    if version >= 9:
        assert again.skip_assignment is True and again.leader == again.member_id
        assert [(m.member_id, m.group_instance_id, bytes(m.metadata)) for m in again.members] == [
            (again.member_id, "i-1", b"m")]
    else:
        assert again.skip_assignment is False and again.leader == first.member_id and again.members == []
