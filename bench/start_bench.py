"""How long `pylog serve` takes to start, against the floor of the interpreter it runs on.

    python -m bench.start_bench          (BENCH_QUICK=1: 3 starts instead of 10)

Printed:
- `pylog serve --port 0` on a fresh data directory, spawn to its first ApiVersions answer,
  median of 10 (bench/peers.py `start_pylog_serve`; the broker on one core, this process on
  the other). The goal line is issue 16's: <= 150 ms;
- the floor on this machine: the same interpreter spawned to import asyncio and uvloop (what
  any asyncio broker in Python loads) and exit, median of 10, each run right after one of
  the starts above, so that a busy moment of the machine weighs on both. What is above it is
  pylog's: its own imports and its start, the median of the ten differences;
- where pylog's import time goes: `python -X importtime -c "import pylog.broker"`, the
  modules of this repository with the largest self time, and the total of the import;
- `pylog cluster --brokers 3` (a controller and three broker processes, each a
  `pylog serve`), spawn to its ready line (every broker registered and unfenced) and then
  SIGTERM to exit (each broker's controlled shutdown), median of 5. The goal line is
  issue 16's: well under a second, taken as < 1 s;
- the `kafka_broker` pytest fixture's broker (`pylog.testing.EmbeddedBroker`, in this
  process, imports done): start to serving and stop, median of 10: what a test that takes
  a fresh broker pays;
- the same broker's first group: a FindCoordinator on a fresh broker, sent to its answer
  (the broker creates `__consumer_offsets` meanwhile), with the test brokers' 5 partitions
  (pylog/testing.py `TEST_DEFAULTS`) and with Kafka's 50 (`test_defaults={}`), alternated,
  median of 10 each (the coordinator's modules imported by a first run not counted);
- the machine's speed before and after (bench/peers.py `python_speed_ms`).

Apache Kafka's start is in bench/broker_bench.py (several seconds: a JVM and KRaft).
"""

from __future__ import annotations

import os
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time

if __package__ in (None, ""):  # `python bench/start_bench.py`
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import peers  # noqa: E402

QUICK = os.environ.get("BENCH_QUICK", "") not in ("", "0")
STARTS = 3 if QUICK else 10
CLUSTER_STARTS = 2 if QUICK else 5
GOAL_MS = 150.0
CLUSTER_GOAL_MS = 1000.0
CLUSTER_READY_PREFIX = "pylog cluster ready"
OWN_PACKAGES = ("pylog", "storage", "protocol")


def _floor_once_ms(cpus) -> float:
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", "import asyncio, uvloop"], env=peers.pylog_env())
    peers.pin(proc.pid, cpus)
    proc.wait()
    return (time.perf_counter() - started) * 1000


def _import_profile() -> list[str]:
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", "import pylog.broker"], env=peers.pylog_env(),
                          capture_output=True, text=True, check=True)
    own, total_us = [], 0
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        fields = line[len("import time:"):].split("|")
        try:
            self_us, cumulative_us = int(fields[0]), int(fields[1])
        except ValueError:
            continue   # the header line
        name = fields[2].strip()
        if name == "pylog.broker":
            total_us = cumulative_us
        if name.split(".")[0] in OWN_PACKAGES:
            own.append((self_us, name))
    own.sort(reverse=True)
    own_us = sum(us for us, _ in own)
    lines = [f"import pylog.broker: {total_us / 1000:.0f} ms under -X importtime (which adds its own cost), "
             f"{own_us / 1000:.0f} ms of it in the self time of {len(own)} modules of this repository; the largest:"]
    lines += [f"  {us / 1000:5.1f} ms  {name}" for us, name in own[:10]]
    return lines


def _cluster_ms(cpus) -> tuple[float, float]:
    """`pylog cluster --brokers 3`: median spawn-to-ready and SIGTERM-to-exit, in ms."""
    starts, stops = [], []
    for _ in range(CLUSTER_STARTS):
        started = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "pylog", "cluster", "--brokers", "3"], env=peers.pylog_env(),
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                text=True)
        peers.pin(proc.pid, cpus)   # before it spawns its nodes, which inherit it
        try:
            line = proc.stdout.readline()
            if not line.startswith(CLUSTER_READY_PREFIX):
                raise RuntimeError(f"pylog cluster did not start: {line!r}")
            starts.append((time.perf_counter() - started) * 1000)
            stopping = time.perf_counter()
            proc.send_signal(signal.SIGTERM)
            proc.wait(60)
            stops.append((time.perf_counter() - stopping) * 1000)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdout.close()
    return statistics.median(starts), statistics.median(stops)


