"""A replicated pylog cluster against a single pylog broker and a reference Kafka cluster,
in one run.

    python -m bench.cluster_bench          (or: python -m bench cluster)
    BENCH_QUICK=1 python -m bench.cluster_bench   (a smoke run: tiny counts, 2 kills; not a figure)

Systems, all on 127.0.0.1 of this machine:
- "pylog-3": `pylog.Cluster(brokers=3)`: one controller process and three broker processes,
  broker defaults `min.insync.replicas=2`, `default.replication.factor=3`; its topics are
  created with replication factor 3 and `min.insync.replicas=2`;
- "pylog-1": one `pylog serve` process (broker and controller in one), topics of
  replication factor 1 (`bench.peers.start_pylog_serve`);
- "kafka-3": the reference Kafka (tests/compat/versions.properties) as three combined KRaft
  nodes, all three voters (`tests.compat.reference.KafkaCluster`, `-Xmx512m` each), topics
  of replication factor 3 and `min.insync.replicas=2`; when Java or the resolved jars
  (tests/compat/kafka/target/lib) are missing, a line says so and pylog is still measured.

Each system first takes a produce run that is not counted (WARMUP_COUNT records of 100 B,
acks=all): connections, the topic path, and for Kafka its JIT compiler.

Rows:
- produce throughput with confluent-kafka (librdkafka; the Python client would be the limit
  otherwise), 100 B and 1 KiB records, acks=1 and acks=all, linger.ms 5, batch.size ~1 MiB,
  one partition; timed from the first produce() to the end of flush(), every delivery report
  in. The same line gives p50/p99 of the records' delivery latency in that run
  (`Message.latency()`: from produce() to the delivery report, so it includes the time a
  record queued in the client behind the others: latency under load);
- produce latency one record at a time (linger.ms 0, flush after each): p50/p99 of the
  request round trip as the client sees it, acks=1 and acks=all;
- failover (clusters only): a producer (acks=all, retries with backoff 10..100 ms) sends a
  record every 10 ms; the partition's leader is sent SIGKILL, and the time from the signal to
  the first delivery report of success for a record produced after it is taken. The killed
  node is then restarted and the next kill waits until the ISR has all three replicas again.
  Median and max over KILLS kills. Beside it, two figures without the client library's
  timers (librdkafka's figure here steps by whole seconds, 2.0 s or 3.0 s, as if it looked
  for the new leader on a periodic 1 s timer): a probe thread (`FailoverProbe`) asks every node's Metadata every 10 ms
  from the kill on; "new leader in Metadata" is its first answer naming another leader
  (fencing, election, metadata propagation), "raw Produce" the first acks=-1 Produce it then
  sent straight to that leader and had acknowledged (the new leader's high watermark passed
  the record, so a follower fetched from it). The session timeouts are each system's
  default (pylog's `broker.session.timeout.ms`, read from pylog's config keys; Kafka's
  9000 ms) and printed;
  pylog's goal is a failover under 2 s (MET / NOT MET).

Ratios are pylog-3 to pylog-1 (the cost of replication) and pylog-3 to kafka-3. The machine
has 2 cores that the brokers, the controller(s) and the client share (no pinning: four or
three server processes cannot be kept apart on two cores), and other work may run on it:
the figures are of one run on a shared machine. Every loop is bounded by a record count and
a time limit; every process and directory started here is stopped and removed on exit.
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

if __package__ in (None, ""):  # `python bench/cluster_bench.py`
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import clients, peers  # noqa: E402
from bench.broker_bench import _cpu_snapshot  # noqa: E402

QUICK = os.environ.get("BENCH_QUICK", "") not in ("", "0")
COUNTS = {100: 5_000, 1024: 2_000} if QUICK else {100: 200_000, 1024: 50_000}
LATENCY_COUNT = 100 if QUICK else 1_000
WARMUP_COUNT = 1_000 if QUICK else 20_000
KILLS = 2 if QUICK else 5
PRODUCE_LIMIT_S = 60.0
FAILOVER_LIMIT_S = 60.0
FAILOVER_GOAL_MS = 2000.0
KAFKA_SESSION_TIMEOUT_MS = 9000
REPLICAS = 3
MIN_INSYNC = 2
PARTITION = 0


# ---------------------------------------------------------------------------------------------
# the systems


class System:
    """A running system under test: its bootstrap list, and for a cluster its faults."""

    def __init__(self, name: str, bootstrap: str, replicas: int, close, kill=None, restart=None,
                 session_timeout_ms: int | None = None):
        self.name = name
        self.bootstrap = bootstrap
        self.replicas = replicas
        self.close = close
        self.kill = kill
        self.restart = restart
        self.session_timeout_ms = session_timeout_ms


def pylog_session_timeout_ms() -> int:
    from pylog.config_keys import CONFIG_KEYS

    return CONFIG_KEYS["broker.session.timeout.ms"].default


def start_pylog_cluster() -> System:
    from pylog.cluster import Cluster

    cluster = Cluster(brokers=REPLICAS, config={"min.insync.replicas": MIN_INSYNC,
                                               "default.replication.factor": REPLICAS})
    cluster.start()
    return System("pylog-3", cluster.bootstrap_servers, REPLICAS, cluster.close, cluster.kill, cluster.restart,
                  pylog_session_timeout_ms())


def start_pylog_single() -> System:
    handle = peers.start_pylog_serve()
    return System("pylog-1", handle.bootstrap, 1, handle.close)


def start_kafka_cluster() -> System:
    reference = peers.compat_reference()
    tmp = tempfile.mkdtemp(prefix="bench-kafka-cluster-")
    cluster = reference.KafkaCluster(Path(tmp) / "kafka", REPLICAS, config={"min.insync.replicas": MIN_INSYNC})
    try:
        cluster.start()
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise

    def close() -> None:
        try:
            cluster.close()
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    return System("kafka-3", cluster.bootstrap_servers, REPLICAS, close, cluster.kill, cluster.restart,
                  KAFKA_SESSION_TIMEOUT_MS)


# ---------------------------------------------------------------------------------------------
# client work


def create_topic(system: System, topic: str) -> None:
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({**clients._confluent_base(system.bootstrap)})
    config = {"min.insync.replicas": str(MIN_INSYNC)} if system.replicas > 1 else {}
    future = admin.create_topics([NewTopic(topic, 1, system.replicas, config=config)])[topic]
    future.result(30)
    wait_isr(system, topic, system.replicas, 30)


def partition_metadata(system: System, topic: str):
    """(leader, isr) of the topic's partition 0 from a fresh Metadata request, or None."""
    from confluent_kafka.admin import AdminClient

    admin = AdminClient({**clients._confluent_base(system.bootstrap)})
    try:
        found = admin.list_topics(topic, timeout=5).topics.get(topic)
    except Exception:
        return None
    if found is None or found.error is not None or PARTITION not in found.partitions:
        return None
    p = found.partitions[PARTITION]
    return p.leader, list(p.isrs)


