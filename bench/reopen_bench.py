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
crash. Everything lives in a temporary directory under /tmp, removed at the end. The last
line is the machine's speed before and after (bench/peers.py `python_speed_ms`).

Apache Kafka beside the partition rows (not 10,000; and only where Java and the reference's
jars are, `make kafka-reference`): the same segment files, written by pylog, loaded by the
reference Kafka's LogManager, timed by its own log line "Loaded N logs in X ms". The topic
is first created in Kafka (so that its metadata knows the partitions and their topic id,
else Kafka would set the logs aside as strays), Kafka is stopped, the segment files,
snapshots and checkpoints pylog wrote replace the empty ones Kafka made (its
`partition.metadata` stays), and Kafka is started twice: after its clean stop, then after
a SIGKILL. One start of each (a JVM: its class loading and a cold JIT are in the figure),
with `num.recovery.threads.per.data.dir` 2 (the compat configuration), on this machine's
two cores.
"""

from __future__ import annotations

import errno
import os
import re
import resource
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from bench import peers
from protocol.records import build_batch
from storage import files
from storage.config import LogConfig
from storage.manager import LogManager

QUICK = bool(os.environ.get("BENCH_QUICK"))
MiB = 1024 * 1024
GOAL_CLEAN_S, GOAL_CRASH_S = 0.5, 1.0


def _batch(now_ms: int, size_bytes: int) -> bytes:
    return build_batch([(b"k", bytes(size_bytes - 80))], timestamp_ms=now_ms)


FILL_PARTITIONS_PER_OPEN = 2_500


def _fill(root: Path, partitions: int, segments: int, segment_bytes: int, log_bytes: int | None = None,
          tail_bytes: int = 0) -> int:
    """Write the directory; return how many segments it holds. The partitions are written
    FILL_PARTITIONS_PER_OPEN at a time, each lot by a LogManager of its own, so that the
    written logs' mapped indexes (a descriptor each before Python 3.13) are let go between
    lots: a reopened log holds one descriptor until its indexes are used."""
    now_ms = int(time.time() * 1000)
    config = LogConfig(internal_segment_bytes=segment_bytes)
    batch_bytes = min(64 * 1024, segment_bytes // 4)
    batch = _batch(now_ms, batch_bytes)
    for first in range(0, partitions, FILL_PARTITIONS_PER_OPEN):
        manager = LogManager.open(root, config, now_ms=now_ms)
        for partition in range(first, min(first + FILL_PARTITIONS_PER_OPEN, partitions)):
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
    config = LogConfig(internal_segment_bytes=segment_bytes)
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


KAFKA_LOADED = re.compile(r"Loaded (\d+) logs in (\d+)ms")
KAFKA_TIMEOUT_S = 180.0


def _kafka_loaded_ms(broker, partitions: int) -> float:
    """Start `broker`; the milliseconds of its LogManager's "Loaded N logs" line of this start."""
    log_path = broker.log_dir / "server.log"
    seen = log_path.read_text(errors="replace").count("\n") if log_path.exists() else 0
    broker.start(timeout_s=KAFKA_TIMEOUT_S)
    lines = log_path.read_text(errors="replace").splitlines()[seen:]
    if any("stray" in line for line in lines):
        raise RuntimeError("Kafka set logs aside as strays: its metadata does not know them")
    loaded = [match for match in map(KAFKA_LOADED.search, lines) if match]
    if not loaded:
        raise RuntimeError("no 'Loaded N logs' line in Kafka's log")
    count, elapsed_ms = int(loaded[-1].group(1)), float(loaded[-1].group(2))
    if count != partitions:
        raise RuntimeError(f"Kafka loaded {count} logs, not {partitions}")
    return elapsed_ms


