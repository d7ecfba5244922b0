"""Broker start over a `__consumer_offsets` that saw many commits, before and after compaction.

    python -m bench.offsets_start_bench        (or: python -m bench offsets_start)
    BENCH_QUICK=1 python -m bench.offsets_start_bench   (a smoke run: 1/100 of the commits)

A pylog data directory is filled in-process (`pylog.testing.EmbeddedBroker`, the group
coordinator's own offset store, so every commit is the batch a real OffsetCommit writes):
100 groups, each committing 10 partitions at a time, 100,000 times in all, so 1,000,000
offset records over 1,000 group partitions, with the log cleaner off and segments of
100 KiB (Kafka's test-only topic config `internal.segment.bytes`, set on
`__consumer_offsets` once it exists: `offsets.topic.segment.bytes` below 1 MiB makes a
topic Kafka's controller refuses): the cleaner never touches a partition's active
segment, so with Kafka's 100 MiB default the whole topic (~60 MB over 50 partitions)
would stay uncompacted. The broker stops cleanly.

Then `pylog serve` is started on that directory (`bench/peers.start_pylog_serve` with
`--data-dir`), timed from its spawn to its first ApiVersions answer, median of 3, against
the same on an empty data directory: that start replays every commit. Then a broker with
the cleaner on runs until `__consumer_offsets` has nothing left to clean, and the start
is timed again: it replays only the live offsets. The topic's size on disk is printed
each time.
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # `python bench/offsets_start_bench.py`
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import peers  # noqa: E402

QUICK = os.environ.get("BENCH_QUICK", "") not in ("", "0")
GROUPS = 100
PARTITIONS_PER_COMMIT = 10
COMMITS = 1_000 if QUICK else 100_000   # commit requests; each holds PARTITIONS_PER_COMMIT offsets
STARTS = 1 if QUICK else 3
CHUNK = 1_000                           # commits per call onto the broker's loop


SEGMENT_BYTES = 100 * 1024


def fill(data_dir: Path) -> float:
    """Write the commits; return the seconds it took."""
    from pylog.coordinator.offsets import CommittedOffset
    from pylog.testing import EmbeddedBroker

    broker = EmbeddedBroker(data_dir, config={"log.cleaner.enable": "false"}).start()
    started = time.perf_counter()
    try:
        store = broker.broker.offset_store

        def commit_chunk(first: int) -> None:
            for n in range(first, min(first + CHUNK, COMMITS)):
                group = f"group-{n % GROUPS}"
                offset = n // GROUPS
                store.commit(group, {(f"topic-{n % GROUPS}", p): CommittedOffset(offset)
                                     for p in range(PARTITIONS_PER_COMMIT)})

        broker.call(lambda: store.ensure_topic())
        small_segments(broker)
        for first in range(0, COMMITS, CHUNK):
            broker.call(commit_chunk, first)
    finally:
        broker.stop()
    return time.perf_counter() - started


def small_segments(broker) -> None:
    """`internal.segment.bytes` SEGMENT_BYTES on __consumer_offsets (IncrementalAlterConfigs,
    confluent-kafka's admin client), once every partition's log has taken it."""
    from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, ResourceType

    resource = ConfigResource(ResourceType.TOPIC, "__consumer_offsets", incremental_configs=[
        ConfigEntry("internal.segment.bytes", str(SEGMENT_BYTES), incremental_operation=AlterConfigOpType.SET)])
    admin = AdminClient({"bootstrap.servers": broker.bootstrap_servers})
    admin.incremental_alter_configs([resource])[resource].result(timeout=30)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        sizes = broker.call(lambda: {partition.log.config.max_segment_bytes
                                     for (topic, _), partition in broker.broker.partitions.items()
                                     if topic == "__consumer_offsets"})
        if sizes == {SEGMENT_BYTES}:
            return
        time.sleep(0.05)
    raise RuntimeError("__consumer_offsets did not take internal.segment.bytes")


def compact(data_dir: Path) -> float:
    """Run a broker with the cleaner on until __consumer_offsets has nothing left to clean;
    return the seconds it took."""
    from pylog.testing import EmbeddedBroker

    broker = EmbeddedBroker(data_dir, config={"log.cleaner.backoff.ms": 100}).start()
    started = time.perf_counter()
    try:
        deadline = started + 600
        while time.perf_counter() < deadline:
            before = broker.call(lambda: broker.broker.log_cleaner.passes)
            time.sleep(1.0)
            if broker.call(lambda: broker.broker.log_cleaner.passes) == before \
                    and not broker.call(lambda: bool(broker.broker.log_cleaner.in_progress)):
                break
    finally:
        broker.stop()
    return time.perf_counter() - started


def start_ms(data_dir: Path | None) -> float:
    extra = ["--data-dir", str(data_dir)] if data_dir is not None else []
    handle = peers.start_pylog_serve(timeout=120.0, extra_args=extra)
    try:
        return handle.spawn["ApiVersions answered"]
    finally:
        handle.close()


def topic_bytes(data_dir: Path, topic: str) -> int:
    return sum(f.stat().st_size for d in data_dir.glob(f"{topic}-*") for f in d.glob("*.log"))


def run() -> list[str]:
    tmp = Path(tempfile.mkdtemp(prefix="bench-offsets-"))
    try:
        data_dir = tmp / "data"
        fill_s = fill(data_dir)
        size = topic_bytes(data_dir, "__consumer_offsets")
        empty = statistics.median(start_ms(None) for _ in range(STARTS))
        full = statistics.median(start_ms(data_dir) for _ in range(STARTS))
        compact_s = compact(data_dir)
        compacted_size = topic_bytes(data_dir, "__consumer_offsets")
        compacted = statistics.median(start_ms(data_dir) for _ in range(STARTS))
        records = COMMITS * PARTITIONS_PER_COMMIT
        return [
            f"filled: {records:,} offset commits ({COMMITS:,} requests x {PARTITIONS_PER_COMMIT} partitions, "
            f"{GROUPS} groups, {GROUPS * PARTITIONS_PER_COMMIT:,} group partitions) in {fill_s:.1f} s; "
            f"__consumer_offsets holds {size / 1e6:.1f} MB; compacted in {compact_s:.1f} s to "
            f"{compacted_size / 1e6:.2f} MB",
            f"pylog serve spawn to ApiVersions answered (median of {STARTS}): empty data dir {empty:.0f} ms | "
            f"with that __consumer_offsets {full:.0f} ms | compacted {compacted:.0f} ms | goal under 1 s "
            f"after compaction: {'MET' if compacted < 1000 else 'MISSED'}",
        ]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    for line in run():
        print(line)
