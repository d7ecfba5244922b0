"""IndexFile: a file of fixed-width entries, memory-mapped, searched by bisection.

The common part of Kafka's two per-segment indexes (Kafka's `AbstractIndex`):

    offset index (.index)       entry = int32 relative offset | int32 position        (8 bytes)
    time index   (.timeindex)   entry = int64 timestamp | int32 relative offset       (12 bytes)

Big-endian, no header, no checksum: entry n sits at byte n * entry size. Offsets are stored
relative to the segment's base offset so that they fit 4 bytes; a segment rolls before an
offset would not fit.

Invariants:
- entries are sorted by their key, ascending (each subclass says which key);
- `entries` entries are valid; the file may be longer (preallocated) and the bytes after
  the valid entries are zero.

Lifecycle. A new index file is created at `segment.index.bytes` rounded down to a whole
number of entries, all zeros (Kafka preallocates so that appends never grow the file).
`entries` counts the valid ones. When the segment stops being active (roll) or is closed,
the file is trimmed to exactly `entries * entry size`; an index opened later trusts that
length. Loading a log preallocates the active segment's indexes again.

Crash behaviour. Entries are written through the shared memory map, so they survive a
process crash (the kernel owns the pages) but not a machine crash unless flushed. A file
left preallocated by a crash has a tail of zero entries. On open, a file whose last slot
is all zero is searched (by bisection) for the first zero slot, and `entries` stops
there. (The first entry of an offset index is never zero: no entry is written for the
first batch of a segment. A time index whose first entry is timestamp 0 at the base
offset is read as empty; that costs only a hint.) An index file is never trusted beyond
that: a segment that is recovered rebuilds both indexes from the log.

Search. `largest_lower_bound_slot` is a binary search with Kafka's "warm section": lookups
from in-sync consumers and followers target the end of the index, so the search first
checks whether the target lies within the last 8 KiB of entries and, if so, bisects only
there. The pages touched are then always the same few, which stay in the page cache. The
time index searches this way; the offset index, which every fetch searches, bisects an
in-memory copy of its offsets instead (see offset_index.py).

Page faults. The map is advised MADV_RANDOM: on a page fault the kernel reads in that
page only, instead of "reading around" it. Read-around suits a file read front to back,
not one searched by bisection, and it is costly here for a reason that is easy to miss:
the active segment's index is preallocated as a sparse file (10 MiB by default), and the
FIRST write into it faults in, and zero-fills, a whole read-around window of it -- up to
`read_ahead_kb` of the disk, 8 MiB on the machines this was measured on, about 2 ms and
8 MiB of page cache per index file, where a single page costs ~10 us. (A new segment
pays it twice, offset and time index; for the 16 KiB-append benchmark, whose every round
starts a fresh log, that was ~2 us per append.) When the whole file is wanted -- building
the offset index's in-memory copy -- `_read_all_entries` asks for it with MADV_WILLNEED.

Mapping. A file is mapped at its first search or its first entry written, not when it is
opened (Kafka's LazyIndex maps on first use as well): opening reads the file's length and,
where it must, counts the entries with preads, and the single entries read before a map
exists -- a start reads the first and last ones of the active segment's indexes -- are
preads too, each done once: what they read is kept until the file is mapped. So a segment
with no index entry to search or write (less than `index.interval.bytes` of it appended,
as in a partition holding a few records) never maps its indexes. A resize unmaps the
file, and so does the end of a log's start for every index the start searched or rebuilt
(storage/recovery.py): a start leaves no index mapped. The next use maps the file again.

Descriptors. The map needs no open file: the descriptor used to map it is closed at once.
Python's mmap keeps a duplicate of it for the life of the map, though, until Python 3.13,
which can be told not to (`trackfd=False`, used where available): an active segment then
holds one descriptor (its `.log`) instead of three, and so does a broker per partition.
Before 3.13, a partition holds three only once its active segment's indexes are mapped.

Concurrency: not thread-safe; the broker serializes access per partition.
"""

from __future__ import annotations

import mmap
import os
import sys
from pathlib import Path
from typing import Callable, ClassVar

from storage.errors import SegmentOffsetOverflow

RELATIVE_OFFSET_MAX = 2**31 - 1

