"""Reading a 1 GiB backlog: the broker's memory and CPU, pylog beside Kafka.

    python -m bench.backlog_bench          (BENCH_QUICK=1: 64 MiB)

On a fresh broker of each kind, one at a time: 1 GiB of 1 KiB records is produced to one
partition (confluent-kafka, linger.ms 5, acks=all), then read back from the beginning by a
confluent-kafka consumer (no group), while the broker's RSS is sampled every 50 ms from
/proc. Printed per broker: the broker's RSS idle (after start), at the end of the produce,
its peak during the read, and 2 s after the read; the read's rate; the broker's CPU time per
MB read (utime + stime of its pid). The goal lines are issue 16's for pylog: consume at
least as fast as Kafka, and RSS after the read within 10 MB of idle.

A backlog this size is read from the page cache on both brokers (the machine has the memory),
so this measures what the broker itself holds and spends, not the disk.
"""

from __future__ import annotations

import os
import sys
import threading
import time

if __package__ in (None, ""):  # `python bench/backlog_bench.py`
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import clients, peers  # noqa: E402

QUICK = os.environ.get("BENCH_QUICK", "") not in ("", "0")
RECORD_BYTES = 1024
BACKLOG_BYTES = (64 if QUICK else 1024) * 1024 * 1024
RECORDS = BACKLOG_BYTES // RECORD_BYTES
GOAL_RSS_AFTER_MB = 10.0
TOPIC = "backlog"


class RssSampler:
    """The peak RSS of a process, sampled on a thread every `interval_s`."""

    def __init__(self, pid: int, interval_s: float = 0.05):
        self.pid, self.interval_s = pid, interval_s
        self.peak_mib = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            rss = peers.rss_mib(self.pid)
            if rss is not None:
                self.peak_mib = max(self.peak_mib, rss)
            self._stop.wait(self.interval_s)

    def __enter__(self) -> "RssSampler":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def _measure(name: str, cpus) -> tuple[str, dict]:
    try:
        handle = peers.start_kafka(cpus) if name == "kafka" else peers.start_pylog_serve(cpus)
    except Exception as exc:
        return f"{name}: did not start: {exc}", {}
    try:
        idle = peers.rss_mib(handle.pid)
        problem = clients.confluent_warmup(handle.bootstrap, TOPIC)
        if problem:
            return f"{name}: {problem}", {}
        produced = clients.confluent_produce(handle.bootstrap, TOPIC, RECORDS, RECORD_BYTES, time_limit=300)
        if produced.error:
            return f"{name}: produce failed: {produced.error}", {}
        after_produce = peers.rss_mib(handle.pid)
        cpu_before = peers.cpu_seconds(handle.pid)
        with RssSampler(handle.pid) as sampler:
            read = clients.confluent_consume(handle.bootstrap, TOPIC, RECORDS, time_limit=300)
        cpu_s = peers.cpu_seconds(handle.pid) - cpu_before
        time.sleep(2)
        after = peers.rss_mib(handle.pid)
        if read.error:
            return f"{name}: read failed: {read.error}", {}
        mb = read.payload_bytes / 1e6
        figures = {"rate_mb_s": mb / read.seconds, "idle": idle, "after": after}
        return (f"{name}: RSS idle {idle:.0f} MiB, after the produce {after_produce:.0f} MiB, peak during the read "
                f"{sampler.peak_mib:.0f} MiB, 2 s after it {after:.0f} MiB; read {mb:,.0f} MB at "
                f"{figures['rate_mb_s']:,.0f} MB/s ({read.records / read.seconds / 1000:,.0f}k records/s); "
                f"broker CPU {cpu_s * 1000 / mb:.2f} ms per MB read"), figures
    finally:
        handle.close()


def run() -> list[str]:
    broker_cpus, client_cpus = peers.pinning()
    peers.pin(os.getpid(), client_cpus)
    lines = [f"backlog bench: {BACKLOG_BYTES // (1024 * 1024):,} MiB of {RECORD_BYTES} B records in one partition, "
             "produced then read from the beginning with confluent-kafka; one run on a shared 2-core machine"]
    figures = {}
    for name in ("pylog", "kafka"):
        line, figures[name] = _measure(name, broker_cpus)
        lines.append("  " + line)
    pylog, kafka = figures.get("pylog") or {}, figures.get("kafka") or {}
    if pylog:
        growth_mb = (pylog["after"] - pylog["idle"]) * 1.048576
        lines.append(f"  goal: pylog's RSS 2 s after the read within {GOAL_RSS_AFTER_MB:.0f} MB of idle: "
                     f"{growth_mb:+.1f} MB, {'met' if growth_mb <= GOAL_RSS_AFTER_MB else 'NOT met'}")
    if pylog and kafka:
        ratio = pylog["rate_mb_s"] / kafka["rate_mb_s"]
        lines.append(f"  pylog/Kafka read rate {ratio:.2f}x (goal >= 1, within 5% a tie: "
                     f"{'met' if ratio >= 0.95 else 'NOT met'})")
    return lines


if __name__ == "__main__":
    print("\n".join(run()))
