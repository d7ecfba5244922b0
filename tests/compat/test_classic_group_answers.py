"""The classic group protocol step by step, against the reference Kafka: the same scripts of
JoinGroup, SyncGroup, Heartbeat, OffsetCommit, OffsetDelete, LeaveGroup and DescribeGroups,
each request's answer compared field by field. Found by a differential probe of the protocol's states:

- DescribeGroups out of Stable shows each member's assignment (the one it holds until the
  next SyncGroup, or none once a rebalance cut CompletingRebalance short), only the
  metadata is left out;
- a tied protocol vote goes to the protocol first in the order of Kafka's HashMap of the
  votes (by the names' hashes), not to the one voted for first;
- OffsetDelete lists the partitions the metadata lacks first, then merges the coordinator's
  answer in, as OffsetCommit does (a topic named twice keeps two entries when nothing is
  refused).

The scripts walk a group through its states and the refusals of each: MEMBER_ID_REQUIRED,
generations and member ids that do not match, protocol types and names that do not, a
second member that starts a rebalance (the first one's heartbeat and SyncGroup meanwhile,
its commit), leader and follower SyncGroups, a LeaveGroup of several members, static
members replaced and fenced, invalid group ids and session timeouts, JoinGroup below v4
(no MEMBER_ID_REQUIRED round), OffsetDelete of a simple group and of a Stable one.

Member ids are random (client id or instance id, and a UUID) and replaced by their order of
appearance; a group's member list is compared as a set, since its order is that of a HashMap
of those random ids (`protocol.java_order.JavaHashMap`, checked on its own). A request another one waits
on (a JoinGroup that has to wait for the rebalance, a follower's SyncGroup) is sent on a
connection of its own in a thread, and its answer compared once the script releases it.
"""

from __future__ import annotations

import re
import struct
import threading
import time

import pytest

from protocol.messages import (
    CreateTopicsRequest,
    DescribeGroupsRequest,
    FindCoordinatorRequest,
    HeartbeatRequest,
    JoinGroupRequest,
    LeaveGroupRequest,
    OffsetCommitRequest,
    OffsetDeleteRequest,
    SyncGroupRequest,
)
from tests.compat.answers import plain, while_coordinator_loads
from tests.compat.conftest import unique
from tests.integration.support import WireClient

