"""Kafka's own perf tools, `kafka-producer-perf-test.sh` and `kafka-consumer-perf-test.sh`,
against pylog and against the reference Apache Kafka, in one run.

    python -m bench.perf_tools_bench        (or: python -m bench perf_tools)
    BENCH_VERBOSE=1 python -m bench.perf_tools_bench   (every run, and progress on stderr)
    BENCH_QUICK=1 python -m bench.perf_tools_bench     (a smoke run: tiny counts, one rep, not a figure)

Brokers (`bench/peers.py`): pylog as `python -m pylog serve --port 0`, and Kafka (the version
of tests/compat/versions.properties, single-node KRaft, `peers.start_kafka`) with the JVM flags
of its start script: -Xmx1G -Xms1G -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20
-XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15
-Djava.awt.headless=true. Both run on the broker core for the whole module, each idle while
the other is measured (Kafka's idle CPU, printed, is what it takes from pylog's core then).

The tools are the main classes the scripts run (`tests.compat.tools.TOOLS`:
org.apache.kafka.tools.ProducerPerformance and ConsumerPerformance), from the same Maven
jars, each run as a JVM of its own (`tests.compat.reference.java_command`) with the flags
the scripts give it: KAFKA_HEAP_OPTS `-Xmx512M` and kafka-run-class.sh's
KAFKA_JVM_PERFORMANCE_OPTS (-server -XX:+UseG1GC -XX:MaxGCPauseMillis=20
-XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15
-Djava.awt.headless=true), and the compat log4j2 config (warnings to stderr). A tool is
spawned from this process's thread, pinned to the client core, and inherits that affinity.

Rows (the tools' own defaults otherwise: batch.size 16384, linger.ms 5, idempotence on):
- producer 100 B: `--topic T --num-records 500000 --record-size 100 --throughput -1
  --producer-props acks=all bootstrap.servers=...`;
- producer 1 KiB: the same with `--num-records 200000 --record-size 1024`;
- consumer 100 B and 1 KiB: `--bootstrap-server ... --topic T --messages N --timeout 20000
  --group <new>` on the producer rows' topics (a new group each run, from the earliest
  offset: it reads records the producer rows wrote, N = the producer row's record count).
The topics are auto-created by the producer (1 partition on both brokers).

Each tool first runs once on each broker as a warm-up, with the first row's settings (not
counted: it warms the broker's produce or fetch path, its page cache and, for Kafka, its
JIT; each tool run is a fresh JVM, which warms itself alike on both brokers). Then every row
runs REPS rounds, each on both brokers, the order alternating from round to round
(pylog, kafka; kafka, pylog; ...); the median run (by records/sec) is printed.

Printed per row and broker: the tool's summary line, parsed: records/sec, MB/sec and avg
latency (ms) for the producer; MB.sec, nMsg.sec and fetch.nMsg.sec (which leaves out the
group join: rebalance.time.ms) for the consumer. The tools' MB are 2^20 bytes (the producer
counts record values, the consumer keys and values: here values only). Then pylog/kafka
ratios (higher is better for rates, lower for latency), and the broker's CPU per record and
per MB (MB = 10^6 payload bytes; lower is better), from utime + stime of the broker's pid in
/proc/PID/stat right before the tool's spawn and right after it exits: so it includes the
broker's idle background during the tool's JVM start (for Kafka: GC, JIT, log flusher,
KRaft heartbeats), one tick being 10 ms. Every loop is bounded, every tool run has a time
limit (killed past it) and the whole module a budget; brokers, tools and temporary
directories go on every exit path (`peers.py`'s reaper covers a crash of this process).
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field

if __package__ in (None, ""):  # `python bench/perf_tools_bench.py`
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import peers  # noqa: E402

BROKERS = ("pylog", "kafka")
QUICK = os.environ.get("BENCH_QUICK", "") not in ("", "0")
VERBOSE = os.environ.get("BENCH_VERBOSE", "") not in ("", "0")

BUDGET_S = 240.0
REPS = 3
PRODUCE_100_COUNT, PRODUCE_1K_COUNT = 300_000, 100_000
TOOL_LIMIT_S = 90.0  # one tool run, its JVM's start included
CONSUMER_TIMEOUT_MS = 20_000  # the consumer tool gives up after this long without a record
IDLE_CPU_S = 2.0
COARSE_TICKS = 20  # a run whose broker CPU is fewer ticks than this is flagged as coarse
if QUICK:
    BUDGET_S = 120.0
    REPS = 1
    PRODUCE_100_COUNT, PRODUCE_1K_COUNT = 20_000, 5_000
    IDLE_CPU_S = 1.0

MB = 1_000_000


@dataclass
class Row:
    label: str
    tool: str  # a kafka-*.sh name, a key of tests.compat.tools.TOOLS
    topic: str
    count: int
    size: int
    warm_up: bool = False  # the first row of its tool: a warm-up run on each broker first

    @property
    def producer(self) -> bool:
        return self.tool == "kafka-producer-perf-test.sh"


ROWS = (
    Row("producer 100 B", "kafka-producer-perf-test.sh", "perf-100", PRODUCE_100_COUNT, 100, warm_up=True),
    Row("producer 1 KiB", "kafka-producer-perf-test.sh", "perf-1k", PRODUCE_1K_COUNT, 1024),
    Row("consumer 100 B", "kafka-consumer-perf-test.sh", "perf-100", PRODUCE_100_COUNT, 100, warm_up=True),
    Row("consumer 1 KiB", "kafka-consumer-perf-test.sh", "perf-1k", PRODUCE_1K_COUNT, 1024),
)


@dataclass
class ToolRun:
    figures: dict[str, float] = field(default_factory=dict)  # parsed from the summary
    records: int = 0
    wall_s: float = 0.0  # the tool's process, JVM start included
    broker_cpu_s: float | None = None
    error: str | None = None

    @property
    def rate(self) -> float:
        return self.figures.get("records/sec") or self.figures.get("nMsg.sec") or 0.0


def tool_jvm_flags() -> tuple[str, ...]:
    """`bin/kafka-producer-perf-test.sh`'s and `kafka-consumer-perf-test.sh`'s JVM: KAFKA_HEAP_OPTS
    -Xmx512M, then kafka-run-class.sh's KAFKA_JVM_PERFORMANCE_OPTS (the start script's flags
    without its heap)."""
    performance = tuple(f for f in peers.kafka_broker_jvm_flags() if not f.startswith(("-Xmx", "-Xms")))
    return ("-Xmx512M", *performance)


# ---------------------------------------------------------------------------------------------
# The tools' output

_PRODUCER_SUMMARY = re.compile(
    r"^(?P<sent>\d+) records sent, (?P<rate>[\d.]+) records/sec \((?P<mb>[\d.]+) MB/sec\),"
    r" (?P<avg>[\d.]+) ms avg latency, (?P<max>[\d.]+) ms max latency, (?P<p50>\d+) ms 50th,"
    r" (?P<p95>\d+) ms 95th, (?P<p99>\d+) ms 99th")


def parse_producer(stdout: str) -> dict[str, float]:
    """The final summary line of ProducerPerformance (the one with percentiles; the 5-second
    progress lines have none)."""
    for line in reversed(stdout.splitlines()):
        m = _PRODUCER_SUMMARY.match(line.strip())
        if m:
            return {"records": float(m["sent"]), "records/sec": float(m["rate"]), "MB/sec": float(m["mb"]),
                    "avg latency ms": float(m["avg"]), "max latency ms": float(m["max"]),
                    "p50 ms": float(m["p50"]), "p99 ms": float(m["p99"])}
    raise ValueError("no summary line")


def parse_consumer(stdout: str) -> dict[str, float]:
    """ConsumerPerformance's header line (start.time, end.time, data.consumed.in.MB, MB.sec, ...)
    and the values line after it."""
    lines = [line.strip() for line in stdout.splitlines() if line.strip()]
    for i, line in enumerate(lines[:-1]):
        if line.startswith("start.time,"):
            names = [n.strip() for n in line.split(",")]
            values = [v.strip() for v in lines[i + 1].split(",")]
            if len(values) != len(names):
                break
            out = {}
            for name, value in zip(names[2:], values[2:]):  # the first two are timestamps
                out[name] = float(value)
            out["records"] = out.get("data.consumed.in.nMsg", 0.0)
            return out
    raise ValueError("no header and values lines")


# ---------------------------------------------------------------------------------------------
# Running a tool


def _command(row: Row, bootstrap: str, count: int) -> list[str]:
    java_command = peers.compat_reference().java_command
    from tests.compat.tools import TOOLS

    if row.producer:
        args = ["--topic", row.topic, "--num-records", str(count), "--record-size", str(row.size),
                "--throughput", "-1", "--producer-props", "acks=all", f"bootstrap.servers={bootstrap}"]
    else:
        args = ["--bootstrap-server", bootstrap, "--topic", row.topic, "--messages", str(count),
                "--timeout", str(CONSUMER_TIMEOUT_MS), "--group", f"perf-{uuid.uuid4().hex[:12]}"]
    return java_command(TOOLS[row.tool], *args, jvm_flags=tool_jvm_flags())


def run_tool(row: Row, handle: peers.BrokerHandle, count: int, client_cpus: set[int] | None,
             limit: float) -> ToolRun:
    """One run of `row`'s tool against `handle`, at most `limit` seconds (then killed)."""
    result = ToolRun()
    if limit < 5:
        result.error = "skipped (time budget)"
        return result
    cmd = _command(row, handle.bootstrap, count)
    cpu_before = handle.cpu_seconds()
    started = time.perf_counter()
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, errors="replace")
    except OSError as exc:  # no `java` on PATH
        result.error = f"cannot run {cmd[0]}: {exc}"
        return result
    peers.pin(proc.pid, client_cpus)  # already inherited from this thread; kept for clarity of intent
    peers.reap_on_crash(proc.pid)
    try:
        try:
            stdout, stderr = proc.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            proc.kill()
            stdout, stderr = proc.communicate(timeout=10)
            result.error = f"killed after {limit:.0f} s"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        peers.forget(proc.pid)
    result.wall_s = time.perf_counter() - started
    cpu_after = handle.cpu_seconds()
    if cpu_before is not None and cpu_after is not None:
        result.broker_cpu_s = cpu_after - cpu_before
    if result.error is None and proc.returncode != 0:
        result.error = f"exit status {proc.returncode}: {_short(stderr or stdout)}"
    try:
        result.figures = parse_producer(stdout) if row.producer else parse_consumer(stdout)
        result.records = int(result.figures["records"])
    except ValueError as exc:
        if result.error is None:
            result.error = f"{exc}: {_short(stdout + ' ' + stderr)}"
    if result.error is None and result.records < count:
        result.error = f"{result.records} of {count} records: {_short(stderr)}"
    return result