def wait_isr(system: System, topic: str, size: int, timeout_s: float) -> int:
    """Wait until partition 0 has a leader and `size` replicas in sync; return the leader."""
    deadline = time.monotonic() + timeout_s
    while True:
        state = partition_metadata(system, topic)
        if state is not None and state[0] >= 0 and len(state[1]) >= size:
            return state[0]
        if time.monotonic() > deadline:
            raise TimeoutError(f"{system.name}: {topic}-0 not at {size} in-sync replicas after {timeout_s:.0f} s "
                               f"(last seen leader, isr: {state})")
        time.sleep(0.1)


def _producer(bootstrap: str, acks: str, **extra):
    from confluent_kafka import Producer

    conf = clients._confluent_base(bootstrap)
    conf.update({"acks": acks, **extra})
    return Producer(conf)


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def produce_run(bootstrap: str, topic: str, count: int, size: int, acks: str) -> dict:
    """Throughput run; returns {"rate", "mb_s", "p50_ms", "p99_ms", "error"}."""
    latencies: list[float] = []
    errors: list[str] = []

    def on_delivery(err, msg) -> None:
        if err is not None:
            errors.append(str(err))
        else:
            latencies.append(msg.latency())

    producer = _producer(bootstrap, acks, **{
        "linger.ms": 5, "batch.size": 1_000_000,
        "queue.buffering.max.messages": max(count, 100_000), "queue.buffering.max.kbytes": 524_288,
        "message.timeout.ms": int(PRODUCE_LIMIT_S * 1000)})
    producer.list_topics(topic, timeout=5)  # connected, metadata known, before the clock starts
    value = clients._payload(size)
    started = time.perf_counter()
    deadline = started + PRODUCE_LIMIT_S
    sent = 0
    while sent < count:
        try:
            producer.produce(topic, value, partition=PARTITION, on_delivery=on_delivery)
            sent += 1
        except BufferError:
            producer.poll(0.001)
            if time.perf_counter() > deadline:
                break
    remaining = producer.flush(max(deadline - time.perf_counter(), 0.1))
    seconds = time.perf_counter() - started
    error = None
    if errors:
        error = f"{len(errors)} delivery errors, first: {errors[0]}"
    elif remaining or sent < count:
        error = f"{count - len(latencies)} of {count} records undelivered at the {PRODUCE_LIMIT_S:.0f} s limit"
    delivered = len(latencies)
    return {"rate": delivered / seconds, "mb_s": delivered * size / clients.MB / seconds,
            "p50_ms": _percentile(latencies, 0.5) * 1000 if latencies else None,
            "p99_ms": _percentile(latencies, 0.99) * 1000 if latencies else None, "error": error}


