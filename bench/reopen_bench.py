"""How opening a data directory grows with the number of partitions and with log size.

    python -m bench.reopen_bench          (BENCH_QUICK=1 for a smoke run: small counts)

What it times (`LogManager.open`, the storage part of a broker's start; the median of three
opens of the same directory, in this process):

- clean: after a clean close (the `.kafka_cleanshutdown` marker): no segment data read;
- after a crash: the same directory without the marker, everything flushed before (the
  recovery point at the log end, as `recovery-point-offset-checkpoint` says), so recovery
  has nothing to validate and the cost is that of an unclean open itself;
- after a crash with an unflushed tail: the last 1 MiB of the one partition's log appended
  after the last flush, so recovery validates that tail (only that, whatever the log's size).

Rows: 10, 100, 1,000 and 10,000 partitions of one segment each, 1,000 partitions of 10
segments each, and one partition of 1 MB to 1 GB (segments of 64 MiB). The goal lines are
issue 16's: 1,000 partitions of 10 segments reopened in <= 0.5 s clean and <= 1 s after a
crash. Everything lives in a temporary directory under /tmp, removed at the end. Apache
Kafka is not beside these rows: its LogManager is not timed apart from the JVM's start here.
"""

from __future__ import annotations

import errno
import os
import resource
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from protocol.records import build_batch
from storage import files
from storage.config import LogConfig
from storage.manager import LogManager

QUICK = bool(os.environ.get("BENCH_QUICK"))
MiB = 1024 * 1024
GOAL_CLEAN_S, GOAL_CRASH_S = 0.5, 1.0


def _batch(now_ms: int, size_bytes: int) -> bytes:
    return build_batch([(b"k", bytes(size_bytes - 80))], timestamp_ms=now_ms)


def _fill(root: Path, partitions: int, segments: int, segment_bytes: int, log_bytes: int | None = None,
          tail_bytes: int = 0) -> int:
    """Write the directory; return how many segments it holds."""
    now_ms = int(time.time() * 1000)
    config = LogConfig(segment_bytes=segment_bytes)
    batch_bytes = min(64 * 1024, segment_bytes // 4)
    batch = _batch(now_ms, batch_bytes)
    manager = LogManager.open(root, config, now_ms=now_ms)
    for partition in range(partitions):
        log = manager.get_or_create_log("t", partition, now_ms=now_ms)
        target = log_bytes if log_bytes is not None else segments * segment_bytes - batch_bytes
        written = 0
        while written < target:
            log.append(bytearray(batch), now_ms=now_ms)
            written += len(batch)
        log.flush(now_ms=now_ms)
    manager.close()
    if tail_bytes:
        manager = LogManager.open(root, config, now_ms=now_ms)
        log = manager.get_or_create_log("t", 0, now_ms=now_ms)
        log.flush(now_ms=now_ms)
        for _ in range(tail_bytes // len(batch)):
            log.append(bytearray(batch), now_ms=now_ms)
        manager.write_checkpoints()   # the recovery point: below the tail
        manager.close_handlers()   # a crash: no flush of the tail, no clean-shutdown marker
    return sum(1 for d in root.iterdir() if d.is_dir() for f in d.iterdir() if f.name.endswith(files.LOG_FILE_SUFFIX))


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def _open_s(root: Path, segment_bytes: int, *, crash: bool) -> float:
    config = LogConfig(segment_bytes=segment_bytes)
    marker = root / files.CLEAN_SHUTDOWN_FILE_NAME
    times = []
    for _ in range(1 if QUICK else 3):
        if crash and marker.exists():
            marker.unlink()
        started = time.perf_counter()
        manager = LogManager.open(root, config, now_ms=int(time.time() * 1000))
        times.append(time.perf_counter() - started)
        if crash:
            manager.close_handlers()
        else:
            manager.close()
    return statistics.median(times)


def _row(label: str, partitions: int, segments: int, segment_bytes: int, *, log_bytes: int | None = None,
         tail_bytes: int = 0, goal: bool = False) -> str:
    root = Path(tempfile.mkdtemp(prefix="pylog-reopen-", dir="/tmp"))
    try:
        try:
            count = _fill(root, partitions, segments, segment_bytes, log_bytes, tail_bytes)
        except OSError as e:
            if e.errno != errno.EMFILE:
                raise
            # an active segment holds three descriptors: its .log and one per index mapping
            return (f"{label}: FAILED to create: {e.strerror} at {_open_fds()} open descriptors "
                    f"(ulimit -n {resource.getrlimit(resource.RLIMIT_NOFILE)[0]})")
        if tail_bytes:
            crash_s = _open_s(root, segment_bytes, crash=True)
            return (f"{label}: {count} segment(s); after a crash with {tail_bytes // MiB} MiB unflushed: "
                    f"{crash_s * 1000:.0f} ms")
        clean_s = _open_s(root, segment_bytes, crash=False)
        crash_s = _open_s(root, segment_bytes, crash=True)
        line = f"{label}: {count} segment(s); clean {clean_s * 1000:.0f} ms, after a crash {crash_s * 1000:.0f} ms"
        if goal:
            line += (f"; goal clean <= {GOAL_CLEAN_S * 1000:.0f} ms {'met' if clean_s <= GOAL_CLEAN_S else 'NOT met'}, "
                     f"after a crash <= {GOAL_CRASH_S * 1000:.0f} ms {'met' if crash_s <= GOAL_CRASH_S else 'NOT met'}")
        return line
    finally:
        shutil.rmtree(root, ignore_errors=True)


def run() -> list[str]:
    lines = ["reopen bench: LogManager.open of a data directory, median of 3; one run on a shared 2-core machine"]
    for partitions in ((10, 100) if QUICK else (10, 100, 1000, 10000)):
        lines.append(_row(f"{partitions} partitions x 1 segment", partitions, 1, 1024 * 1024))
    lines.append(_row("1000 partitions x 10 segments" if not QUICK else "100 partitions x 10 segments",
                      100 if QUICK else 1000, 10, 64 * 1024, goal=not QUICK))
    for log_bytes in ((MiB, 16 * MiB) if QUICK else (MiB, 16 * MiB, 256 * MiB, 1024 * MiB)):
        lines.append(_row(f"1 partition of {log_bytes // MiB} MiB", 1, 0, 64 * MiB, log_bytes=log_bytes))
    lines.append(_row("1 partition of 256 MiB" if not QUICK else "1 partition of 16 MiB", 1, 0, 64 * MiB,
                      log_bytes=(16 if QUICK else 256) * MiB, tail_bytes=MiB))
    return lines


if __name__ == "__main__":
    print("\n".join(run()))
