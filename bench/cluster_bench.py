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
  Median and max over KILLS kills. Beside it, when the new leader became visible: a thread
  asks a surviving node's Metadata every 20 ms from the kill on; the time to the first
  answer naming another leader splits the failover into the cluster's part (fencing,
  election, metadata propagation) and the client's (its metadata refresh and retry backoff,
  and the new leader's high watermark passing the record). The session timeouts are each system's default (pylog's
  `broker.session.timeout.ms`, read from pylog's config keys; Kafka's 9000 ms) and printed;
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


def kafka_unavailable() -> str | None:
    """Why the reference Kafka cannot run here, or None."""
    if shutil.which("java") is None:
        return "no java on PATH"
    reference = peers.compat_reference()
    try:
        reference.classpath()
    except RuntimeError as exc:
        return str(exc)
    return None


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


class LeaderWatch:
    """A thread asking a surviving node's Metadata every 20 ms until `topic`-0 names a leader
    other than `old_leader`: when the new leader became visible to clients."""

    def __init__(self, system: System, topic: str, old_leader: int, started: float):
        from confluent_kafka.admin import AdminClient

        self.admin = AdminClient({**clients._confluent_base(system.bootstrap)})
        self.admin.list_topics(topic, timeout=5)  # connected before the kill
        self.topic, self.old_leader, self.started = topic, old_leader, started
        self.seen_ms: float | None = None
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        while not self.stop_event.is_set():
            try:
                found = self.admin.list_topics(self.topic, timeout=1).topics.get(self.topic)
                leader = found.partitions[PARTITION].leader if found and found.partitions else -1
            except Exception:
                leader = -1
            if leader >= 0 and leader != self.old_leader:
                self.seen_ms = (time.perf_counter() - self.started) * 1000
                return
            self.stop_event.wait(0.02)

    def stop(self) -> float | None:
        self.stop_event.set()
        self.thread.join(5)
        return self.seen_ms


def failover_once(system: System, topic: str) -> tuple[float, float | None, int, int]:
    """Kill the leader of `topic`-0; (ms from the SIGKILL to the first acks=all success after it,
    ms to the new leader in Metadata, killed node, new leader). Restarts the killed node and
    waits for a full ISR before returning."""
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
    killed_at = time.perf_counter()
    watch = LeaderWatch(system, topic, leader, killed_at)
    killed_at = watch.started = time.perf_counter()
    watch.thread.start()
    system.kill(leader)
    deadline = killed_at + FAILOVER_LIMIT_S
    while not successes and time.perf_counter() < deadline:
        producer.produce(topic, b"x" * 100, key=b"after", partition=PARTITION, on_delivery=on_delivery)
        producer.poll(0.01)
    failover_ms = (successes[0] - killed_at) * 1000 if successes else float("inf")
    if watch.seen_ms is None:
        watch.stop_event.wait(1.0)  # the watch may be a poll behind the producer
    elected_ms = watch.stop()
    producer.flush(FAILOVER_LIMIT_S)
    state = partition_metadata(system, topic)
    new_leader = state[0] if state else -1
    system.restart(leader)
    wait_isr(system, topic, system.replicas, FAILOVER_LIMIT_S)
    return failover_ms, elected_ms, leader, new_leader


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


def measure(system: System, results: dict, failovers: dict, elected: dict, lines: list[str]) -> None:
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
    times: list[float] = []
    elections: list[float] = []
    failovers[system.name] = times
    elected[system.name] = elections
    try:
        create_topic(system, "failover")
        for _ in range(KILLS):
            failover_ms, elected_ms, killed, new_leader = failover_once(system, "failover")
            times.append(failover_ms)
            if elected_ms is not None:
                elections.append(elected_ms)
            if os.environ.get("BENCH_VERBOSE"):
                print(f"  {system.name}: killed {killed}, new leader {new_leader}: {_ms(failover_ms)} "
                      f"(in Metadata after {_ms(elected_ms)})", file=sys.stderr, flush=True)
    except Exception as exc:
        lines.append(f"failover {system.name}: stopped after {len(times)} kills: {_short(exc, 200)}")


def run() -> list[str]:
    lines = [f"cluster bench: {REPLICAS}-broker clusters, replication factor {REPLICAS}, min.insync.replicas "
             f"{MIN_INSYNC}, against one pylog broker (RF 1); confluent-kafka; 2 shared cores, no pinning; "
             f"one run on a shared machine{' (QUICK: smoke counts, not a figure)' if QUICK else ''}"]
    results: dict[tuple[str, str], dict | str] = {}
    failovers: dict[str, list[float]] = {}
    elected: dict[str, list[float]] = {}
    session: dict[str, int] = {}
    names = ["pylog-3", "pylog-1"]
    unavailable = kafka_unavailable()
    starters = [start_pylog_cluster, start_pylog_single]
    if unavailable is None:
        names.append("kafka-3")
        starters.append(start_kafka_cluster)
    else:
        lines.append(f"kafka-3: the reference Kafka cluster is not measured: {_short(unavailable, 200)}")
    for name, starter in zip(names, starters):
        try:
            system = starter()
        except Exception as exc:
            lines.append(f"{name}: did not start: {_short(exc, 200)}")
            continue
        try:
            session[name] = system.session_timeout_ms
            measure(system, results, failovers, elected, lines)
        finally:
            system.close()

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

    for name in [n for n in names if n != "pylog-1"]:
        times = failovers.get(name)
        timeout = session.get(name)
        timeout_text = f"broker.session.timeout.ms {timeout} (default)" if timeout else ""
        if not times:
            lines.append(f"failover {name}: no kill measured; {timeout_text}")
            continue
        median, worst = statistics.median(times), max(times)
        verdict = ""
        if name == "pylog-3":
            verdict = f"; goal max < {FAILOVER_GOAL_MS / 1000:.0f} s: {'MET' if worst < FAILOVER_GOAL_MS else 'NOT MET'}"
        elections = elected.get(name) or []
        seen = (f"; new leader in Metadata after median {_ms(statistics.median(elections))}, "
                f"max {_ms(max(elections))}" if elections else "")
        lines.append(f"failover {name} (SIGKILL of the leader to the first acks=all success, {len(times)} kills): "
                     f"median {_ms(median)}, max {_ms(worst)}{seen}; {timeout_text}{verdict}")
    if "pylog-3" in failovers and "kafka-3" in failovers and failovers["pylog-3"] and failovers["kafka-3"]:
        lines.append(f"failover median ratio pylog-3/kafka-3 "
                     f"{_ratio(statistics.median(failovers['pylog-3']), statistics.median(failovers['kafka-3']))} "
                     f"(each with its default session timeout)")
    return lines


if __name__ == "__main__":
    for line in run():
        print(line, flush=True)