def latency_run(bootstrap: str, topic: str, count: int, acks: str) -> dict:
    """One 100 B record at a time, flushed: {"p50_ms", "p99_ms", "error"}."""
    latencies: list[float] = []
    errors: list[str] = []

    def on_delivery(err, msg) -> None:
        if err is not None:
            errors.append(str(err))
        else:
            latencies.append(msg.latency())

    producer = _producer(bootstrap, acks, **{"linger.ms": 0, "message.timeout.ms": 10_000})
    producer.list_topics(topic, timeout=5)
    value = clients._payload(100)
    deadline = time.perf_counter() + PRODUCE_LIMIT_S
    for _ in range(count):
        producer.produce(topic, value, partition=PARTITION, on_delivery=on_delivery)
        producer.flush(10)
        if time.perf_counter() > deadline:
            break
    error = f"{len(errors)} delivery errors, first: {errors[0]}" if errors else None
    return {"p50_ms": _percentile(latencies, 0.5) * 1000 if latencies else None,
            "p99_ms": _percentile(latencies, 0.99) * 1000 if latencies else None, "error": error}


class FailoverProbe:
    """A thread that, from the kill on, asks Metadata of every node (the dead one refuses at
    once) every 10 ms, and once a node names a leader other than `old_leader`, sends that
    leader one raw Produce (acks=-1, one 100 B record) on a connection of its own; again on
    an error. It records when the new leader first showed in Metadata and when the first
    raw Produce was acknowledged: the cluster's failover without a client library's
    retry and refresh timers."""

    def __init__(self, system: System, topic: str, old_leader: int):
        self.addresses = system.bootstrap.split(",")
        self.topic, self.old_leader = topic, old_leader
        self.started = 0.0
        self.seen_ms: float | None = None
        self.produced_ms: float | None = None
        self.errors: list[int] = []
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self._probe, daemon=True)

    def start(self, started: float) -> None:
        self.started = started
        self.thread.start()

    def _new_leader_address(self) -> str | None:
        wire = _wire_client()
        for address in self.addresses:
            try:
                with wire(address, timeout_s=1) as client:
                    metadata = client.metadata([self.topic])
            except (OSError, ConnectionError):
                continue
            brokers = {b.node_id: f"{b.host}:{b.port}" for b in metadata.brokers}
            for found in metadata.topics:
                for p in found.partitions:
                    if p.partition_index == PARTITION and p.leader_id >= 0 and p.leader_id != self.old_leader:
                        return brokers.get(p.leader_id)
        return None

    def _probe(self) -> None:
        from protocol.records import build_batch

        wire = _wire_client()
        while not self.stop_event.is_set() and time.perf_counter() < self.started + FAILOVER_LIMIT_S:
            leader = self._new_leader_address()
            if leader is not None:
                if self.seen_ms is None:
                    self.seen_ms = (time.perf_counter() - self.started) * 1000
                batch = build_batch([(b"probe", b"p" * 100)], timestamp_ms=int(time.time() * 1000))
                try:
                    with wire(leader, timeout_s=FAILOVER_LIMIT_S) as client:
                        response = client.produce(self.topic, PARTITION, batch, acks=-1)
                except (OSError, ConnectionError):
                    response = None
                if response is not None and response.error_code == 0:
                    self.produced_ms = (time.perf_counter() - self.started) * 1000
                    return
                if response is not None:
                    self.errors.append(response.error_code)
            self.stop_event.wait(0.01)

    def join(self) -> tuple[float | None, float | None]:
        self.thread.join(FAILOVER_LIMIT_S + 5)
        return self.seen_ms, self.produced_ms