def _kafka_reopen_ms(pylog_root: Path, partitions: int) -> tuple[float, float]:
    """Kafka's LogManager on the partitions pylog wrote in `pylog_root` (topic "t"): load
    time after a clean stop and after a SIGKILL, in ms (see the module docstring)."""
    from kafka.admin import KafkaAdminClient, NewTopic

    reference = peers.compat_reference()
    root = Path(tempfile.mkdtemp(prefix="pylog-reopen-kafka-", dir="/tmp"))
    data = root / "data"
    broker = reference.KafkaBroker(data, jvm_flags=peers.kafka_broker_jvm_flags())
    try:
        broker.start(timeout_s=KAFKA_TIMEOUT_S)
        admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap_servers)
        try:
            admin.create_topics([NewTopic("t", partitions, 1)], timeout_ms=int(KAFKA_TIMEOUT_S * 1000))
        finally:
            admin.close()
        deadline = time.monotonic() + KAFKA_TIMEOUT_S
        while not all((data / f"t-{p}" / "partition.metadata").exists() for p in range(partitions)):
            if time.monotonic() > deadline:
                raise RuntimeError("Kafka did not create the topic's logs")
            time.sleep(0.2)
        broker.stop()
        for partition in range(partitions):
            kafka_dir, pylog_dir = data / f"t-{partition}", pylog_root / f"t-{partition}"
            for path in kafka_dir.iterdir():
                if path.name != "partition.metadata":
                    path.unlink()
            for path in pylog_dir.iterdir():
                path.rename(kafka_dir / path.name)
        for name in ("recovery-point-offset-checkpoint", "log-start-offset-checkpoint"):
            if (pylog_root / name).exists():
                (pylog_root / name).replace(data / name)
        clean_ms = _kafka_loaded_ms(broker, partitions)
        broker.kill()
        crash_ms = _kafka_loaded_ms(broker, partitions)
        broker.stop()
        return clean_ms, crash_ms
    finally:
        broker.kill()
        shutil.rmtree(root, ignore_errors=True)


def _kafka_line(pylog_root: Path, partitions: int, clean_s: float, crash_s: float) -> str:
    unavailable = peers.kafka_unavailable()
    if unavailable:
        return f"  kafka: not run ({unavailable})"
    try:
        clean_ms, crash_ms = _kafka_reopen_ms(pylog_root, partitions)
    except Exception as e:
        return f"  kafka: FAILED ({e})"
    return (f"  kafka {peers.kafka_version()} (its LogManager's \"Loaded N logs\" line): clean {clean_ms:.0f} ms, "
            f"after a crash {crash_ms:.0f} ms; pylog/kafka clean {clean_s * 1000 / max(clean_ms, 1):.2f}x, "
            f"after a crash {crash_s * 1000 / max(crash_ms, 1):.2f}x (lower is better)")


def _row(label: str, partitions: int, segments: int, segment_bytes: int, *, log_bytes: int | None = None,
         tail_bytes: int = 0, goal: bool = False, kafka: bool = False) -> str:
    root = Path(tempfile.mkdtemp(prefix="pylog-reopen-", dir="/tmp"))
    try:
        try:
            count = _fill(root, partitions, segments, segment_bytes, log_bytes, tail_bytes)
        except OSError as e:
            if e.errno != errno.EMFILE:
                raise
            # a written log's active segment holds three descriptors before Python 3.13 (its
            # .log and one per index map), one from 3.13 on (storage/index.py, "Descriptors")
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
        if kafka:
            # (after the crash open: a clean close again, so that the files are as pylog leaves them)
            LogManager.open(root, LogConfig(internal_segment_bytes=segment_bytes), now_ms=int(time.time() * 1000)).close()
            line += "\n" + _kafka_line(root, partitions, clean_s, crash_s)
        return line
    finally:
        shutil.rmtree(root, ignore_errors=True)


def run() -> list[str]:
    speed_ms = peers.python_speed_ms()
    lines = ["reopen bench: LogManager.open of a data directory, median of 3; one run on a shared 2-core machine"]
    for partitions in ((10, 100) if QUICK else (10, 100, 1000, 10000)):
        lines.append(_row(f"{partitions} partitions x 1 segment", partitions, 1, 1024 * 1024,
                          kafka=partitions <= 1000))
    lines.append(_row("1000 partitions x 10 segments" if not QUICK else "100 partitions x 10 segments",
                      100 if QUICK else 1000, 10, 64 * 1024, goal=not QUICK, kafka=True))
    for log_bytes in ((MiB, 16 * MiB) if QUICK else (MiB, 16 * MiB, 256 * MiB, 1024 * MiB)):
        lines.append(_row(f"1 partition of {log_bytes // MiB} MiB", 1, 0, 64 * MiB, log_bytes=log_bytes))
    lines.append(_row("1 partition of 256 MiB" if not QUICK else "1 partition of 16 MiB", 1, 0, 64 * MiB,
                      log_bytes=(16 if QUICK else 256) * MiB, tail_bytes=MiB))
    lines.append(peers.speed_line(speed_ms))
    return lines


if __name__ == "__main__":
    print("\n".join(run()))
