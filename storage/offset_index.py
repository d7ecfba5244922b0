"""OffsetIndex: the `.index` file, a sparse map from offset to byte position in the `.log`.

Layout, one 8-byte big-endian entry per indexed batch:

| bytes | field           | meaning                                                      |
| ----- | --------------- | ------------------------------------------------------------ |
| 0-3   | relative offset | int32: an offset minus the segment's base offset             |
| 4-7   | position        | int32: byte position in the .log of the batch holding it     |

Which entries exist (Kafka's `LogSegment.append`): the segment counts the bytes appended
since its last entry; before it writes a batch, if that count is larger than
`index.interval.bytes`, it adds the entry (the batch's LAST offset, the batch's start
position) and resets the count. So the first batch of a segment never gets an entry, and
an entry is followed by at most `index.interval.bytes` plus one batch of unindexed log.

Finding the batch that holds offset T: `lookup(T)` returns the largest entry with
offset <= T (or (base offset, 0)); the batch at that position ends at or before T, so a
forward scan of batch headers from there reaches the batch with last offset >= T within
one index interval.

Invariant: offsets and positions strictly increase from entry to entry.
Concurrency: not thread-safe; the broker serializes access per partition.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from storage.errors import CorruptIndex
from storage.index import IndexFile

_ENTRY = struct.Struct(">ii")
_RELATIVE_OFFSET = struct.Struct(">i")


@dataclass(frozen=True, slots=True)
class OffsetPosition:
    """An offset and the byte position of the batch that holds it."""

    offset: int
    position: int


class OffsetIndex(IndexFile):
    """The `.index` file of one segment (see the module docstring).

    Not thread-safe: the broker serializes access per partition.
    """

    ENTRY_SIZE = 8

    def __init__(self, path: Path, base_offset: int, max_index_size_bytes: int, *, writable: bool = True):
        super().__init__(path, base_offset, max_index_size_bytes, writable=writable)
        self._last_offset = self._read_last_offset()

    @property
    def last_offset(self) -> int:
        """The offset of the last entry, or the base offset when empty."""
        return self._last_offset

    def last_entry(self) -> OffsetPosition:
        if self._entries == 0:
            return OffsetPosition(self.base_offset, 0)
        return self.entry(self._entries - 1)

    def entry(self, n: int) -> OffsetPosition:
        if not 0 <= n < self._entries:
            raise IndexError(f"entry {n} of {self.path}, which has {self._entries} entries")
        relative, position = _ENTRY.unpack(self._slot_bytes(n))
        return OffsetPosition(self.base_offset + relative, position)

    def __iter__(self) -> Iterator[OffsetPosition]:
        for n in range(self._entries):
            yield self.entry(n)

    def lookup(self, target_offset: int) -> OffsetPosition:
        """The largest entry with offset <= target_offset, or (base offset, 0) if none."""
        slot = self._largest_lower_bound_slot(target_offset - self.base_offset, self._relative_offset_at)
        if slot == -1:
            return OffsetPosition(self.base_offset, 0)
        return self.entry(slot)

    def append(self, offset: int, position: int) -> None:
        """Add an entry; its offset must be larger than the last entry's."""
        if self._entries > 0 and offset <= self._last_offset:
            raise ValueError(
                f"attempt to append offset {offset} to {self.path}, no larger than the last "
                f"offset appended ({self._last_offset})"
            )
        self._write_slot(self._entries, _ENTRY.pack(self.relative_offset(offset), position))
        self._last_offset = offset

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

    def _truncate_to_entries(self, entries: int) -> None:
        super()._truncate_to_entries(entries)
        self._last_offset = self._read_last_offset()

    def sanity_check(self, log_size_bytes: int | None = None) -> None:
        """Cheap checks that the file belongs to its segment; raises CorruptIndex."""
        if self._length % self.ENTRY_SIZE != 0:
            raise CorruptIndex(
                f"index file {self.path} is {self._length} bytes, not a multiple of {self.ENTRY_SIZE}"
            )
        if self._entries == 0:
            return
        last = self.last_entry()
        if last.offset < self.base_offset or self._relative_offset_at(0) < 0:
            raise CorruptIndex(f"index file {self.path} has offsets below its base offset {self.base_offset}")
        if log_size_bytes is not None and last.position >= max(log_size_bytes, 1):
            raise CorruptIndex(
                f"index file {self.path} points at position {last.position}, past the end of "
                f"its log ({log_size_bytes} bytes)"
            )

    def _relative_offset_at(self, slot: int) -> int:
        assert self._mmap is not None
        return _RELATIVE_OFFSET.unpack_from(self._mmap, slot * 8)[0]

    def _read_last_offset(self) -> int:
        if self._entries == 0:
            return self.base_offset
        return self.base_offset + self._relative_offset_at(self._entries - 1)
