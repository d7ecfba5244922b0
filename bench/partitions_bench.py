"""How Metadata, Fetch and a restart grow with the number of partitions: pylog beside Kafka.

    python -m bench.partitions_bench          (BENCH_QUICK=1: 10 and 100 partitions only)

For N = 10, 100, 1,000 and 10,000 partitions, on a fresh broker of each kind: one topic of
N partitions (10,000 as ten topics of 1,000), one 100-byte record in every partition (confluent-kafka, each record sent to
its partition), timed: until the last CreateTopics is answered (pylog answers once the
partitions' logs exist; Kafka once its controller has committed the topic, its broker
creating the logs as it learns of them), and until every record is acknowledged, what a
test that creates a topic and writes to it waits for. Then, on one plain TCP connection
(the request encoded before the clock starts, the response's bytes received whole, not
decoded):

- Metadata v12 of those topics, median of 20 round trips: what a client sends on every
  refresh. The goal line is issue 16's: 1,000 partitions answered in <= 20 ms;
- Fetch v12 of every partition from offset 0 (max_wait_ms 0, 1 MiB per partition), median
  of 10: a consumer's first fetch of a whole topic;
- pylog only: the stop (SIGTERM to the process's exit), and the restart, spawn to the first
  ApiVersions answer on the same data directory, after a clean stop and after kill -9
  (recovery from the checkpoints), and the stop after that restart.
  Kafka's launcher here formats a fresh directory for every start, so its restart is not
  timed. At 1,000 partitions, 20 more clean restarts follow: what each restart adds to the
  next one (the metadata log grows by two records per partition each time, and pylog,
  writing no metadata snapshots, replays all of it), as the first and last start and the
  slope of a line fitted through all of them.

Apache Kafka is the version of tests/compat/versions.properties with its own JVM flags
(bench/peers.py); a row whose broker could not be set up says why. Brokers run one at a
time, each on the broker core, the client on the other. The last line is the machine's speed
before and after (bench/peers.py `python_speed_ms`).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import statistics
import sys
import tempfile
import time
import uuid

if __package__ in (None, ""):  # `python bench/partitions_bench.py`
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import clients, peers  # noqa: E402
from protocol import framing, headers  # noqa: E402
from protocol.messages import FetchRequest, MetadataRequest, RequestHeader  # noqa: E402

QUICK = os.environ.get("BENCH_QUICK", "") not in ("", "0")
COUNTS = (10, 100) if QUICK else (10, 100, 1_000, 10_000)
METADATA_REPS, FETCH_REPS = (5, 3) if QUICK else (20, 10)
GOAL_METADATA_MS, GOAL_AT = 20.0, 1_000
KAFKA_SETUP_LIMIT_S = 180.0
TOPIC_PARTITIONS_MAX = 1_000
HISTORY_AT, HISTORY_RESTARTS = 1_000, (3 if QUICK else 20)
STOP_GRACE_S = 120.0


class Connection:
    """One blocking socket speaking Kafka's framing, for timing single round trips."""

    def __init__(self, port: int):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.correlation_id = 0

    def frame(self, api_key: int, version: int, body) -> bytes:
        self.correlation_id += 1
        header = RequestHeader(request_api_key=api_key, request_api_version=version,
                               correlation_id=self.correlation_id, client_id="partitions-bench")
        return framing.frame(headers.encode_request(header, body))

    def round_trip_ms(self, frame: bytes) -> tuple[float, bytes]:
        started = time.perf_counter()
        self.sock.sendall(frame)
        size = int.from_bytes(self._recv(4), "big")
        payload = self._recv(size)
        return (time.perf_counter() - started) * 1000, payload

    def _recv(self, n: int) -> bytes:
        parts, got = [], 0
        while got < n:
            chunk = self.sock.recv(min(n - got, 1 << 20))
            if not chunk:
                raise ConnectionError("the broker closed the connection")
            parts.append(chunk)
            got += len(chunk)
        return b"".join(parts)

    def close(self) -> None:
        self.sock.close()


