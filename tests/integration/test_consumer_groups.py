"""Consumer groups with real clients against a real pylog broker on 127.0.0.1.

- kafka-python: three members over a 6-partition topic share it 2/2/2; one closes
  (LeaveGroup) and the other two take 3/3; one is killed with SIGKILL (no LeaveGroup)
  and the survivor takes everything once its session times out. Members commit after
  processing and start from `latest` when nothing is committed, so a missing or wrong
  commit would skip records: every produced record must have been consumed.
- aiokafka and confluent-kafka (classic protocol, its default): the same join / leave
  flow, every record consumed, the offsets committed.
- cooperative-sticky (kafka-python's and librdkafka's): the incremental protocol needs
  nothing but the generation and the metadata relayed.
- static membership (kafka-python, `group_instance_id`): a member that restarts inside its
  session timeout gets its partitions back; the generation does not change and the other
  member sees no rebalance.

Waits are bounded; nothing asserts on timing.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import time

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.structs import TopicPartition as AioTopicPartition
from confluent_kafka import Consumer as ConfluentConsumer, KafkaException, TopicPartition as CkTopicPartition
from kafka import (ConsumerRebalanceListener, KafkaAdminClient, KafkaConsumer, KafkaProducer, OffsetAndMetadata,
                   TopicPartition)
from kafka.coordinator.assignors.cooperative_sticky import CooperativeStickyAssignor

from pylog.coordinator.group import GroupState
from tests.integration.support import KAFKA_PYTHON_GROUP_CONFIG, KAFKA_PYTHON_GROUP_POLL_MS, ROOT, wait_until

TOPIC = "t"
PARTITIONS = 6
SESSION_MS = 6000
HEARTBEAT_MS = 300

# kafka-python members poll with 1 s timeouts and a short metadata max age: see support.py.
POLL_MS = KAFKA_PYTHON_GROUP_POLL_MS
KAFKA_PYTHON_WORKAROUND = KAFKA_PYTHON_GROUP_CONFIG


# ---------------------------------------------------------------------------------------
# the broker with group management


@pytest.fixture
def group_broker(kafka_broker_factory):
    embedded = kafka_broker_factory()
    embedded.call(lambda: embedded.broker.create_topic(TOPIC, PARTITIONS))
    yield embedded


def generation_of(embedded, group_id: str) -> int:
    return embedded.call(lambda: embedded.broker.group_coordinator.group(group_id).generation_id)


def state_of(embedded, group_id: str) -> GroupState | None:
    return embedded.call(lambda: embedded.broker.group_coordinator.group_state(group_id))


class Produced:
    """Records sent with kafka-python, round-robin over the partitions; the end offsets."""

    def __init__(self, bootstrap: str):
        self.producer = KafkaProducer(bootstrap_servers=bootstrap, linger_ms=5)
        self.sent = 0
        self.end = dict.fromkeys(range(PARTITIONS), 0)

    def send(self, count: int) -> None:
        futures = []
        for _ in range(count):
            partition = self.sent % PARTITIONS
            futures.append(self.producer.send(TOPIC, value=b"record-%d" % self.sent, partition=partition))
            self.sent += 1
        self.producer.flush(timeout=30)
        for future in futures:
            metadata = future.get(timeout=10)
            self.end[metadata.partition] = max(self.end[metadata.partition], metadata.offset + 1)

    def expected(self) -> set[tuple[int, int]]:
        return {(p, o) for p, end in self.end.items() for o in range(end)}

    def close(self) -> None:
        self.producer.close(timeout=10)


def split(assignments) -> list[int]:
    return sorted(len(a) for a in assignments)


def covers_all(assignments) -> bool:
    union = [p for a in assignments for p in a]
    return sorted(union) == list(range(PARTITIONS))


# ---------------------------------------------------------------------------------------
# kafka-python members: threads, and one subprocess that can be killed


class KafkaPythonMember(threading.Thread):
    """One kafka-python group member polling in its own thread; commits after processing.

    `ready` once the positions of its current assignment are known (so that records
    produced afterwards cannot fall before its `latest` start)."""

    def __init__(self, bootstrap: str, group: str, name: str, consumed: set, lock: threading.Lock,
                 listener: ConsumerRebalanceListener | None = None, **config):
        super().__init__(name=name, daemon=True)
        self.bootstrap, self.group, self.consumed, self.lock = bootstrap, group, consumed, lock
        self.listener = listener
        self.config = dict(dict(auto_offset_reset="latest", enable_auto_commit=False, session_timeout_ms=SESSION_MS,
                                heartbeat_interval_ms=HEARTBEAT_MS, client_id=name, **KAFKA_PYTHON_WORKAROUND), **config)
        self.assignment: frozenset = frozenset()
        self.ready = False
        self.stopping = threading.Event()
        self.error: BaseException | None = None
        self.member_id: str | None = None

    def run(self) -> None:
        try:
            consumer = KafkaConsumer(bootstrap_servers=self.bootstrap, group_id=self.group, **self.config)
            # Topic metadata first: a leader that joins without it assigns nothing and
            # rejoins when the metadata arrives, one more rebalance for nothing.
            consumer.partitions_for_topic(TOPIC)
            consumer.subscribe([TOPIC], listener=self.listener)
        except BaseException as exc:
            self.error = exc
            return
        try:
            while not self.stopping.is_set():
                batches = consumer.poll(timeout_ms=POLL_MS)
                with self.lock:
                    for tp, records in batches.items():
                        self.consumed.update((tp.partition, r.offset) for r in records)
                assignment = frozenset(tp.partition for tp in consumer.assignment())
                if assignment != self.assignment or not self.ready:
                    self.ready = False
                    for tp in consumer.assignment():
                        consumer.position(tp)          # resolves `latest` now, before any produce
                    self.assignment = assignment
                    self.ready = True
                try:
                    consumer.commit()
                except Exception:
                    pass      # a rebalance got in the way; the next owner re-reads from the last commit
                self.member_id = consumer._coordinator._generation.member_id
        except BaseException as exc:
            self.error = exc
        finally:
            consumer.close()

    def stop(self) -> None:
        self.stopping.set()
        self.join(timeout=30)
        assert not self.is_alive(), f"{self.name} did not stop"
        assert self.error is None, f"{self.name} failed: {self.error!r}"


CHILD_CONSUMER = r"""
import sys
from kafka import KafkaConsumer
bootstrap, topic, group, session_ms, heartbeat_ms = sys.argv[1:6]
consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=group, client_id="child", auto_offset_reset="latest",
                         enable_auto_commit=False, session_timeout_ms=int(session_ms),
                         heartbeat_interval_ms=int(heartbeat_ms), metadata_max_age_ms=1000)
