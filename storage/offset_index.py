"""OffsetIndex: the `.index` file, a sparse map from offset to byte position in the `.log`.

Layout, one 8-byte big-endian entry per indexed batch:

| bytes | field           | meaning                                                      |
| ----- | --------------- | ------------------------------------------------------------ |
| 0-3   | relative offset | int32: an offset minus the segment's base offset             |
| 4-7   | position        | int32: byte position in the .log of the batch holding it     |

Which entries exist (Kafka's `LogSegment.append`): the segment counts the bytes appended
since its last entry (or since it was opened, recovered or truncated: see segment.py,
"Index entries"); before it writes a batch, if that count is larger than
`index.interval.bytes`, it adds the entry (the batch's LAST offset, the batch's start
position) and resets the count. So the first batch of a segment never gets an entry, and
an entry is followed by at most `index.interval.bytes` plus one batch of unindexed log
(twice the interval where the segment was reopened in between, as in Kafka).

Finding the batch that holds offset T: `lookup(T)` returns the largest entry with
offset <= T (or (base offset, 0)); the batch at that position ends at or before T, so a
forward scan of batch headers from there reaches the batch with last offset >= T within
one index interval. The read path uses `scan_bounds(T)`, the same bisection returning
both neighbours: the last entry below T and the first at or above it, whose batch ends
at or after T -- often it IS the batch holding T, which LogSegment.translate_offset
checks first when batches are large.

Searching: a copy of the relative offsets in process memory
-------------------------------------------------------------
A bisection over the mapped file costs one Python call per step (unpack 4 big-endian
bytes, compare), and the number of steps grows with the number of entries: log2 of
262,144 entries (a full 1 GiB segment at the default interval) is 18 steps, ~4 us of
interpreter work, against 4 steps for a small segment. A read would then cost more in a
2 GiB log than in a 16 MiB one, where it should cost the same.

So each OffsetIndex keeps, once it has been searched, an `array('i')` of its relative
offsets in native byte order, and searches it with `bisect`: the whole search is one C
call. (Measured: ~0.1 us over 16 entries, ~0.25 us over 1,024, ~0.45 us over 262,144;
still logarithmic, but at ~18 ns per doubling instead of ~200.) The array is built on
the first lookup from the mapped file in two C calls (`frombytes` of the valid
entries, `byteswap` on a little-endian machine) and a strided slice that keeps every
other int (the offsets, not the positions) -- or at once, empty, for an empty index;
after that it is kept in step with the file by every method that changes the entries
(`append`, `truncate_to`, `reset`) and dropped when the file is closed. The position
of the entry found is then read from the mapped file: one 4-byte unpack.

The cost is memory: 4 bytes per entry, half the file (at most `segment.index.bytes`/2,
5 MiB, for a full index), and only for segments that have been read since they were
opened or were created by this process (8 bytes more per entry: see below). Kafka
does not copy its indexes into the heap; it bisects the memory map and keeps the
bisection in the "warm section" (the last 8 KiB of entries, where in-sync
consumers and followers look) so that the pages it touches stay in the page cache and a
lookup never waits for the disk. The copy makes that question moot for the offset
index: after the one sequential read that builds it, a search touches no page of the
file except the one holding the answer's position (which Kafka touches too). The time
index (time_index.py), searched only by ListOffsets and retention, still bisects the
map with the warm section.

What the copy also knows: the batch behind each entry
-----------------------------------------------------
An entry says where a batch starts and what its LAST offset is; a fetch needs the batch
that holds its target, so after the bisection the reader must still learn where the
entry's batch begins, and how long it is: a 27-byte header read (segment.py). For large
batches (one entry per batch) that read is the whole cost of the lookup that depends
on the log's size: a random place in gigabytes of page cache costs several hundred
nanoseconds more to reach than one in a few megabytes.

So next to each relative offset the copy keeps two more ints: the entry's batch's
relative BASE offset and its size in bytes -- `-1` and `0` while unknown. They are
known for every entry appended while the copy exists (the segment passes them along;
a new, empty index builds its copy at once, so a segment written by this process knows
all of them) and learned, one by one, for entries loaded from a file: the first read
that reads an entry's batch header records it (`remember_batch`). `known_batch(slot)`
then answers without touching the log. Memory: 12 bytes per entry in all instead of 4
(a full index of 1.3 M entries: 15 MiB; at the default 4 KiB interval a 1 GiB segment
has at most 262,144 entries: 3 MiB); dropped with the copy when the file is closed.

Invariant: offsets and positions strictly increase from entry to entry; the three
arrays of the copy have one item per valid entry.
Concurrency: not thread-safe; the broker serializes access per partition.
"""

