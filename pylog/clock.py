"""Wall-clock time in milliseconds, the unit Kafka uses for timestamps and timeouts."""

import time


def now_ms() -> int:
    return time.time_ns() // 1_000_000