def _wire_client():
    peers.compat_reference()  # the repository root on sys.path
    from tests.integration.support import WireClient

    return WireClient


def failover_once(system: System, topic: str) -> dict:
    """Kill the leader of `topic`-0 and measure, in ms from the SIGKILL: "client", the first
    acks=all delivery report of success to the confluent-kafka producer for a record produced
    after the kill; "metadata", the new leader in a node's Metadata; "raw", the first raw
    acks=-1 Produce to it acknowledged (FailoverProbe); and "killed", "leader" (the new one).
    Restarts the killed node and waits for a full ISR before returning."""
    leader = wait_isr(system, topic, system.replicas, FAILOVER_LIMIT_S)
    successes: list[float] = []  # perf_counter of deliveries of records produced after the kill
    errors: list[str] = []

    def on_delivery(err, msg) -> None:
        if err is not None:
            errors.append(str(err))
        elif msg.key() == b"after":
            successes.append(time.perf_counter())

    producer = _producer(system.bootstrap, "all", **{
        "linger.ms": 0, "message.timeout.ms": int(FAILOVER_LIMIT_S * 1000), "request.timeout.ms": 30_000,
        "retry.backoff.ms": 10, "retry.backoff.max.ms": 100,
        "reconnect.backoff.ms": 10, "reconnect.backoff.max.ms": 100,
        "topic.metadata.refresh.fast.interval.ms": 10})
    producer.produce(topic, b"before", key=b"before", partition=PARTITION, on_delivery=on_delivery)
    if producer.flush(10) or errors:
        raise RuntimeError(f"{system.name}: warm-up produce failed: {errors or 'no delivery report'}")
    probe = FailoverProbe(system, topic, leader)
    killed_at = time.perf_counter()
    probe.start(killed_at)
    system.kill(leader)
    deadline = killed_at + FAILOVER_LIMIT_S
    while not successes and time.perf_counter() < deadline:
        producer.produce(topic, b"x" * 100, key=b"after", partition=PARTITION, on_delivery=on_delivery)
        producer.poll(0.01)
    failover_ms = (successes[0] - killed_at) * 1000 if successes else float("inf")
    seen_ms, raw_ms = probe.join()
    producer.flush(FAILOVER_LIMIT_S)
    state = partition_metadata(system, topic)
    new_leader = state[0] if state else -1
    system.restart(leader)
    wait_isr(system, topic, system.replicas, FAILOVER_LIMIT_S)
    return {"client": failover_ms, "metadata": seen_ms, "raw": raw_ms, "killed": leader, "leader": new_leader}


# ---------------------------------------------------------------------------------------------
# formatting