TOPIC = unique("classic-group-topic")    # the one the members subscribe to
OTHER = unique("classic-group-other")    # two partitions, subscribed by nobody
Protocol = JoinGroupRequest.JoinGroupRequestProtocol
Assignment = SyncGroupRequest.SyncGroupRequestAssignment
Leaving = LeaveGroupRequest.MemberIdentity
CommitTopic, CommitPartition = OffsetCommitRequest.OffsetCommitRequestTopic, OffsetCommitRequest.OffsetCommitRequestPartition
DeleteTopic, DeletePartition = OffsetDeleteRequest.OffsetDeleteRequestTopic, OffsetDeleteRequest.OffsetDeleteRequestPartition
RANGE = ("range",)
# a member id: the client id, or a static member's instance id, then "-" and a random UUID
MEMBER_ID = re.compile(r".+-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
NO_SUCH_GROUP = unique("no-such-group")
PARKED_S = 0.3   # how long a request sent in a thread is given to reach the broker before the next
# Kafka's JoinGroup answers before the record that creates the group is committed (it lingers
# in the coordinator's batch, group.coordinator.append.linger.ms), and its DescribeGroups reads
# what is committed: asked at once, a group just created is Dead for a few ms. pylog's record
# is written before it answers. DescribeGroups waits this long so that both are settled.
SETTLE_S = 0.3


def subscription() -> bytes:
    """ConsumerProtocolSubscription v0 of TOPIC, no user data."""
    name = TOPIC.encode()
    return struct.pack(">hih", 0, 1, len(name)) + name + struct.pack(">i", -1)


class Script:
    """One broker's run of a script: a connection per actor, the answers in order, member ids
    replaced by `<member N>` in order of appearance."""

    def __init__(self, bootstrap: str, group: str):
        self.bootstrap = bootstrap
        self.group = group
        self.clients: dict[str, WireClient] = {}
        self.answers: list[tuple[str, object]] = []
        self.names: dict[str, str] = {}
        self.parked: dict[str, tuple[threading.Thread, dict]] = {}

    def client(self, actor: str) -> WireClient:
        if actor not in self.clients:
            self.clients[actor] = WireClient(self.bootstrap, timeout_s=30)
        return self.clients[actor]

    def close(self) -> None:
        for client in self.clients.values():
            client.close()

    def ask(self, label: str, actor: str, api_key: int, version: int, body):
        """Send and wait for the answer; keep it (masked) under `label`; return it."""
        if api_key == 15:   # DescribeGroups
            time.sleep(SETTLE_S)
        answer = self.client(actor).request(api_key, version, body)
        self._keep(label, answer)
        return answer

    def park(self, label: str, actor: str, api_key: int, version: int, body) -> None:
        """Send from a thread: the answer is awaited by `release`."""
        box: dict = {}

        def send() -> None:
            try:
                box["answer"] = self.client(actor).request(api_key, version, body)
            except Exception as exc:   # kept as the answer: a broker that cut the connection
                box["answer"] = f"{type(exc).__name__}"

        thread = threading.Thread(target=send, daemon=True)
        self.parked[label] = (thread, box)
        thread.start()
        time.sleep(PARKED_S)

    def release(self, label: str):
        thread, box = self.parked.pop(label)
        thread.join(30)
        answer = box.get("answer", "no answer in 30 s")
        self._keep(label, answer)
        return answer

    def note(self, label: str, value) -> None:
        self.answers.append((label, value))

    def _keep(self, label: str, answer) -> None:
        self.answers.append((label, self._masked(plain(answer)) if not isinstance(answer, str) else answer))

    def _masked(self, value):
        if isinstance(value, str):
            if MEMBER_ID.fullmatch(value):
                return self.names.setdefault(value, f"<member {len(self.names) + 1}>")
            return value
        if isinstance(value, list):
            return [self._masked(v) for v in value]
        if isinstance(value, dict):
            masked = {k: self._masked(v) for k, v in value.items()}
            if isinstance(masked.get("members"), list):   # a HashMap's order of random ids
                masked["members"] = sorted(masked["members"], key=repr)
            return masked
        return value

    # request bodies -----------------------------------------------------------------

    def join(self, member_id: str = "", *, instance: str | None = None, protocol_type: str = "consumer",
             protocols=RANGE, session_ms: int = 10_000, rebalance_ms: int = 8_000, group: str | None = None):
        return JoinGroupRequest(group_id=self.group if group is None else group, session_timeout_ms=session_ms,
                                rebalance_timeout_ms=rebalance_ms, member_id=member_id, group_instance_id=instance,
                                protocol_type=protocol_type,
                                protocols=[Protocol(name=name, metadata=subscription()) for name in protocols])

    def sync(self, member_id: str, generation: int, assignments: dict | None = None, *, instance: str | None = None,
             protocol_type: str | None = "consumer", protocol_name: str | None = "range", group: str | None = None):
        return SyncGroupRequest(group_id=self.group if group is None else group, generation_id=generation,
                                member_id=member_id, group_instance_id=instance, protocol_type=protocol_type,
                                protocol_name=protocol_name,
                                assignments=[Assignment(member_id=m, assignment=a) for m, a in (assignments or {}).items()])

    def heartbeat(self, member_id: str, generation: int, *, instance: str | None = None, group: str | None = None):
        return HeartbeatRequest(group_id=self.group if group is None else group, generation_id=generation,
                                member_id=member_id, group_instance_id=instance)

    def leave(self, *members: tuple[str, str | None], group: str | None = None):
        return LeaveGroupRequest(group_id=self.group if group is None else group, member_id="",
                                 members=[Leaving(member_id=m, group_instance_id=i) for m, i in members])

    def describe(self, *groups: str):
        return DescribeGroupsRequest(groups=list(groups or [self.group]), include_authorized_operations=False)

    def commit(self, member_id: str, generation: int, offset: int, partitions=((TOPIC, 0),)):
        topics: dict[str, list] = {}
        for name, index in partitions:
            topics.setdefault(name, []).append(CommitPartition(
                partition_index=index, committed_offset=offset, committed_leader_epoch=-1, commit_timestamp=-1,
                committed_metadata=""))
        return OffsetCommitRequest(group_id=self.group, generation_id_or_member_epoch=generation, member_id=member_id,
                                   group_instance_id=None, retention_time_ms=-1,
                                   topics=[CommitTopic(name=n, partitions=ps) for n, ps in topics.items()])

    def delete_offsets(self, *topics: tuple[str, list[int]], group: str | None = None):
        return OffsetDeleteRequest(group_id=self.group if group is None else group, topics=[
            DeleteTopic(name=name, partitions=[DeletePartition(partition_index=i) for i in indexes])
            for name, indexes in topics])


def one_member(s: Script) -> None:
    """A member alone: every refusal of SyncGroup, Heartbeat and OffsetCommit, joins that do
    not fit the group, LeaveGroup of a known and an unknown member, a group that does not
    exist."""
    a = s.ask("join without member id", "a", 11, 7, s.join()).member_id
    generation = s.ask("join", "a", 11, 7, s.join(a)).generation_id
    s.ask("sync: generation ahead", "a", 14, 5, s.sync(a, generation + 1))
    s.ask("sync: unknown member", "a", 14, 5, s.sync("unknown", generation))
    s.ask("sync: other protocol type", "a", 14, 5, s.sync(a, generation, protocol_type="other"))
    s.ask("sync: other protocol name", "a", 14, 5, s.sync(a, generation, protocol_name="roundrobin"))
    s.ask("describe: completing", "a", 15, 5, s.describe())
    s.ask("sync: an assignment for a member not in the group", "a", 14, 5,
          s.sync(a, generation, {a: b"\x00\x01", "ghost": b"\x02"}))
    s.ask("heartbeat", "a", 12, 4, s.heartbeat(a, generation))
    s.ask("heartbeat: generation ahead", "a", 12, 4, s.heartbeat(a, generation + 1))
    s.ask("heartbeat: unknown member", "a", 12, 4, s.heartbeat("unknown", generation))
    s.ask("heartbeat: an instance id the member has not", "a", 12, 4, s.heartbeat(a, generation, instance="x"))
    s.ask("describe: stable", "a", 15, 5, s.describe(s.group, NO_SUCH_GROUP))
    s.ask("commit", "a", 8, 8, s.commit(a, generation, 5))
    s.ask("commit: generation ahead", "a", 8, 8, s.commit(a, generation + 1, 5))
    s.ask("commit: unknown member", "a", 8, 8, s.commit("unknown", generation, 5))
    s.ask("commit: generation -1 with a member", "a", 8, 8, s.commit(a, -1, 5))
    s.ask("commit: generation -1 without a member", "a", 8, 8, s.commit("", -1, 5))
    s.ask("join: other protocol type", "b", 11, 7, s.join(protocol_type="connect"))
    s.ask("join: no common protocol", "b", 11, 7, s.join(protocols=("roundrobin",)))
    s.ask("join: no protocol", "b", 11, 7, s.join(protocols=()))
    s.ask("leave: the member and an unknown one", "a", 13, 4, s.leave((a, None), ("unknown", None)))
    s.ask("describe: empty", "a", 15, 5, s.describe())
    s.ask("heartbeat after leaving", "a", 12, 4, s.heartbeat(a, generation))
    other = NO_SUCH_GROUP
    s.ask("heartbeat: no such group", "a", 12, 4, s.heartbeat("x", 0, group=other))
    s.ask("sync: no such group", "a", 14, 5, s.sync("x", 0, group=other))
    s.ask("leave: no such group", "a", 13, 4, s.leave(("x", None), group=other))


def a_second_member(s: Script) -> None:
    """A second member starts a rebalance: the first one's heartbeat, commit and SyncGroup
    while the group prepares it, both joins answered once the first rejoins, the follower's
    SyncGroup waiting for the leader's, LeaveGroup of several members."""
    a = s.ask("a: join without member id", "a", 11, 7, s.join()).member_id
    generation = s.ask("a: join", "a", 11, 7, s.join(a)).generation_id
    s.ask("a: sync", "a", 14, 5, s.sync(a, generation, {a: b"\x01"}))
    b = s.ask("b: join without member id", "b", 11, 7, s.join()).member_id
    s.park("b: join (waits for the rebalance)", "b", 11, 7, s.join(b))
    s.ask("describe: preparing", "watcher", 15, 5, s.describe())
    s.ask("a: heartbeat while preparing", "a", 12, 4, s.heartbeat(a, generation))
    s.ask("a: commit while preparing", "a", 8, 8, s.commit(a, generation, 7))
    s.ask("a: sync while preparing", "a", 14, 5, s.sync(a, generation))
    s.park("a: rejoin", "a", 11, 7, s.join(a))
    joined = s.release("a: rejoin")
    s.release("b: join (waits for the rebalance)")
    generation = joined.generation_id
    s.ask("describe: completing", "watcher", 15, 5, s.describe())
    s.ask("a: heartbeat while completing", "watcher", 12, 4, s.heartbeat(a, generation))
    s.ask("a: commit while completing", "watcher", 8, 8, s.commit(a, generation, 8))
    leader = joined.leader
    follower = b if leader == a else a
    by = {a: "a", b: "b"}
    s.park("follower: sync (waits for the leader's)", by[follower], 14, 5, s.sync(follower, generation))
    s.ask("leader: sync", by[leader], 14, 5, s.sync(leader, generation, {leader: b"\x0a", follower: b"\x0b"}))
    s.release("follower: sync (waits for the leader's)")
    s.ask("describe: stable", "watcher", 15, 5, s.describe())
    s.ask("leave: follower, unknown, leader with a wrong instance id", "watcher", 13, 4,
          s.leave((follower, None), ("unknown", None), (leader, "nope")))
    s.ask("describe: after the follower left", "watcher", 15, 5, s.describe())


def static_members(s: Script) -> None:
    """A static member replaced by a new one with its instance id: the old one fenced in
    Heartbeat, SyncGroup, JoinGroup and LeaveGroup; a leave by instance id."""
    joined = s.ask("a: static join", "a", 11, 7, s.join(instance="i1"))
    a, generation = joined.member_id, joined.generation_id
    s.ask("a: sync", "a", 14, 5, s.sync(a, generation, {a: b"\x01"}, instance="i1"))
    s.ask("a: heartbeat, another instance id", "a", 12, 4, s.heartbeat(a, generation, instance="i2"))
    s.ask("a: heartbeat without instance id", "a", 12, 4, s.heartbeat(a, generation))
    replaced = s.ask("c: join with a's instance id", "c", 11, 7, s.join(instance="i1"))
    s.ask("a: heartbeat once replaced", "a", 12, 4, s.heartbeat(a, generation, instance="i1"))
    s.ask("a: sync once replaced", "a", 14, 5, s.sync(a, replaced.generation_id, instance="i1"))
    s.ask("c: sync", "c", 14, 5, s.sync(replaced.member_id, replaced.generation_id, instance="i1"))
    s.ask("describe", "watcher", 15, 5, s.describe())
    s.ask("a: join again with its old id", "a", 11, 7, s.join(a, instance="i1"))
    s.ask("join: an unknown id with a new instance id", "a", 11, 7, s.join("unknown", instance="i9"))
    s.ask("leave: a (fenced), then i1 by instance id", "watcher", 13, 4, s.leave((a, "i1"), ("", "i1")))
    s.ask("describe: after the leave", "watcher", 15, 5, s.describe())


def refusals(s: Script) -> None:
    """Invalid group ids and session timeouts, a made-up member id, JoinGroup v4 and v3."""
    s.ask("join: empty group id", "a", 11, 7, s.join(group=""))
    s.ask("join: session below group.min.session.timeout.ms", "a", 11, 7, s.join(session_ms=1000))
    s.ask("join: session above group.max.session.timeout.ms", "a", 11, 7, s.join(session_ms=2_000_000))
    s.ask("join: empty protocol type", "a", 11, 7, s.join(protocol_type=""))
    s.ask("join: a made-up member id", "a", 11, 7, s.join("made-up"))
    s.ask("join v4 without member id", "a", 11, 4, s.join())
    v3_group = s.group + "-v3"
    s.ask("join v3 without member id: joins at once", "a", 11, 3, s.join(group=v3_group))
    s.ask("describe", "a", 15, 5, s.describe(s.group, v3_group, ""))
    s.ask("heartbeat: empty group id", "a", 12, 4, s.heartbeat("x", 0, group=""))
    s.ask("sync: empty group id", "a", 14, 5, s.sync("x", 0, protocol_type=None, protocol_name=None, group=""))
    s.ask("leave: empty group id", "a", 13, 4, s.leave(("x", None), group=""))
    s.ask("leave: no member named", "a", 13, 4, s.leave())


def tied_vote(s: Script) -> None:
    """Two members, each preferring the other's first protocol: one vote each."""
    rr_first, range_first = ("roundrobin", "range"), ("range", "roundrobin")
    a = s.ask("a: join without member id", "a", 11, 7, s.join(protocols=rr_first)).member_id
    joined = s.ask("a: join", "a", 11, 7, s.join(a, protocols=rr_first))
    s.ask("a: sync", "a", 14, 5, s.sync(a, joined.generation_id, protocol_name=joined.protocol_name))
    b = s.ask("b: join without member id", "b", 11, 7, s.join(protocols=range_first)).member_id
    s.park("b: join", "b", 11, 7, s.join(b, protocols=range_first))
    s.park("a: rejoin", "a", 11, 7, s.join(a, protocols=rr_first))
    s.note("protocol chosen", s.release("a: rejoin").protocol_name)
    s.release("b: join")


def offset_deletes(s: Script) -> None:
    """OffsetDelete of a simple group and of a Stable one: the partitions the metadata lacks
    first, a topic named twice, the topic the members subscribe to."""
    s.ask("delete: no such group", "a", 47, 0, s.delete_offsets((TOPIC, [0]), group=NO_SUCH_GROUP))
    s.ask("simple commit", "a", 8, 8, s.commit("", -1, 1, [(TOPIC, 0), (OTHER, 0), (OTHER, 1)]))
    s.ask("delete: a known and an unknown partition, an unknown topic", "a", 47, 0,
          s.delete_offsets((TOPIC, [0, 5]), ("no-such-topic", [0]), (OTHER, [1])))
    s.ask("delete: a topic named twice", "a", 47, 0, s.delete_offsets((OTHER, [0]), (TOPIC, [0]), (OTHER, [1])))
    s.ask("delete: a topic named twice, one partition unknown", "a", 47, 0,
          s.delete_offsets((OTHER, [0, 7]), (TOPIC, [0]), (OTHER, [1])))
    s.ask("delete: only an unknown partition", "a", 47, 0, s.delete_offsets((OTHER, [9])))
    s.ask("delete: an unknown topic, no partition", "a", 47, 0, s.delete_offsets(("no-such-topic", [])))
    a = s.ask("join without member id", "a", 11, 7, s.join()).member_id
    generation = s.ask("join", "a", 11, 7, s.join(a)).generation_id
    s.ask("sync", "a", 14, 5, s.sync(a, generation, {a: b""}))
    s.ask("member commit", "a", 8, 8, s.commit(a, generation, 2, [(TOPIC, 0), (OTHER, 0)]))
    s.ask("delete: the subscribed topic and another", "a", 47, 0, s.delete_offsets((TOPIC, [0]), (OTHER, [0])))


SCRIPTS = [one_member, a_second_member, static_members, refusals, tied_vote, offset_deletes]
GROUPS = {script.__name__: unique(f"classic-{script.__name__}") for script in SCRIPTS}   # the same on both


@pytest.fixture(scope="module")
def transcripts(both):
    found = {}
    for name, broker in both.items():
        with WireClient(broker.bootstrap_servers, timeout_s=30) as client:
            client.request(19, 5, CreateTopicsRequest(timeout_ms=30_000, topics=[CreateTopicsRequest.CreatableTopic(
                name=name, num_partitions=count, replication_factor=1) for name, count in ((TOPIC, 1), (OTHER, 2))]))
            groups = [*GROUPS.values(), GROUPS["refusals"] + "-v3"]
            while_coordinator_loads(lambda: (None, [c.error_code for c in client.request(10, 4, FindCoordinatorRequest(
                key_type=0, coordinator_keys=groups)).coordinators]))
            # FindCoordinator answers before the group's shard is loaded: wait for the shards too
            while_coordinator_loads(lambda: (None, [g.error_code for g in client.request(15, 5, DescribeGroupsRequest(
                groups=groups, include_authorized_operations=False)).groups]))
        found[name] = {}
        for script in SCRIPTS:
            run = Script(broker.bootstrap_servers, GROUPS[script.__name__])
            try:
                script(run)
            finally:
                run.close()
            found[name][script.__name__] = run.answers
    return found


@pytest.mark.parametrize("script", [script.__name__ for script in SCRIPTS])
def test_the_same_answers_as_kafka(transcripts, compat_table, script):
    compat_table.assert_same(f"classic group script {script}", {
        name: transcripts[name][script] for name in ("pylog", "kafka")})


def test_the_scripts_reach_what_they_compare(transcripts):
    """The states and codes the comparison stands on, as Kafka answered them."""
    kafka = {script: dict(answers) for script, answers in transcripts["kafka"].items()}
    assert kafka["one_member"]["join without member id"]["error_code"] == 79      # MEMBER_ID_REQUIRED
    assert kafka["one_member"]["sync: generation ahead"]["error_code"] == 22      # ILLEGAL_GENERATION
    preparing = kafka["a_second_member"]["describe: preparing"]["groups"][0]
    assert preparing["group_state"] == "PreparingRebalance"
    assert b"\x01" in [m["member_assignment"] for m in preparing["members"]]       # a's, held through it
    assert kafka["a_second_member"]["a: heartbeat while preparing"]["error_code"] == 27   # REBALANCE_IN_PROGRESS
    assert kafka["static_members"]["a: heartbeat once replaced"]["error_code"] == 82     # FENCED_INSTANCE_ID
    assert kafka["tied_vote"]["protocol chosen"] == "range"
