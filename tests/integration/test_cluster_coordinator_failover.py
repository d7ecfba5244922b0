"""Group consumers go on, committed offsets intact, when their group coordinator's broker is killed.

3 brokers; `__consumer_offsets` has 5 partitions here and replication factor 3 (the
default, capped at the brokers registered). Two confluent-kafka consumers of one group read
a 3-partition RF 3 topic and commit synchronously after every record they get. The
coordinator (FindCoordinator, raw) is killed with SIGKILL while they consume; another
broker takes over the group's `__consumer_offsets` partition, loads its offsets and serves
the group.

Asserted: the offsets the group had committed before the kill are there after it (each
partition's committed offset read from the new coordinator is >= the one read before);
the consumers go on and commit up to the end of every partition (so commits to the new
coordinator work); every record produced before and after the kill is consumed at least
once; the killed node restarts and the group's offsets are still the final ones.
"""

from __future__ import annotations

import threading
import time

import pytest
from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition

from protocol.messages import FindCoordinatorRequest
from pylog.cluster import Cluster
from tests.integration.cluster_support import create_topic, wait_full_isr
from tests.integration.support import wait_until
from tests.pylog.wire import RawClient

TOPIC = "work"
GROUP = "workers"
PARTITIONS = 3
CONFIG = {"offsets.topic.num.partitions": 5}


def find_coordinator(cluster, group: str) -> int | None:
    """The node id of `group`'s coordinator as a live broker answers FindCoordinator v3, or None."""
    for node_id in cluster.running_brokers():
        try:
            client = RawClient(f"127.0.0.1:{cluster.brokers[node_id].port}", timeout_s=5)
        except OSError:
            continue
        try:
            response = client.request(10, 3, FindCoordinatorRequest(key=group, key_type=0))
        except OSError:
            continue
        finally:
            client.close()
        if response.error_code == 0:
            return response.node_id
    return None


def committed(cluster, group: str) -> dict[int, int] | None:
    """partition -> the group's committed offset (-1001: none), or None if not answered now."""
    reader = Consumer({"bootstrap.servers": cluster.bootstrap_servers, "group.id": group,
                       "enable.auto.commit": False, "socket.connection.setup.timeout.ms": 2000})
    try:
        answer = reader.committed([TopicPartition(TOPIC, p) for p in range(PARTITIONS)], timeout=10)
    except KafkaException:
        return None
    finally:
        reader.close()
    if any(tp.error for tp in answer):
        return None
    return {tp.partition: tp.offset for tp in answer}


def produce(cluster, prefix: str, count: int) -> list[bytes]:
    delivered, errors = [], []
    producer = Producer({"bootstrap.servers": cluster.bootstrap_servers, "acks": "all",
                         "enable.idempotence": True, "message.timeout.ms": 120_000})

    def report(err, msg):
        (errors if err else delivered).append(err or msg.value())

    for i in range(count):
        value = f"{prefix}-{i}".encode()
        producer.produce(TOPIC, value=value, key=value, on_delivery=report)
        producer.poll(0)
    assert producer.flush(120) == 0
    assert errors == []
    return delivered


class GroupMember:
    """One consumer of GROUP in a thread: polls, remembers every value, commits after each record."""

    def __init__(self, cluster, name: str, seen: set, lock: threading.Lock):
        self.consumer = Consumer({
            "bootstrap.servers": cluster.bootstrap_servers, "group.id": GROUP, "client.id": name,
            "auto.offset.reset": "earliest", "enable.auto.commit": False, "session.timeout.ms": 10_000,
            "heartbeat.interval.ms": 1000, "socket.connection.setup.timeout.ms": 2000,
            "topic.metadata.refresh.interval.ms": 1000})
        self.seen, self.lock = seen, lock
        self.commit_errors: list[str] = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        self.consumer.subscribe([TOPIC])
        while not self.stopping.is_set():
            message = self.consumer.poll(0.2)
            if message is None or message.error():
                continue
            with self.lock:
                self.seen.add(message.value())
            try:
                self.consumer.commit(message=message, asynchronous=False)
            except KafkaException as e:   # the coordinator moving: retriable, the next commit covers it
                self.commit_errors.append(str(e))
        self.consumer.close()

    def start(self) -> GroupMember:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(60)


def end_offsets(cluster) -> dict[int, int]:
    probe = Consumer({"bootstrap.servers": cluster.bootstrap_servers, "group.id": "probe"})
    try:
        return {p: probe.get_watermark_offsets(TopicPartition(TOPIC, p), timeout=10)[1] for p in range(PARTITIONS)}
    finally:
        probe.close()


@pytest.mark.timeout(300)
def test_group_offsets_survive_the_coordinator_kill_and_consumers_go_on(tmp_path):
    with Cluster(brokers=3, data_dir=tmp_path / "cluster", config=CONFIG) as cluster:
        create_topic(cluster, TOPIC, PARTITIONS, 3)
        produced = produce(cluster, "before", 300)
        seen: set[bytes] = set()
        lock = threading.Lock()
        members = [GroupMember(cluster, f"member-{i}", seen, lock).start() for i in range(2)]

        wait_until(lambda: len(seen) >= 150, 120, "the group consuming")
        coordinator = wait_until(lambda: find_coordinator(cluster, GROUP), 30, "the group's coordinator")
        before = wait_until(lambda: (c := committed(cluster, GROUP)) and sum(o > 0 for o in c.values()) and c,
                            30, "offsets committed")
        cluster.kill(coordinator)
        after_kill = time.monotonic()

        produced += produce(cluster, "after", 300)
        new_coordinator = wait_until(lambda: (c := find_coordinator(cluster, GROUP)) not in (None, coordinator)
                                     and c, 60, "a new coordinator")
        assert new_coordinator in cluster.running_brokers()
        intact = wait_until(lambda: committed(cluster, GROUP), 60, "offsets readable from the new coordinator")
        for p, offset in before.items():
            assert intact[p] >= offset, f"partition {p}: committed {offset} before the kill, {intact[p]} after"

        wait_until(lambda: len(seen & set(produced)) == len(produced), 120,
                   "every record consumed", interval_s=0.2)
        ends = end_offsets(cluster)
        final = wait_until(lambda: (c := committed(cluster, GROUP)) and c == ends and c, 60,
                           f"the group's commits at the end of every partition {ends}")
        print(f"\ncoordinator {coordinator} killed; {new_coordinator} took over; all consumed "
              f"{time.monotonic() - after_kill:.1f} s after the kill; commit errors: "
              f"{sum(len(m.commit_errors) for m in members)}")
        for member in members:
            member.stop()

        cluster.restart(coordinator)
        wait_full_isr(cluster, TOPIC, PARTITIONS, 3, timeout_s=90)
        assert wait_until(lambda: committed(cluster, GROUP), 60, "offsets after the restart") == final
