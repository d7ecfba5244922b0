"""Kafka's own verifiable clients against a three-broker pylog cluster while its partition
leader is killed and restarted.

`kafka-verifiable-producer.sh` (org.apache.kafka.tools.VerifiableProducer) and
`kafka-verifiable-consumer.sh` (org.apache.kafka.tools.VerifiableConsumer) are the clients
of Kafka's own system tests: each prints one JSON object per line on stdout for every event
(a send acknowledged or failed, records consumed, offsets committed). They run here from the
reference Kafka's jars (tests/compat/kafka/target/lib), each in its own JVM, against
`pylog.Cluster(brokers=3)`: one topic of one partition, replication factor 3,
`min.insync.replicas=2`, made (with `__consumer_offsets`) before the clients start; the
producer with acks -1 (and the Java client's defaults: idempotent, retries until
`delivery.timeout.ms`), the consumer in a classic group committing after every poll
(`--verbose`, so every record it reads is reported).

While both run, the test sends SIGKILL to the partition's leader once, waits until the
producer gets acknowledgements again from the new leader, and restarts the killed broker.
Then, from the reports:
- every record the producer saw acknowledged (`producer_send_success`, at its partition and
  offset) was read by the consumer (`records_consumed` ranges and the `record_data` of that
  offset, with the same value): acks=all lost nothing across the failover;
- every `producer_send_error` is of a retriable kind;
- every `offsets_committed` report succeeded, and the last one is past the last record read.
"""

from __future__ import annotations

import json
import subprocess
import threading
import time

import pytest

from pylog.cluster import Cluster
from tests.compat.reference import java_command

CLIENT_JVM_FLAGS = ("-Xmx256m", "-XX:+UseSerialGC", "-Djava.awt.headless=true")
MESSAGES = 3000
THROUGHPUT = 300  # records/s: the run lasts ~10 s, the kill falls in its middle
# Kafka's RetriableException subclasses a produce may meet while a leader fails over
RETRIABLE = {
    "NotLeaderOrFollowerException", "NotEnoughReplicasException", "NotEnoughReplicasAfterAppendException",
    "TimeoutException", "NetworkException", "DisconnectException", "LeaderNotAvailableException",
    "UnknownTopicOrPartitionException", "KafkaStorageException", "CorruptRecordException",
    "UnknownLeaderEpochException", "FencedLeaderEpochException", "OffsetNotAvailableException",
}