def _k(rate: float) -> str:
    return f"{rate / 1000:.1f}k/s" if rate >= 1000 else f"{rate:.0f}/s"


def _ms(value: float | None) -> str:
    if value is None:
        return "n/a"
    if value == float("inf"):
        return "none"
    return f"{value:.1f} ms" if value < 1000 else f"{value / 1000:.2f} s"


def _ratio(a: float | None, b: float | None) -> str:
    if not a or not b or a == float("inf") or b == float("inf"):
        return "n/a"
    return f"{a / b:.2f}"


def _short(text: object, width: int = 120) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[:width - 3] + "..."


def _cell(result: dict | str | None) -> str:
    if result is None:
        return "not run"
    if isinstance(result, str):
        return f"failed: {_short(result, 80)}"
    parts = []
    if "rate" in result:
        parts.append(f"{_k(result['rate'])} {result['mb_s']:.1f} MB/s")
    parts.append(f"p50 {_ms(result['p50_ms'])} p99 {_ms(result['p99_ms'])}")
    if result.get("error"):
        parts.append(f"({_short(result['error'], 60)})")
    return " ".join(parts)


def _value(result: dict | str | None, key: str) -> float | None:
    return result.get(key) if isinstance(result, dict) else None


# ---------------------------------------------------------------------------------------------


def measure(system: System, results: dict, failovers: dict, lines: list[str]) -> None:
    """Every row against one system; a failure becomes the cell's text."""
    try:  # a first run, not counted: connections, the topic path, and the JVM's JIT for Kafka
        create_topic(system, "warm-up")
        produce_run(system.bootstrap, "warm-up", WARMUP_COUNT, 100, "all")
    except Exception as exc:
        lines.append(f"{system.name}: warm-up failed: {_short(exc, 200)}")
    for size in COUNTS:
        for acks in ("1", "all"):
            topic = f"p{size}-acks{acks}"
            try:
                create_topic(system, topic)
                results[(f"produce {size}B acks={acks}", system.name)] = produce_run(
                    system.bootstrap, topic, COUNTS[size], size, acks)
            except Exception as exc:
                results[(f"produce {size}B acks={acks}", system.name)] = f"{type(exc).__name__}: {exc}"
    for acks in ("1", "all"):
        topic = f"lat-acks{acks}"
        try:
            create_topic(system, topic)
            results[(f"latency 1 record acks={acks}", system.name)] = latency_run(
                system.bootstrap, topic, LATENCY_COUNT, acks)
        except Exception as exc:
            results[(f"latency 1 record acks={acks}", system.name)] = f"{type(exc).__name__}: {exc}"
    if system.kill is None:
        return
    kills: list[dict] = []
    failovers[system.name] = kills
    try:
        create_topic(system, "failover")
        for _ in range(KILLS):
            kills.append(failover_once(system, "failover"))
            if os.environ.get("BENCH_VERBOSE"):
                k = kills[-1]
                print(f"  {system.name}: killed {k['killed']}, new leader {k['leader']}: client {_ms(k['client'])}, "
                      f"in Metadata {_ms(k['metadata'])}, raw Produce {_ms(k['raw'])}", file=sys.stderr, flush=True)
    except Exception as exc:
        lines.append(f"failover {system.name}: stopped after {len(kills)} kills: {_short(exc, 200)}")