consumer.partitions_for_topic(topic)
consumer.subscribe([topic])
last = None
while True:
    batches = consumer.poll(timeout_ms=1000)
    for tp, records in batches.items():
        for record in records:
            print("REC", tp.partition, record.offset, flush=True)
    assignment = sorted(tp.partition for tp in consumer.assignment())
    if assignment != last:
        for tp in consumer.assignment():
            consumer.position(tp)
        last = assignment
        print("ASSIGN", ",".join(map(str, assignment)), flush=True)
    try:
        consumer.commit()
    except Exception as exc:
        print("COMMIT-FAILED", type(exc).__name__, flush=True)
"""


class ChildMember:
    """A kafka-python member in its own process, reporting on stdout; `kill()` is SIGKILL."""

    def __init__(self, bootstrap: str, group: str, consumed: set, lock: threading.Lock):
        self.consumed, self.lock = consumed, lock
        self.assignment: frozenset | None = None
        self.process = subprocess.Popen(
            [sys.executable, "-c", CHILD_CONSUMER, bootstrap, TOPIC, group, str(SESSION_MS), str(HEARTBEAT_MS)],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for line in self.process.stdout:
            parts = line.split()
            if parts[:1] == ["REC"] and len(parts) == 3:  # a line cut short: the child was killed mid-print
                with self.lock:
                    self.consumed.add((int(parts[1]), int(parts[2])))
            elif parts[:1] == ["ASSIGN"]:
                self.assignment = frozenset(int(p) for p in parts[1].split(",")) if len(parts) > 1 else frozenset()

    @property
    def ready(self) -> bool:
        return self.assignment is not None

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=30)
        self.reader.join(timeout=10)


@pytest.mark.timeout(120)
def test_kafka_python_members_share_rebalance_on_leave_and_on_death(group_broker):
    bootstrap = group_broker.bootstrap_servers
    consumed: set = set()
    lock = threading.Lock()
    produced = Produced(bootstrap)
    a = KafkaPythonMember(bootstrap, "g", "kp-a", consumed, lock)
    b = KafkaPythonMember(bootstrap, "g", "kp-b", consumed, lock)
    child = ChildMember(bootstrap, "g", consumed, lock)
    a.start()
    b.start()
    try:
        def shares():
            return [a.assignment, b.assignment, child.assignment or frozenset()]

        wait_until(lambda: split(shares()) == [2, 2, 2] and covers_all(shares()) and a.ready and b.ready,
                   30, "2/2/2 over three kafka-python members")
        assert state_of(group_broker, "g") is GroupState.STABLE
        produced.send(300)
        wait_until(lambda: produced.expected() <= consumed, 15, "the first records consumed")

        # one member closes: LeaveGroup, the other two take 3/3 without waiting on a session
        b.stop()
        wait_until(lambda: split([a.assignment, child.assignment]) == [3, 3]
                   and covers_all([a.assignment, child.assignment]) and a.ready,
                   10, "3/3 after a member left")
        produced.send(300)
        wait_until(lambda: produced.expected() <= consumed, 15, "records after the leave consumed")

        # one member dies: no LeaveGroup; its session times out and the survivor takes over
        produced.send(120)
        child.kill()
        produced.send(120)
        wait_until(lambda: len(a.assignment) == PARTITIONS and a.ready, 30,
                   "the survivor owning every partition after the session timeout")
        produced.send(120)
        wait_until(lambda: produced.expected() <= consumed, 20, "every record consumed")
        missing = produced.expected() - consumed
        assert not missing, f"skipped records: {sorted(missing)[:20]}"
    finally:
        child.kill()
        for member in (a, b):
            if member.is_alive():
                member.stopping.set()
                member.join(timeout=30)
        produced.close()
    assert a.error is None, repr(a.error)


@pytest.mark.timeout(90)
def test_kafka_python_cooperative_sticky(group_broker):
    bootstrap = group_broker.bootstrap_servers
    consumed: set = set()
    lock = threading.Lock()
    produced = Produced(bootstrap)
    config = dict(partition_assignment_strategy=(CooperativeStickyAssignor,), auto_offset_reset="earliest")
    members = [KafkaPythonMember(bootstrap, "coop", f"coop-{i}", consumed, lock, **config) for i in range(3)]
    try:
        for member in members:
            member.start()
        wait_until(lambda: split(m.assignment for m in members) == [2, 2, 2]
                   and covers_all(m.assignment for m in members), 30, "cooperative 2/2/2")
        before = {m.name: m.assignment for m in members}
        members[2].stop()
        wait_until(lambda: split(m.assignment for m in members[:2]) == [3, 3]
                   and covers_all(m.assignment for m in members[:2]), 15, "cooperative 3/3")
        for m in members[:2]:       # sticky: the survivors kept what they had
            assert before[m.name] <= m.assignment
        produced.send(120)
        wait_until(lambda: produced.expected() <= consumed, 15, "every record consumed")
    finally:
        for member in members:
            if member.is_alive():
                member.stopping.set()
                member.join(timeout=30)
        produced.close()


# ---------------------------------------------------------------------------------------
# aiokafka


@pytest.mark.timeout(90)
def test_aiokafka_members_share_and_rebalance(group_broker):
    bootstrap = group_broker.bootstrap_servers

    async def scenario():
        consumed: set = set()
        end = dict.fromkeys(range(PARTITIONS), 0)
        producer = AIOKafkaProducer(bootstrap_servers=bootstrap)
        await producer.start()

        async def produce(count: int):
            for i in range(count):
                metadata = await producer.send_and_wait(TOPIC, b"aio-%d" % i, partition=i % PARTITIONS)
                end[metadata.partition] = max(end[metadata.partition], metadata.offset + 1)

        consumers = [AIOKafkaConsumer(TOPIC, bootstrap_servers=bootstrap, group_id="aio", client_id=f"aio-{i}",
                                      auto_offset_reset="earliest", enable_auto_commit=False,
                                      session_timeout_ms=SESSION_MS, heartbeat_interval_ms=HEARTBEAT_MS)
                     for i in range(3)]
        stopping = [asyncio.Event() for _ in consumers]

        async def run(consumer, stop):
            await consumer.start()
            try:
                while not stop.is_set():
                    batches = await consumer.getmany(timeout_ms=100)
                    for tp, records in batches.items():
                        consumed.update((tp.partition, r.offset) for r in records)
                    if batches:
                        try:
                            await consumer.commit()
                        except Exception:
                            pass
            finally:
                await consumer.stop()

        tasks = [asyncio.create_task(run(c, s)) for c, s in zip(consumers, stopping)]

        async def until(predicate, timeout_s, what):
            deadline = time.monotonic() + timeout_s
            while not predicate():
                for task in tasks:
                    if task.done() and task.exception():
                        raise task.exception()
                if time.monotonic() > deadline:
                    pytest.fail(f"timed out after {timeout_s} s waiting for {what}")
                await asyncio.sleep(0.05)

        def assigned(group):
            return [frozenset(tp.partition for tp in c.assignment()) for c in group]

        expected = lambda: {(p, o) for p, e in end.items() for o in range(e)}  # noqa: E731
        try:
            await until(lambda: split(assigned(consumers)) == [2, 2, 2] and covers_all(assigned(consumers)),
                        30, "aiokafka 2/2/2")
            await produce(120)
            await until(lambda: expected() <= consumed, 15, "records consumed by three")
            stopping[0].set()
            await tasks[0]
            await until(lambda: split(assigned(consumers[1:])) == [3, 3] and covers_all(assigned(consumers[1:])),
                        10, "aiokafka 3/3 after a member left")
            await produce(120)
            await until(lambda: expected() <= consumed, 15, "every record consumed")
            # the committed offsets reached the end of every partition
            last = consumers[1]
            committed = {}
            for p in range(PARTITIONS):
                committed[p] = await last.committed(AioTopicPartition(TOPIC, p))
            return end, committed
        finally:
            for stop in stopping:
                stop.set()
            await asyncio.gather(*tasks, return_exceptions=True)
            await producer.stop()

    end, committed = asyncio.run(scenario())
    assert committed == end


# ---------------------------------------------------------------------------------------
# confluent-kafka (librdkafka)


class ConfluentMember(threading.Thread):
    def __init__(self, bootstrap: str, group: str, name: str, consumed: set, lock: threading.Lock, **config):
        super().__init__(name=name, daemon=True)
        self.conf = {"bootstrap.servers": bootstrap, "group.id": group, "client.id": name,
                     "auto.offset.reset": "earliest", "enable.auto.commit": False,
                     "session.timeout.ms": SESSION_MS, "heartbeat.interval.ms": HEARTBEAT_MS, **config}
        self.consumed, self.lock = consumed, lock
        self.assignment: frozenset = frozenset()
        self.stopping = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        consumer = ConfluentConsumer(self.conf)
        try:
            consumer.subscribe([TOPIC])
            while not self.stopping.is_set():
                messages = consumer.consume(num_messages=100, timeout=0.1)
                processed = [m for m in messages if m.error() is None]
                with self.lock:
                    self.consumed.update((m.partition(), m.offset()) for m in processed)
                if processed:
                    try:
                        consumer.commit(asynchronous=False)
                    except KafkaException:
                        pass
                self.assignment = frozenset(tp.partition for tp in consumer.assignment())
        except BaseException as exc:
            self.error = exc
        finally:
            consumer.close()

    def stop(self) -> None:
        self.stopping.set()
        self.join(timeout=30)
        assert not self.is_alive() and self.error is None, repr(self.error)


@pytest.mark.timeout(90)
@pytest.mark.parametrize("strategy", ["range", "cooperative-sticky"])
def test_confluent_kafka_members_share_and_rebalance(group_broker, strategy):
    bootstrap = group_broker.bootstrap_servers
    consumed: set = set()
    lock = threading.Lock()
    produced = Produced(bootstrap)
    group = f"rdk-{strategy}"
    members = [ConfluentMember(bootstrap, group, f"rdk-{i}", consumed, lock,
                               **{"partition.assignment.strategy": strategy}) for i in range(3)]
    try:
        for member in members:
            member.start()
        wait_until(lambda: split(m.assignment for m in members) == [2, 2, 2]
                   and covers_all(m.assignment for m in members), 30, "confluent-kafka 2/2/2")
        produced.send(120)
        wait_until(lambda: produced.expected() <= consumed, 15, "records consumed by three")
        members[0].stop()
        wait_until(lambda: split(m.assignment for m in members[1:]) == [3, 3]
                   and covers_all(m.assignment for m in members[1:]), 10, "confluent-kafka 3/3")
        produced.send(120)
        wait_until(lambda: produced.expected() <= consumed, 15, "every record consumed")

        def committed():
            probe = ConfluentConsumer({"bootstrap.servers": bootstrap, "group.id": group})
            try:
                offsets = probe.committed([CkTopicPartition(TOPIC, p) for p in range(PARTITIONS)], timeout=10)
                return {tp.partition: tp.offset for tp in offsets}
            finally:
                probe.close()

        wait_until(lambda: committed() == produced.end, 15, "the offsets committed to the end")
    finally:
        for member in members:
            if member.is_alive():
                member.stopping.set()
                member.join(timeout=30)
        produced.close()


# ---------------------------------------------------------------------------------------
# static membership


class CountingListener(ConsumerRebalanceListener):
    def __init__(self):
        self.revoked = 0
        self.assigned = 0

    def on_partitions_revoked(self, revoked):
        self.revoked += 1

    def on_partitions_assigned(self, assigned):
        self.assigned += 1


@pytest.mark.timeout(90)
def test_static_member_restart_gets_its_partitions_back_without_a_rebalance(group_broker):
    bootstrap = group_broker.bootstrap_servers
    consumed: set = set()
    lock = threading.Lock()
    session_ms = 20_000
    listener = CountingListener()
    a = KafkaPythonMember(bootstrap, "static", "static-a", consumed, lock, listener=listener,
                          group_instance_id="instance-a", session_timeout_ms=session_ms, auto_offset_reset="earliest")
    b = KafkaPythonMember(bootstrap, "static", "static-b", consumed, lock,
                          group_instance_id="instance-b", session_timeout_ms=session_ms, auto_offset_reset="earliest")
    restarted = None
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        a.start()
        b.start()
        wait_until(lambda: split([a.assignment, b.assignment]) == [3, 3] and covers_all([a.assignment, b.assignment])
                   and state_of(group_broker, "static") is GroupState.STABLE, 30, "static members at 3/3")
        generation = generation_of(group_broker, "static")
        a_callbacks = (listener.revoked, listener.assigned)
        b_partitions, b_member_id = b.assignment, b.member_id

        b.stop()                      # a static member leaves no LeaveGroup behind
        assert state_of(group_broker, "static") is GroupState.STABLE
        restarted = KafkaPythonMember(bootstrap, "static", "static-b2", consumed, lock,
                                      group_instance_id="instance-b", session_timeout_ms=session_ms,
                                      auto_offset_reset="earliest")
        restarted.start()
        wait_until(lambda: restarted.assignment == b_partitions and restarted.ready and restarted.member_id, 15,
                   "the restarted static member owning its old partitions")

        assert generation_of(group_broker, "static") == generation
        assert state_of(group_broker, "static") is GroupState.STABLE
        assert (listener.revoked, listener.assigned) == a_callbacks     # the other member saw nothing
        assert a.assignment == frozenset(range(PARTITIONS)) - b_partitions
        assert restarted.member_id != b_member_id

        described = admin.describe_groups(["static"])["static"]
        assert described["group_state"] == "Stable" and described["protocol_type"] == "consumer"
        members = {m["group_instance_id"]: m for m in described["members"]}
        assert set(members) == {"instance-a", "instance-b"}
        assert members["instance-b"]["member_id"] == restarted.member_id
        assert members["instance-b"]["client_id"] == "static-b"      # the slot kept its first client id
    finally:
        admin.close()
        for member in (a, b, restarted):
            if member is not None and member.is_alive():
                member.stopping.set()
                member.join(timeout=30)


# ---------------------------------------------------------------------------------------
# admin over the wire


@pytest.mark.timeout(60)
def test_list_describe_and_delete_groups_with_the_admin_client(group_broker):
    bootstrap = group_broker.bootstrap_servers
    consumer = KafkaConsumer(TOPIC, bootstrap_servers=bootstrap, group_id="admin-g", auto_offset_reset="earliest",
                             session_timeout_ms=SESSION_MS, heartbeat_interval_ms=HEARTBEAT_MS, **KAFKA_PYTHON_WORKAROUND)
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        wait_until(lambda: consumer.poll(timeout_ms=POLL_MS) is not None and len(consumer.assignment()) == PARTITIONS,
                   30, "one member owning the topic")
        consumer.commit({TopicPartition(TOPIC, 0): OffsetAndMetadata(0, "", -1)})
        listed = {g["group_id"]: g for g in admin.list_groups()}
        assert listed["admin-g"]["protocol_type"] == "consumer", listed
        assert [g["group_id"] for g in admin.list_groups(states_filter=["Empty"])] == []
        described = admin.describe_groups(["admin-g", "never-seen"])
        assert described["admin-g"]["group_state"] == "Stable"
        assert described["admin-g"]["protocol_data"] == "range"
        assert described["never-seen"]["group_state"] == "Dead"
        assert admin.delete_groups(["admin-g"]) == {"admin-g": "NonEmptyGroupError"}
        consumer.close()
        wait_until(lambda: state_of(group_broker, "admin-g") is GroupState.EMPTY, 10, "the group empty after close")
        assert [g["group_id"] for g in admin.list_groups(states_filter=["Empty"])] == ["admin-g"]
        assert admin.delete_groups(["admin-g", "never-seen"]) == {"admin-g": "OK", "never-seen": "GroupIdNotFoundError"}
        assert state_of(group_broker, "admin-g") is None
    finally:
        admin.close()
        consumer.close()


# ---------------------------------------------------------------------------------------
# what the group records of its members


@pytest.mark.parametrize("host,expected", [("127.0.0.1", "/127.0.0.1"), ("::1", "/0:0:0:0:0:0:0:1")])
def test_a_members_client_host_is_its_address_as_java_prints_it(tmp_path, host, expected):
    """Kafka stores `InetAddress.toString()`: a "/" before the address, IPv6 unabbreviated."""
    from protocol.messages import DescribeGroupsRequest, JoinGroupRequest
    from pylog.testing import EmbeddedBroker
    from tests.integration.support import WireClient

    with EmbeddedBroker(tmp_path / "data", host=host) as embedded, \
            WireClient(f"{host}:{embedded.port}") as client:
        embedded.wait_for_group_coordinator()   # the raw JoinGroup skips FindCoordinator
        joined = client.request(11, 0, JoinGroupRequest(
            group_id="hosts", session_timeout_ms=10_000, member_id="", protocol_type="consumer",
            protocols=[JoinGroupRequest.JoinGroupRequestProtocol(name="range", metadata=b"")]))
        assert joined.error_code == 0
        (group,) = client.request(15, 0, DescribeGroupsRequest(groups=["hosts"])).groups
        assert [m.client_host for m in group.members] == [expected]
        stored = embedded.call(lambda: embedded.broker.offset_store.group_metadata("hosts"))
    assert stored is not None and stored.generation == 0      # the new group's record, written at the join