def _embedded_ms() -> tuple[float, float]:
    """The fixture's in-process broker: median start and stop, in ms (imports done before)."""
    from pylog.testing import EmbeddedBroker

    starts, stops = [], []
    for _ in range(STARTS + 1):   # the first start, which also compiles the codecs, not counted
        with tempfile.TemporaryDirectory(prefix="bench-embedded-") as data_dir:
            started = time.perf_counter()
            broker = EmbeddedBroker(data_dir).start()
            stopping = time.perf_counter()
            broker.stop()
            starts.append((stopping - started) * 1000)
            stops.append((time.perf_counter() - stopping) * 1000)
    return statistics.median(starts[1:]), statistics.median(stops[1:])


def _first_group_ms() -> dict[int, float]:
    """Per `__consumer_offsets` partition count: the median time from sending a fresh
    in-process broker its first FindCoordinator to the answer, in ms."""
    from pylog.testing import EmbeddedBroker
    from protocol.headers import encode_request
    from protocol.messages import FindCoordinatorRequest, RequestHeader

    header = RequestHeader(request_api_key=FindCoordinatorRequest.api_key, request_api_version=4,
                           correlation_id=1, client_id="bench")
    body = bytes(encode_request(header, FindCoordinatorRequest(key_type=0, coordinator_keys=["bench-group"])))
    request = struct.pack(">i", len(body)) + body
    runs: dict[int, list[float]] = {5: [], 50: []}
    for index in range(2 * STARTS + 1):   # the first imports the coordinator: not counted
        partitions = 5 if index % 2 else 50
        with tempfile.TemporaryDirectory(prefix="bench-embedded-") as data_dir:
            broker = EmbeddedBroker(data_dir, test_defaults={"offsets.topic.num.partitions": partitions}).start()
            try:
                with socket.create_connection((broker.host, broker.port), timeout=30) as sock:
                    started = time.perf_counter()
                    sock.sendall(request)
                    (size,) = struct.unpack(">i", peers._recv_exact(sock, 4))
                    peers._recv_exact(sock, size)
                    if index:
                        runs[partitions].append((time.perf_counter() - started) * 1000)
            finally:
                broker.stop()
    return {partitions: statistics.median(times) for partitions, times in runs.items()}


def run() -> list[str]:
    all_cpus = set(peers.cores())   # (before this process is pinned: its children inherit that)
    broker_cpus, client_cpus = peers.pinning()
    peers.pin(os.getpid(), client_cpus)
    speed_ms = peers.python_speed_ms()
    spawns, floors = [], []
    for _ in range(STARTS):   # alternated, so that both see the machine as it is at the time
        handle = peers.start_pylog_serve(broker_cpus)
        try:
            spawns.append(handle.spawn["ApiVersions answered"])
        finally:
            handle.close()
        floors.append(_floor_once_ms(broker_cpus))
    spawn_ms = statistics.median(spawns)
    floor_ms = statistics.median(floors)
    own_ms = statistics.median(spawn - floor for spawn, floor in zip(spawns, floors))
    verdict = "met" if spawn_ms <= GOAL_MS else "NOT met"
    cluster_start_ms, cluster_stop_ms = _cluster_ms(all_cpus)   # four processes: every core
    cluster_verdict = "met" if cluster_start_ms < CLUSTER_GOAL_MS else "NOT met"
    embedded_start_ms, embedded_stop_ms = _embedded_ms()
    first_group_ms = _first_group_ms()
    return [
        f"start bench: median of {STARTS}, one run on a shared 2-core machine",
        f"pylog serve, spawn to ApiVersions answered: {spawn_ms:.0f} ms (min {min(spawns):.0f}, "
        f"max {max(spawns):.0f}); goal <= {GOAL_MS:.0f} ms {verdict}",
        f"floor: the interpreter spawned to import asyncio and uvloop and exit: {floor_ms:.0f} ms "
        f"(min {min(floors):.0f}, max {max(floors):.0f}), each run after a pylog start; pylog's own imports "
        f"and start, the median of the differences: {own_ms:.0f} ms",
        *_import_profile(),
        f"pylog cluster --brokers 3, spawn to ready: {cluster_start_ms:.0f} ms (median of {CLUSTER_STARTS}); "
        f"goal < {CLUSTER_GOAL_MS:.0f} ms {cluster_verdict}; SIGTERM to exit: {cluster_stop_ms:.0f} ms",
        f"kafka_broker fixture (EmbeddedBroker, in-process): start {embedded_start_ms:.0f} ms, "
        f"stop {embedded_stop_ms:.0f} ms (median of {STARTS})",
        f"its first group, FindCoordinator sent to answered while __consumer_offsets is created: "
        f"5 partitions (the test brokers' default) {first_group_ms[5]:.0f} ms, 50 (Kafka's) "
        f"{first_group_ms[50]:.0f} ms (median of {STARTS} each)",
        peers.speed_line(speed_ms),
    ]


if __name__ == "__main__":
    print("\n".join(run()))
