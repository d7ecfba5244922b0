"""pylog side by side with tansu, the reference Apache Kafka and the librdkafka mock cluster,
in one run.

    python -m bench.broker_bench        (or: python -m bench broker)
    BENCH_VERBOSE=1 python -m bench.broker_bench    (every run, and progress on stderr)
    BENCH_QUICK=1 python -m bench.broker_bench      (a smoke run: tiny counts, one rep, not a figure)

Brokers (`bench/peers.py`): pylog as `python -m pylog serve --port 0` ("pylog"), pylog
in-process through `pylog.testing.EmbeddedBroker` ("pylog-inproc"; it shares the GIL with
the client, so its throughput rows show that cost rather than the broker's), tansu 0.6
with its in-memory engine, Apache Kafka (the version of tests/compat/versions.properties,
single-node KRaft, with the JVM flags of its own start script: -Xmx1G -Xms1G -server
-XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35
-XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15; `peers.start_kafka`), and the
librdkafka mock (inside this process). Every broker listens on 127.0.0.1.

Printed, for each broker, with ratios of pylog (serve) to tansu, to Kafka and to the mock:
- spawn-to-ready time, median of a few fresh starts (what "ready" means differs per broker
  and is said on the line), and the time to stop. Kafka starts in several seconds, so it is
  started fewer times (the last start is kept as the broker the load rows use, and its stop
  is not timed); its storage format (StorageTool, a JVM of its own) is printed apart from the
  JVM start, and the ratios are given both without and with it (pylog's fresh start creates
  its data directory too);
- idle RSS of the broker process (right after start), and after the load below;
- produce throughput with confluent-kafka, 100 B and 1 KiB records (linger.ms 5,
  batch.size ~1 MiB, acks=all, timed to the end of flush), and with kafka-python 3.x,
  100 B records (defaults, so idempotent, plus acks=all and linger_ms 5);
- consume throughput of every record the produce runs wrote, from the beginning, no group
  (assign), with both clients; the mock keeps only ~5 MiB per partition, so it reads back
  smaller topics filled for the purpose (their sizes are printed). Rates over different
  lengths do not compare (a short run never reaches the steady state of a long one, and
  its first fetch weighs more), so every broker also gets topics of the mock's length, and
  the "mock-sized" confluent-kafka rows read those on every broker, more times each, as
  their runs last some ms. Consumers check that the offsets they got have no gap and no
  duplicate. Before these rows each broker serves one untimed consume of a few records,
  whose first-batch time is printed: a broker's first consumer pays its one-time costs
  (the coordinator's topic that confluent-kafka's group.id makes it look up, code loaded
  at first use, a JVM's first compilations), which are a first-record cost, not a rate.
  The confluent-kafka consumer keeps librdkafka's default bounds on its local queue
  (queued.min.messages 100k, queued.max.messages.kbytes 64 MiB) and only shortens the
  pause after the queue is full (fetch.queue.backoff.ms 10): a queue with room for a whole
  run would grow with the broker's speed, and the client would pay for that growth in page
  faults. confluent-kafka's consume rows also print the client's
  CPU per record, its minor page faults per 1k records (`getrusage` of this process over
  the timed part) and the share of the wall time the client was busy: 100% means the broker
  never kept the client waiting, and the rate is then the client's, set by the answers'
  shape (how many records each Fetch answer carries: Kafka, and so pylog, cut a partition's
  data at max.partition.fetch.bytes, 1 MiB by default, a slice that may end inside a batch).
  They also print the time from assign() to the first records the application got: librdkafka
  hands out a Fetch answer's records only once it has read and parsed the whole answer, so a
  broker that answers with one batch (the mock) gets its first records to the application
  sooner than one that fills max.partition.fetch.bytes (Kafka, pylog); in the short
  mock-sized runs that time is a visible share of the run. The mock-sized rows are run once
  more with the mock's answer shape asked of every broker ("one batch per answer": the
  consumer sets max.partition.fetch.bytes 1, smaller than any batch, which Kafka and pylog
  answer with the first batch whole and the mock answers as it always does). No goal is set
  on them: they tell how much of a mock-sized row is the answer shape, which pylog keeps
  Kafka's;
- produce-to-consume latency p50/p99: a confluent-kafka consumer long-polls (fetch.wait.max.ms
  500) while single records are produced (acks=all, flush each) with random gaps of ~2 ms,
  so that records arrive at every phase of a parked fetch. A broker that answers a parked
  fetch only when its wait ends shows a latency of up to the wait;
- broker CPU per record and per MB (MB = 10^6 payload bytes) of every produce and consume
  row, for the brokers that are processes of their own (pylog serve, tansu, Kafka): utime +
  stime of the broker's pid from /proc/PID/stat (`peers.cpu_seconds`, clock ticks of
  `os.sysconf('SC_CLK_TCK')`) right before and right after each run, divided by the records
  and bytes of that run; the median over the runs, and pylog/Kafka and pylog/tansu ratios
  (lower is better). On this machine one client is the limit for every broker, so the rates
  of a row tell little about the brokers, and this is the figure that still compares them.
  It is the whole process: for Kafka it includes what its JVM does in the background meanwhile
  (GC, JIT compilation, the log flusher, KRaft's heartbeats and metadata log), for pylog its
  event loop's housekeeping; and a run's connection set-up and metadata requests. One tick is
  10 ms, a few % of a run. pylog-inproc and the mock live in this process: their CPU cannot be
  told apart from the client's, so they print n/a. The brokers' CPU while idle after the load
  (2 s) is printed too: Kafka's background work, for scale.

Runs are interleaved (rep 1 on every broker, then rep 2, ...) and the median is printed,
so that slow drift of the machine hits every broker alike; the last lines say how much CPU
other processes took meanwhile, what memory cost before the runs (`peers.memory_costs_us`:
a 4 KiB page of a file's new data, the same page written over, a page of new anonymous
memory), how the processors idle, and the machine's speed before and after (bench/peers.py
`python_speed_ms`). The memory line is there for the produce rows: a broker that writes
its records to files pays the first cost per 4 KiB it appends, in its own CPU time, and on
a virtual machine whose host backs the guest's memory as it is touched that cost can
outweigh all the rest of a 100 B record's handling; a broker that keeps records in memory
pays the third at most. The idle line is there for the short mock-sized rows: where an
idle processor halts at once (cpuidle `haltpoll` with `guest_halt_poll_ns` 0), every
request or socket event that finds the broker idle first waits for its processor to wake,
and a run of a few ms holds a few dozen of them. Each run is timed with Python's garbage collector off, as
`timeit` does, after a collection and `gc.freeze()` of what is alive: a full collection
walks every object of this process, the in-process brokers' heaps included, and a run
allocates enough to set off several (a 100 B consume of 600k records: 6 or 7, of about
90 ms each), charged to whichever broker's run they fell in. "At least as fast" goals
print MET, TIE (within 5%, the run-to-run noise) or MISSED: against tansu for the produce
rows and kafka-python's, against every peer for confluent-kafka's consume rows, each peer
in the row where it read as many records as pylog (tansu and Kafka in the full rows, the
mock in the mock-sized ones). When every
broker, the in-process mock included, lands within a few % of the others, the client is
the limit, and the row says so. The broker runs on one core and the client on another
(waking a process on the other core costs tens of µs). Every loop is bounded by a record
count and a time limit, and the whole run by BUDGET_S; broker processes and temporary
directories are removed on every exit path (`peers.py` keeps a reaper process for the
ones a crash of this process would leave). If pylog cannot serve a produce, its cells say
"not ready" with the error and the peers are still measured.
"""

