"""The offset map: for each key of the dirty section, the offset of its last record.

Building it is the first half of a cleaning pass. The dirty section [first dirty
offset, first uncleanable offset) is read from its start; every keyed record of a batch
that is not discarded (see batch_filter.TransactionFilter) sets `map[key] = offset`, so
that at the end each key maps to its newest offset. The copy then keeps a record only
if its offset is that newest one (or lies past what the map covers).

Memory budget. Kafka's map (SkimpyOffsetMap) is a fixed array of slots, each a 16-byte
MD5 of the key plus an 8-byte offset, filled to at most `log.cleaner.io.buffer.load.factor`
(0.9) of `log.cleaner.dedupe.buffer.size` / 24 slots. This map is a plain dict of the
exact keys (no hash collisions), bounded by the same count of entries. When it is full
the build stops before the record that would not fit: the pass then cleans only up to
`latest_offset + 1`, and the next pass starts there (Kafka's rule: a pass may cover
less than the dirty section, never more).

Not thread-safe; one cleaning job owns its map.
"""

from __future__ import annotations

from typing import Iterable

from protocol.records import iter_key_values

from storage.cleaner.batch_filter import NO_TRANSACTIONS, TransactionFilter

# Kafka's slot: a 16-byte MD5 of the key and an 8-byte offset.
BYTES_PER_ENTRY = 16 + 8
DEFAULT_LOAD_FACTOR = 0.9  # log.cleaner.io.buffer.load.factor
DEFAULT_DEDUPE_BUFFER_BYTES = 128 * 1024 * 1024  # log.cleaner.dedupe.buffer.size


class OffsetMap:
    """key -> last offset, holding at most `max_entries` keys (see the module docstring)."""

    __slots__ = ("max_entries", "_offsets", "latest_offset")

    def __init__(self, memory_bytes: int = DEFAULT_DEDUPE_BUFFER_BYTES, load_factor: float = DEFAULT_LOAD_FACTOR):
        self.max_entries = int(memory_bytes // BYTES_PER_ENTRY * load_factor)
        if self.max_entries < 1:
            raise ValueError(
                f"an offset map of {memory_bytes} bytes at load factor {load_factor} cannot hold one key: "
                "cleaning would never make progress"
            )
        self._offsets: dict[bytes, int] = {}
        # The largest offset put so far (-1: none), Kafka's `latestOffset`.
        self.latest_offset = -1

    @property
    def full(self) -> bool:
        return len(self._offsets) >= self.max_entries

    def put(self, key: bytes, offset: int) -> None:
        self._offsets[key] = offset
        self.latest_offset = offset

    def get(self, key: bytes) -> int:
        """The last offset of `key`, or -1 if the map does not know it."""
        return self._offsets.get(key, -1)

    def __len__(self) -> int:
        return len(self._offsets)

    def clear(self) -> None:
        self._offsets.clear()
        self.latest_offset = -1


def build_offset_map(
    offset_map: OffsetMap,
    batches: Iterable[tuple],
    start_offset: int,
    transactions: TransactionFilter = NO_TRANSACTIONS,
) -> bool:
    """Put every keyed record at or after `start_offset` of `batches` (pairs of header
    and batch bytes, in offset order) into `offset_map`; True if it filled up first.

    Like Kafka, the check comes before each put: once the map holds `max_entries` keys
    nothing more is put, not even a key already there, so `latest_offset` is exactly
    where the map's knowledge ends.
    """
    for header, data in batches:
        if header.is_control:
            transactions.on_control_batch(header, data)
            continue
        if transactions.discard_batch(header):
            continue  # an aborted transaction's records never count as a key's last value
        for offset, key, _ in iter_key_values(data):
            if key is None or offset < start_offset:
                continue
            if offset_map.full:
                return True
            offset_map.put(key, offset)
    return False