def _topics(partitions: int) -> list[tuple[str, int]]:
    """(name, partitions): one topic up to 1,000 partitions, else topics of 1,000 (a controller
    refuses a CreateTopics of over 10,000 records at once, Kafka's and pylog's alike)."""
    per_topic = min(partitions, TOPIC_PARTITIONS_MAX)
    return [(f"p{partitions}-{i}", per_topic) for i in range(partitions // per_topic)]


def _fill(bootstrap: str, topics: list[tuple[str, int]], deadline: float) -> tuple[float, float]:
    """Create the topics and put one record in each partition; the ms until the last
    CreateTopics was answered, and until every record was acknowledged (from the first
    CreateTopics sent, both)."""
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient(clients._confluent_base(bootstrap))
    admin.list_topics(timeout=10)   # connected before the clock starts
    producer = Producer({**clients._confluent_base(bootstrap), "linger.ms": 5, "acks": "all"})
    producer.list_topics(timeout=10)
    started = time.perf_counter()
    for topic, partitions in topics:
        admin.create_topics([NewTopic(topic, partitions, 1)])[topic].result(timeout=max(deadline - time.time(), 1))
    created_ms = (time.perf_counter() - started) * 1000
    value = bytes(100)
    for topic, partitions in topics:
        for partition in range(partitions):
            while True:
                try:
                    producer.produce(topic, value, partition=partition)
                    break
                except BufferError:
                    producer.poll(0.05)
            if time.time() > deadline:
                raise TimeoutError(f"setting up took over {KAFKA_SETUP_LIMIT_S:.0f} s")
    if producer.flush(max(deadline - time.time(), 1)):
        raise TimeoutError("records still unacknowledged")
    return created_ms, (time.perf_counter() - started) * 1000


def _timings(port: int, topics: list[tuple[str, int]]) -> dict[str, float]:
    conn = Connection(port)
    try:
        metadata = conn.frame(3, 12, MetadataRequest(
            topics=[MetadataRequest.MetadataRequestTopic(topic_id=uuid.UUID(int=0), name=topic) for topic, _ in topics],
            allow_auto_topic_creation=False, include_topic_authorized_operations=False))
        fetch = conn.frame(1, 12, FetchRequest(
            replica_id=-1, max_wait_ms=0, min_bytes=1, max_bytes=64 << 20, isolation_level=0, session_id=0,
            session_epoch=-1, topics=[FetchRequest.FetchTopic(topic=topic, partitions=[
                FetchRequest.FetchPartition(partition=p, current_leader_epoch=-1, fetch_offset=0, last_fetched_epoch=-1,
                                            log_start_offset=-1, partition_max_bytes=1 << 20)
                for p in range(partitions)]) for topic, partitions in topics],
            forgotten_topics_data=[], rack_id=""))
        conn.round_trip_ms(metadata)   # warm: the first answer of a connection
        metadata_runs = [conn.round_trip_ms(metadata) for _ in range(METADATA_REPS)]
        conn.round_trip_ms(fetch)
        fetch_runs = [conn.round_trip_ms(fetch) for _ in range(FETCH_REPS)]
    finally:
        conn.close()
    _, answer = headers.decode_response(3, 12, metadata_runs[-1][1])
    return {
        "metadata_ms": statistics.median(ms for ms, _ in metadata_runs),
        "metadata_bytes": len(metadata_runs[-1][1]),
        "metadata_partitions": sum(len(t.partitions) for t in answer.topics if t.error_code == 0),
        "fetch_ms": statistics.median(ms for ms, _ in fetch_runs),
        "fetch_bytes": len(fetch_runs[-1][1]),
    }


def _pylog_start(data_dir: str, cpus):
    # a stop of 10,000 partitions takes seconds: the clean restarts must follow clean stops
    return peers.start_pylog_serve(cpus, timeout=120, data_dir=data_dir, stop_grace_s=STOP_GRACE_S)


def _measure(name: str, partitions: int, cpus) -> str:
    topics = _topics(partitions)
    deadline = time.time() + KAFKA_SETUP_LIMIT_S
    data_dir = tempfile.mkdtemp(prefix="bench-partitions-") if name == "pylog" else None
    try:
        try:
            handle = peers.start_kafka(cpus) if name == "kafka" else _pylog_start(data_dir, cpus)
        except Exception as exc:
            return f"{name}: did not start: {exc}"
        restart = ""
        try:
            try:
                created_ms, filled_ms = _fill(handle.bootstrap, topics, deadline)
            except Exception as exc:
                return (f"{name}: could not set up {partitions} partitions: {type(exc).__name__}: {str(exc)[:160]}"
                        f"{_descriptors(handle.pid)}")
            t = _timings(handle.port, topics)
        finally:
            handle.close()
        if name == "pylog":
            clean = _pylog_start(data_dir, cpus)   # after the clean stop above
            clean_ms = clean.spawn["ApiVersions answered"]
            os.kill(clean.pid, signal.SIGKILL)
            clean.close()
            crashed = _pylog_start(data_dir, cpus)
            crash_ms = crashed.spawn["ApiVersions answered"]
            crashed.close()
            restart = (f"; stop {handle.stop_ms:.0f} ms (SIGTERM to exit); restart {clean_ms:.0f} ms clean, "
                       f"{crash_ms:.0f} ms after kill -9, then stop {crashed.stop_ms:.0f} ms")
            if partitions == HISTORY_AT:
                restart += _history(data_dir, cpus)
    finally:
        if data_dir is not None:
            shutil.rmtree(data_dir, ignore_errors=True)
    goal = ""
    if partitions == GOAL_AT and name == "pylog":
        goal = (f" (goal <= {GOAL_METADATA_MS:.0f} ms: "
                f"{'met' if t['metadata_ms'] <= GOAL_METADATA_MS else 'NOT met'})")
    return (f"{name}: created in {created_ms:.0f} ms (CreateTopics answered), a record in every partition "
            f"{filled_ms:.0f} ms after the first CreateTopics; "
            f"Metadata {t['metadata_ms']:.1f} ms ({t['metadata_bytes']:,} B, "
            f"{t['metadata_partitions']:,} partitions listed){goal}, "
            f"Fetch {t['fetch_ms']:.1f} ms ({t['fetch_bytes']:,} B){restart}")


def _history(data_dir: str, cpus) -> str:
    """Clean restarts one after another on the same directory: each appends two records per
    partition to the metadata log (leader none at the controlled shutdown, this broker again
    at its unfencing, as Kafka's controller writes them), which the next start replays."""
    starts_ms = []
    for _ in range(HISTORY_RESTARTS):
        handle = _pylog_start(data_dir, cpus)
        starts_ms.append(handle.spawn["ApiVersions answered"])
        handle.close()
    metadata_dir = os.path.join(data_dir, "__cluster_metadata-0")
    log_bytes = sum(entry.stat().st_size for entry in os.scandir(metadata_dir) if entry.name.endswith(".log"))
    slope, _ = statistics.linear_regression(range(len(starts_ms)), starts_ms)
    return (f"; {HISTORY_RESTARTS} more clean restarts: the first {starts_ms[0]:.0f} ms, the last "
            f"{starts_ms[-1]:.0f} ms, {slope:+.1f} ms per restart (metadata log now {log_bytes / 1e6:.1f} MB)")


def _descriptors(pid: int | None) -> str:
    """The broker's open files against its limit: pylog holds one per partition (the active
    segment's .log) while the partition's indexes are not mapped, as with one record each
    here, and before Python 3.13 three once they are (Python's mmap keeps a descriptor per
    map; storage/index.py, "Mapping" and "Descriptors")."""
    try:
        count = len(os.listdir(f"/proc/{pid}/fd"))
        with open(f"/proc/{pid}/limits") as limits:
            limit = next(line.split()[3] for line in limits if line.startswith("Max open files"))
    except (OSError, StopIteration, IndexError, TypeError):
        return ""
    return f" (the broker holds {count:,} open files, its limit is {int(limit):,})"


def run() -> list[str]:
    broker_cpus, client_cpus = peers.pinning()
    peers.pin(os.getpid(), client_cpus)
    speed_ms = peers.python_speed_ms()
    lines = ["partitions bench: one topic of N partitions, one 100 B record each; round trips on one "
             "connection (Metadata median of %d, Fetch of every partition median of %d)" % (METADATA_REPS, FETCH_REPS)]
    for partitions in COUNTS:
        lines.append(f"{partitions} partitions")
        for name in ("pylog", "kafka"):
            lines.append("  " + _measure(name, partitions, broker_cpus))
    lines.append(peers.speed_line(speed_ms))
    return lines


if __name__ == "__main__":
    print("\n".join(run()))
