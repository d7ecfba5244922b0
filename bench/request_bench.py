"""One small request's round trip: how long a client waits for an answer, pylog beside
tansu, the reference Apache Kafka and the librdkafka mock, in one run.

    python -m bench.request_bench        (BENCH_QUICK=1: fewer connections, a smoke run)

A test suite talks to its broker mostly in small requests, each a round trip the test
waits for: every client opens its connections with ApiVersions, asks for Metadata, looks
up coordinators and offsets before it reads a record. In a short run (broker_bench's
"mock-sized" consume rows last some 30 ms) these round trips are a share of the time.

Per broker, over CONNECTIONS fresh connections, each opened by this process (on its own
core; the broker on the other, as in broker_bench) and then used for REPEATS requests of
each kind, waiting for each answer before the next:

- connect: the TCP connect;
- first request: ApiVersions v0 as the first request on the fresh connection;
- ApiVersions v0 and Metadata v12 for one topic (created beforehand by a produce), on the
  open connection, each sent as soon as the previous answer arrived;
- ApiVersions v0 after the connection was quiet for IDLE_MS, REPEATS times on each of
  IDLE_CONNECTIONS connections, apart from the CPU figure below: a client's requests seldom
  come back to back (a consumer's ListOffsets, FindCoordinator and first Fetch come between
  its own work), and a broker left idle that long answers slower (here every broker, 2.5–5
  times slower than at once: its core has to be woken);

medians and 90th percentiles in µs, and the ratios of pylog's medians to each peer's
(lower is faster). For the brokers that are processes of their own, the broker's CPU per
request: utime + stime of its pid over the connections and requests of the first four
kinds, divided by those requests. The mock runs inside this process (a C broker on its own threads), so its CPU
is not told apart. No goal is set: the figure is for scale.
"""

from __future__ import annotations

import os
import socket
import statistics
import struct
import sys
import time

if __package__ in (None, ""):  # `python bench/request_bench.py`
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import clients, peers  # noqa: E402
from protocol.headers import encode_request  # noqa: E402
from protocol.messages import MetadataRequest, RequestHeader  # noqa: E402

QUICK = os.environ.get("BENCH_QUICK", "") not in ("", "0")
BROKERS = ("pylog", "tansu", "kafka", "mock")
CONNECTIONS = 20 if QUICK else 200
REPEATS = 5
TOPIC = "request-bench"
METADATA_VERSION = 12
IDLE_MS = 5
IDLE_CONNECTIONS = 5 if QUICK else 40
IDLE_KIND = f"ApiVersions after {IDLE_MS} ms idle"   # timed by measure_idle, apart from the others
KINDS = ("connect", "first request", "ApiVersions", "Metadata", IDLE_KIND)


def _frame(body: bytes) -> bytes:
    return struct.pack(">i", len(body)) + body


def _metadata_request(correlation_id: int) -> bytes:
    header = RequestHeader(request_api_key=MetadataRequest.api_key, request_api_version=METADATA_VERSION,
                           correlation_id=correlation_id, client_id="bench")
    body = MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name=TOPIC)],
                           allow_auto_topic_creation=False)
    return _frame(bytes(encode_request(header, body)))


def _round_trip_us(sock: socket.socket, request: bytes, correlation_id: int) -> float:
    started = time.perf_counter()
    sock.sendall(request)
    (size,) = struct.unpack(">i", peers._recv_exact(sock, 4))
    answer = peers._recv_exact(sock, size)
    elapsed = (time.perf_counter() - started) * 1e6
    (answered_id,) = struct.unpack_from(">i", answer)
    if answered_id != correlation_id:
        raise RuntimeError(f"answer for correlation id {answered_id}, expected {correlation_id}")
    return elapsed


