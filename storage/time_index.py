"""TimeIndex: the `.timeindex` file, a sparse map from timestamp to offset.

Layout, one 12-byte big-endian entry:

| bytes | field           | meaning                                                       |
| ----- | --------------- | ------------------------------------------------------------- |
| 0-7   | timestamp       | int64 milliseconds: the largest timestamp seen so far         |
| 8-11  | relative offset | int32: the offset of the record batch that carried it, minus  |
|       |                 | the segment's base offset                                     |

An entry (T, O) says: no record before offset O has a timestamp above T; so a record with
a timestamp larger than T comes after O (Kafka's definition). Entries are written
alongside offset-index entries (every `index.interval.bytes`), but only when the largest
timestamp has grown since the last entry, so timestamps strictly increase. When a segment
stops being active (roll or close), a final entry records the segment's largest
timestamp: `last_entry` is then the segment's maximum timestamp, which retention reads
without touching the log. For this final entry the index keeps one slot in reserve:
`is_full` is true one entry early.

Finding the first record with timestamp >= T: `lookup(T)` gives the largest entry with
timestamp <= T (or (-1, base offset)); every record with timestamp > that entry's
timestamp lies after its offset, so the search scans the log from there.

Concurrency: not thread-safe; the broker serializes access per partition.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Iterator, NamedTuple

from storage.errors import CorruptIndex, SegmentOffsetOverflow
from storage.index import RELATIVE_OFFSET_MAX, IndexFile

NO_TIMESTAMP = -1

_ENTRY = struct.Struct(">qi")
_TIMESTAMP = struct.Struct(">q")
_RELATIVE_OFFSET = struct.Struct(">i")


class TimestampOffset(NamedTuple):
    """A timestamp (ms) and an offset. (A NamedTuple: as immutable as a frozen dataclass,
    and several times cheaper to build.)"""

    timestamp_ms: int
    offset: int


class TimeIndex(IndexFile):
    """The `.timeindex` file of one segment (see the module docstring).

    Not thread-safe: the broker serializes access per partition.
    """

    __slots__ = (
        "_last_entry",
    )

    ENTRY_SIZE = 12

    def __init__(self, path: Path, base_offset: int, max_index_size_bytes: int, *, writable: bool = True,
                 preallocate: bool = False):
        super().__init__(path, base_offset, max_index_size_bytes, writable=writable, preallocate=preallocate)
        self._last_entry = self._read_last_entry()

    def is_full(self) -> bool:
        # One slot stays free for the final entry written on roll or close.
        return self._entries >= self._max_entries - 1

    def last_entry(self) -> TimestampOffset:
        """The last entry, or (-1, base offset) when empty."""
        return self._last_entry

    def entry(self, n: int) -> TimestampOffset:
        if not 0 <= n < self._entries:
            raise IndexError(f"entry {n} of {self.path}, which has {self._entries} entries")
        timestamp, relative = _ENTRY.unpack(self._slot_bytes(n))
        return TimestampOffset(timestamp, self.base_offset + relative)

    def __iter__(self) -> Iterator[TimestampOffset]:
        for n in range(self._entries):
            yield self.entry(n)

    def lookup(self, target_timestamp_ms: int) -> TimestampOffset:
        """The largest entry with timestamp <= target, or (-1, base offset) if none."""
        slot = self._largest_lower_bound_slot(target_timestamp_ms, self._timestamp_at)
        if slot == -1:
            return TimestampOffset(NO_TIMESTAMP, self.base_offset)
        return self.entry(slot)

    def maybe_append(self, timestamp_ms: int, offset: int, *, skip_full_check: bool = False) -> None:
        """Add (timestamp, offset) if the timestamp is larger than the last entry's.

        `skip_full_check` is for the final entry on roll and close, which may use the
        reserved slot. (Called for every index interval of appended log: the common
        outcome, a timestamp that has not grown, costs two comparisons.)
        """
        last_timestamp_ms, last_offset = self._last_entry
        slot = self._entries
        if slot:
            if offset < last_offset:
                raise ValueError(
                    f"attempt to append offset {offset} to {self.path}, smaller than the last "
                    f"offset appended ({last_offset})"
                )
            if timestamp_ms < last_timestamp_ms:
                raise ValueError(
                    f"attempt to append timestamp {timestamp_ms} to {self.path}, smaller than the "
                    f"last timestamp appended ({last_timestamp_ms})"
                )
        if not skip_full_check and slot >= self._max_entries - 1:
            raise ValueError(f"attempt to append to a full time index {self.path} ({slot} entries)")
        if timestamp_ms > last_timestamp_ms:
            relative = offset - self.base_offset
            if not 0 <= relative <= RELATIVE_OFFSET_MAX:
                raise SegmentOffsetOverflow(self.base_offset, offset)
            if self._mmap is None or slot >= self._max_entries:
                raise ValueError(f"attempt to append to a full time index {self.path} ({slot} entries)")
            _ENTRY.pack_into(self._mmap, slot * 12, timestamp_ms, relative)
            self._entries = slot + 1
            self._unflushed = True
            self._last_entry = TimestampOffset(timestamp_ms, offset)

    def truncate_to(self, offset: int) -> None:
        """Remove the entries with offset >= `offset`."""
        slot = self._largest_lower_bound_slot(offset - self.base_offset, self._relative_offset_at)
        if slot < 0:
            entries = 0
        elif self._relative_offset_at(slot) == offset - self.base_offset:
            entries = slot
        else:
            entries = slot + 1
        self._truncate_to_entries(entries)

    def resize(self, new_size_bytes: int) -> bool:
        changed = super().resize(new_size_bytes)
        if changed:
            self._last_entry = self._read_last_entry()
        return changed

    def _truncate_to_entries(self, entries: int) -> None:
        super()._truncate_to_entries(entries)
        self._last_entry = self._read_last_entry()

    def sanity_check(self) -> None:
        """Cheap checks that the file belongs to its segment; raises CorruptIndex."""
        if self._length % self.ENTRY_SIZE != 0:
            raise CorruptIndex(
                f"time index file {self.path} is {self._length} bytes, not a multiple of {self.ENTRY_SIZE}"
            )
        if self._entries == 0:
            return
        last, first = self._last_entry, self.entry(0)
        if last.timestamp_ms < first.timestamp_ms:
            raise CorruptIndex(
                f"time index file {self.path}: last timestamp {last.timestamp_ms} is below the "
                f"first {first.timestamp_ms}"
            )
        if last.offset < self.base_offset or first.offset < self.base_offset:
            raise CorruptIndex(f"time index file {self.path} has offsets below its base offset {self.base_offset}")

    def _timestamp_at(self, slot: int) -> int:
        assert self._mmap is not None
        return _TIMESTAMP.unpack_from(self._mmap, slot * 12)[0]

    def _relative_offset_at(self, slot: int) -> int:
        assert self._mmap is not None
        return _RELATIVE_OFFSET.unpack_from(self._mmap, slot * 12 + 8)[0]

    def _read_last_entry(self) -> TimestampOffset:
        if self._entries == 0:
            return TimestampOffset(NO_TIMESTAMP, self.base_offset)
        return self.entry(self._entries - 1)
