"""The log cleaner's throughput: MB of dirty log cleaned per second.

    python -m bench.cleaner_bench        (or: python -m bench cleaner)
    BENCH_QUICK=1 python -m bench.cleaner_bench   (a smoke run: 1/20 of the data)

For 100 B and 1 KiB values, and 1% and 50% of the records having a key of their own (the
rest update those keys again), a storage Log (`segment.bytes` 8 MiB, the broker's
defaults otherwise) is filled with ~48 MB of batches of 100 records, as a producer sends
them, and rolled, so that the whole log is inactive and dirty. Then one pass of
`storage.cleaner.clean_log` runs on it, in this process, timed from the first read to the
last rename; printed: the dirty MB cleaned (MB = 10^6 bytes of segment files), the
seconds, MB/s, and the log's size after. Best of 2 passes on fresh copies of the log.

Then the pause the cleaner causes to producers, in a running broker (`pylog serve`, its
own process and core, `log.cleaner.backoff.ms` 100): a compacted topic is filled with
~48 MB of 100 B updates of 1% unique keys by confluent-kafka, and a second producer
(acks=1, linger.ms 0) sends single records to another topic, one at a time, each awaited,
for LATENCY_S seconds while nothing is cleanable (the topic's segments are all active:
`segment.ms` has not passed; SETTLE_S seconds after the fill, so that its flushes are
done), then for LATENCY_S seconds right after one more record
rolls the active segment, which makes the whole topic cleanable: the cleaner copies it in
a worker thread, whose Python code shares the broker's GIL with the event loop. Printed:
p50/p99 of the acknowledgement time in both windows, their ratio (goal: the p99 during
cleaning within 2x of the p99 without), and whether the topic was cleaned by the end of
the second window (its size from DescribeLogDirs).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # `python bench/cleaner_bench.py`
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

QUICK = os.environ.get("BENCH_QUICK", "") not in ("", "0")
TARGET_BYTES = (48 if not QUICK else 2.4) * 1_000_000
RECORDS_PER_BATCH = 100
SEGMENT_BYTES = 8 * 1024 * 1024
REPS = 1 if QUICK else 2
NOW_MS = 1_700_000_000_000


def build(dir: Path, value_bytes: int, unique_share: float):
    from protocol.records import build_batch
    from storage.config import LogConfig
    from storage.log import Log

    config = LogConfig(segment_bytes=SEGMENT_BYTES, cleanup_policy=("compact",), min_cleanable_dirty_ratio=0.0)
    log = Log.open(dir, config, now_ms=NOW_MS)
    per_record = value_bytes + 20
    total = int(TARGET_BYTES // per_record)
    keys = max(1, int(total * unique_share))
    value = b"v" * value_bytes
    for first in range(0, total, RECORDS_PER_BATCH):
        rows = [(b"key-%09d" % (i % keys), value, (), NOW_MS + i) for i in range(first, min(first + RECORDS_PER_BATCH, total))]
        log.append(bytearray(build_batch(rows)), now_ms=NOW_MS)
    log.roll(now_ms=NOW_MS)
    log.run_pending_flush()
    return log, total, keys


def clean_once(source: Path, work: Path) -> tuple[float, int, int]:
    from storage.cleaner import clean_log
    from storage.config import LogConfig
    from storage.log import Log

    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(source, work)
    config = LogConfig(segment_bytes=SEGMENT_BYTES, cleanup_policy=("compact",), min_cleanable_dirty_ratio=0.0)
    log = Log.open(work, config, now_ms=NOW_MS, had_clean_shutdown=True)
    before = log.size_bytes
    started = time.perf_counter()
    result = clean_log(log, checkpoint_offset=None, now_ms=NOW_MS + 1, force=True)
    seconds = time.perf_counter() - started
    after = log.size_bytes
    log.close()
    assert result is not None
    return seconds, before, after


LATENCY_S = 2.0 if QUICK else 6.0
SETTLE_S = 2.0


def _probe(producer, topic: str, seconds: float) -> list[float]:
    """Acknowledgement times (ms) of single records sent one at a time for `seconds`."""
    samples: list[float] = []
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        done: list[float] = []
        sent = time.perf_counter()
        producer.produce(topic, b"x" * 100, on_delivery=lambda err, msg: done.append(time.perf_counter()))
        producer.flush(5)
        if done:
            samples.append((done[0] - sent) * 1000)
    return samples


def _topic_bytes(bootstrap: str, topic: str) -> int:
    from protocol.messages import DescribeLogDirsRequest
    from tests.integration.support import WireClient

    with WireClient(bootstrap) as client:
        response = client.request(35, 1, DescribeLogDirsRequest(topics=[
            DescribeLogDirsRequest.DescribableLogDirTopic(topic=topic, partitions=[0])]))
    return sum(p.partition_size for result in response.results for t in result.topics
               if t.name == topic for p in t.partitions)


def latency_lines() -> list[str]:
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    from bench import peers
    from bench.clients import confluent_produce, percentile

    broker_cpus, _ = peers.pinning()
    handle = peers.start_pylog_serve(broker_cpus, extra_args=["--override", "log.cleaner.backoff.ms=100"])
    try:
        bootstrap = handle.bootstrap
        admin = AdminClient({"bootstrap.servers": bootstrap})
        futures = admin.create_topics([
            NewTopic("dirty", 1, 1, config={"cleanup.policy": "compact", "segment.bytes": str(SEGMENT_BYTES),
                                            "segment.ms": str(int((LATENCY_S + SETTLE_S) * 1000) + 3000),
                                            "min.cleanable.dirty.ratio": "0.01"}),
            NewTopic("probe", 1, 1)])
        for future in futures.values():
            future.result(10)
        filler = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5, "batch.size": 1_000_000,
                           "queue.buffering.max.messages": 1_000_000})
        count = int(TARGET_BYTES // 120)
        keys = max(1, count // 100)
        started = time.perf_counter()
        for i in range(count):
            while True:
                try:
                    filler.produce("dirty", key=b"key-%09d" % (i % keys), value=b"v" * 100)
                    break
                except BufferError:
                    filler.poll(0.01)
        filler.flush(60)
        filled_bytes = _topic_bytes(bootstrap, "dirty")
        time.sleep(SETTLE_S)   # the fill's own flushes and page writeback settle first
        probe = Producer({"bootstrap.servers": bootstrap, "acks": 1, "linger.ms": 0})
        probe.list_topics("probe", timeout=5)
        _probe(probe, "probe", 0.5)   # warm-up
        quiet = _probe(probe, "probe", LATENCY_S)
        while time.perf_counter() - started < LATENCY_S + SETTLE_S + 3.5:   # segment.ms passes
            time.sleep(0.1)
        filler.produce("dirty", key=b"roll", value=b"v")  # rolls the active segment: all of it cleanable
        filler.flush(10)
        busy = _probe(probe, "probe", LATENCY_S)
        cleaned_bytes = _topic_bytes(bootstrap, "dirty")
    finally:
        handle.close()
    q50, q99, b50, b99 = (percentile(quiet, 0.5), percentile(quiet, 0.99), percentile(busy, 0.5),
                          percentile(busy, 0.99))
    ratio = b99 / q99 if q99 else float("nan")
    return [
        f"produce latency (acks=1, single records, {LATENCY_S:.0f} s windows) without cleaning: p50 {q50:.2f} ms "
        f"p99 {q99:.2f} ms ({len(quiet)} records) | while the cleaner compacts {filled_bytes / 1e6:.1f} MB: p50 "
        f"{b50:.2f} ms p99 {b99:.2f} ms ({len(busy)} records) | p99 ratio {ratio:.2f}x | topic after the window "
        f"{cleaned_bytes / 1e6:.1f} MB ({'cleaned' if cleaned_bytes < filled_bytes / 2 else 'not cleaned yet'}) | "
        f"goal p99 within 2x: {'MET' if ratio <= 2 else 'MISSED'}",
    ]


def run() -> list[str]:
    lines = []
    tmp = Path(tempfile.mkdtemp(prefix="bench-cleaner-"))
    try:
        for value_bytes in (100, 1024):
            for unique_share in (0.01, 0.5):
                source = tmp / f"source-{value_bytes}-{unique_share}" / "t-0"
                log, records, keys = build(source, value_bytes, unique_share)
                log.close()
                runs = [clean_once(source, tmp / "work" / "t-0") for _ in range(REPS)]
                seconds, before, after = min(runs)
                lines.append(
                    f"clean {value_bytes} B values, {unique_share:.0%} unique keys ({records:,} records, "
                    f"{keys:,} keys): {before / 1e6:.1f} MB dirty in {seconds:.2f} s = {before / 1e6 / seconds:.1f} MB/s; "
                    f"{after / 1e6:.2f} MB after (best of {REPS})")
                shutil.rmtree(source.parent)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return lines + latency_lines()


if __name__ == "__main__":
    for line in run():
        print(line)