def measure(port: int) -> dict[str, list[float]]:
    """Round trips in µs by kind, over CONNECTIONS fresh connections."""
    times: dict[str, list[float]] = {kind: [] for kind in KINDS if kind != IDLE_KIND}
    api_versions = peers._api_versions_v0(1)
    metadata = _metadata_request(2)
    for _ in range(CONNECTIONS):
        started = time.perf_counter()
        sock = socket.create_connection((peers.HOST, port), timeout=5)
        times["connect"].append((time.perf_counter() - started) * 1e6)
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            times["first request"].append(_round_trip_us(sock, api_versions, 1))
            for _ in range(REPEATS):
                times["ApiVersions"].append(_round_trip_us(sock, api_versions, 1))
                times["Metadata"].append(_round_trip_us(sock, metadata, 2))
        finally:
            sock.close()
    return times


def measure_idle(port: int) -> list[float]:
    """ApiVersions round trips in µs, each after IDLE_MS of quiet on its connection."""
    times = []
    api_versions = peers._api_versions_v0(1)
    for _ in range(IDLE_CONNECTIONS):
        sock = socket.create_connection((peers.HOST, port), timeout=5)
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            _round_trip_us(sock, api_versions, 1)
            for _ in range(REPEATS):
                time.sleep(IDLE_MS / 1000)
                times.append(_round_trip_us(sock, api_versions, 1))
        finally:
            sock.close()
    return times


def _p90(values: list[float]) -> float:
    return sorted(values)[int(len(values) * 0.9)]


def run() -> list[str]:
    broker_cpus, client_cpus = peers.pinning()
    previous_affinity = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    peers.pin(0, client_cpus)
    peers.start_reaper()
    results: dict[str, dict[str, list[float]] | str] = {}
    cpu_per_request: dict[str, float | None] = {}
    try:
        for name in BROKERS:
            try:
                handle = peers.STARTERS[name](broker_cpus)
            except Exception as exc:
                results[name] = f"did not start: {' '.join(str(exc).split())[:120]}"
                continue
            try:
                error = clients.confluent_warmup(handle.bootstrap, TOPIC)
                if error:
                    results[name] = f"produce to {TOPIC!r} failed: {error}"
                    continue
                measure(handle.port)   # untimed: code loaded and paths warmed on every side
                cpu_before = handle.cpu_seconds()
                results[name] = measure(handle.port)
                cpu_after = handle.cpu_seconds()
                results[name][IDLE_KIND] = measure_idle(handle.port)
                requests = CONNECTIONS * (1 + 2 * REPEATS)
                cpu_per_request[name] = (None if cpu_before is None or cpu_after is None
                                         else (cpu_after - cpu_before) / requests * 1e6)
            except Exception as exc:
                results[name] = f"error: {' '.join(str(exc).split())[:120]}"
            finally:
                handle.close()
    finally:
        if previous_affinity:
            os.sched_setaffinity(0, previous_affinity)

    lines = [f"request round trips: {CONNECTIONS} fresh connections per broker, {REPEATS} requests of each kind"
             f" on each (Metadata v{METADATA_VERSION} for one topic); median (p90) in µs; broker on core"
             f" {sorted(broker_cpus or [])}, client on core {sorted(client_cpus or [])}"]
    for kind in KINDS:
        cells, medians = [], {}
        for name in BROKERS:
            result = results.get(name)
            if isinstance(result, dict) and result[kind]:
                medians[name] = statistics.median(result[kind])
                cells.append(f"{name} {medians[name]:.0f} ({_p90(result[kind]):.0f})")
            else:
                cells.append(f"{name} {result if isinstance(result, str) else 'n/a'}")
        ratios = " ".join(f"pylog/{peer} {medians['pylog'] / medians[peer]:.2f}x"
                          for peer in BROKERS[1:] if medians.get("pylog") and medians.get(peer))
        lines.append(f"{kind}: " + " | ".join(cells) + (f" | {ratios}" if ratios else ""))
    cells = []
    for name in BROKERS:
        value = cpu_per_request.get(name)
        cells.append(f"{name} " + (f"{value:.0f} µs" if value is not None else
                                   "n/a (in this process)" if name == "mock" else "n/a"))
    lines.append("broker CPU per request (connections and requests sent at once, the idle ones apart): " + " | ".join(cells))
    return lines


if __name__ == "__main__":
    for line in run():
        print(line)