from __future__ import annotations

import struct
import sys
from array import array
from bisect import bisect_left, bisect_right
from pathlib import Path
from typing import Iterator, NamedTuple

from storage.errors import CorruptIndex, SegmentOffsetOverflow
from storage.index import RELATIVE_OFFSET_MAX, IndexFile

_ENTRY = struct.Struct(">ii")
_POSITION = struct.Struct(">i")
_POSITIONS = struct.Struct(">i4xi")   # the positions of two neighbouring entries
_BIG_ENDIAN = sys.byteorder == "big"
assert array("i").itemsize == 4, "the offset copy needs 4-byte C ints"


class OffsetPosition(NamedTuple):
    """An offset and the byte position of the batch that holds it. (A NamedTuple: as
    immutable as a frozen dataclass and cheaper to build, once per lookup.)"""

    offset: int
    position: int


class OffsetIndex(IndexFile):
    """The `.index` file of one segment (see the module docstring).

    Not thread-safe: the broker serializes access per partition.
    """

    __slots__ = (
        "_last_offset", "_relative_offsets", "_batch_base_offsets", "_batch_sizes",
    )

    ENTRY_SIZE = 8

    def __init__(self, path: Path, base_offset: int, max_index_size_bytes: int, *, writable: bool = True,
                 preallocate: bool = False):
        # The in-memory copy of the relative offsets (None: not built yet; see the
        # module docstring). Set before super().__init__, which may truncate.
        self._relative_offsets: array | None = None
        self._batch_base_offsets: array | None = None  # relative; -1: not known yet
        self._batch_sizes: array | None = None         # bytes; 0: not known yet
        super().__init__(path, base_offset, max_index_size_bytes, writable=writable, preallocate=preallocate)
        self._last_offset = self._read_last_offset()
        if self._entries == 0 and writable:
            # An empty index: the copy costs nothing now, and learns every batch appended.
            self._build_relative_offsets()

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
        relative_offsets = self._relative_offsets
        if relative_offsets is None:
            relative_offsets = self._build_relative_offsets()
        slot = bisect_right(relative_offsets, target_offset - self.base_offset) - 1
        if slot < 0:
            return OffsetPosition(self.base_offset, 0)
        return OffsetPosition(self.base_offset + relative_offsets[slot], _POSITION.unpack_from(self._mmap, slot * 8 + 4)[0])

    def scan_bounds(self, target_offset: int) -> tuple[int, int, int]:
        """Where the batch holding `target_offset` (or the first batch after it) can be:
        (low, high, slot), byte positions such that it starts after `low` -- more
        exactly, at or after the end of the batch at `low` -- and at or before `high`;
        `slot` is the entry at `high`, for `known_batch` and `remember_batch`.

        `low` is the position of the last entry with an offset BELOW the target (0 if
        none): that batch ends before the target. `high` is the position of the first
        entry with an offset at or above it, whose batch ends at or after the target; -1
        if there is none (the target lies after the last entry; `slot` is then
        `entries`). All three come from one bisection; this is the read path's version
        of `lookup`.
        """
        relative_offsets = self._relative_offsets
        if relative_offsets is None:
            relative_offsets = self._build_relative_offsets()
        slot = bisect_left(relative_offsets, target_offset - self.base_offset)
        if slot == 0:
            return 0, (_POSITION.unpack_from(self._mmap, 4)[0] if self._entries else -1), 0
        if slot < self._entries:
            low, high = _POSITIONS.unpack_from(self._mmap, slot * 8 - 4)
            return low, high, slot
        return _POSITION.unpack_from(self._mmap, slot * 8 - 4)[0], -1, slot

    def known_batch(self, slot: int) -> tuple[int, int, int] | None:
        """(base offset, last offset, size in bytes) of the batch entry `slot` points
        at, if the copy knows it (see "What the copy also knows"); else None. The copy
        exists: call after `scan_bounds`."""
        relative_base = self._batch_base_offsets[slot]
        if relative_base < 0:
            return None
        base_offset = self.base_offset
        return (base_offset + relative_base, base_offset + self._relative_offsets[slot],
                self._batch_sizes[slot])

    def remember_batch(self, slot: int, batch_base_offset: int, batch_size_bytes: int) -> None:
        """Record what a header read found about the batch entry `slot` points at (the
        copy exists: call after `scan_bounds`)."""
        self._batch_base_offsets[slot] = batch_base_offset - self.base_offset
        self._batch_sizes[slot] = batch_size_bytes

    def _build_relative_offsets(self) -> array:
        """The in-memory copy. The relative offsets of the valid entries as native ints:
        read the entries in one slice of the map, fix the byte order in one call, keep
        every other int. Their batches' base offsets and sizes start unknown."""
        entries = array("i")
        entries.frombytes(self._read_all_entries())
        if not _BIG_ENDIAN:
            entries.byteswap()
        self._relative_offsets = relative_offsets = entries[::2]
        self._batch_base_offsets = array("i", [-1]) * len(relative_offsets)
        self._batch_sizes = array("i", [0]) * len(relative_offsets)
        return relative_offsets

    def append(self, offset: int, position: int, batch_base_offset: int = -1, batch_size_bytes: int = 0) -> None:
        """Add an entry; its offset must be larger than the last entry's. The batch's
        base offset and size, when given, go into the in-memory copy (if it exists).

        Runs for every index interval of appended log, so it packs the entry straight
        into the map with no intermediate bytes and no helper calls; the checks are
        those of `IndexFile._write_slot` and `relative_offset`."""
        slot = self._entries
        if slot and offset <= self._last_offset:
            raise ValueError(
                f"attempt to append offset {offset} to {self.path}, no larger than the last "
                f"offset appended ({self._last_offset})"
            )
        relative = offset - self.base_offset
        if not 0 <= relative <= RELATIVE_OFFSET_MAX:
            raise SegmentOffsetOverflow(self.base_offset, offset)
        if self._mmap is None or slot >= self._max_entries:
            raise ValueError(f"attempt to append to a full index {self.path} ({slot} entries)")
        _ENTRY.pack_into(self._mmap, slot * 8, relative, position)
        self._entries = slot + 1
        self._unflushed = True
        self._last_offset = offset
        if self._relative_offsets is not None:
            self._relative_offsets.append(relative)
            self._batch_base_offsets.append(
                batch_base_offset - self.base_offset if batch_base_offset >= 0 else -1)
            self._batch_sizes.append(batch_size_bytes)

    def truncate_to(self, offset: int) -> None:
        """Remove the entries with offset >= `offset`."""
        relative_offsets = self._relative_offsets
        if relative_offsets is None:
            relative_offsets = self._build_relative_offsets()
        # The entries below `offset` are exactly those before the first one >= it.
        self._truncate_to_entries(bisect_left(relative_offsets, offset - self.base_offset))

    def _truncate_to_entries(self, entries: int) -> None:
        super()._truncate_to_entries(entries)
        self._last_offset = self._read_last_offset()
        if self._relative_offsets is not None:
            del self._relative_offsets[entries:]
            del self._batch_base_offsets[entries:]
            del self._batch_sizes[entries:]

    def _release(self) -> None:
        # Closing or deleting the file drops the copy. (A resize remaps the file but
        # keeps its entries, so the copy stays valid through it.)
        super()._release()
        self._relative_offsets = self._batch_base_offsets = self._batch_sizes = None

    def sanity_check(self, log_size_bytes: int | None = None) -> None:
        """Cheap checks that the file belongs to its segment; raises CorruptIndex."""
        if self._length % self.ENTRY_SIZE != 0:
            raise CorruptIndex(
                f"index file {self.path} is {self._length} bytes, not a multiple of {self.ENTRY_SIZE}"
            )
        if self._entries == 0:
            return
        last = self.last_entry()
        if last.offset < self.base_offset or self.entry(0).offset < self.base_offset:
            raise CorruptIndex(f"index file {self.path} has offsets below its base offset {self.base_offset}")
        if log_size_bytes is not None and last.position >= max(log_size_bytes, 1):
            raise CorruptIndex(
                f"index file {self.path} points at position {last.position}, past the end of "
                f"its log ({log_size_bytes} bytes)"
            )

    def _read_last_offset(self) -> int:
        if self._entries == 0:
            return self.base_offset
        return self.entry(self._entries - 1).offset