from __future__ import annotations

import gc
import os
import platform
import statistics
import sys
import time
from typing import Callable

if __package__ in (None, ""):  # `python bench/broker_bench.py`
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import clients, peers  # noqa: E402
from bench.clients import Run  # noqa: E402

BROKERS = ("pylog", "pylog-inproc", "tansu", "kafka", "mock")
QUICK = os.environ.get("BENCH_QUICK", "") not in ("", "0")  # smoke run: tiny counts, one rep
BUDGET_S = 250.0

# Kafka: ~5-10 s a start (and its format), so 3 starts, the last one kept for the load rows
SPAWNS = {"pylog": 5, "pylog-inproc": 10, "tansu": 5, "kafka": 3, "mock": 5}
KEEP_LAST_SPAWN = {"kafka"}
REPS_PRODUCE = 5
REPS_CONSUME = 5
REPS_MOCK_SIZED = 61  # the mock-sized runs last some ms each and swing by 10-20% run to run: many, for a steady median
# The mock's answer shape, asked of every broker: max.partition.fetch.bytes 1 is smaller than any
# batch, and Kafka (so pylog) then answers with the partition's first batch whole.
ONE_BATCH = "one batch per answer"
ONE_BATCH_SETTINGS = {"max.partition.fetch.bytes": 1}
COARSE_TICKS = 20  # a run whose broker CPU is fewer ticks than this is flagged as coarse
CF_100_COUNT, CF_1K_COUNT, KP_COUNT = 200_000, 100_000, 30_000
# what the mock reads back: under its ~5 MiB per partition
MOCK_READBACK = {"c100": 30_000, "c1k": 3_500, "kp100": 30_000}
MOCK_SIZED = ("c100", "c1k")  # read-back topics every broker gets too, for the rows of the mock's length
LATENCY_COUNT = 1_000
WARMUP_CONSUME = 1_000  # records of the untimed consume before the consume rows
IDLE_CPU_S = 2.0
if QUICK:
    BUDGET_S = 150.0
    SPAWNS = {name: 1 for name in SPAWNS}
    REPS_PRODUCE = REPS_CONSUME = REPS_MOCK_SIZED = 1
    CF_100_COUNT, CF_1K_COUNT, KP_COUNT = 20_000, 10_000, 3_000
    MOCK_READBACK = {"c100": 3_000, "c1k": 1_000, "kp100": 3_000}
    LATENCY_COUNT = 100
KP_MOCK_API_VERSION = (2, 3, 0)  # kafka-python 3.x cannot bootstrap against the mock otherwise

VERBOSE = os.environ.get("BENCH_VERBOSE", "") not in ("", "0")  # print every run, not only medians

GOAL_SERVE_MS = 150.0   # issue 16 (bench/start_bench.py prints the floor of the interpreter beside it)
GOAL_INPROC_MS = 10.0
GOAL_RSS_MIB = 40.0


class Budget:
    def __init__(self, seconds: float):
        self.deadline = time.perf_counter() + seconds

    def limit(self, wanted: float) -> float:
        """A time limit for the next run: `wanted`, cut to what is left."""
        return max(0.0, min(wanted, self.deadline - time.perf_counter()))

    def exhausted(self, need: float = 3.0) -> bool:
        return self.deadline - time.perf_counter() < need


