"""CRC-32C throughput of each candidate library, and memory-copy speed, in one run.

    python -m bench.crc32c_bench

Every rate is also given as a ratio to crcmod measured in the same run, because
absolute figures move by ~20% between runs on a shared machine while ratios hold.
Each figure is the best of a few repeats of a loop that takes ~25 ms; the whole run
takes a few seconds. The buffer is passed as a memoryview of a bytearray, as the
broker holds produced data; google-crc32c accepts only bytes, so it is measured both
on bytes (its best case) and with the bytes(view) copy it forces on the broker.
The memory-copy lines copy the same 1 MiB over and over, so it stays in the CPU
cache: they are an upper bound on copy speed, for scale.
"""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Callable

import crcmod.predefined

from protocol.crc32c import IMPLEMENTATION, crc32c

SIZES_BYTES = (1024 * 1024, 16 * 1024)
REPEATS = 5
TARGET_LOOP_SECONDS = 0.025
GIB = 1024**3


def _candidates() -> list[tuple[str, Callable[[object], int], bool]]:
    """(name, crc function of one buffer, wants bytes) of each installed library."""
    candidates = [(f"protocol.crc32c ({IMPLEMENTATION})", crc32c, False)]
    try:
        import crc32c_rs
        candidates.append(("crc32c-rs", crc32c_rs.crc32c, False))
    except ImportError:
        pass
    try:
        import crc32c as crc32c_package
        candidates.append(("crc32c", crc32c_package.crc32c, False))
    except ImportError:
        pass
    try:
        import google_crc32c
        value = google_crc32c.value
        candidates.append(("google-crc32c (bytes given)", value, True))
        candidates.append(("google-crc32c (copy of view)", lambda view: value(bytes(view)), False))
    except ImportError:
        pass
    candidates.append(("crcmod", crcmod.predefined.mkPredefinedCrcFun("crc-32c"), False))
    return candidates


def _best_seconds_per_call(function: Callable[[object], object], argument) -> float:
    """Best over REPEATS of the mean time of one call, with a loop of ~25 ms."""
    start = time.perf_counter()
    function(argument)
    once = max(time.perf_counter() - start, 1e-7)
    calls = max(1, int(TARGET_LOOP_SECONDS / once))
    best = float("inf")
    for _ in range(REPEATS):
        start = time.perf_counter()
        for _ in range(calls):
            function(argument)
        best = min(best, (time.perf_counter() - start) / calls)
    return best


def _line(name: str, size_bytes: int, seconds: float, crcmod_seconds: float) -> str:
    rate = size_bytes / seconds / GIB
    ratio = crcmod_seconds / seconds
    return f"  {name:<36} {size_bytes // 1024:>5} KiB  {rate:8.2f} GiB/s  {ratio:8.1f}x crcmod"


def run() -> list[str]:
    lines = [f"CRC-32C throughput (Python {platform.python_version()}, {os.cpu_count()} CPUs; "
             f"protocol.crc32c uses {IMPLEMENTATION})"]
    candidates = _candidates()
    for size_bytes in SIZES_BYTES:
        data = bytearray(os.urandom(size_bytes))
        view = memoryview(data)
        as_bytes = bytes(data)
        timings = {}
        for name, function, wants_bytes in candidates:
            timings[name] = _best_seconds_per_call(function, as_bytes if wants_bytes else view)
        crcmod_seconds = timings["crcmod"]
        lines.append(f"{size_bytes // 1024} KiB buffer:")
        for name, seconds in sorted(timings.items(), key=lambda item: item[1]):
            lines.append(_line(name, size_bytes, seconds, crcmod_seconds))

        if size_bytes == 1024 * 1024:
            target = bytearray(size_bytes)
            target_view = memoryview(target)

            def copy_into(source_view, target_view=target_view):
                target_view[:] = source_view

            lines.append("memory copy of 1 MiB, for scale:")
            copies = (("bytes(bytearray)", bytes, data),
                      ("memoryview slice assignment", copy_into, view))
            for name, function, argument in copies:
                seconds = _best_seconds_per_call(function, argument)
                lines.append(_line(name, size_bytes, seconds, crcmod_seconds))
    return lines


if __name__ == "__main__":
    for printed_line in run():
        print(printed_line)
