"""Helpers for the cleaner tests: keyed batches, reading a whole log back, a model of
what compaction must leave."""

from __future__ import annotations

from dataclasses import dataclass, field

from protocol.records import Compression, build_batch, iter_batch_headers, iter_records
from storage.log import Log
from tests.storage.builders import BASE_TIME_MS, small_config


def compact_config(**overrides):
    settings = dict(cleanup_policy=("compact",), internal_segment_bytes=1024, delete_retention_ms=1000,
                    min_cleanable_dirty_ratio=0.0)
    settings.update(overrides)
    return small_config(**settings)


def keyed_batch(rows, *, timestamp_ms: int = BASE_TIME_MS, compression: Compression = Compression.NONE,
                **kwargs) -> bytes:
    """A batch of (key, value) rows; a None value is a tombstone."""
    return build_batch([(k, v, (), timestamp_ms) for k, v in rows], compression=compression,
                       timestamp_ms=timestamp_ms, **kwargs)


def log_batches(log: Log) -> list[tuple]:
    """(header, [records]) of every batch of every segment, in order."""
    out = []
    for segment in log.segments:
        data = segment.read_bytes(0, segment.size_bytes)
        for position, header in iter_batch_headers(data):
            out.append((header, list(iter_records(data, position))))
    return out


def log_records(log: Log) -> dict[int, tuple]:
    """offset -> (key, value) of every record in the log."""
    return {r.offset: (r.key, r.value) for _, records in log_batches(log) for r in records}


@dataclass
class CompactionModel:
    """What the log must hold: every record appended, minus what compaction may remove.

    `horizons` maps a batch's base offset to the delete horizon the first pass that
    kept a tombstone in it gave it (Kafka's KIP-534 rule). Records without a key are
    removed by the first pass that judges them, as Kafka's cleaner does.
    """

    records: dict[int, tuple] = field(default_factory=dict)   # offset -> (key, value)
    batch_of: dict[int, int] = field(default_factory=dict)    # offset -> batch base offset
    horizons: dict[int, int] = field(default_factory=dict)

    def append(self, base_offset: int, rows) -> None:
        """A batch of (key, value) rows at consecutive offsets from `base_offset`."""
        for i, row in enumerate(rows):
            self.add(base_offset, base_offset + i, *row)

    def add(self, batch_base_offset: int, offset: int, key, value) -> None:
        """One record of the batch at `batch_base_offset` (a compacted batch has holes)."""
        self.records[offset] = (key, value)
        self.batch_of[offset] = batch_base_offset

    def clean(self, end_offset: int, recopied_below: int, now_ms: int, delete_retention_ms: int,
              first_dirty_offset: int | None = None) -> None:
        """A pass that judged every record below `end_offset` and recopied every batch
        below `recopied_below` (the end of the last segment it cleaned).

        Its offset map holds the last offset of each key in [`first_dirty_offset`,
        `end_offset`); a record below the first dirty offset whose key is not in the map
        stays (None: every record counts, right for a log whose clean part holds each
        key once)."""
        first_dirty = min(self.records, default=0) if first_dirty_offset is None else first_dirty_offset
        last_of_key = {}
        for offset in sorted(self.records):
            if first_dirty <= offset < end_offset:
                last_of_key[self.records[offset][0]] = offset
        for offset in sorted(self.records):
            if offset >= end_offset:
                break
            key, value = self.records[offset]
            horizon = self.horizons.get(self.batch_of[offset])
            if (key is None or last_of_key.get(key, offset) > offset
                    or (value is None and horizon is not None and now_ms >= horizon)):
                del self.records[offset]
        for offset, (_, value) in self.records.items():
            batch = self.batch_of[offset]
            if offset < recopied_below and value is None and batch not in self.horizons:
                self.horizons[batch] = now_ms + delete_retention_ms