def run() -> list[str]:
    lines = [f"cluster bench: {REPLICAS}-broker clusters, replication factor {REPLICAS}, min.insync.replicas "
             f"{MIN_INSYNC}, against one pylog broker (RF 1); confluent-kafka; 2 shared cores, no pinning; "
             f"one run on a shared machine{' (QUICK: smoke counts, not a figure)' if QUICK else ''}"]
    results: dict[tuple[str, str], dict | str] = {}
    failovers: dict[str, list[dict]] = {}
    session: dict[str, int] = {}
    names = ["pylog-3", "pylog-1"]
    unavailable = peers.kafka_unavailable()
    starters = [start_pylog_cluster, start_pylog_single]
    if unavailable is None:
        names.append("kafka-3")
        starters.append(start_kafka_cluster)
    else:
        lines.append(f"kafka-3: the reference Kafka cluster is not measured: {_short(unavailable, 200)}")
    noise: list[str] = []
    for name, starter in zip(names, starters):
        snapshot = _cpu_snapshot()
        try:
            system = starter()
        except Exception as exc:
            lines.append(f"{name}: did not start: {_short(exc, 200)}")
            continue
        try:
            session[name] = system.session_timeout_ms
            measure(system, results, failovers, lines)
        finally:
            system.close()
        noise.append(_others_cpu(name, snapshot))

    rows = [f"produce {size}B acks={acks}" for size in COUNTS for acks in ("1", "all")]
    rows += [f"latency 1 record acks={acks}" for acks in ("1", "all")]
    for row in rows:
        cells = " | ".join(f"{name} {_cell(results.get((row, name)))}" for name in names)
        key = "rate" if row.startswith("produce") else "p50_ms"
        mine = _value(results.get((row, "pylog-3")), key)
        ratios = [f"pylog-3/pylog-1 {_ratio(mine, _value(results.get((row, 'pylog-1')), key))}"]
        if "kafka-3" in names:
            ratios.append(f"pylog-3/kafka-3 {_ratio(mine, _value(results.get((row, 'kafka-3')), key))}")
        what = "throughput" if key == "rate" else "p50 latency"
        count = f"{COUNTS[int(row.split()[1][:-1])] // 1000}k records" if key == "rate" else f"{LATENCY_COUNT} records"
        lines.append(f"{row} ({count}): {cells}; {what} ratio {', '.join(ratios)}")

    medians: dict[str, dict[str, float]] = {}
    for name in [n for n in names if n != "pylog-1"]:
        kills = failovers.get(name) or []
        timeout = session.get(name)
        timeout_text = f"broker.session.timeout.ms {timeout} (default)" if timeout else ""
        if not kills:
            lines.append(f"failover {name}: no kill measured; {timeout_text}")
            continue
        parts = []
        for what, label in (("client", "confluent-kafka producer (acks=all)"),
                            ("raw", "raw Produce (acks=-1)"), ("metadata", "new leader in Metadata")):
            values = [k[what] if k[what] is not None else float("inf") for k in kills]
            medians.setdefault(name, {})[what] = statistics.median(values)
            verdict = ""
            if name == "pylog-3" and what != "metadata":
                verdict = f" -> goal max < {FAILOVER_GOAL_MS / 1000:.0f} s " \
                          f"{'MET' if max(values) < FAILOVER_GOAL_MS else 'NOT MET'}"
            parts.append(f"{label} median {_ms(statistics.median(values))} max {_ms(max(values))}{verdict}")
        lines.append(f"failover {name} ({len(kills)} SIGKILLs of the leader, {timeout_text}): " + "; ".join(parts))
    if "pylog-3" in medians and "kafka-3" in medians:
        ratios = ", ".join(f"{what} {_ratio(medians['pylog-3'][what], medians['kafka-3'][what])}"
                           for what in ("client", "raw", "metadata"))
        lines.append(f"failover median ratio pylog-3/kafka-3 (each with its default session timeout): {ratios}")
    lines.append(f"machine noise: CPU other processes used while each system ran (of {os.cpu_count()} CPU-s a "
                 "second; more than a few means its figures moved more than usual): " + ", ".join(noise))
    return lines


def _others_cpu(name: str, start) -> str:
    """CPU seconds the rest of the machine used since `start` (this process and its children,
    the systems under test, are waited for by now and so left out), for `name`'s span."""
    end = _cpu_snapshot()
    if start is None or end is None:
        return f"{name} n/a"
    others = (end[1] - start[1]) - (end[3] - start[3])
    return f"{name} {max(others, 0):.0f} CPU-s in {end[0] - start[0]:.0f} s"


if __name__ == "__main__":
    for line in run():
        print(line, flush=True)