def _short(error: object, width: int = 140) -> str:
    text = " ".join(str(error).split())
    return text if len(text) <= width else text[: width - 3] + "..."


def _k(rate: float) -> str:
    if rate >= 1e6:
        return f"{rate / 1e6:.2f}M"
    if rate >= 1e3:
        return f"{rate / 1e3:.0f}k" if rate >= 1e4 else f"{rate / 1e3:.1f}k"
    return f"{rate:.0f}"


def _ms(value: float) -> str:
    return f"{value:.0f}" if value >= 100 else f"{value:.1f}" if value >= 1 else f"{value:.2f}"


def _ratio(a: float | None, b: float | None) -> str:
    if not a or not b:
        return "n/a"
    r = a / b
    return f"{r:.2f}x" if r >= 0.1 else f"{r:.2g}x"


def _verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else ("MET" if ok else "MISSED")


NOISE = 0.05  # medians move by several % between runs even when the ratio holds
CLIENT_BOUND_SPREAD = 0.06


def _at_least(ratio: float | None) -> str:
    """Verdict for "at least as fast": MET, a tie within the run-to-run noise, or MISSED."""
    if ratio is None:
        return "n/a"
    if ratio >= 1.0:
        return "MET"
    if ratio >= 1.0 - NOISE:
        return f"TIE (ratio {ratio:.3f}, within {NOISE:.0%} noise)"
    return "MISSED"


def _goal_verdict(rates: dict[str, float | None], peers: tuple[str, ...]) -> str:
    """"pylog at least as fast as each of `peers`": one verdict, and each peer's when there
    are several (MISSED if any is missed, else TIE if any is a tie, else MET)."""
    verdicts = {peer: _at_least(rates["pylog"] / rates[peer] if rates.get("pylog") and rates.get(peer) else None)
                for peer in peers}
    if len(peers) == 1:
        return verdicts[peers[0]]
    words = [verdict.split()[0] for verdict in verdicts.values()]
    overall = next((word for word in ("n/a", "MISSED", "TIE") if word in words), "MET")
    return f"{overall} (" + ", ".join(f"{peer} {verdict}" for peer, verdict in verdicts.items()) + ")"


def _readback_topics(name: str) -> list[str]:
    """The read-back topics broker `name` is given: all of them on the mock, the mock-sized
    ones elsewhere."""
    return [topic for topic in MOCK_READBACK if name == "mock" or topic in MOCK_SIZED]


def _readback(topic: str) -> tuple[str, int]:
    """The read-back topic of `topic` and the records a consumer reads there (its fill and
    the warm-up record)."""
    return f"{topic}-rb", MOCK_READBACK[topic] + 1


# ---------------------------------------------------------------------------------------------


def _versions() -> str:
    parts = [f"Python {platform.python_version()}"]
    try:
        import confluent_kafka
        parts.append(f"confluent-kafka {confluent_kafka.__version__} (librdkafka {confluent_kafka.libversion()[0]})")
    except Exception:
        pass
    try:
        import kafka
        parts.append(f"kafka-python {kafka.__version__}")
    except Exception:
        pass
    try:
        import crc32c  # noqa: F401
        parts.append("crc32c installed")
    except ImportError:
        pass
    return ", ".join(parts)


def _measure_spawns(name: str, starter: Callable, broker_cpus, count: int, budget: Budget, keep_last: bool = False
                    ) -> tuple[dict[str, list[float]], str | None, peers.BrokerHandle | None]:
    """Start and stop a broker `count` times; the timings of each start, by label. With
    `keep_last` the last start is not stopped but returned, to serve the load rows."""
    timings: dict[str, list[float]] = {}
    for i in range(count):
        if budget.exhausted(20):
            break
        try:
            handle = starter(broker_cpus)
        except Exception as exc:
            return timings, _short(exc), None
        keep = keep_last and i == count - 1
        try:
            for label, ms in handle.spawn.items():
                timings.setdefault(label, []).append(ms)
        finally:
            if not keep:
                handle.close()
        if keep:
            return timings, None, handle
        if handle.stop_ms is not None:
            timings.setdefault("stop", []).append(handle.stop_ms)
    return timings, None, None


