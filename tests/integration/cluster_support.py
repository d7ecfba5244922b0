"""Helpers for tests against a `pylog.Cluster`: topics, ISR waits, streaming producers."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic
from kafka import KafkaProducer

from pylog.cluster import _metadata


def create_topic(cluster, name: str, partitions: int, replication_factor: int, configs: dict | None = None) -> None:
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap_servers})
    futures = admin.create_topics([NewTopic(name, partitions, replication_factor, config=configs or {})],
                                  operation_timeout=30)
    futures[name].result(60)
    wait_full_isr(cluster, name, partitions, replication_factor)


def partition_states(cluster, topic: str) -> dict[int, tuple[int, list[int], list[int]]]:
    """partition -> (leader, replicas, isr), as a live broker's Metadata says."""
    for node_id in cluster.running_brokers():
        try:
            response = _metadata(cluster.brokers[node_id].port, topic)
        except OSError:
            continue
        for found in response.topics:
            if found.name == topic and found.error_code == 0:
                return {p.partition_index: (p.leader_id, list(p.replica_nodes), list(p.isr_nodes))
                        for p in found.partitions}
    return {}


def wait_full_isr(cluster, topic: str, partitions: int, size: int, timeout_s: float = 60) -> None:
    """Wait until every partition has a leader and `size` in-sync replicas."""
    deadline = time.monotonic() + timeout_s
    while True:
        states = partition_states(cluster, topic)
        if len(states) == partitions and all(leader >= 0 and len(isr) >= size
                                             for leader, _, isr in states.values()):
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"{topic}: ISR not back to {size}: {states}")
        time.sleep(0.1)


@dataclass
class Acks:
    """What one streaming producer had acknowledged: value -> (partition, offset)."""

    acked: dict[bytes, tuple[int, int]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    sent: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def count(self) -> int:
        with self.lock:
            return len(self.acked)


class ConfluentStream:
    """A confluent-kafka producer sending unique values in a thread until stopped."""

    def __init__(self, cluster, topic: str, prefix: str, *, acks: str, idempotent: bool):
        self.topic = topic
        self.prefix = prefix
        self.result = Acks()
        self.producer = Producer({
            "bootstrap.servers": cluster.bootstrap_servers, "acks": acks, "enable.idempotence": idempotent,
            "linger.ms": 5, "message.timeout.ms": 120_000, "retry.backoff.ms": 50,
            "socket.connection.setup.timeout.ms": 2000, "topic.metadata.refresh.interval.ms": 1000})
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _delivered(self, err, msg) -> None:
        with self.result.lock:
            if err is None:
                self.result.acked[msg.value()] = (msg.partition(), msg.offset())
            else:
                self.result.errors.append(str(err))

    def _run(self) -> None:
        i = 0
        while not self.stopping.is_set():
            value = f"{self.prefix}-{i}".encode()
            try:
                self.producer.produce(self.topic, value=value, key=value, on_delivery=self._delivered)
                i += 1
                self.result.sent = i
            except BufferError:
                self.producer.poll(0.05)
                continue
            self.producer.poll(0)
            if i % 10 == 0:
                time.sleep(0.005)   # about 2,000 records/s: enough to straddle every kill
        self.producer.flush(120)

    def start(self) -> ConfluentStream:
        self.thread.start()
        return self

    def stop(self) -> Acks:
        self.stopping.set()
        self.thread.join(180)
        return self.result


class KafkaPythonStream:
    """A kafka-python producer sending unique values in a thread until stopped."""

    def __init__(self, cluster, topic: str, prefix: str, *, acks):
        self.topic = topic
        self.prefix = prefix
        self.result = Acks()
        self.producer = KafkaProducer(bootstrap_servers=cluster.bootstrap_servers, acks=acks, retries=1_000_000,
                                      linger_ms=5, request_timeout_ms=10_000, retry_backoff_ms=50,
                                      metadata_max_age_ms=1000, max_in_flight_requests_per_connection=1,
                                      delivery_timeout_ms=120_000)
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        i = 0
        while not self.stopping.is_set():
            value = f"{self.prefix}-{i}".encode()
            future = self.producer.send(self.topic, value=value, key=value)
            future.add_callback(self._ok, value)
            future.add_errback(self._failed)
            i += 1
            self.result.sent = i
            if i % 10 == 0:
                time.sleep(0.005)
        self.producer.flush(120)
        self.producer.close(30)

    def _ok(self, value: bytes, metadata) -> None:
        with self.result.lock:
            self.result.acked[value] = (metadata.partition, metadata.offset)

    def _failed(self, exc) -> None:
        with self.result.lock:
            self.result.errors.append(repr(exc))

    def start(self) -> KafkaPythonStream:
        self.thread.start()
        return self

    def stop(self) -> Acks:
        self.stopping.set()
        self.thread.join(180)
        return self.result


def wait_for_progress(streams, minimum_new: int = 20, timeout_s: float = 60) -> float:
    """Wait until every stream has `minimum_new` more acknowledgements; the seconds it took."""
    started = time.monotonic()
    targets = [(s, s.result.count() + minimum_new) for s in streams]
    while True:
        if all(s.result.count() >= target for s, target in targets):
            return time.monotonic() - started
        if time.monotonic() - started > timeout_s:
            raise TimeoutError(f"no progress in {timeout_s} s: {[s.result.count() for s in streams]}")
        time.sleep(0.01)


def read_all(cluster, topic: str, group_id: str, expected: int, timeout_s: float = 120) -> dict[int, list[bytes]]:
    """Every record of `topic` through a group consumer from the start: partition -> values in order."""
    from confluent_kafka import Consumer
    consumer = Consumer({"bootstrap.servers": cluster.bootstrap_servers, "group.id": group_id,
                         "auto.offset.reset": "earliest", "enable.auto.commit": True,
                         "isolation.level": "read_committed"})
    consumer.subscribe([topic])
    values: dict[int, list[bytes]] = {}
    total = 0
    deadline = time.monotonic() + timeout_s
    idle_since = None
    try:
        while time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is None:
                if total >= expected:
                    idle_since = idle_since or time.monotonic()
                    if time.monotonic() - idle_since > 2:
                        break
                continue
            if message.error():
                continue
            idle_since = None
            values.setdefault(message.partition(), []).append(message.value())
            total += 1
    finally:
        consumer.close()
    return values