class JsonReports:
    """A Java tool's process and the JSON objects it prints, read on a thread."""

    def __init__(self, command: list[str], log_path):
        self.events: list[dict] = []
        self.other_lines: list[str] = []
        self.lock = threading.Lock()
        self.log = open(log_path, "wb")
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=self.log, stdin=subprocess.DEVNULL)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for raw in self.process.stdout:
            line = raw.decode(errors="replace").strip()
            try:
                event = json.loads(line) if line.startswith("{") else None
            except ValueError:
                event = None
            with self.lock:
                if event is None:
                    self.other_lines.append(line)
                else:
                    self.events.append(event)

    def named(self, name: str) -> list[dict]:
        with self.lock:
            return [event for event in self.events if event.get("name") == name]

    def wait_for(self, what: str, condition, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while not condition():
            if time.monotonic() > deadline:
                raise AssertionError(f"{what}: not after {timeout_s:.0f} s; last events {self.events[-5:]}")
            time.sleep(0.05)

    def stop(self, timeout_s: float = 60) -> None:
        if self.process.poll() is None:
            self.process.terminate()  # the tools close their client on SIGTERM and report it
        try:
            self.process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.reader.join(10)
        self.log.close()


def _wait_in_sync(admin, topic: str, timeout_s: float = 60) -> None:
    """Until every partition of `topic` has a leader and all three replicas in sync."""
    deadline = time.monotonic() + timeout_s
    while True:
        found = admin.list_topics(topic, timeout=5).topics.get(topic)
        partitions = found.partitions if found is not None and found.error is None else {}
        lagging = {i: p.isrs for i, p in partitions.items() if p.leader < 0 or len(p.isrs) < 3}
        if partitions and not lagging:
            return
        assert time.monotonic() < deadline, f"{topic}: not in sync after {timeout_s:.0f} s: {lagging or 'no partitions'}"
        time.sleep(0.1)


def _prepare(cluster: Cluster, topic: str, group: str) -> None:
    """The topic (1 partition, RF 3, min.insync.replicas 2) and `__consumer_offsets`, every
    replica in sync before the clients start: the kill is what is under test, not the
    cluster's first creation of the offsets topic (50 partitions) while a group forms."""
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": cluster.bootstrap_servers, "broker.address.family": "v4"})
    admin.create_topics([NewTopic(topic, 1, 3, config={"min.insync.replicas": "2"})])[topic].result(30)
    _wait_in_sync(admin, topic)
    deadline = time.monotonic() + 60
    while True:  # FindCoordinator creates __consumer_offsets; the group does not exist yet
        try:
            admin.describe_consumer_groups([group])[group].result(10)
            break
        except Exception as exc:
            assert time.monotonic() < deadline, f"no coordinator for {group} after 60 s: {exc}"
            time.sleep(0.2)
    _wait_in_sync(admin, "__consumer_offsets")


def _consumed_offsets(consumer: JsonReports) -> dict[int, dict[int, str]]:
    """partition -> offset -> value, from the consumer's record_data reports."""
    found: dict[int, dict[int, str]] = {}
    for event in consumer.named("record_data"):
        found.setdefault(event["partition"], {})[event["offset"]] = event["value"]
    return found


def _in_ranges(consumer: JsonReports) -> set[tuple[int, int]]:
    """(partition, offset) of every offset inside a records_consumed range."""
    covered = set()
    for event in consumer.named("records_consumed"):
        for p in event["partitions"]:
            covered.update((p["partition"], offset) for offset in range(p["minOffset"], p["maxOffset"] + 1))
    return covered


@pytest.mark.timeout(600)
def test_acked_records_survive_a_leader_kill(tmp_path):
    topic, group = "verifiable", "verifiable-group"
    with Cluster(brokers=3, data_dir=tmp_path / "cluster", config={"min.insync.replicas": 2}) as cluster:
        _prepare(cluster, topic, group)
        consumer = JsonReports(java_command(
            "org.apache.kafka.tools.VerifiableConsumer", "--topic", topic, "--group-id", group, "--verbose",
            "--reset-policy", "earliest", "--bootstrap-server", cluster.bootstrap_servers,
            jvm_flags=CLIENT_JVM_FLAGS), tmp_path / "consumer.log")
        producer = JsonReports(java_command(
            "org.apache.kafka.tools.VerifiableProducer", "--topic", topic, "--max-messages", str(MESSAGES),
            "--throughput", str(THROUGHPUT), "--acks", "-1", "--bootstrap-server", cluster.bootstrap_servers,
            jvm_flags=CLIENT_JVM_FLAGS), tmp_path / "producer.log")
        try:
            producer.wait_for("a third of the records acked",
                              lambda: len(producer.named("producer_send_success")) >= MESSAGES // 3, 90)
            leader = cluster.leader(topic, 0)
            cluster.kill(leader)
            acked_at_kill = len(producer.named("producer_send_success"))
            producer.wait_for("acks from the new leader",
                              lambda: len(producer.named("producer_send_success")) > acked_at_kill + 100, 60)
            cluster.restart(leader)
            producer.wait_for("the producer's end", lambda: producer.named("shutdown_complete"), 120)
            producer.stop()

            acked = {(e["partition"], e["offset"]): e["value"] for e in producer.named("producer_send_success")}
            assert len(acked) > acked_at_kill + 100

            def all_acked_read() -> bool:
                consumed = _consumed_offsets(consumer)
                return all(offset in consumed.get(partition, {}) for partition, offset in acked)

            consumer.wait_for("every acked record read", all_acked_read, 120)
            last_read = max(offset for offsets in _consumed_offsets(consumer).values() for offset in offsets)
            consumer.wait_for("a commit past the last record read", lambda: any(
                o["offset"] > last_read for e in consumer.named("offsets_committed") if e.get("success")
                for o in e.get("offsets", [])), 60)
        finally:
            producer.stop()
            consumer.stop()

    consumed = _consumed_offsets(consumer)
    covered = _in_ranges(consumer)
    missing = [key for key in acked if key not in covered]
    assert not missing, f"{len(missing)} acked records outside every records_consumed range: {missing[:10]}"
    different = [(key, value, consumed.get(key[0], {}).get(key[1])) for key, value in acked.items()
                 if consumed.get(key[0], {}).get(key[1]) != value]
    assert not different, f"acked records read back with other values (key, acked, read): {different[:10]}"

    errors = producer.named("producer_send_error")
    not_retriable = [e for e in errors if e.get("exception", "").rsplit(".", 1)[-1] not in RETRIABLE]
    assert not not_retriable, f"producer errors that are not retriable: {not_retriable[:5]}"

    commits = consumer.named("offsets_committed")
    assert commits, "the consumer reported no commit"
    failed = [e for e in commits if not e.get("success")]
    assert not failed, f"{len(failed)} of {len(commits)} commits failed: {failed[:3]}"
