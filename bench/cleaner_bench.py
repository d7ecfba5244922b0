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

What it leaves out: the produce latency the cleaner causes in a running broker (the copy
runs in a worker thread there, and only the swap on the event loop).
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
    return lines


if __name__ == "__main__":
    for line in run():
        print(line)
