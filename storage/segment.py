"""LogSegment: one `.log` file of record batches and its two sparse indexes.

A partition log is a sequence of segments; a segment covers a contiguous range of
offsets starting at its base offset, the number in its file names:

    00000000000000001234.log        batches exactly as appended, offsets assigned
    00000000000000001234.index      offset -> position, every index.interval.bytes
    00000000000000001234.timeindex  max timestamp so far -> offset, same rhythm

The `.log` has no header and no footer: batches end to end, each one a magic-2 record
batch (see protocol/records.py for the 61-byte header). Position = byte position in the
`.log`; offset = record number. Within a segment both increase together, and every
offset is base_offset + an int32, which is what lets the indexes store 4-byte relative
offsets.

Only the active (last) segment of a log is appended to. When it rolls, its indexes
receive a final time-index entry (the segment's largest timestamp) and are trimmed to
their valid entries; it is then never written again, only read, truncated by
replication, renamed or deleted.

Finding offset T (`translate_offset`): one bisection of the offset index brackets the
batch holding T between two entries. When the upper entry's batch holds T and the
index's in-memory copy knows that batch (its base offset and size: always for batches
this process appended, see offset_index.py), that is the answer and nothing is read.
Otherwise, a forward scan of batch headers from the lower entry: at most one index
interval plus one batch. Only the 27 bytes of each header that the scan needs are read
-- usually in ONE small pread: the whole bracket when the batches are small, the header
at the upper entry when they are large (see the method). The cost does not depend on
the size of the segment, nor on that of the log. (A header read at a random place in
gigabytes of page cache misses the CPU caches and TLB more often than one in a few
megabytes, ~0.3 us per read on the machines measured: the reason reads that the copy
can answer do not read at all.)

Rolling. `should_roll` checks Kafka's roll conditions exactly. The log does not call it
before every append: `roll_bounds` turns the conditions into a few numbers (the largest
offset, the size, timestamp and clock below which no condition can hold) that the log
compares inline, and it runs the exact checks only when a bound is crossed.

Index entries. The offset index gets an entry for a batch when more than
`index.interval.bytes` were appended since the previous entry (offset_index.py). The
count of those bytes lives in memory only and starts at zero whenever the segment is
opened, recovered or truncated, whatever the file holds after its last entry: Kafka's
rule, which puts every entry of pylog's files where Kafka puts it, also after a restart
(the first entry after a reopen comes one index interval after the reopen, not after
the previous entry). `recover` rebuilds the indexes with the same rule, counting from
the start of the file. (So across a reopen two entries may lie up to two intervals and
a batch apart, and the scans below read that much at most.)

Crash behaviour. Appends are plain `pwrite`s at the end of the file; after a crash the
file may end with a torn batch or with garbage (zeros, if the file system extended the
file before the data reached it). `recover` re-reads the whole segment, validates every
batch (length, magic, CRC-32C, offsets increasing), truncates at the first bad one and
rebuilds both indexes from the good ones. Nothing else in this class validates CRCs:
segments that need no recovery are trusted, as Kafka trusts them.

Opening. A segment created here (a roll, a new log) opens its files at once. A segment a
start finds on disk (`lazy`) opens its `.log` on its first use, and each index is mapped
on its first search (Kafka's LazyIndex): a start touches the active segment only, whose
indexes `prepare_for_appends` preallocates; an index file is mapped only at its first
search or entry written (storage/index.py, "Mapping").

Concurrency: not thread-safe; the broker serializes access per partition. A FetchResult's
file descriptor stays valid until the segment is closed or deleted (deletion closes it
only after `file.delete.delay.ms`, see Log). Once a segment is inactive (rolled), its
files may be fsynced from another thread by path (the Log's PendingFlush), which opens
its own file descriptors and uses none of this object.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import Iterator, NamedTuple, Sequence

from protocol.errors import ProtocolError
from protocol.file_range import pread_exact
from protocol.records import (
    BATCH_HEADER_SIZE,
    LOG_OVERHEAD,
    MAGIC,
    MIN_BATCH_LENGTH,
    BatchHeader,
    iter_records,
    read_batch_header,
    validate_batch,
)
from storage import files
from storage.config import LogConfig
from storage.errors import SegmentOffsetOverflow
from storage.index import RELATIVE_OFFSET_MAX
from storage.leader_epoch_cache import LeaderEpochCache
from storage.offset_index import OffsetIndex
from storage.time_index import NO_TIMESTAMP, TimeIndex, TimestampOffset

SCAN_CHUNK_BYTES = 16 * 1024
RECOVERY_CHUNK_BYTES = 1024 * 1024

_BATCH_LENGTH = struct.Struct(">i")

# What finding an offset needs from a batch header: base_offset (position 0),
# batch_length (8), magic (16) and last_offset_delta (23). They all lie in the first 27
# bytes, so a hop from batch to batch reads 27 bytes, not the whole 61-byte header.
_OFFSET_FIELDS = struct.Struct(">qi4xb6xi")
OFFSET_FIELDS_SIZE = _OFFSET_FIELDS.size
assert OFFSET_FIELDS_SIZE == 27


_NEVER = float("inf")


class RollBounds(NamedTuple):
    """When the active segment might have to roll, in numbers the log can compare
    without a call: `should_roll` is false as long as the append's last offset is at
    most `max_offset`, the segment is smaller than `index_check_position` bytes, the
    append's max timestamp is at most `max_timestamp_ms` and the clock at most
    `max_now_ms` (and the append fits segment.bytes, which the log checks itself).

    The offset and time limits are exact (they are the roll rules rearranged); the
    index limit is a lower bound on the size at which an index could be full, since
    entries are at least index.interval.bytes apart. Crossing one only means "run the
    exact checks" (see Log.append).
    """

    max_offset: int
    index_check_position: int
    max_timestamp_ms: float
    max_now_ms: float


class BatchPosition(NamedTuple):
    """Where one batch lies in a segment. (NamedTuples here and in FetchResult: as
    immutable as frozen dataclasses, and several times cheaper to build, which the
    read path does once per fetch.)"""

    base_offset: int
    last_offset: int
    position: int
    size_bytes: int


class FetchResult(NamedTuple):
    """A byte range of a segment file to send to a consumer or follower.

    `fd` is the segment's open file descriptor: pass it to `os.sendfile` or `os.pread`
    (or call `read_bytes`). The range starts at the batch holding `fetch_offset` and may
    end inside a batch when a size limit cuts it (as Kafka does; clients drop a partial
    trailing batch). `size_bytes == 0` means there is nothing to return.
    `first_batch_incomplete`: the limit cut the first batch itself (Kafka's
    `FetchDataInfo.firstEntryIncomplete`), which a Fetch answers with no records.
    """

    fetch_offset: int
    segment_base_offset: int
    path: Path
    fd: int
    position: int
    size_bytes: int
    first_batch_incomplete: bool = False

    def read_bytes(self) -> bytes:
        """The bytes of the range, read now."""
        return pread_exact(self.fd, self.position, self.size_bytes)


class SegmentRecovery(NamedTuple):
    """What `LogSegment.recover` found: valid and dropped bytes and batches."""

    valid_bytes: int
    truncated_bytes: int
    valid_batches: int
    dropped_batches: int
    next_offset: int
    error: str | None


class LogSegment:
    """One segment: a `.log` file plus its offset and time indexes (see module docstring).

    The indexes are opened lazily, on first use (Kafka's LazyIndex), so that opening a
    log with many segments touches only the files it needs.

    Not thread-safe: the broker serializes access per partition.
    """

    __slots__ = (
        "dir", "base_offset", "roll_jitter_ms", "created_ms", "index_interval_bytes",
        "max_index_size_bytes", "_extra_suffix", "_log_path", "_scan_first_read_bytes",
        "_large_scan_bytes", "_fd", "_size_bytes", "_offset_index", "_time_index",
        "_rolling_based_timestamp_ms", "_max_timestamp", "_bytes_since_last_index_entry", "_inactive",
        "_closed", "_log_synced",
    )

    def __init__(
        self,
        dir: Path,
        base_offset: int,
        config: LogConfig,
        *,
        now_ms: int,
        roll_jitter_ms: int = 0,
        extra_suffix: str = "",
        lazy: bool = False,
    ):
        """`lazy`: a segment found on disk whose `.log` is opened on first use (a start
        opens thousands of segments and reads few of them); otherwise the file is opened,
        and created if missing, now."""
        self._closed = False
        self.dir = dir if isinstance(dir, Path) else Path(dir)
        self.base_offset = base_offset
        self._extra_suffix = extra_suffix
        # Built on first use and kept (a rename resets it): a Path costs microseconds to
        # make, every FetchResult carries it, and a log may have thousands of segments
        # that are opened and never read.
        self._log_path: Path | None = None
        self.roll_jitter_ms = roll_jitter_ms
        self.created_ms = now_ms
        self.index_interval_bytes = config.index_interval_bytes
        # translate_offset's read sizes (see there): one index interval and a header's
        # offset fields cover a walk through small batches in one pread; a bracket wider
        # than two intervals holds large batches.
        self._scan_first_read_bytes = config.index_interval_bytes + OFFSET_FIELDS_SIZE
        self._large_scan_bytes = 2 * config.index_interval_bytes
        self.max_index_size_bytes = config.segment_index_bytes
        if not lazy:
            self._open_log_file(os.O_RDWR | os.O_CREAT)
        self._offset_index: OffsetIndex | None = None
        self._time_index: TimeIndex | None = None
        # The first batch's timestamp, which segment.ms counts from (None: not read yet).
        self._rolling_based_timestamp_ms: int | None = None
        # Largest timestamp in the segment and the offset of its batch (None: not read yet).
        self._max_timestamp: TimestampOffset | None = None
        self._bytes_since_last_index_entry = 0
        self._inactive = False   # rolled: no more appends (its indexes are let go once flushed)
        # The `.log` is durable as it is: fsynced by `flush` and not written since (False
        # for a file found on disk: a process killed before left its last writes unsynced).
        self._log_synced = False

    # -- files --

    def _file_path_str(self, suffix: str) -> str:
        """The path of the segment's file with `suffix`, as a string: the files a start
        opens are opened by these (a Path costs microseconds to build)."""
        return os.path.join(self.dir, files.segment_file_name(self.base_offset, suffix, self._extra_suffix))

    def _open_log_file(self, flags: int) -> None:
        self._fd = os.open(self._file_path_str(files.LOG_FILE_SUFFIX), flags, 0o644)
        self._size_bytes = os.fstat(self._fd).st_size

    def __getattr__(self, name: str):
        # Python calls this only for an attribute not set: `_fd` and `_size_bytes` of a
        # lazy segment not used yet. The first use opens the `.log` and sets both, so
        # every later use is a plain slot read. Once the segment is closed there is no
        # descriptor (-1), and the size is the file's, if it is still there.
        if name == "_fd" or name == "_size_bytes":
            if not self._closed:
                self._open_log_file(os.O_RDWR)
                return object.__getattribute__(self, name)
            if name == "_fd":
                return -1
            try:
                return os.stat(self.log_path).st_size
            except FileNotFoundError:
                return 0
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def extra_suffix(self) -> str:
        """"" for a live segment, else ".deleted", ".swap", ... (see `change_suffix`)."""
        return self._extra_suffix

    @property
    def log_path(self) -> Path:
        if self._log_path is None:
            self._log_path = files.log_file_path(self.dir, self.base_offset, self._extra_suffix)
        return self._log_path

    @property
    def offset_index_path(self) -> Path:
        return files.offset_index_file_path(self.dir, self.base_offset, self.extra_suffix)

    @property
    def time_index_path(self) -> Path:
        return files.time_index_file_path(self.dir, self.base_offset, self.extra_suffix)

    @property
    def fd(self) -> int:
        """The open file descriptor of the `.log` file."""
        return self._fd

    @property
    def offset_index(self) -> OffsetIndex:
        if self._offset_index is None:
            self._offset_index = OffsetIndex(self._file_path_str(files.INDEX_FILE_SUFFIX), self.base_offset,
                                             self.max_index_size_bytes)
        return self._offset_index

    @property
    def time_index(self) -> TimeIndex:
        if self._time_index is None:
            self._time_index = TimeIndex(self._file_path_str(files.TIME_INDEX_FILE_SUFFIX), self.base_offset,
                                         self.max_index_size_bytes)
        return self._time_index

    @property
    def size_bytes(self) -> int:
        """Bytes in the `.log` file."""
        return self._size_bytes

    # -- appending --

    def append(self, data, batches: Sequence[tuple[int, int, int, int]]) -> int:
        """Write `data` (whole batches, offsets already stamped) at the end of the segment.

        `batches` describes them in order as (base_offset, last_offset, max_timestamp_ms,
        size_bytes). Index entries follow Kafka's rule (see offset_index.py); each entry
        also tells the index's in-memory copy its batch's base offset and size. Returns
        the position the first batch was written at. On a write error the file is cut
        back to its old size.

        This runs once per produced batch, so the loop keeps the running maximum
        timestamp in two local ints and builds one TimestampOffset at the end (only if it
        changed), and reads the indexes and settings into locals once.
        """
        if not batches:
            return self._size_bytes
        largest_offset = batches[-1][1]
        if not 0 <= largest_offset - self.base_offset <= RELATIVE_OFFSET_MAX:
            raise SegmentOffsetOverflow(self.base_offset, largest_offset)
        start_position = position = self._size_bytes
        if position == 0:
            self._rolling_based_timestamp_ms = max(batch[2] for batch in batches)
        self._write_at_end(data)
        max_timestamp = self._max_timestamp or self.max_timestamp_so_far
        max_timestamp_ms, offset_of_max_timestamp = max_timestamp
        # (The properties open the indexes lazily; an active segment has them open.)
        offset_index = self._offset_index or self.offset_index
        time_index = self._time_index or self.time_index
        interval = self.index_interval_bytes
        bytes_since_last_index_entry = self._bytes_since_last_index_entry
        for batch_base_offset, last_offset, batch_max_timestamp_ms, size_bytes in batches:
            if batch_max_timestamp_ms > max_timestamp_ms:
                max_timestamp_ms, offset_of_max_timestamp = batch_max_timestamp_ms, last_offset
            if bytes_since_last_index_entry > interval:
                # A full index only makes the index coarser; the roll check before the
                # next append sees it full and rolls.
                if not offset_index.is_full():
                    offset_index.append(last_offset, position, batch_base_offset, size_bytes)
                if not time_index.is_full():
                    time_index.maybe_append(max_timestamp_ms, offset_of_max_timestamp)
                bytes_since_last_index_entry = 0
            position += size_bytes
            bytes_since_last_index_entry += size_bytes
        self._bytes_since_last_index_entry = bytes_since_last_index_entry
        if max_timestamp_ms != max_timestamp[0]:
            self._max_timestamp = TimestampOffset(max_timestamp_ms, offset_of_max_timestamp)
        return start_position

    def _write_at_end(self, data) -> None:
        view = data if type(data) is memoryview else memoryview(data)
        if view.format != "B" or view.ndim != 1:
            view = view.cast("B")
        size, written = view.nbytes, 0
        try:
            written = os.pwrite(self._fd, view, self._size_bytes)
            while written < size:  # a short write: rare (signals, a full disk)
                written += os.pwrite(self._fd, view[written:], self._size_bytes + written)
        except BaseException:
            if written:
                os.ftruncate(self._fd, self._size_bytes)
            raise
        finally:
            self._log_synced = False
        self._size_bytes += written

    def can_append_offset(self, offset: int) -> bool:
        return 0 <= offset - self.base_offset <= RELATIVE_OFFSET_MAX

    # -- reading --

    def translate_offset(self, offset: int, starting_position: int = 0) -> BatchPosition | None:
        """The batch holding `offset`, or the first batch after it; None past the end.

        One bisection of the offset index brackets the batch (`OffsetIndex.scan_bounds`):
        it starts after the batch at `low` and at or before the batch at `high`. Then:

        - if the index's copy knows the batch at `high` and it starts at or before
          `offset`, that batch is the answer, found without reading the log. This is
          the usual case for large batches, where every batch gets an entry.
        - `high` far from `low` (more than two index intervals: large batches): read the
          header of the batch at `high` first. It ends at or after `offset`; if it also
          starts at or before it, it is the answer, found with ONE read of 27 bytes.
        - otherwise (small batches, or the tail after the last entry): walk the batch
          headers from `low`, hopping by batch_length, reading the whole bracket (at most
          about one index interval) in one pread first and 27 bytes per hop after that.

        A header read at `high` is handed to the index to remember, so the next lookup
        that lands on that entry reads nothing.

        Either way, at most one index interval plus one batch is read, and the usual
        cost is one small pread or none. (Kafka walks from the floor entry, reading each
        header through a buffer. The walk this replaced read 16 KiB chunks from the
        floor entry: with 1 MiB batches that is two 16 KiB preads 1 MiB apart per
        lookup, and copying them from a page cache of gigabytes, mostly out of the CPU
        caches, cost a few microseconds more than from a 16 MiB log.) A header that
        cannot be walked (bad magic, impossible length, a batch cut by the end of the
        file) ends the walk as the end of the file would.
        """
        index = self.offset_index
        low, high, slot = index.scan_bounds(offset)
        if starting_position > low:
            low = starting_position
        end = self._size_bytes
        if high > low:
            known = index.known_batch(slot)
            if known is not None and known[0] <= offset:
                return BatchPosition(known[0], known[1], high, known[2])
            span = high - low
            if span > self._large_scan_bytes:
                batch = self._walk(high, offset, end, OFFSET_FIELDS_SIZE)
                if batch is not None and batch.position == high:
                    index.remember_batch(slot, batch.base_offset, batch.size_bytes)
                    if batch.base_offset <= offset:
                        return batch
                return self._walk(low, offset, end, self._scan_first_read_bytes)
            batch = self._walk(low, offset, end, span + OFFSET_FIELDS_SIZE)
            if batch is not None and batch.position == high:
                index.remember_batch(slot, batch.base_offset, batch.size_bytes)
            return batch
        return self._walk(low, offset, end, self._scan_first_read_bytes)

    def _walk(self, position: int, offset: int, end: int, first_read_bytes: int) -> BatchPosition | None:
        """The first whole batch from `position` on whose last offset is >= `offset`.

        Reads `first_read_bytes` at `position` first, then 27 bytes (the offset fields,
        see _OFFSET_FIELDS) at each header the first read did not cover."""
        if end - position < BATCH_HEADER_SIZE:
            return None
        fd = self._fd
        unpack_from = _OFFSET_FIELDS.unpack_from
        chunk = os.pread(fd, first_read_bytes, position)
        chunk_start = position
        while end - position >= BATCH_HEADER_SIZE:
            at = position - chunk_start
            if at + OFFSET_FIELDS_SIZE > len(chunk):
                chunk = os.pread(fd, OFFSET_FIELDS_SIZE, position)
                chunk_start, at = position, 0
                if len(chunk) < OFFSET_FIELDS_SIZE:
                    return None
            base_offset, batch_length, magic, last_offset_delta = unpack_from(chunk, at)
            if magic != MAGIC or batch_length < MIN_BATCH_LENGTH:
                return None
            size = batch_length + LOG_OVERHEAD
            if position + size > end:
                return None
            last_offset = base_offset + last_offset_delta
            if last_offset >= offset:
                return BatchPosition(base_offset, last_offset, position, size)
            position += size
        return None

    def read(
        self,
        start_offset: int,
        max_bytes: int,
        max_position: int | None = None,
        min_one_batch: bool = False,
    ) -> FetchResult | None:
        """A range starting at the batch holding `start_offset`, at most `max_bytes` long
        (or one whole batch, with `min_one_batch`), ending at `max_position` at the latest.
        None if no batch in this segment holds `start_offset` or a later offset."""
        if max_bytes < 0:
            raise ValueError(f"invalid max_bytes {max_bytes}")
        if max_position is None:
            max_position = self._size_bytes
        batch = self.translate_offset(start_offset)
        if batch is None:
            return None
        limit = max(max_bytes, batch.size_bytes) if min_one_batch else max_bytes
        size = max(0, min(max_position - batch.position, limit))
        return FetchResult(start_offset, self.base_offset, self.log_path, self._fd, batch.position, size,
                           0 < limit < batch.size_bytes)

    def read_bytes(self, position: int, size_bytes: int) -> bytes:
        return pread_exact(self._fd, position, size_bytes)

    def scan_batch_headers(self, start_position: int = 0, end_position: int | None = None) -> Iterator[tuple[int, BatchHeader]]:
        """(position, header) of each whole batch from `start_position`, without CRC checks.

        Stops at the end, before a partial batch, or at a header that cannot be walked.
        """
        end = self._size_bytes if end_position is None else end_position
        reader = ChunkReader(self._fd, end, SCAN_CHUNK_BYTES)
        position = start_position
        while end - position >= BATCH_HEADER_SIZE:
            header = read_batch_header(reader.view(position, BATCH_HEADER_SIZE))
            if header.magic != MAGIC or header.batch_length < MIN_BATCH_LENGTH:
                return
            if position + header.size_bytes > end:
                return
            yield position, header
            position += header.size_bytes

    def read_next_offset(self) -> int:
        """The offset after the last batch (the base offset when empty).

        Reads only the batches after the last offset-index entry: at most one index
        interval plus one batch.
        """
        next_offset = self.base_offset
        start = self.offset_index.last_entry().position if self.offset_index.entries else 0
        for _, header in self.scan_batch_headers(start):
            next_offset = header.next_offset
        return next_offset

    def find_offset_by_timestamp(self, timestamp_ms: int, starting_offset: int) -> TimestampOffset | None:
        """The first record with timestamp >= `timestamp_ms` and offset >= `starting_offset`.

        The time index narrows the scan; the batch whose max timestamp reaches the target
        is read and its records decoded. None if no record in this segment qualifies.
        """
        entry = self.time_index.lookup(timestamp_ms)
        position = self.offset_index.lookup(max(entry.offset, starting_offset)).position
        for batch_position, header in self.scan_batch_headers(position):
            if header.max_timestamp < timestamp_ms or header.last_offset < starting_offset:
                continue
            data = self.read_bytes(batch_position, header.size_bytes)
            for record in iter_records(data):
                if record.timestamp >= timestamp_ms and record.offset >= starting_offset:
                    return TimestampOffset(record.timestamp, record.offset)
        return None

    # -- timestamps --

    @property
    def max_timestamp_so_far(self) -> TimestampOffset:
        """The largest timestamp in the segment and the last offset of its batch
        ((-1, base offset) if none). Read from the time index's last entry the first time."""
        if self._max_timestamp is None:
            self._max_timestamp = self.time_index.last_entry()
        return self._max_timestamp

    def largest_timestamp_ms(self) -> int:
        """The segment's largest record timestamp, or the `.log` file's modification time
        when it is unknown (no record timestamp, or an empty time index on a segment
        nothing was appended to since it was opened): Kafka's
        LogSegment.largestTimestamp, which chooses the segment that ListOffsets by
        timestamp searches and decides retention by time."""
        timestamp = self.max_timestamp_so_far.timestamp_ms
        return timestamp if timestamp >= 0 else self.last_modified_ms()

    def first_batch_timestamp_ms(self) -> int:
        """The max timestamp of the first batch (segment.ms counts from it); -1 if empty."""
        if self._rolling_based_timestamp_ms is None:
            for _, header in self.scan_batch_headers(0):
                self._rolling_based_timestamp_ms = header.max_timestamp
                break
        return NO_TIMESTAMP if self._rolling_based_timestamp_ms is None else self._rolling_based_timestamp_ms

    def last_modified_ms(self) -> int:
        return os.fstat(self._fd).st_mtime_ns // 1_000_000

    # -- rolling --

    def time_waited_for_roll_ms(self, now_ms: int, max_timestamp_ms: int) -> int:
        """How long this segment has been filling: by record timestamps when the first
        batch has one, else by the clock since the segment was opened."""
        first = self.first_batch_timestamp_ms()
        if first >= 0:
            return max_timestamp_ms - first
        return now_ms - self.created_ms

    def should_roll(
        self,
        *,
        max_segment_bytes: int,
        max_segment_ms: int,
        messages_size_bytes: int,
        max_timestamp_ms: int,
        max_offset: int,
        now_ms: int,
    ) -> bool:
        """Kafka's roll conditions, checked before an append of `messages_size_bytes`:
        the segment would exceed `max_segment_bytes`; it is non-empty and older than segment.ms
        minus its jitter; an index is full; or `max_offset` does not fit a relative int32."""
        size = self._size_bytes
        return (
            size > max_segment_bytes - messages_size_bytes
            or not 0 <= max_offset - self.base_offset <= RELATIVE_OFFSET_MAX
            or self.offset_index.is_full()
            or self.time_index.is_full()
            or (size > 0 and self.time_waited_for_roll_ms(now_ms, max_timestamp_ms) > max_segment_ms - self.roll_jitter_ms)
        )

    def roll_bounds(self, max_segment_ms: int) -> RollBounds:
        """Cheap limits below which `should_roll` is certainly false (see RollBounds).

        Valid until the segment's first batch is appended, it is truncated or recovered,
        its indexes are resized, or `max_segment_ms` changes: the log recomputes them
        then, and after any check that found them crossed.
        """
        index_room = min(
            self.offset_index.max_entries - self.offset_index.entries,
            self.time_index.max_entries - 1 - self.time_index.entries,  # one slot reserved
        )
        # Each new index entry starts more than index_interval_bytes after the previous
        # one, and the first may come at the very next batch: so `index_room` more
        # entries need at least this many more bytes of log before the index can fill.
        index_check_position = self._size_bytes + max(0, index_room - 1) * (self.index_interval_bytes + 1)
        if index_room <= 0:
            index_check_position = 0
        max_timestamp_ms = max_now_ms = _NEVER
        if self._size_bytes > 0:  # an empty segment never rolls by time
            limit = max_segment_ms - self.roll_jitter_ms
            first = self.first_batch_timestamp_ms()
            if first >= 0:
                max_timestamp_ms = first + limit
            else:
                max_now_ms = self.created_ms + limit
        return RollBounds(self.base_offset + RELATIVE_OFFSET_MAX, index_check_position, max_timestamp_ms, max_now_ms)

    def on_become_inactive(self) -> None:
        """On roll: write the final time-index entry and trim both indexes. Once the
        segment is flushed, its indexes are let go (`flush`)."""
        self.time_index.maybe_append(
            self.max_timestamp_so_far.timestamp_ms, self.max_timestamp_so_far.offset, skip_full_check=True
        )
        self.offset_index.trim_to_valid_size()
        self.time_index.trim_to_valid_size()
        self._inactive = True

    def resize_indexes(self, size_bytes: int) -> None:
        self.offset_index.resize(size_bytes)
        self.time_index.resize(size_bytes)

    def unmap_indexes(self) -> None:
        """Let go of the indexes' maps, not of their files: their next use maps them again
        (storage/index.py, "Mapping")."""
        if self._offset_index is not None:
            self._offset_index.unmap()
        if self._time_index is not None:
            self._time_index.unmap()

    def prepare_for_appends(self) -> None:
        """Make a segment the active one: preallocate its indexes. The bytes counted
        towards the next index entry are those appended by this process only (see
        "Index entries" in the module docstring)."""
        self._inactive = False
        if self._offset_index is None:
            self._offset_index = OffsetIndex(self._file_path_str(files.INDEX_FILE_SUFFIX), self.base_offset,
                                             self.max_index_size_bytes, preallocate=True)
        if self._time_index is None:
            self._time_index = TimeIndex(self._file_path_str(files.TIME_INDEX_FILE_SUFFIX), self.base_offset,
                                         self.max_index_size_bytes, preallocate=True)
        self.resize_indexes(self.max_index_size_bytes)

    # -- recovery and truncation --

    def sanity_check_indexes(self) -> None:
        """Cheap checks of both index files; raises CorruptIndex."""
        self.offset_index.sanity_check(self._size_bytes)
        self.time_index.sanity_check()

    def recover(self, epoch_cache: LeaderEpochCache | None = None, *, trim_indexes: bool = True) -> SegmentRecovery:
        """Validate every batch, truncate at the first bad one, rebuild both indexes.
        `trim_indexes=False` leaves them at their preallocated size: the segment is to be
        the active one, whose indexes `prepare_for_appends` would extend again.

        A batch is good when its header is whole, its magic is 2, its batch_length fits
        the file, its CRC-32C matches, its counts are sane, and its base offset is at
        least the segment's base offset and the previous batch's next offset.

        Each good batch goes to `epoch_cache.assign_recovered` (Kafka's LogSegment.recover
        rule): epochs of batches written after the cache's file was last written come
        back.
        """
        offset_index, time_index = self.offset_index, self.time_index
        offset_index.reset()
        time_index.reset()
        size = os.fstat(self._fd).st_size
        reader = ChunkReader(self._fd, size, RECOVERY_CHUNK_BYTES)
        max_timestamp = TimestampOffset(NO_TIMESTAMP, self.base_offset)
        position = last_index_entry = valid_batches = 0
        next_offset = self.base_offset
        first_batch_timestamp: int | None = None
        error: str | None = None
        while position < size:
            remaining = size - position
            if remaining < BATCH_HEADER_SIZE:
                error = f"{remaining} trailing bytes, too few for a batch header"
                break
            header = read_batch_header(reader.view(position, BATCH_HEADER_SIZE))
            if header.magic != MAGIC:
                error = f"magic {header.magic}"
                break
            if header.batch_length < MIN_BATCH_LENGTH or header.size_bytes > remaining:
                error = f"batch_length {header.batch_length} does not fit the {remaining} bytes left"
                break
            try:
                validate_batch(reader.view(position, header.size_bytes))
            except ProtocolError as exc:
                error = str(exc)
                break
            if header.base_offset < next_offset:
                error = f"base offset {header.base_offset} is below the expected {next_offset}"
                break
            if not self.can_append_offset(header.last_offset):
                error = f"last offset {header.last_offset} overflows the segment's relative offsets"
                break
            if first_batch_timestamp is None:
                first_batch_timestamp = header.max_timestamp
            if header.max_timestamp > max_timestamp.timestamp_ms:
                max_timestamp = TimestampOffset(header.max_timestamp, header.last_offset)
            if position - last_index_entry > self.index_interval_bytes:
                if not offset_index.is_full():
                    offset_index.append(header.last_offset, position, header.base_offset, header.size_bytes)
                if not time_index.is_full():
                    time_index.maybe_append(max_timestamp.timestamp_ms, max_timestamp.offset)
                last_index_entry = position
            if epoch_cache is not None:
                epoch_cache.assign_recovered(header.partition_leader_epoch, header.base_offset)
            position += header.size_bytes
            next_offset = header.next_offset
            valid_batches += 1
        truncated = size - position
        dropped = self._count_batch_frames(reader, position, size) if truncated else 0
        if truncated:
            os.ftruncate(self._fd, position)
            self._log_synced = False
        self._size_bytes = position
        time_index.maybe_append(max_timestamp.timestamp_ms, max_timestamp.offset, skip_full_check=True)
        if trim_indexes:
            offset_index.trim_to_valid_size()
            time_index.trim_to_valid_size()
        self._max_timestamp = max_timestamp
        self._rolling_based_timestamp_ms = first_batch_timestamp
        return SegmentRecovery(position, truncated, valid_batches, dropped, next_offset, error)

    @staticmethod
    def _count_batch_frames(reader: ChunkReader, start: int, end: int) -> int:
        """How many batches a dropped tail held, walking batch_length fields while they
        make sense; whatever is left after the last sensible one counts as one more."""
        count, position = 0, start
        while position < end:
            count += 1
            if end - position < LOG_OVERHEAD:
                break
            (batch_length,) = _BATCH_LENGTH.unpack(reader.view(position + 8, 4))
            if batch_length < MIN_BATCH_LENGTH:
                break
            position += batch_length + LOG_OVERHEAD
        return count

    def truncate_to(self, offset: int, *, now_ms: int | None = None) -> int:
        """Remove every batch with last offset >= `offset` (the batch holding `offset`
        goes whole) and the index entries for them; return the bytes removed.

        The indexes are preallocated again: a truncated segment may become active.
        """
        self._inactive = False
        mapping = self.translate_offset(offset)
        self.offset_index.truncate_to(offset)
        self.time_index.truncate_to(offset)
        self.resize_indexes(self.max_index_size_bytes)
        truncated = 0
        if mapping is not None:
            truncated = self._size_bytes - mapping.position
            os.ftruncate(self._fd, mapping.position)
            self._log_synced = False
            self._size_bytes = mapping.position
        if self._size_bytes == 0:
            if now_ms is not None:
                self.created_ms = now_ms
            self._rolling_based_timestamp_ms = None
        self._bytes_since_last_index_entry = 0  # counted afresh, see "Index entries" above
        if self.max_timestamp_so_far.timestamp_ms >= 0:
            # (Unknown timestamps, an empty time index, stay unknown: Kafka's rule.)
            self._max_timestamp = self._read_largest_timestamp()
        return truncated

    def _read_largest_timestamp(self) -> TimestampOffset:
        # The time index's last entry, unless batches after it carry a larger timestamp.
        # Only batches after its offset count: the scan starts at the offset index's entry
        # at or before it, and a batch before it that the time index does not cover (a
        # time index created empty when its file was missing) would give an entry going
        # back in offsets, which the close or roll could not append.
        best = last = self.time_index.last_entry()
        after = last.offset if self.time_index.entries else self.base_offset - 1
        for _, header in self.scan_batch_headers(self.offset_index.lookup(last.offset).position):
            if header.last_offset > after and header.max_timestamp > best.timestamp_ms:
                best = TimestampOffset(header.max_timestamp, header.last_offset)
        return best

    # -- durability and lifecycle --

    def flush(self) -> None:
        """fsync the `.log` and both indexes (their entries and their length), each only if
        it changed since its last fsync. A rolled segment's indexes are then unmapped: each
        mapping holds a file descriptor of its own (Python's mmap keeps a duplicate), and a
        log of many segments would run out of them; they are mapped again, lazily, when a
        read needs them."""
        if not self._log_synced:
            os.fsync(self._fd)
            self._log_synced = True
        if self._offset_index is not None:
            self._offset_index.flush()
        if self._time_index is not None:
            self._time_index.flush()
        if self._inactive:
            self.release_indexes()

    def release_indexes(self) -> None:
        """Unmap both indexes (already trimmed and durable); the properties reopen them."""
        for index in (self._offset_index, self._time_index):
            if index is not None:
                index.close()
        self._offset_index = self._time_index = None

    def seal(self) -> None:
        """Write the final time-index entry and trim both indexes to their entries: the
        last changes a clean close makes (nothing is fsynced here; again, a no-op)."""
        if self._max_timestamp is not None and self._time_index is not None:
            self._time_index.maybe_append(
                self._max_timestamp.timestamp_ms, self._max_timestamp.offset, skip_full_check=True
            )
        for index in (self._offset_index, self._time_index):
            if index is not None:
                index.trim_to_valid_size()

    def close(self) -> None:
        """Seal (`seal`) and close the files, fsyncing nothing: a clean shutdown flushes
        the segment after sealing it, before it closes (`Log.close`)."""
        self.seal()
        if self._offset_index is not None:
            self._offset_index.close()
        if self._time_index is not None:
            self._time_index.close()
        self._close_fd()

    def close_handlers(self) -> None:
        """Close the files without writing anything (a simulated crash, a failed disk)."""
        if self._offset_index is not None:
            self._offset_index.close_handler()
        if self._time_index is not None:
            self._time_index.close_handler()
        self._close_fd()

    def _close_fd(self) -> None:
        self._closed = True
        if self._fd >= 0:   # (a lazy segment never used has none: -1)
            os.close(self._fd)
            self._fd = -1

    def delete(self) -> None:
        """Close and remove the segment's files (indexes first, the `.log` last)."""
        self.close_handlers()
        files.unlink_paths(self.file_paths())

    def file_paths(self) -> list[Path]:
        """The segment's files under their current names, indexes first, the `.log` last."""
        return [files.segment_file_path(self.dir, self.base_offset, suffix, self.extra_suffix)
                for suffix in files.SEGMENT_FILE_SUFFIXES]

    def change_suffix(self, new_extra_suffix: str) -> None:
        """Rename the segment's files, e.g. from "" to ".deleted" or ".swap" to ""."""
        old_extra_suffix = self.extra_suffix
        for suffix in files.SEGMENT_FILE_SUFFIXES:
            old = files.segment_file_path(self.dir, self.base_offset, suffix, old_extra_suffix)
            new = files.segment_file_path(self.dir, self.base_offset, suffix, new_extra_suffix)
            index = {files.INDEX_FILE_SUFFIX: self._offset_index, files.TIME_INDEX_FILE_SUFFIX: self._time_index}.get(suffix)
            if index is not None:
                index.rename_to(new)
            elif old.exists():
                os.replace(old, new)
        self._extra_suffix = new_extra_suffix
        self._log_path = None

    def __repr__(self) -> str:
        return f"LogSegment(base_offset={self.base_offset}, size_bytes={self._size_bytes}{', ' + self.extra_suffix if self.extra_suffix else ''})"


class ChunkReader:
    """Reads a file through one buffer of `chunk_bytes`, re-filled on a miss, so that
    walking many small headers costs a few large preads instead of many small ones.
    Lives for one scan; not thread-safe."""

    def __init__(self, fd: int, end: int, chunk_bytes: int):
        self._fd = fd
        self._end = end
        self._chunk_bytes = chunk_bytes
        self._start = 0
        self._buffer = memoryview(b"")

    def view(self, position: int, size: int) -> memoryview:
        offset = position - self._start
        if offset < 0 or offset + size > len(self._buffer):
            length = min(max(size, self._chunk_bytes), self._end - position)
            self._buffer = memoryview(pread_exact(self._fd, position, length))
            self._start, offset = position, 0
            if size > len(self._buffer):
                raise EOFError(f"wanted {size} bytes at position {position}, the file ends at {self._end}")
        return self._buffer[offset : offset + size]