def _cpu_snapshot() -> tuple[float, float, float, float] | None:
    """(wall, busy CPU seconds of the whole machine, steal seconds, CPU seconds of this process and
    its waited-for children), from /proc/stat and os.times()."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    tick = os.sysconf("SC_CLK_TCK")
    user, nice, system, _idle, _iowait, irq, softirq, steal = (fields + [0] * 8)[:8]
    t = os.times()
    return (time.perf_counter(), (user + nice + system + irq + softirq + steal) / tick, steal / tick,
            t.user + t.system + t.children_user + t.children_system)


def _cpu_noise(start) -> str | None:
    """How much CPU other processes (and the hypervisor: steal) took while the bench ran."""
    end = _cpu_snapshot()
    if start is None or end is None:
        return None
    wall = end[0] - start[0]
    others = (end[1] - start[1]) - (end[3] - start[3])
    steal = end[2] - start[2]
    return (f"machine noise: other processes used ~{max(others, 0):.1f} CPU-s (steal {steal:.1f} s) during"
            f" {wall:.0f} s of bench on {os.cpu_count()} cores; several CPU-s means the"
            f" medians above moved more than usual")


def _progress(message: str) -> None:
    if VERBOSE:
        print(f"  .. {message}", file=sys.stderr, flush=True)


def _fmt_extra(extra: dict) -> str:
    return "(" + " ".join(f"{k} {v:.1f}" for k, v in extra.items()) + ")"


def _client_cpu_cell(name: str, runs: list[Run | str], active: list[str], nr: Callable[[str], str]) -> str:
    """A confluent consume row's client CPU: µs per record and busy share of the wall time,
    medians of the runs. A broker inside this process (pylog-inproc, the mock) is counted in
    the client's CPU, so its cell says so."""
    if name not in active:
        return nr(name)
    if name in IN_PROCESS_CPU:
        return f"{name} n/a (broker in this process)"
    good = [r for r in runs if isinstance(r, Run) and r.records and r.error is None and r.extra
            and "client_cpu_ms" in r.extra]
    if not good:
        return f"{name} n/a"
    per_record = statistics.median(r.extra["client_cpu_ms"] * 1000 / r.records for r in good)
    busy = statistics.median(r.extra["client_cpu_ms"] / 1000 / r.seconds for r in good)
    faults = statistics.median(r.extra["client_minor_faults"] * 1000 / r.records for r in good)
    return f"{name} {per_record:.2f} µs, busy {busy:.0%}, {faults:.0f} page faults per 1k records"


def _first_batch_cell(name: str, runs: list[Run | str], active: list[str], nr: Callable[[str], str]) -> str:
    """A confluent consume row's time from assign() to the first batch of records the
    application got, median of the runs."""
    if name not in active:
        return nr(name)
    firsts = [r.extra["first_batch_ms"] for r in runs if isinstance(r, Run) and r.records and r.error is None
              and r.extra and "first_batch_ms" in r.extra]
    return f"{name} {statistics.median(firsts):.1f} ms" if firsts else f"{name} n/a"


