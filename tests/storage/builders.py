"""Helpers for storage tests: batches, a manual clock, small configs, file inspection."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

from protocol.records import Compression, build_batch, iter_batch_headers, iter_records
from storage.config import LogConfig

BASE_TIME_MS = 1_700_000_000_000


@dataclass
class Clock:
    """A clock that moves only when told (time enters storage as now_ms)."""

    now_ms: int = BASE_TIME_MS

    def advance(self, ms: int) -> int:
        self.now_ms += ms
        return self.now_ms


def make_batch(
    records: int = 1,
    *,
    value_bytes: int = 10,
    timestamp_ms: int = BASE_TIME_MS,
    timestamps: list[int] | None = None,
    key: bytes | None = b"key",
    compression: Compression = Compression.NONE,
    tag: int = 0,
) -> bytes:
    """A batch of `records` records (offsets from 0, as a producer sends it).

    `timestamps` gives each record its own timestamp; `tag` makes values distinct.
    """
    rows = []
    for i in range(records):
        value = (b"%d:%d:" % (tag, i)).ljust(value_bytes, b"x")
        ts = timestamps[i] if timestamps is not None else timestamp_ms
        rows.append((key, value, (), ts))
    return build_batch(rows, compression=compression, timestamp_ms=timestamp_ms)


def small_config(**overrides) -> LogConfig:
    """Small segments and a dense index, so that tests roll and index often."""
    settings = dict(internal_segment_bytes=4096, index_interval_bytes=256, segment_index_bytes=4096, file_delete_delay_ms=0)
    settings.update(overrides)
    return LogConfig(**settings)


def read_offset_index(path: Path, base_offset: int) -> list[tuple[int, int]]:
    """(offset, position) entries of a .index file, parsed with struct alone."""
    data = path.read_bytes()
    assert len(data) % 8 == 0
    return [(base_offset + rel, pos) for rel, pos in struct.iter_unpack(">ii", data)]


def read_time_index(path: Path, base_offset: int) -> list[tuple[int, int]]:
    """(timestamp, offset) entries of a .timeindex file, parsed with struct alone."""
    data = path.read_bytes()
    assert len(data) % 12 == 0
    return [(ts, base_offset + rel) for ts, rel in struct.iter_unpack(">qi", data)]


def records_of(data: bytes) -> list:
    """Every record of every whole batch in `data`."""
    out = []
    for position, _ in iter_batch_headers(data):
        out.extend(iter_records(data, position))
    return out


def expected_index_entries(batches: list[tuple[int, int, int]], index_interval_bytes: int):
    """Kafka's sparse-index rule, computed independently of storage/.

    `batches` is (position, size_bytes, last_offset, max_timestamp) per batch, one append
    each. Returns (offset index entries, time index entries before the final one).
    """
    offset_entries, time_entries = [], []
    since = 0
    max_ts, max_ts_offset = -1, None
    for position, size, last_offset, max_timestamp in batches:
        if max_timestamp > max_ts:
            max_ts, max_ts_offset = max_timestamp, last_offset
        if since > index_interval_bytes:
            offset_entries.append((last_offset, position))
            if not time_entries or max_ts > time_entries[-1][0]:
                time_entries.append((max_ts, max_ts_offset))
            since = 0
        since += size
    return offset_entries, time_entries