# Kafka's warm section: the last 8 KiB of entries (see the module docstring).
WARM_SECTION_BYTES = 8192

# madvise hints, where the platform has them (see "Page faults" in the module docstring).
_MADV_RANDOM = getattr(mmap, "MADV_RANDOM", None)
_MADV_WILLNEED = getattr(mmap, "MADV_WILLNEED", None)

# Where mmap can let go of the mapped file's descriptor (see "Descriptors" in the module docstring).
_MAP_KEEPS_NO_DESCRIPTOR = {"trackfd": False} if sys.version_info >= (3, 13) else {}

# The map of an index that has not needed one yet (see "Mapping" in the module docstring).
_NOT_MAPPED = object()


class IndexFile:
    """A memory-mapped file of fixed-width sorted entries. Subclasses give the layout.

    Not thread-safe: the broker serializes access per partition.
    """

    __slots__ = (
        "_path", "base_offset", "max_index_size_bytes", "writable", "_map", "_length",
        "_max_entries", "_entries", "_unflushed", "_read_slots",
    )

    ENTRY_SIZE: ClassVar[int]

    def __init__(self, path: str | os.PathLike, base_offset: int, max_index_size_bytes: int, *,
                 writable: bool = True, preallocate: bool = False):
        """`preallocate`: open the index of the active segment at its full size at once
        (a `resize` to `max_index_size_bytes` after the open would truncate it twice)."""
        # (kept as a string: a start opens two indexes per partition, and a Path costs
        # microseconds to build)
        self._path = os.fspath(path)
        self.base_offset = base_offset
        self.max_index_size_bytes = max_index_size_bytes
        self.writable = writable
        self._map: mmap.mmap | None | object = _NOT_MAPPED   # see `_mmap`
        # slot -> bytes of the entries read with a pread while unmapped: a start asks for the
        # active segment's first and last entries several times, and nothing writes an entry
        # until the file is mapped (a search maps it too, so these are a few at most)
        self._read_slots: dict[int, bytes] | None = None
        self._unflushed = False   # entries or length changed since the last flush
        newly_created = False
        if writable:
            try:
                fd = os.open(self._path, os.O_RDWR)
            except FileNotFoundError:
                fd = os.open(self._path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
                newly_created = True
        else:
            fd = os.open(self._path, os.O_RDONLY)
        try:
            if newly_created:
                if max_index_size_bytes < self.ENTRY_SIZE:
                    raise ValueError(f"invalid max index size: {max_index_size_bytes} bytes")
                os.ftruncate(fd, self._round_down(max_index_size_bytes))
                self._unflushed = True
            self._length = os.fstat(fd).st_size
            entries = 0 if newly_created else None   # None: counted below
            target = self._round_down(max_index_size_bytes)
            if preallocate and not newly_created and self._length < target:
                # A file trimmed to its entries (a clean close) ends with an entry: it holds
                # length / entry size of them, known before the zeros are added behind.
                whole = self._round_down(self._length)
                if whole == 0:
                    entries = 0
                else:
                    last = os.pread(fd, self.ENTRY_SIZE, whole - self.ENTRY_SIZE)
                    if last != bytes(self.ENTRY_SIZE):
                        entries = whole // self.ENTRY_SIZE
                        self._read_slots = {entries - 1: last}
                os.ftruncate(fd, target)
                self._length = target
                self._unflushed = True
            self._max_entries = self._length // self.ENTRY_SIZE
            if entries is None:
                entries = self._count_valid_entries(self._max_entries, fd)
        finally:
            os.close(fd)
        self._entries = entries

    # -- sizes --

    @property
    def entries(self) -> int:
        """The number of valid entries."""
        return self._entries

    @property
    def max_entries(self) -> int:
        """The number of entries the file has room for at its current length."""
        return self._max_entries

    @property
    def length_bytes(self) -> int:
        """The file's length, preallocated space included."""
        return self._length

    @property
    def size_bytes(self) -> int:
        """The bytes used by valid entries."""
        return self._entries * self.ENTRY_SIZE

    def is_full(self) -> bool:
        return self._entries >= self._max_entries

    # -- offsets --

    def can_append_offset(self, offset: int) -> bool:
        """True when `offset` fits an int32 relative to the base offset."""
        return 0 <= offset - self.base_offset <= RELATIVE_OFFSET_MAX

    def relative_offset(self, offset: int) -> int:
        relative = offset - self.base_offset
        if not 0 <= relative <= RELATIVE_OFFSET_MAX:
            raise SegmentOffsetOverflow(self.base_offset, offset)
        return relative

    @property
    def path(self) -> Path:
        return Path(self._path)

    # -- file management --

    def resize(self, new_size_bytes: int) -> bool:
        """Set the file length (rounded down to whole entries); True if it changed.

        Used to trim to the valid entries (roll, close) and to preallocate again (load,
        truncation back into an old segment).
        """
        rounded = self._round_down(new_size_bytes)
        if rounded < self.size_bytes:
            raise ValueError(f"cannot resize {self.path} below its {self._entries} valid entries")
        if rounded == self._length:
            return False
        self.unmap()   # (mapped again at its next use, at the new length)
        fd = os.open(self._path, os.O_RDWR)
        try:
            os.ftruncate(fd, rounded)
            self._length = rounded
            self._unflushed = True
        finally:
            os.close(fd)
        self._max_entries = rounded // self.ENTRY_SIZE
        return True

    def trim_to_valid_size(self) -> None:
        """Cut the file to exactly its valid entries (drops the preallocated zeros)."""
        self.resize(self.size_bytes)

    def reset(self) -> None:
        """Remove every entry and preallocate the file to its maximum size again."""
        self._truncate_to_entries(0)
        self.resize(self.max_index_size_bytes)

    def flush(self) -> None:
        """Make the entries and the file's length durable (msync, then fsync). Nothing is
        done when neither changed since the last flush: a segment flushed after each
        append (the metadata log) syncs its indexes only when an entry was added."""
        if not self._unflushed:
            return
        mapped = self._mapped_now()
        if mapped is not None:
            mapped.flush()
        fd = os.open(self._path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        self._unflushed = False

    def close(self) -> None:
        """Trim to the valid entries and unmap."""
        if self.writable:
            self.trim_to_valid_size()
        self._release()

    def close_handler(self) -> None:
        """Unmap without trimming (used when a crash is simulated or the disk failed)."""
        self._release()

    def delete_if_exists(self) -> bool:
        self._release()
        try:
            os.unlink(self._path)
            return True
        except FileNotFoundError:
            return False

    def rename_to(self, path: Path) -> None:
        """Rename the file (e.g. to add `.deleted`); the mapping stays valid."""
        os.replace(self._path, path)
        self._path = os.fspath(path)

    # -- entries --

    def _slot_bytes(self, slot: int) -> bytes:
        start = slot * self.ENTRY_SIZE
        if self._map is _NOT_MAPPED:
            # One entry read before any search or write (a start reads the first and last
            # ones): a pread, which leaves the file unmapped (see "Mapping"), done once.
            read = self._read_slots
            if read is None:
                read = self._read_slots = {}
            elif slot in read:
                return read[slot]
            fd = os.open(self._path, os.O_RDONLY)
            try:
                data = read[slot] = os.pread(fd, self.ENTRY_SIZE, start)
            finally:
                os.close(fd)
            return data
        mapped = self._mmap
        assert mapped is not None
        return mapped[start : start + self.ENTRY_SIZE]

    def _write_slot(self, slot: int, data: bytes) -> None:
        if self._mmap is None or slot >= self._max_entries:
            raise ValueError(f"attempt to append to a full index {self.path} ({self._entries} entries)")
        start = slot * self.ENTRY_SIZE
        self._mmap[start : start + self.ENTRY_SIZE] = data
        self._entries = slot + 1
        self._unflushed = True

    def _truncate_to_entries(self, entries: int) -> None:
        """Forget the entries from `entries` on (zeroing them, so the file keeps its
        invariant of zeros after the valid entries)."""
        if entries < self._entries and self._mmap is not None:
            start, end = entries * self.ENTRY_SIZE, self._entries * self.ENTRY_SIZE
            self._mmap[start:end] = bytes(end - start)
            self._unflushed = True
        self._entries = entries

    def _largest_lower_bound_slot(self, target: int, key: Callable[[int], int]) -> int:
        """The slot of the largest entry whose key is <= target, or -1 if there is none."""
        entries = self._entries
        if entries == 0:
            return -1
        first_hot = max(0, entries - 1 - WARM_SECTION_BYTES // self.ENTRY_SIZE)
        if key(first_hot) < target:
            return self._binary_search(target, key, first_hot, entries - 1)
        if key(0) > target:
            return -1
        return self._binary_search(target, key, 0, first_hot)

    @staticmethod
    def _binary_search(target: int, key: Callable[[int], int], lo: int, hi: int) -> int:
        # Invariant: key(lo) <= target; the answer lies in [lo, hi].
        while lo < hi:
            mid = (lo + hi + 1) >> 1
            found = key(mid)
            if found > target:
                hi = mid - 1
            elif found < target:
                lo = mid
            else:
                return mid
        return lo

    # -- internals --

    def _round_down(self, size_bytes: int) -> int:
        return max(0, size_bytes) // self.ENTRY_SIZE * self.ENTRY_SIZE

    @property
    def _mmap(self) -> mmap.mmap | None:
        """The file's memory map, made on first use (see "Mapping" in the module
        docstring); None for an empty file, or once the file is let go (`_map` is None
        only then)."""
        mapped = self._map
        if mapped is _NOT_MAPPED:
            mapped = self._map_file()
        return mapped

    def _mapped_now(self) -> mmap.mmap | None:
        """The map if one is made, without making it."""
        mapped = self._map
        return None if mapped is _NOT_MAPPED else mapped

    def _map_file(self) -> mmap.mmap | None:
        if self._length == 0:
            return None  # mmap cannot map an empty file (left unmapped: a resize may grow it)
        fd = os.open(self._path, os.O_RDWR if self.writable else os.O_RDONLY)
        try:
            access = mmap.ACCESS_WRITE if self.writable else mmap.ACCESS_READ
            mapped = mmap.mmap(fd, self._length, access=access, **_MAP_KEEPS_NO_DESCRIPTOR)
        finally:
            os.close(fd)
        if _MADV_RANDOM is not None:
            # No read-around on page faults (see "Page faults" in the module docstring).
            mapped.madvise(_MADV_RANDOM)
        self._map = mapped
        self._read_slots = None   # entries are written through the map from now on
        return mapped

    def _read_all_entries(self) -> bytes:
        """The bytes of every valid entry, in one copy. Asks the kernel to read them in
        first (MADV_WILLNEED), since the map itself is set not to read ahead."""
        size = self._entries * self.ENTRY_SIZE
        if size == 0 or self._mmap is None:
            return b""
        if _MADV_WILLNEED is not None:
            self._mmap.madvise(_MADV_WILLNEED, 0, size)
        return self._mmap[:size]

    def _release(self) -> None:
        """Let go of the file for good (close, crash, delete); subclasses drop what they
        keep in memory about it here. (`unmap` alone is also used by `resize`.)"""
        self.unmap()
        self._map = None   # not mapped again

    def unmap(self) -> None:
        """Let go of the map, not of the file: its next use maps it again (not once the
        file is let go: `_release`)."""
        mapped = self._map
        if mapped is None:
            return   # let go for good
        if mapped is not _NOT_MAPPED:
            mapped.close()
        self._map = _NOT_MAPPED

    def _count_valid_entries(self, slots: int, fd: int) -> int:
        """Entries before the zero tail a crash leaves in a preallocated file. The probes
        are preads of the open file, not reads of the map: each would fault in a page of
        the (mostly sparse) file, which costs far more than a system call."""
        size = self.ENTRY_SIZE
        zero = bytes(size)

        def slot_bytes(slot: int) -> bytes:
            return os.pread(fd, size, slot * size)

        if slots == 0 or slot_bytes(slots - 1) != zero:
            return slots
        if slot_bytes(0) == zero:
            return 0
        lo, hi = 1, slots - 1  # slot 0 is an entry, slot hi is zero
        while lo < hi:
            mid = (lo + hi) // 2
            if slot_bytes(mid) == zero:
                hi = mid
            else:
                lo = mid + 1
        return lo

    def __repr__(self) -> str:
        return f"{type(self).__name__}({os.path.basename(self._path)}, entries={self._entries}/{self._max_entries})"