def _median_run(runs: list[Run | str]) -> Run | str:
    good = [r for r in runs if isinstance(r, Run) and r.records and r.error is None]
    if good:
        return sorted(good, key=lambda r: r.rate)[len(good) // 2]
    bad = [r for r in runs if isinstance(r, Run)]
    if bad:
        return bad[0]
    return runs[0] if runs else "not run"


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def _us(value: float) -> str:
    return f"{value:.0f}" if value >= 100 else f"{value:.1f}" if value >= 10 else f"{value:.2f}"


IN_PROCESS_CPU = {"pylog-inproc": "n/a (in this process: its CPU is not told apart from the client's)",
                  "mock": "n/a (in this process: its CPU is not told apart from the client's)"}


def _cpu_cells(samples: dict[str, list[tuple[float, int, int]]], names, active, nr) -> tuple[list[str], dict]:
    """Per broker: median broker-CPU µs per record and ms per MB over the runs of a row."""
    cells, per_record = [], {}
    for name in names:
        if name in IN_PROCESS_CPU:
            cells.append(f"{name} {IN_PROCESS_CPU[name]}")
            continue
        if name not in active:
            cells.append(nr(name))
            continue
        runs = [(cpu, n, b) for cpu, n, b in samples.get(name, []) if n and b]
        if not runs:
            cells.append(f"{name} n/a (no complete run)")
            continue
        us = _median([cpu / n * 1e6 for cpu, n, _ in runs])
        ms = _median([cpu / (b / clients.MB) * 1000 for cpu, _, b in runs])
        per_record[name] = us
        ticks = round(min(cpu for cpu, _, _ in runs) * peers.CLK_TCK)
        cells.append(f"{name} {_us(us)} µs/rec {_us(ms)} ms/MB"
                     + (f" (coarse: {ticks} ticks in a run)" if ticks < COARSE_TICKS else ""))
    return cells, per_record


def _cell_run(result: Run | str | None) -> tuple[str, float | None]:
    if result is None:
        return "n/a", None
    if isinstance(result, str):
        return result, None
    text = f"{_k(result.rate)} rec/s {result.mb_per_s:.0f} MB/s"
    if result.error:
        text += f" ({_short(result.error, 100)}; {result.records} records)"
        return text, None
    return text, result.rate


def run() -> list[str]:
    budget = Budget(BUDGET_S)
    lines: list[str] = []
    broker_cpus, client_cpus = peers.pinning()
    previous_affinity = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    peers.pin(0, client_cpus)
    handles: dict[str, peers.BrokerHandle] = {}
    kept: dict[str, peers.BrokerHandle] = {}  # a spawn measurement's last start, kept for the load rows
    not_ready: dict[str, str] = {}
    cpu_start = _cpu_snapshot()
    speed_ms = peers.python_speed_ms()
    memory_costs_us = peers.memory_costs_us()
    try:
        peers.start_reaper()
        lines.append(f"{_versions()}; cores {sorted(previous_affinity or [])}; "
                     + (f"broker on core {sorted(broker_cpus)[0]}, client on core {sorted(client_cpus)[0]}"
                        if broker_cpus else "no pinning (one core)"))

        # -- spawn-to-ready ------------------------------------------------------------------
        spawn: dict[str, dict[str, list[float]]] = {}
        for name in BROKERS:
            _progress(f"spawn: {name}")
            timings, error, handle = _measure_spawns(name, peers.STARTERS[name], broker_cpus, SPAWNS[name], budget,
                                                     keep_last=name in KEEP_LAST_SPAWN)
            spawn[name] = timings
            if handle is not None:
                kept[name] = handle
            if error and not timings:
                not_ready[name] = f"did not start: {error}"

        # -- long-lived brokers --------------------------------------------------------------
        idle_rss: dict[str, float | None] = {}
        for name in BROKERS:
            if name in not_ready:
                continue
            if name in kept:
                handles[name] = kept.pop(name)
            else:
                try:
                    handles[name] = peers.STARTERS[name](broker_cpus)
                except Exception as exc:
                    not_ready[name] = f"did not start: {_short(exc)}"
                    continue
            time.sleep(0.1)
            idle_rss[name] = handles[name].rss_mib()

        topics = ["c100", "c1k", "kp100", "lat"]
        for name, handle in list(handles.items()):
            wanted = topics + [_readback(t)[0] for t in _readback_topics(name)]
            for topic in wanted:
                error = clients.confluent_warmup(handle.bootstrap, topic, timeout=budget.limit(8))
                if error:
                    not_ready[name] = f"produce to {topic!r} failed: {_short(error)}"
                    break
        active = [n for n in BROKERS if n in handles and n not in not_ready]
        for name in BROKERS:
            if name in not_ready:
                lines.append(f"{name}: not ready ({not_ready[name]})")

        # -- throughput ----------------------------------------------------------------------
        results: dict[str, dict[str, list[Run | str]]] = {}
        # row -> broker -> [(broker CPU seconds, records, payload bytes)] of each complete run
        cpu_runs: dict[str, dict[str, list[tuple[float, int, int]]]] = {}

        def record(row: str, name: str, fn: Callable[[float], Run], wanted_limit: float) -> None:
            cell = results.setdefault(row, {}).setdefault(name, [])
            _progress(f"{row}: {name}")
            if budget.exhausted():
                cell.append("skipped (time budget)")
                return
            # the collector off for the run, what is alive before it set aside (module docstring)
            gc.collect()
            gc.freeze()
            gc.disable()
            cpu_before = handles[name].cpu_seconds()
            try:
                result = fn(budget.limit(wanted_limit))
            except Exception as exc:
                cell.append(f"error: {_short(f'{type(exc).__name__}: {exc}')}")
                return
            finally:
                gc.enable()
            cpu_after = handles[name].cpu_seconds()
            cell.append(result)
            if cpu_before is not None and cpu_after is not None and result.records and result.error is None:
                cpu_runs.setdefault(row, {}).setdefault(name, []).append(
                    (cpu_after - cpu_before, result.records, result.payload_bytes))

        def interleaved(row: str, reps: int, make: Callable[[str], Callable[[float], Run]], limit: float) -> None:
            for rep in range(reps):
                order = active[rep % len(active):] + active[: rep % len(active)] if active else []
                for name in order:
                    record(row, name, make(name), limit)

        boot = {name: handles[name].bootstrap for name in active}
        interleaved("produce 100B confluent", REPS_PRODUCE,
                    lambda n: lambda lim: clients.confluent_produce(boot[n], "c100", CF_100_COUNT, 100, lim), 20)
        interleaved("produce 1KiB confluent", REPS_PRODUCE,
                    lambda n: lambda lim: clients.confluent_produce(boot[n], "c1k", CF_1K_COUNT, 1024, lim), 20)
        interleaved("produce 100B kafka-python", REPS_PRODUCE,
                    lambda n: lambda lim: clients.kp_produce(
                        boot[n], "kp100", KP_COUNT, 100, lim,
                        api_version=KP_MOCK_API_VERSION if n == "mock" else None), 20)
        for name in active:  # fill the read-back topics (untimed)
            for topic in _readback_topics(name):
                size = 1024 if topic == "c1k" else 100
                fill = clients.confluent_produce(boot[name], _readback(topic)[0], MOCK_READBACK[topic], size,
                                                 budget.limit(10))
                if fill.error:
                    lines.append(f"{name}: filling {_readback(topic)[0]}: {_short(fill.error)}")

        def consume_topic(name: str, topic: str, produce_row: str) -> tuple[str, int]:
            """What to read back: every record the produce runs delivered (+ the warm-up
            record), or on the mock the smaller read-back topic."""
            if name == "mock":
                return _readback(topic)
            delivered = sum(r.records for r in results.get(produce_row, {}).get(name, []) if isinstance(r, Run))
            return topic, delivered + 1

        def cf_consume(topic: str, produce_row: str):
            def make(name: str):
                t, n = consume_topic(name, topic, produce_row)
                return lambda lim: clients.confluent_consume(boot[name], t, n, lim)
            return make

        def kp_consume(name: str):
            t, n = consume_topic(name, "kp100", "produce 100B kafka-python")
            return lambda lim: clients.kp_consume(boot[name], t, n, lim,
                                                  api_version=KP_MOCK_API_VERSION if name == "mock" else None)

        # One untimed consume per broker first: its first consumer pays the broker's one-time costs
        # (the group coordinator's topic, which the consumer's group.id makes it look up; code
        # loaded or compiled at first use), which belong to "first record" figures, not to a rate.
        warmup: dict[str, Run | str] = {}
        for name in active:
            t, _ = consume_topic(name, "c100", "produce 100B confluent")
            try:
                warmup[name] = clients.confluent_consume(boot[name], t, WARMUP_CONSUME, budget.limit(20))
            except Exception as exc:
                warmup[name] = f"error: {_short(f'{type(exc).__name__}: {exc}')}"
        interleaved("consume 100B confluent", REPS_CONSUME, cf_consume("c100", "produce 100B confluent"), 20)
        interleaved("consume 1KiB confluent", REPS_CONSUME, cf_consume("c1k", "produce 1KiB confluent"), 20)
        interleaved("consume 100B kafka-python", REPS_CONSUME, kp_consume, 20)

        def cf_consume_mock_sized(topic: str, settings: dict | None = None):
            return lambda name: lambda lim: clients.confluent_consume(boot[name], *_readback(topic), lim, settings)
        interleaved("consume 100B confluent, mock-sized", REPS_MOCK_SIZED, cf_consume_mock_sized("c100"), 10)
        interleaved("consume 1KiB confluent, mock-sized", REPS_MOCK_SIZED, cf_consume_mock_sized("c1k"), 10)
        interleaved(f"consume 100B confluent, mock-sized, {ONE_BATCH}", REPS_MOCK_SIZED,
                    cf_consume_mock_sized("c100", ONE_BATCH_SETTINGS), 10)
        interleaved(f"consume 1KiB confluent, mock-sized, {ONE_BATCH}", REPS_MOCK_SIZED,
                    cf_consume_mock_sized("c1k", ONE_BATCH_SETTINGS), 10)

        latency: dict[str, tuple[list[float], str | None] | str] = {}
        for name in active:
            _progress(f"latency: {name}")
            if budget.exhausted(5):
                latency[name] = "skipped (time budget)"
                continue
            try:
                latency[name] = clients.confluent_latency(boot[name], "lat", LATENCY_COUNT, budget.limit(10))
            except Exception as exc:
                latency[name] = f"error: {_short(f'{type(exc).__name__}: {exc}')}"

        loaded_rss = {name: handles[name].rss_mib() for name in active if handles[name].pid}
        idle_cpu: dict[str, float] = {}  # broker CPU ms per second while idle after the load
        idle_before = {name: handles[name].cpu_seconds() for name in active if handles[name].pid}
        idle_started = time.perf_counter()
        time.sleep(IDLE_CPU_S)
        idle_wall = time.perf_counter() - idle_started
        for name, before in idle_before.items():
            after = handles[name].cpu_seconds()
            if before is not None and after is not None:
                idle_cpu[name] = (after - before) / idle_wall * 1000

        # -- report --------------------------------------------------------------------------
        def nr(name: str) -> str:
            return f"{name} not ready" if name in not_ready else f"{name} n/a"

        # spawn
        labels = {"pylog": ("ready line", "ApiVersions answered"),
                  "pylog-inproc": ("EmbeddedBroker().start()", "Broker()+start() listening", "incl. loop thread"),
                  "tansu": ("port accepting", "ApiVersions answered"),
                  "kafka": ("port accepting", "ApiVersions answered", "Metadata lists the broker"),
                  "mock": ("list_topics answered",)}
        cells, med, same = [], {}, {}
        for name in BROKERS:
            t = spawn.get(name) or {}
            if not t:
                cells.append(nr(name))
                continue
            parts = []
            for label in labels[name]:
                if label in t:
                    m = statistics.median(t[label])
                    med.setdefault(name, m)
                    if label == "ApiVersions answered":
                        same[name] = m
                    parts.append(f"{_ms(m)} ms to {label}")
            if name == "kafka":
                if "storage format" in t:
                    parts.insert(0, f"storage format {_ms(statistics.median(t['storage format']))} ms, then from"
                                    f" the JVM's spawn")
                if "fresh start incl. format" in t:
                    parts.append(f"fresh start incl. format {_ms(statistics.median(t['fresh start incl. format']))} ms")
            cells.append(f"{name} " + ", ".join(parts))
        kafka_t = spawn.get("kafka") or {}
        kafka_ready = _median(kafka_t.get("Metadata lists the broker", []))
        kafka_fresh = _median(kafka_t.get("fresh start incl. format", []))
        serve_ok = None if "pylog" not in spawn or not spawn["pylog"] else \
            statistics.median(spawn["pylog"]["ApiVersions answered"]) <= GOAL_SERVE_MS \
            if "ApiVersions answered" in spawn["pylog"] else None
        inproc_ok = None if "pylog-inproc" not in med else med["pylog-inproc"] <= GOAL_INPROC_MS
        lines.append("spawn-to-ready (median of {}): ".format("/".join(str(SPAWNS[n]) for n in BROKERS))
                     + " | ".join(cells)
                     + f" | pylog/tansu (to ApiVersions; lower is better) {_ratio(same.get('pylog'), same.get('tansu'))}"
                     + f" | pylog/kafka (pylog to ApiVersions; lower is better): Kafka to ApiVersions"
                       f" {_ratio(same.get('pylog'), same.get('kafka'))}, to Metadata listing the broker"
                       f" {_ratio(same.get('pylog'), kafka_ready)}, fresh start incl. format"
                       f" {_ratio(same.get('pylog'), kafka_fresh)}"
                     + f" | goals: serve <= {GOAL_SERVE_MS:.0f} ms {_verdict(serve_ok)},"
                       f" in-process <= {GOAL_INPROC_MS:.0f} ms {_verdict(inproc_ok)}")
        stops = [f"{n} {_ms(statistics.median(spawn[n]['stop']))} ms" for n in BROKERS
                 if spawn.get(n, {}).get("stop")]
        if stops:
            lines.append("  stop (SIGTERM to exit for subprocesses, Kafka's a controlled shutdown; stop() for"
                         " in-process; producer close for the mock), median"
                         + (" (Kafka: of the starts not kept for the load)" if "kafka" in KEEP_LAST_SPAWN else "")
                         + ": " + " | ".join(stops))
        for name in ("pylog",):
            h_notes = handles[name].notes if name in handles else []
            if h_notes:
                lines.append(f"  pylog serve ready line says: {', '.join(h_notes)} (from its own clock, after imports)")
        if "kafka" in handles:
            lines.append(f"  kafka: {'; '.join(handles['kafka'].notes)}; pinned to the broker core from its exec"
                         f" (it sizes its GC and compiler threads for one core); group.initial.rebalance.delay.ms=0,"
                         f" log4j INFO to a file")

        # RSS
        cells = []
        for name in BROKERS:
            if name == "pylog-inproc":
                cells.append("pylog-inproc n/a (client process)")
            elif name == "mock":
                h = handles.get("mock")
                delta = h.rss_delta_mib if h else None
                cells.append(f"mock n/a (in client process; +{delta:.1f} MiB at start)" if delta is not None
                             else nr("mock"))
            elif idle_rss.get(name) is not None:
                after = loaded_rss.get(name)
                cells.append(f"{name} {idle_rss[name]:.1f} MiB" + (f" (after load {after:.0f} MiB)" if after else ""))
            else:
                cells.append(nr(name))
        rss_ok = None if idle_rss.get("pylog") is None else idle_rss["pylog"] <= GOAL_RSS_MIB
        lines.append("idle RSS: " + " | ".join(cells)
                     + f" | pylog/tansu {_ratio(idle_rss.get('pylog'), idle_rss.get('tansu'))}"
                     + f" pylog/kafka {_ratio(idle_rss.get('pylog'), idle_rss.get('kafka'))}"
                     + f" | goal pylog <= {GOAL_RSS_MIB:.0f} MiB {_verdict(rss_ok)}")
        if idle_cpu:
            lines.append(f"idle broker CPU after the load ({IDLE_CPU_S:.0f} s, ms of CPU per s): "
                         + " | ".join(f"{n} {idle_cpu[n]:.1f}" for n in BROKERS if n in idle_cpu)
                         + " (a run's broker CPU below includes this background for the run's length)")

        # throughput rows
        counts = {"produce 100B confluent": f"{CF_100_COUNT // 1000}k, median of {REPS_PRODUCE}",
                  "produce 1KiB confluent": f"{CF_1K_COUNT // 1000}k, median of {REPS_PRODUCE}",
                  "produce 100B kafka-python": f"{KP_COUNT // 1000}k, median of {REPS_PRODUCE}",
                  "consume 100B confluent": f"all {REPS_PRODUCE}x{CF_100_COUNT // 1000}k produced"
                                            f" (mock {MOCK_READBACK['c100'] // 1000}k), median of {REPS_CONSUME}",
                  "consume 100B confluent, mock-sized": f"{MOCK_READBACK['c100'] // 1000}k on every broker,"
                                                        f" median of {REPS_MOCK_SIZED}",
                  "consume 1KiB confluent": f"all {REPS_PRODUCE}x{CF_1K_COUNT // 1000}k produced"
                                            f" (mock {MOCK_READBACK['c1k'] / 1000:g}k), median of {REPS_CONSUME}",
                  "consume 1KiB confluent, mock-sized": f"{MOCK_READBACK['c1k'] / 1000:g}k on every broker,"
                                                        f" median of {REPS_MOCK_SIZED}",
                  f"consume 100B confluent, mock-sized, {ONE_BATCH}": f"{MOCK_READBACK['c100'] // 1000}k,"
                                                                      f" median of {REPS_MOCK_SIZED}",
                  f"consume 1KiB confluent, mock-sized, {ONE_BATCH}": f"{MOCK_READBACK['c1k'] / 1000:g}k,"
                                                                      f" median of {REPS_MOCK_SIZED}",
                  "consume 100B kafka-python": f"all {REPS_PRODUCE}x{KP_COUNT // 1000}k produced"
                                               f" (mock {MOCK_READBACK['kp100'] // 1000}k), median of {REPS_CONSUME}"}
        every_peer = ("tansu", "kafka", "mock")
        same_length = ("pylog >= every peer of the same length (the mock: the mock-sized row)", ("tansu", "kafka"))
        goals = {"produce 100B confluent": ("pylog >= tansu", ("tansu",)),
                 "produce 1KiB confluent": ("pylog >= tansu", ("tansu",)),
                 "produce 100B kafka-python": ("pylog not slower than tansu", ("tansu",)),
                 "consume 100B confluent": same_length,
                 "consume 1KiB confluent": same_length,
                 "consume 100B kafka-python": ("pylog not slower than tansu", ("tansu",)),
                 "consume 100B confluent, mock-sized": ("pylog >= every peer", every_peer),
                 "consume 1KiB confluent, mock-sized": ("pylog >= every peer", every_peer)}
        for row in counts:
            cells, rates = [], {}
            for name in BROKERS:
                if name not in active:
                    cells.append(nr(name))
                    continue
                text, rate = _cell_run(_median_run(results.get(row, {}).get(name, [])))
                rates[name] = rate
                cells.append(f"{name} {text}")
            line = f"{row} ({counts[row]}): " + " | ".join(cells)
            line += f" | pylog/tansu {_ratio(rates.get('pylog'), rates.get('tansu'))}"
            line += f" pylog/kafka {_ratio(rates.get('pylog'), rates.get('kafka'))}"
            line += f" pylog/mock {_ratio(rates.get('pylog'), rates.get('mock'))}"
            if row == "produce 100B kafka-python":
                lat = []
                for name in BROKERS:
                    run_ = _median_run(results.get(row, {}).get(name, [])) if name in active else None
                    if isinstance(run_, Run) and run_.extra and "request-latency-avg" in run_.extra:
                        lat.append(f"{name} {run_.extra['request-latency-avg']:.1f}")
                if lat:
                    line += " | kafka-python Produce request latency avg ms: " + " ".join(lat)
            peers_measured = [n for n in ("pylog", "tansu", "kafka", "mock") if n in active]
            measured = [rates.get(n) for n in peers_measured]
            if len(measured) >= 3 and "mock" in peers_measured and all(measured) \
                    and max(measured) / min(measured) < 1.0 + CLIENT_BOUND_SPREAD:
                line += (f" | client-bound: {', '.join(n for n in peers_measured if n != 'mock')} and the"
                         f" in-process mock within {CLIENT_BOUND_SPREAD:.0%} of each other")
            if row in goals:
                text, goal_peers = goals[row]
                line += f" | goal {text}: {_goal_verdict(rates, goal_peers)}"
            lines.append(line)
            if row == "consume 100B confluent":
                cells = []
                for name in BROKERS:
                    w = warmup.get(name)
                    if isinstance(w, Run) and w.error is None and w.extra:
                        cells.append(f"{name} {w.extra['first_batch_ms']:.0f} ms")
                    elif name in active:
                        cells.append(f"{name} {w.error if isinstance(w, Run) else w}")
                lines.append(f"  untimed first consume ({WARMUP_CONSUME} records, before the rows), its first batch"
                             f" after: " + " | ".join(cells))
            if row.startswith("consume") and "confluent" in row:
                lines.append("  client CPU per record (this process, every thread, in the timed part; median"
                             " of runs) and share of the wall time it was busy; where a broker keeps the"
                             " client busy all the time, the client is the limit: "
                             + " | ".join(_client_cpu_cell(name, results.get(row, {}).get(name, []), active, nr)
                                          for name in BROKERS))
                lines.append("  first records, assign() to the first batch the application got (median of runs;"
                             " part of the timed run): "
                             + " | ".join(_first_batch_cell(name, results.get(row, {}).get(name, []), active, nr)
                                          for name in BROKERS))
            cpu_cells, per_record = _cpu_cells(cpu_runs.get(row, {}), BROKERS, active, nr)
            lines.append("  broker CPU per record / per MB, median of runs (lower is better): " + " | ".join(cpu_cells)
                         + f" | pylog/kafka {_ratio(per_record.get('pylog'), per_record.get('kafka'))}"
                         + f" pylog/tansu {_ratio(per_record.get('pylog'), per_record.get('tansu'))}"
                         + " (per record and per MB alike: one record size per row)")
            if VERBOSE:
                for name in active:
                    runs = results.get(row, {}).get(name, [])
                    lines.append(f"    {name} runs: " + ", ".join(
                        (f"{_k(r.rate)}" + (f" [{_short(r.error, 60)}]" if r.error else "")
                         + (f" {_fmt_extra(r.extra)}" if r.extra else "")) if isinstance(r, Run) else r
                        for r in runs))

        cells, p50 = [], {}
        for name in BROKERS:
            if name not in active:
                cells.append(nr(name))
                continue
            res = latency.get(name)
            if isinstance(res, str) or res is None:
                cells.append(f"{name} {res or 'n/a'}")
                continue
            values, error = res
            if not values:
                cells.append(f"{name} {error or 'no samples'}")
                continue
            p50[name] = clients.percentile(values, 0.50)
            text = (f"{name} {_ms(p50[name])}/{_ms(clients.percentile(values, 0.99))} ms")
            if error:
                text += f" ({_short(error, 80)})"
            cells.append(text)
        lines.append(f"latency produce->consume p50/p99 ({LATENCY_COUNT} single records, acks=all, flush each,"
                     f" random gaps ~2 ms; consumer fetch.wait.max.ms 500): " + " | ".join(cells)
                     + f" | pylog/tansu p50 {_ratio(p50.get('pylog'), p50.get('tansu'))}"
                     + f" pylog/kafka p50 {_ratio(p50.get('pylog'), p50.get('kafka'))}"
                     + f" pylog/mock p50 {_ratio(p50.get('pylog'), p50.get('mock'))}")
        return lines
    finally:
        peers.close_all(handles, lines)
        peers.close_all(kept, lines)
        noise = _cpu_noise(cpu_start)
        if noise:
            lines.append(noise)
        lines.append(peers.memory_line(memory_costs_us))
        idle = peers.idle_line()
        if idle:
            lines.append(idle)
        lines.append(peers.speed_line(speed_ms))
        peers.pin(0, previous_affinity)  # back to the cores this process had


if __name__ == "__main__":
    started = time.perf_counter()
    for out in run():
        print(out, flush=True)
    print(f"# {time.perf_counter() - started:.1f} s", flush=True)