# ---------------------------------------------------------------------------------------------
# Report helpers


def _short(text: object, width: int = 140) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 3] + "..."


def _ratio(a: float | None, b: float | None) -> str:
    if not a or not b:
        return "n/a"
    r = a / b
    return f"{r:.2f}x" if r >= 0.1 else f"{r:.2g}x"


def _num(value: float) -> str:
    if value >= 1e6:
        return f"{value / 1e6:.2f}M"
    if value >= 1e4:
        return f"{value / 1e3:.0f}k"
    if value >= 100:
        return f"{value:.0f}"
    return f"{value:.1f}" if value >= 10 else f"{value:.2f}"


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def _median_run(runs: list[ToolRun]) -> ToolRun | None:
    good = [r for r in runs if r.error is None and r.rate]
    if good:
        return sorted(good, key=lambda r: r.rate)[len(good) // 2]
    return runs[0] if runs else None


def _progress(message: str) -> None:
    if VERBOSE:
        print(f"  .. {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------


def run() -> list[str]:
    lines: list[str] = []
    try:
        peers.compat_reference().classpath()  # the reference Kafka's jars (`make kafka-reference`)
    except (ImportError, RuntimeError) as exc:
        return [f"skipped: {_short(exc, 300)}"]
    deadline = time.perf_counter() + BUDGET_S
    broker_cpus, client_cpus = peers.pinning()
    previous_affinity = os.sched_getaffinity(0) if client_cpus else None
    peers.pin(0, client_cpus)
    handles: dict[str, peers.BrokerHandle] = {}
    failed: dict[str, str] = {}
    try:
        peers.start_reaper()
        for name in BROKERS:
            _progress(f"start {name}")
            try:
                handles[name] = peers.STARTERS[name](broker_cpus)
            except Exception as exc:
                failed[name] = _short(exc)
        active = [n for n in BROKERS if n in handles]
        lines.append(f"Kafka {peers.kafka_version()} tools, each its own JVM: java {' '.join(tool_jvm_flags())};"
                     f" broker on core {sorted(broker_cpus or [])}, tools on core {sorted(client_cpus or [])}")
        if "kafka" in handles:
            lines.append(f"  kafka broker: {'; '.join(handles['kafka'].notes)}")
        for name, error in failed.items():
            lines.append(f"{name}: did not start ({error})")
        if not active:
            return lines

        runs: dict[str, dict[str, list[ToolRun]]] = {row.label: {n: [] for n in active} for row in ROWS}
        warmups: dict[str, dict[str, ToolRun]] = {row.label: {} for row in ROWS}
        idle_cpu: dict[str, float] = {}
        for index, row in enumerate(ROWS):
            for name in active if row.warm_up else ():
                _progress(f"{row.label}: warm-up on {name}")
                warmups[row.label][name] = run_tool(row, handles[name], row.count, client_cpus,
                                                    min(TOOL_LIMIT_S, deadline - time.perf_counter()))
            if index == 0:  # every broker has been loaded once: their idle CPU, for scale
                before = {n: handles[n].cpu_seconds() for n in active}
                t0 = time.perf_counter()
                time.sleep(IDLE_CPU_S)
                wall = time.perf_counter() - t0
                for n in active:
                    after = handles[n].cpu_seconds()
                    if before[n] is not None and after is not None:
                        idle_cpu[n] = (after - before[n]) / wall * 1000
            for rep in range(REPS):
                order = active[rep % len(active):] + active[:rep % len(active)]
                for name in order:
                    _progress(f"{row.label}: rep {rep + 1} on {name}")
                    runs[row.label][name].append(run_tool(row, handles[name], row.count, client_cpus,
                                                          min(TOOL_LIMIT_S, deadline - time.perf_counter())))

        # ---- report
        if idle_cpu:
            lines.append(f"idle broker CPU after a warm-up ({IDLE_CPU_S:.0f} s, ms of CPU per s): "
                         + " | ".join(f"{n} {idle_cpu[n]:.1f}" for n in active if n in idle_cpu)
                         + " (a run's broker CPU below includes this background for the run's whole length,"
                           " the tool's JVM start included)")
        for row in ROWS:
            cells, med, cpu_cells, per_record = [], {}, [], {}
            for name in BROKERS:
                if name not in active:
                    cells.append(f"{name} did not start")
                    cpu_cells.append(f"{name} n/a")
                    continue
                all_runs = runs[row.label][name]
                chosen = _median_run(all_runs)
                good = [r for r in all_runs if r.error is None and r.rate]
                if chosen is None or chosen.error is not None or not good:
                    cells.append(f"{name} {chosen.error if chosen else 'not run'}")
                    cpu_cells.append(f"{name} n/a")
                    continue
                f = chosen.figures
                med[name] = f
                if row.producer:
                    text = (f"{name} {_num(f['records/sec'])} records/sec {f['MB/sec']:.1f} MB/sec"
                            f" {f['avg latency ms']:.1f} ms avg latency"
                            f" (p50 {f['p50 ms']:.0f} p99 {f['p99 ms']:.0f} ms)")
                else:
                    text = (f"{name} {f['MB.sec']:.1f} MB.sec {_num(f['nMsg.sec'])} nMsg.sec"
                            f" (fetch.nMsg.sec {_num(f['fetch.nMsg.sec'])}, rebalance.time.ms"
                            f" {f['rebalance.time.ms']:.0f})")
                bad = len(all_runs) - len(good)
                if bad:
                    first_error = next(r.error for r in all_runs if r.error)
                    text += f" [{bad} of {len(all_runs)} runs failed: {_short(first_error, 80)}]"
                cells.append(text)
                cpu_runs = [r for r in good if r.broker_cpu_s is not None and r.records]
                if cpu_runs:
                    us = _median([r.broker_cpu_s / r.records * 1e6 for r in cpu_runs])
                    ms = _median([r.broker_cpu_s / (r.records * row.size / MB) * 1000 for r in cpu_runs])
                    per_record[name] = us
                    ticks = round(min(r.broker_cpu_s for r in cpu_runs) * peers.CLK_TCK)
                    cpu_cells.append(f"{name} {us:.2f} µs/rec {ms:.1f} ms/MB"
                                     + (f" (coarse: {ticks} ticks in a run)" if ticks < COARSE_TICKS else ""))
                else:
                    cpu_cells.append(f"{name} n/a")
            p, k = med.get("pylog"), med.get("kafka")
            if row.producer:
                ratios = (f"pylog/kafka records/sec {_ratio(p and p['records/sec'], k and k['records/sec'])},"
                          f" MB/sec {_ratio(p and p['MB/sec'], k and k['MB/sec'])},"
                          f" avg latency {_ratio(p and p['avg latency ms'], k and k['avg latency ms'])}"
                          f" (lower is better)")
                what = f"{row.count // 1000}k x {row.size} B, acks=all, --throughput -1"
            else:
                ratios = (f"pylog/kafka MB.sec {_ratio(p and p['MB.sec'], k and k['MB.sec'])},"
                          f" nMsg.sec {_ratio(p and p['nMsg.sec'], k and k['nMsg.sec'])},"
                          f" fetch.nMsg.sec {_ratio(p and p['fetch.nMsg.sec'], k and k['fetch.nMsg.sec'])}")
                what = f"--messages {row.count} of {row.size} B, a new group"
            lines.append(f"{row.tool} {row.label} ({what}; median of {REPS}): "
                         + " | ".join(cells) + " | " + ratios)
            lines.append("  broker CPU per record / per MB, median of runs (lower is better): " + " | ".join(cpu_cells)
                         + f" | pylog/kafka {_ratio(per_record.get('pylog'), per_record.get('kafka'))}")
            if VERBOSE:
                for name in active:
                    w = warmups[row.label].get(name)
                    warm = ("no warm-up" if not row.warm_up else f"warm-up {_num(w.rate)}/s"
                            if w and w.error is None else f"warm-up ({w.error if w else 'not run'})")
                    lines.append(f"    {name}: {warm}; runs " + ", ".join(
                                     (f"{_num(r.rate)}/s in {r.wall_s:.1f} s wall, broker CPU {r.broker_cpu_s:.2f} s"
                                      if r.error is None and r.broker_cpu_s is not None else f"({r.error})")
                                     for r in runs[row.label][name]))
        return lines
    finally:
        peers.close_all(handles, lines)
        peers.pin(0, previous_affinity)  # back to the cores this process had


if __name__ == "__main__":
    _started = time.perf_counter()
    for _line in run():
        print(_line, flush=True)
    print(f"# {time.perf_counter() - _started:.1f} s", flush=True)
