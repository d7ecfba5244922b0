"""Log: the log of one partition, a directory of segments.

    <topic>-<partition>/
        00000000000000000000.log  .index  .timeindex     segment [0, 1234)
        00000000000000001234.log  .index  .timeindex     segment [1234, 2001)
        00000000000000002001.log  .index  .timeindex     active segment [2001, log end)
        00000000000000001234.snapshot  00000000000000002001.snapshot   producer state
        leader-epoch-checkpoint                                          leader epochs

Three offsets describe a log:

    log_start_offset   first offset a reader may fetch; at or after the first segment's
                       base offset (DeleteRecords and retention move it forward)
    recovery_point     everything below it has been fsynced; after a crash only the
                       segments from the one holding it onwards are re-validated
    log_end_offset     the offset the next appended record gets

Invariants: first segment's base offset <= log_start_offset <= log_end_offset;
recovery_point <= log_end_offset; base offsets strictly increase from segment to
segment, and every offset in a segment lies below the next segment's base offset.

Theory of operation
-------------------
Append. The batches arrive as the producer sent them. Every check they go through is in
storage/log_validator.py: the format of each batch (magic 2, lengths, CRC-32C,
`max.message.bytes`) on every append, and, on a leader's append that names its origin
(a client's Produce or the broker's coordinator), Kafka's rules for the records: counts,
record framing, keys on compacted topics, timestamp bounds, the topic's
`compression.type`. If any check fails the append raises and nothing is written. Then
offsets are assigned by writing each batch's base offset in place (8 bytes, outside the
CRC), plus the leader epoch when given and the broker's time when the topic uses
LogAppendTime. The active segment rolls first if the append would not fit it
(`LogConfig.max_segment_bytes`: `segment.bytes`, or Kafka's test-only
`internal.segment.bytes` when set), if it is old enough (`segment.ms` minus jitter), if an
index is full, or if the last offset would overflow its relative int32. Then all the
bytes go to the end of the active segment in one write, and index entries are added
every `index.interval.bytes`.

The append path runs once per produced batch, so it avoids work it can prove useless:
the roll conditions are checked exactly only when cheap bounds, computed once per
segment (`LogSegment.roll_bounds`), say a roll may be due; the producer state is not
consulted when no batch carries a producer id; the headers parsed by validation are
reused, never parsed again. The classes on this path declare their fields as
`__slots__`, which makes each field access a little cheaper.

Producer state (storage/producer_state.py). A batch with a producer id (an idempotent or
transactional producer) is checked against what the partition knows of that producer:
its epoch, and the sequence ranges of its last five batches. On the leader's append
(`assign_offsets`) every such batch is checked before anything is written, in order (a
second batch of the same producer must follow the first); a retry of one of the last
five batches makes the whole append a duplicate: nothing is written and the AppendInfo
carries the ORIGINAL offsets with `duplicate=True` (Kafka answers such a retry as a
success). Refused batches raise InvalidProducerEpoch, OutOfOrderSequence or
InvalidTxnState. Once written, the producers' entries are updated; a follower's append
updates them without checks. The table is snapshotted to `<offset>.snapshot` when a
segment rolls and on close -- empty or not, as Kafka does, so that recovery after a
crash replays only from the last roll -- rebuilt on open from the latest snapshot plus
the batch headers after it, and rewound the same way by truncation.

Read. Floor the segment holding the fetch offset (bisection over a plain list of base
offsets), find the batch in it (index, then nothing more when the index's in-memory
copy knows the batch, else a short scan, usually one 27-byte pread; see segment.py), and return the byte range from that batch on, up to `max_bytes`, as a
FetchResult (path, fd, position, size): the broker sends it with sendfile or one pread.
Nothing is decoded.

Flush policy (Kafka's). By default the OS writes pages back when it likes; the log
fsyncs the segments a roll leaves behind (which moves the recovery point to the new
segment) and everything on close. `flush.messages` and `flush.ms` add fsyncs after that
many unflushed records or that much time (`maybe_flush(now_ms)`, called by the broker's
housekeeping). A flush fsyncs the directory as well only when it covers a segment created
since the last flush (a base offset at or above the recovery point), whose files' directory
entries are not durable yet (Kafka's LocalLog.flush rule).

The flush after a roll is not done by the roll, which runs inside an append: like
Kafka's UnifiedLog.roll, which schedules it ("flush-log") on its scheduler thread, the
roll only records that the recovery point may move up to the new base offset once the
older segments, the new producer snapshot (written without fsync) and the directory are
fsynced. `take_pending_flush()` hands that work out as a PendingFlush, which names files
by path only; its `run()` may run on another thread, since it touches nothing of the Log
and opens its own file descriptors, of inactive segments' files that nothing writes any
more. Back on the thread that owns the log, `mark_flushed(job)` moves the recovery point
-- not before the fsyncs have happened, and not at all if the log was truncated in
between (the files then changed after the job named them). A crash before that leaves
the old recovery point, from which recovery re-reads the rolled segment. Whoever owns
the log is told of new pending work by `flush_listener(log)` (the broker runs the job in
a thread pool); with no listener the work waits for the next `flush` or `close`.

Retention. `delete_old_segments(now_ms, high_watermark)` deletes whole segments by
Kafka's rules, decided in storage/retention.py: those below the log start offset, and on
`cleanup.policy=delete` those beyond `retention.bytes` or older than `retention.ms`.

Leader epochs. The log owns its leader-epoch cache (storage/leader_epoch_cache.py):
epoch -> first offset written in it, in `leader-epoch-checkpoint`. It follows the log as
Kafka's UnifiedLog keeps it: every appended batch's epoch is assigned at its base offset
(a leader's epoch, or the epochs a follower's batches carry; -1, a batch no leader
stamped, is skipped), a new leader assigns its epoch at the log end offset before any
append (`assign_epoch_start_offset`), a truncation drops the entries from the cut on, a
full truncation empties it, a log start move (DeleteRecords, retention) cuts it to the
new start, and loading re-assigns the epochs of recovered segments and clamps it to the
log (storage/recovery.py). `end_offset_for_epoch` answers OffsetForLeaderEpoch from it.

Compaction (storage/cleaner/) copies inactive segments into new ones elsewhere and
swaps them in with `replace_segments`, the only part that touches the Log.

Deletion. Segments removed by truncation, retention, by moving the log start offset or
by a compaction's swap are renamed `*.deleted` at once and their files removed
`file.delete.delay.ms` later (`delete_expired_files`), so that a FetchResult handed out
just before keeps a valid file descriptor. Removing a large file takes a while (a quarter
of a second for 1 GiB on ext4), so a broker gives the removal to a thread
(`file_remover`). The producer snapshot at a deleted segment's base offset goes with it,
renamed `<offset>.snapshot.deleted` (Kafka's rule; a snapshot at no deleted segment's
base stays until the next load removes it as a stray). A crash in between leaves
`.deleted` files, which the next load removes.
Several segments are renamed oldest first, so a crash in the middle of a deletion leaves
a suffix of the segments; the next load's log start offset is at least the first one's
base offset.

Concurrency: not thread-safe; the broker serializes access per partition (every call,
reads included). The one exception is `PendingFlush.run`, which may run on any thread
while the log is in use (see "Flush policy"). Time enters as `now_ms` arguments; the log
never reads the clock.
"""

from __future__ import annotations

import logging
import random
from bisect import bisect_right
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping, NamedTuple, Sequence

from protocol.records import (
    LOG_OVERHEAD,
    NO_PRODUCER_EPOCH,
    NO_SEQUENCE,
    stamp_base_offset,
    stamp_log_append_time,
    stamp_partition_leader_epoch,
)
from storage import files
from storage.checkpoint import fsync_dir, fsync_file
from storage.cleaner import swap as cleaner_swap
from storage.config import LONG_MAX, LogConfig
from storage.errors import (
    CorruptCheckpoint,
    DuplicateSequence,
    OffsetOutOfRange,
    RecordBatchTooLarge,
    StorageError,
)
from storage.leader_epoch_cache import EpochEntry, LeaderEpochCache
from storage.log_validator import AppendOrigin, analyze_batches, validate_records
from storage.producer_state import (
    DEFAULT_PRODUCER_ID_EXPIRATION_MS,
    ProducerStateEntry,
    ProducerStateManager,
    rebuild_producer_state,
)
from storage.recovery import RecoveryReport, load_log
from storage.segment import FetchResult, LogSegment, RollBounds
from storage.time_index import NO_TIMESTAMP, TimestampOffset

if TYPE_CHECKING:
    from storage.retention import Deletion

__all__ = ["AppendInfo", "FetchResult", "Log", "PendingFlush"]

logger = logging.getLogger("storage.log")


class AppendInfo(NamedTuple):
    """What one `Log.append` wrote.

    `position` is the byte position in segment `segment_base_offset` where the first
    batch starts. `log_append_time_ms` is the broker time stamped into the batches, or -1
    when the topic uses CreateTime. (A NamedTuple rather than a frozen dataclass: just as
    immutable, and four times cheaper to build once per produced batch.)

    `duplicate` is True when the append was a producer's retry of a batch already in the
    log: nothing was written, `first_offset`/`last_offset` are those of the ORIGINAL
    batch, `max_timestamp_ms` its timestamp (also `log_append_time_ms` on LogAppendTime
    topics), and position, sizes and counts are -1/0. The broker answers it like any
    success (error NONE, base offset = `first_offset`), as Kafka does.
    """

    first_offset: int
    last_offset: int
    max_timestamp_ms: int
    offset_of_max_timestamp: int
    log_append_time_ms: int
    log_start_offset: int
    log_end_offset: int
    segment_base_offset: int
    position: int
    size_bytes: int
    batch_count: int
    record_count: int
    duplicate: bool = False


class PendingFlush(NamedTuple):
    """The fsyncs a roll left to do (see "Flush policy" in the module docstring).

    `run()` may be called on any thread: it opens the files by their paths, fsyncs them
    (a file gone since, deleted or renamed, is skipped: it no longer matters), then the
    directory. It touches no Log state; `Log.mark_flushed(job)` does that afterwards, on
    the log's own thread.
    """

    offset: int              # the recovery point once done
    paths: tuple[Path, ...]  # files to fsync
    dir: Path
    truncations: int         # the log's truncation count when the job was taken

    def run(self) -> None:
        for path in self.paths:
            fsync_file(path)
        try:
            fsync_dir(self.dir)
        except FileNotFoundError:
            pass  # the partition was deleted meanwhile


class Log:
    """The segmented log of one partition (see the module docstring).

    Open with `Log.open(dir, config, now_ms=...)`. Not thread-safe: the broker serializes
    access per partition.
    """

    __slots__ = (
        "dir", "config", "recovery_report", "_segments", "_base_offsets", "_segment_list",
        "_active", "_roll_bounds", "_log_start_offset", "_log_end_offset",
        "_recovery_point", "_rng", "_last_now_ms", "_last_flush_ms", "_pending_deletes",
        "_closed", "_producer_state", "_pending_flush_offset", "_unsynced_snapshots",
        "_truncations", "flush_listener", "file_remover", "_epoch_cache",
    )

    def __init__(
        self,
        dir: Path,
        config: LogConfig,
        segments,
        *,
        log_start_offset: int,
        log_end_offset: int,
        recovery_point: int,
        now_ms: int,
        rng: random.Random,
        recovery_report: RecoveryReport | None = None,
        producer_state: ProducerStateManager | None = None,
        epoch_cache: LeaderEpochCache | None = None,
    ):
        """Use `Log.open`; this wraps segments (producer state, epoch cache) already loaded."""
        self.dir = dir if isinstance(dir, Path) else Path(dir)
        self.config = config
        self._segments = segments  # SortedDict: base offset -> LogSegment
        self._base_offsets: list[int] = []
        self._segment_list: list[LogSegment] = []
        self._active: LogSegment
        # The active segment's RollBounds (None: to compute before the next append).
        self._roll_bounds: RollBounds | None = None
        self._segments_changed()
        self._log_start_offset = log_start_offset
        self._log_end_offset = log_end_offset
        self._recovery_point = recovery_point
        self._rng = rng
        self._last_now_ms = now_ms
        self._last_flush_ms = now_ms
        # (when, segment, its producer snapshot renamed `.snapshot.deleted` or None)
        self._pending_deletes: list[tuple[int, LogSegment, Path | None]] = []
        # What rolls left to fsync (see "Flush policy"): the recovery point the older
        # segments allow once fsynced (0: nothing pending), and snapshots not fsynced yet.
        self._pending_flush_offset = 0
        self._unsynced_snapshots: list[Path] = []
        self._truncations = 0
        # Called with the log when a roll leaves a flush pending; it must only schedule
        # the work (it runs inside the append that rolled).
        self.flush_listener: Callable[[Log], None] | None = None
        # Given the files of deleted segments whose time has come (see "Deletion"); None
        # removes them at once.
        self.file_remover: Callable[[list[Path]], None] | None = None
        self._closed = False
        self.recovery_report = recovery_report
        if producer_state is None:
            producer_state = ProducerStateManager(self.dir)
            producer_state.update_map_end_offset(log_end_offset)
        self._producer_state = producer_state
        self._epoch_cache = epoch_cache if epoch_cache is not None else LeaderEpochCache(self.dir)

    @classmethod
    def open(
        cls,
        dir: Path,
        config: LogConfig | None = None,
        *,
        now_ms: int,
        log_start_offset: int = 0,
        recovery_point: int = 0,
        had_clean_shutdown: bool = False,
        rng: random.Random | None = None,
        producer_id_expiration_ms: int = DEFAULT_PRODUCER_ID_EXPIRATION_MS,
    ) -> Log:
        """Open (creating if needed) the log in `dir`.

        `log_start_offset` and `recovery_point` come from the data directory's checkpoint
        files (0 when absent). With `had_clean_shutdown`, segments are trusted and no
        segment data is read beyond the tail of the active segment; without it, every
        segment from the recovery point on is validated (see storage/recovery.py). The
        producer state is loaded from its latest snapshot and the log after it;
        `producer_id_expiration_ms` is the broker's `producer.id.expiration.ms`.
        """
        config = config or LogConfig()
        rng = rng or random.Random()
        dir = dir if isinstance(dir, Path) else Path(dir)
        try:
            names = files.regular_file_names(dir)   # listed once: the producer state and recovery share it
        except FileNotFoundError:
            dir.mkdir(parents=True)
            names = []
        producer_state = ProducerStateManager(dir, producer_id_expiration_ms=producer_id_expiration_ms,
                                              file_names=names)
        epoch_cache, rebuild_epochs = _open_epoch_cache(dir)
        loaded = load_log(
            dir,
            config,
            now_ms=now_ms,
            log_start_offset=log_start_offset,
            recovery_point=recovery_point,
            had_clean_shutdown=had_clean_shutdown,
            rng=rng,
            producer_state=producer_state,
            epoch_cache=epoch_cache,
            file_names=names,
        )
        if rebuild_epochs:
            for segment in loaded.segments.values():
                for _, header in segment.scan_batch_headers(0):
                    epoch_cache.assign_recovered(header.partition_leader_epoch, header.base_offset)
            epoch_cache.truncate_from_start(loaded.log_start_offset)
        return cls(
            dir,
            config,
            loaded.segments,
            log_start_offset=loaded.log_start_offset,
            log_end_offset=loaded.log_end_offset,
            recovery_point=loaded.recovery_point,
            now_ms=now_ms,
            rng=rng,
            recovery_report=loaded.report,
            producer_state=producer_state,
            epoch_cache=epoch_cache,
        )

    # -- state --

    @property
    def name(self) -> str:
        return self.dir.name

    @property
    def log_start_offset(self) -> int:
        return self._log_start_offset

    @property
    def log_end_offset(self) -> int:
        return self._log_end_offset

    @property
    def recovery_point(self) -> int:
        return self._recovery_point

    @property
    def unflushed_messages(self) -> int:
        """Offsets appended since the last flush (log end offset - recovery point)."""
        return self._log_end_offset - self._recovery_point

    @property
    def last_flush_ms(self) -> int:
        return self._last_flush_ms

    @property
    def active_segment(self) -> LogSegment:
        return self._active

    @property
    def segments(self) -> list[LogSegment]:
        """The segments, oldest first (a copy of the list)."""
        return list(self._segments.values())

    @property
    def num_segments(self) -> int:
        return len(self._segments)

    @property
    def size_bytes(self) -> int:
        return sum(segment.size_bytes for segment in self._segments.values())

    def floor_segment(self, offset: int) -> LogSegment | None:
        """The segment with the largest base offset <= `offset`."""
        index = bisect_right(self._base_offsets, offset) - 1
        return self._segment_list[index] if index >= 0 else None

    def higher_segment(self, offset: int) -> LogSegment | None:
        """The segment with the smallest base offset > `offset`."""
        index = bisect_right(self._base_offsets, offset)
        return self._segment_list[index] if index < len(self._segment_list) else None

    def _segments_changed(self) -> None:
        """Refresh the plain lists kept beside the SortedDict of segments; called after
        every change to it (roll, truncation, deletion).

        The SortedDict is the map the rest of the class edits; the read path searches
        these lists instead, with `bisect.bisect_right`: one C call on a list of ints,
        about a third of the cost of the SortedDict's bisect + peekitem, and the same
        for three segments or three thousand. Segments change rarely (a roll every
        `segment.bytes`), so rebuilding the lists then costs nothing that matters.
        """
        self._base_offsets = list(self._segments.keys())
        self._segment_list = list(self._segments.values())
        self._active = self._segment_list[-1] if self._segment_list else None  # type: ignore[assignment]
        self._roll_bounds = None

    # -- producer state --

    @property
    def producer_state(self) -> Mapping[int, ProducerStateEntry]:
        """producer id -> its entry (epoch, last five batches, ...): a read-only live view."""
        return self._producer_state.producers

    def producers_in_kafkas_order(self) -> list[tuple[int, ProducerStateEntry]]:
        """(producer id, entry) in the order of Kafka's table of them (DescribeProducers)."""
        return self._producer_state.in_kafkas_order()

    def last_sequence(self, producer_id: int) -> int:
        """The last sequence appended by the producer in its current epoch (-1: none)."""
        entry = self._producer_state.last_entry(producer_id)
        return NO_SEQUENCE if entry is None else entry.last_sequence

    def producer_epoch(self, producer_id: int) -> int:
        """The producer's current epoch in this partition (-1: unknown producer)."""
        entry = self._producer_state.last_entry(producer_id)
        return NO_PRODUCER_EPOCH if entry is None else entry.producer_epoch

    @property
    def producer_snapshot_offsets(self) -> list[int]:
        """Offsets of the `.snapshot` files, oldest first."""
        return self._producer_state.snapshot_offsets

    def remove_expired_producers(self, now_ms: int) -> int:
        """Forget the producers idle for `producer.id.expiration.ms` (measured from their
        last batch's timestamp) and without an open transaction; return how many.
        (Kafka runs this every `producer.id.expiration.check.interval.ms`.)"""
        self._last_now_ms = now_ms
        return self._producer_state.remove_expired_producers(now_ms)

    # -- leader epochs --

    @property
    def leader_epoch_cache(self) -> LeaderEpochCache:
        return self._epoch_cache

    @property
    def epoch_entries(self) -> list[EpochEntry]:
        """The leader-epoch cache's entries (epoch, start offset), oldest first."""
        return self._epoch_cache.entries

    @property
    def latest_epoch(self) -> int | None:
        """The latest leader epoch that wrote (or is about to write) this log."""
        return self._epoch_cache.latest_epoch

    def assign_epoch_start_offset(self, leader_epoch: int, start_offset: int, *, write: bool = True) -> bool:
        """Record that `leader_epoch` begins at `start_offset` (a new leader, at its log
        end offset, before its first append: Kafka's Partition.makeLeader). With
        `write=False` the checkpoint file takes it with the epoch's first append, and a
        stop or a crash before that forgets it (storage/leader_epoch_cache.py, "Crash
        behaviour")."""
        self._check_open()
        return self._epoch_cache.assign(leader_epoch, start_offset, write=write)

    def end_offset_for_epoch(self, leader_epoch: int) -> tuple[int, int]:
        """(epoch, end offset) for OffsetForLeaderEpoch: the largest epoch at or below
        `leader_epoch` this log knows and where it ended (the log end offset for the
        latest); (-1, -1) when the log cannot tell (storage/leader_epoch_cache.py)."""
        self._check_open()
        return self._epoch_cache.end_offset_for(leader_epoch, self._log_end_offset)

    def update_config(self, config: LogConfig) -> None:
        """Use a new config from now on (segments already open keep their index settings)."""
        self.config = config
        self._roll_bounds = None  # segment.ms may have changed

    # -- append --

    def append(
        self,
        records,
        *,
        now_ms: int,
        leader_epoch: int | None = None,
        assign_offsets: bool = True,
        origin: AppendOrigin | None = None,
    ) -> AppendInfo:
        """Append one or more whole batches; return where they went.

        `records` is the bytes of a Produce request's records field (bytes, bytearray or
        memoryview). With `assign_offsets` (a leader appending) each batch's base offset
        is set to the next offset, in place: a writable buffer is stamped where it is,
        a read-only one is copied once first. Without it (a follower appending what it
        fetched) the batches keep their offsets, which must not go below the log end
        offset. `leader_epoch` is stamped into every batch when given.

        `origin` (a leader's append only) names who produced the batches: a client, or
        the broker's coordinator; their records then go through Kafka's rules
        (storage/log_validator.py `validate_records`), which may rebuild a batch into the
        topic's `compression.type`. Without it only the format is checked: the caller
        vouches for the records (tests, tools, a follower).

        Batches with a producer id are checked against the producer state on a leader's
        append (see the module docstring); a retry of one of a producer's last five
        batches returns an AppendInfo with `duplicate=True` and the original offsets, and
        writes nothing.

        Raises, before anything is written: InvalidBatch / CorruptBatch / InvalidRecords
        (format, CRC, record rules), UnreadableBatch (compressed data Kafka cannot read
        back), RecordTooLarge (a batch over max.message.bytes), RecordBatchTooLarge (the
        whole append over the segment size), UnexpectedAppendOffset (follower offsets going
        back), InvalidProducerEpoch / OutOfOrderSequence / InvalidTxnState (producer
        state).
        """
        if self._closed:
            raise StorageError(f"log {self.name} is closed")
        self._last_now_ms = now_ms
        if self._pending_deletes and now_ms >= self._pending_deletes[0][0]:
            self.delete_expired_files(now_ms)
        view = records if type(records) is memoryview else memoryview(records)
        if view.format != "B" or view.ndim != 1:
            view = view.cast("B")
        config = self.config
        headers, with_producer_ids = analyze_batches(
            view, config, origin=origin, expected_offset=None if assign_offsets else self._log_end_offset,
            partition=self.name)
        log_end_offset = self._log_end_offset
        if not headers:
            active = self._active
            return AppendInfo(
                log_end_offset, log_end_offset - 1, NO_TIMESTAMP, -1, -1, self._log_start_offset,
                log_end_offset, active.base_offset, active.size_bytes, 0, 0, 0,
            )
        if (assign_offsets or leader_epoch is not None) and view.readonly:
            view = memoryview(bytearray(view))
        if origin is not None and assign_offsets:
            view, headers = validate_records(view, headers, config, origin=origin, now_ms=now_ms,
                                             partition=self.name)
        size_bytes = view.nbytes
        if size_bytes > config.max_segment_bytes:
            raise RecordBatchTooLarge(size_bytes, config.max_segment_bytes)

        log_append_time = assign_offsets and config.log_append_time
        producer_updates = None
        if assign_offsets and with_producer_ids:
            try:
                producer_updates = self._producer_state.validate_append(
                    headers, log_end_offset, view, log_append_time_ms=now_ms if log_append_time else None
                )
            except DuplicateSequence as duplicate:
                return self._duplicate_info(duplicate)

        # Every batch is valid: assign offsets (stamping them in place), collect what the
        # indexes need per batch as (base offset, last offset, max timestamp, size).
        first_offset = log_end_offset if assign_offsets else headers[0][1].base_offset
        next_offset = first_offset
        batches: list[tuple[int, int, int, int]] = []
        max_timestamp_ms, offset_of_max_timestamp, record_count = NO_TIMESTAMP, -1, 0
        for position, header in headers:
            if assign_offsets:
                stamp_base_offset(view, position, next_offset)
                batch_base_offset = next_offset
            else:
                batch_base_offset = header.base_offset
            last_offset = batch_base_offset + header.last_offset_delta
            if leader_epoch is not None:
                stamp_partition_leader_epoch(view, position, leader_epoch)
            if log_append_time:
                stamp_log_append_time(view, position, now_ms)
                batch_max_timestamp = now_ms
            else:
                batch_max_timestamp = header.max_timestamp
            if batch_max_timestamp > max_timestamp_ms:
                max_timestamp_ms, offset_of_max_timestamp = batch_max_timestamp, last_offset
            batches.append((batch_base_offset, last_offset, batch_max_timestamp, header.batch_length + LOG_OVERHEAD))
            record_count += header.records_count
            next_offset = last_offset + 1
        last_offset = next_offset - 1

        # Roll first if the active segment must: the exact checks run only when the
        # cheap bounds are crossed (see LogSegment.roll_bounds).
        segment = self._active
        bounds = self._roll_bounds
        if bounds is None:
            bounds = self._roll_bounds = segment.roll_bounds(config.max_segment_ms)
        segment_size = segment.size_bytes
        if (
            segment_size > config.max_segment_bytes - size_bytes
            or last_offset > bounds.max_offset
            or segment_size >= bounds.index_check_position
            or max_timestamp_ms > bounds.max_timestamp_ms
            or now_ms > bounds.max_now_ms
        ):
            segment = self._maybe_roll(size_bytes, max_timestamp_ms, first_offset, last_offset, now_ms)
        # The epochs the batches carry, at their base offsets (Kafka's UnifiedLog.append).
        epoch_cache = self._epoch_cache
        if leader_epoch is not None:
            if leader_epoch >= 0:
                epoch_cache.assign(leader_epoch, first_offset)
        else:
            for (_, header), batch in zip(headers, batches):
                if header.partition_leader_epoch >= 0:
                    epoch_cache.assign(header.partition_leader_epoch, batch[0])
        position = segment.append(view, batches)
        if position == 0:
            self._roll_bounds = None  # the first batch sets the time segment.ms counts from
        self._log_end_offset = next_offset
        if producer_updates is not None:
            self._producer_state.update(producer_updates, next_offset)
        elif not assign_offsets and with_producer_ids:
            self._producer_state.apply_batches(headers, view, map_end_offset=next_offset)
        else:
            self._producer_state.update_map_end_offset(next_offset)
        if next_offset - self._recovery_point >= config.flush_messages:
            self.flush(now_ms=now_ms)
        return AppendInfo(
            first_offset, last_offset, max_timestamp_ms, offset_of_max_timestamp,
            now_ms if log_append_time else -1, self._log_start_offset, next_offset,
            segment.base_offset, position, size_bytes, len(batches), record_count,
        )

    def _duplicate_info(self, duplicate: DuplicateSequence) -> AppendInfo:
        log_append_time_ms = duplicate.timestamp_ms if self.config.log_append_time else -1
        return AppendInfo(
            duplicate.first_offset, duplicate.last_offset, duplicate.timestamp_ms, duplicate.last_offset,
            log_append_time_ms, self._log_start_offset, self._log_end_offset, -1, -1, 0, 0, 0, True,
        )

    def _maybe_roll(
        self, size_bytes: int, max_timestamp_ms: int, first_offset: int, last_offset: int, now_ms: int
    ) -> LogSegment:
        """The exact roll checks (`LogSegment.should_roll`), run when the cheap bounds
        of `_roll_bounds` say a roll may be due; roll if one is. Either way the bounds
        are computed afresh before the next append."""
        segment = self._active
        self._roll_bounds = None
        if segment.should_roll(
            max_segment_bytes=self.config.max_segment_bytes,
            max_segment_ms=self.config.max_segment_ms,
            messages_size_bytes=size_bytes,
            max_timestamp_ms=max_timestamp_ms,
            max_offset=last_offset,
            now_ms=now_ms,
        ):
            return self.roll(now_ms=now_ms, expected_next_offset=first_offset)
        return segment

    def roll(self, *, now_ms: int | None = None, expected_next_offset: int | None = None) -> LogSegment:
        """Close the active segment for appends and start a new one; return it.

        The new base offset is max(expected_next_offset, log end offset). Files left at
        that offset by an earlier life of the log (a `.log` and its indexes that no
        segment owns) are deleted first, as Kafka's LocalLog.roll does. The old active
        segment gets its final time-index entry and trimmed indexes. Nothing is fsynced
        here: the flush of the older segments, after which the recovery point is the new
        base offset, is left pending (see "Flush policy" in the module docstring).
        """
        self._check_open()
        now_ms = self._now(now_ms)
        new_offset = max(expected_next_offset or 0, self._log_end_offset)
        active = self.active_segment
        if new_offset in self._segments:
            if active.base_offset == new_offset and active.size_bytes == 0:
                # Rolling onto an empty active segment with the same base: start it afresh.
                self._segments.pop(new_offset)
                active.delete()
            else:
                raise StorageError(f"cannot roll {self.name} to offset {new_offset}: a segment with that base exists")
        elif new_offset < active.base_offset:
            raise StorageError(
                f"cannot roll {self.name} to offset {new_offset}, below the active segment's base "
                f"offset {active.base_offset}"
            )
        else:
            active.on_become_inactive()
        for suffix in files.SEGMENT_FILE_SUFFIXES:
            stale = files.segment_file_path(self.dir, new_offset, suffix)
            if stale.exists():
                logger.warning("Newly rolled segment file %s of %s exists already; deleting it first",
                               stale.name, self.name)
                stale.unlink()
        segment = LogSegment(
            self.dir, new_offset, self.config, now_ms=now_ms,
            roll_jitter_ms=self.config.random_segment_jitter_ms(self._rng),
        )
        self._segments[new_offset] = segment
        self._segments_changed()
        segment.prepare_for_appends()
        # The producer state of every offset below the new segment: recovery of this
        # segment can start from it. Fsynced with the pending flush.
        self._producer_state.update_map_end_offset(new_offset)
        snapshot = self._producer_state.take_snapshot(sync=False)
        if snapshot is not None:
            self._unsynced_snapshots.append(snapshot)
        self._pending_flush_offset = max(self._pending_flush_offset, min(new_offset, self._log_end_offset))
        if self.flush_listener is not None:
            self.flush_listener(self)
        return segment

    # -- read --

    def read(
        self,
        fetch_offset: int,
        max_bytes: int,
        *,
        max_offset: int | None = None,
        min_one_batch: bool = True,
    ) -> FetchResult:
        """The bytes to return for a fetch at `fetch_offset`: a file range starting at the
        batch that holds it, at most `max_bytes` long (but one whole batch at least, with
        `min_one_batch`, as Kafka does for the first partition of a fetch).

        `max_offset` (e.g. the high watermark) excludes the batch holding it and every
        later one. A fetch at the log end offset returns an empty result; one below the
        log start offset or above the log end offset raises OffsetOutOfRange.
        """
        self._check_open()
        if not self._log_start_offset <= fetch_offset <= self._log_end_offset:
            raise OffsetOutOfRange(fetch_offset, self._log_start_offset, self._log_end_offset)
        if fetch_offset == self._log_end_offset or (max_offset is not None and fetch_offset >= max_offset):
            return self._empty_result(fetch_offset)
        limit_base_offset: int | None = None
        limit_position: int | None = None
        if max_offset is not None and max_offset < self._log_end_offset:
            limit_segment = self.floor_segment(max_offset)
            assert limit_segment is not None
            limit_batch = limit_segment.translate_offset(max_offset)
            limit_base_offset = limit_segment.base_offset
            limit_position = limit_batch.position if limit_batch is not None else limit_segment.size_bytes
        segment = self.floor_segment(fetch_offset)
        while segment is not None:
            max_position = None
            if limit_base_offset is not None:
                if segment.base_offset > limit_base_offset:
                    break
                if segment.base_offset == limit_base_offset:
                    max_position = limit_position
            result = segment.read(fetch_offset, max_bytes, max_position, min_one_batch)
            if result is not None:
                return result
            segment = self.higher_segment(segment.base_offset)
        return self._empty_result(fetch_offset)

    def _empty_result(self, fetch_offset: int) -> FetchResult:
        active = self.active_segment
        return FetchResult(fetch_offset, active.base_offset, active.log_path, active.fd, active.size_bytes, 0)

    def offset_for_timestamp(self, timestamp_ms: int) -> TimestampOffset | None:
        """The first record at or after the log start offset whose timestamp is
        >= `timestamp_ms`, as (its timestamp, its offset), searched in the first segment
        whose largest timestamp reaches `timestamp_ms`; None if there is no such segment
        or no such record in it.

        Kafka's rule (UnifiedLog.searchOffsetInLocalLog): the segment is chosen by
        `LogSegment.largest_timestamp_ms`, which is the `.log` file's modification time
        for a segment whose timestamps are unknown (an empty time index), and only that
        segment is searched. (ListOffsets for a real timestamp; the special timestamps
        -1 latest and -2 earliest are the log end and log start offsets.)
        """
        self._check_open()
        for segment in self._segments.values():
            if segment.largest_timestamp_ms() >= timestamp_ms:
                return segment.find_offset_by_timestamp(timestamp_ms, self._log_start_offset)
        return None

    # -- truncation and deletion --

    def truncate_to(self, offset: int, *, now_ms: int | None = None) -> bool:
        """Remove every batch at or after `offset` (replication: a follower cutting its
        log back to the leader's). The batch holding `offset` goes whole, so the new log
        end offset is at most `offset`. False if there was nothing to remove."""
        self._check_open()
        if offset < 0:
            raise ValueError(f"cannot truncate to a negative offset {offset}")
        if offset >= self._log_end_offset:
            # An entry may start at the log end offset: a leader that assigned its epoch
            # and wrote nothing in it (Kafka cuts the cache here too).
            self._epoch_cache.truncate_from_end(self._log_end_offset)
            return False
        now_ms = self._now(now_ms)
        self._truncated()
        if self._segments.peekitem(0)[0] > offset:
            self.truncate_fully_and_start_at(offset, now_ms=now_ms)
            return True
        doomed = [segment for base_offset, segment in self._segments.items() if base_offset > offset]
        self._remove_and_delete(doomed, now_ms)
        active = self.active_segment
        active.truncate_to(offset, now_ms=now_ms)
        self._roll_bounds = None
        self._log_end_offset = active.read_next_offset()
        self._epoch_cache.truncate_from_end(offset)
        self._log_start_offset = min(self._log_start_offset, self._log_end_offset)
        self._recovery_point = min(self._recovery_point, self._log_end_offset)
        # Rewind the producers: latest snapshot at or below the new end, then replay.
        rebuild_producer_state(
            self._producer_state, self.segments, self._log_start_offset, self._log_end_offset,
            now_ms=now_ms, reload_from_clean_shutdown=False,
        )
        return True

    def truncate_fully_and_start_at(self, new_offset: int, *, now_ms: int | None = None) -> None:
        """Delete every segment and start empty at `new_offset` (log start = log end)."""
        self._check_open()
        now_ms = self._now(now_ms)
        self._truncated()
        # the producer state forgets every snapshot at once below (Kafka's truncateFullyAndStartAt)
        self._remove_and_delete(list(self._segments.values()), now_ms, snapshots=False)
        segment = LogSegment(
            self.dir, new_offset, self.config, now_ms=now_ms,
            roll_jitter_ms=self.config.random_segment_jitter_ms(self._rng),
        )
        self._segments[new_offset] = segment
        self._segments_changed()
        segment.prepare_for_appends()
        fsync_dir(self.dir)
        self._log_start_offset = self._log_end_offset = self._recovery_point = new_offset
        self._epoch_cache.clear_and_flush()
        self._producer_state.truncate_fully_and_start_at(new_offset)

    def advance_log_start_offset(self, offset: int) -> bool:
        """Move the log start offset up to `offset` (DeleteRecords); True if it moved.
        Raises OffsetOutOfRange above the log end offset."""
        self._check_open()
        if offset > self._log_end_offset:
            raise OffsetOutOfRange(offset, self._log_start_offset, self._log_end_offset, "new log start offset")
        if offset <= self._log_start_offset:
            return False
        self._log_start_offset = offset
        self._epoch_cache.truncate_from_start(offset)
        self._producer_state.on_log_start_offset_incremented(offset)
        return True

    def delete_segments_below(self, offset: int, *, now_ms: int | None = None) -> int:
        """Advance the log start offset to `offset` and delete every segment that lies
        wholly below it (never the active one), and the producer snapshots below the
        first remaining segment; return how many segments were deleted. This is the
        log-start-offset rule of retention alone (storage/retention.py), applied at once.
        (The producers stay in memory until they expire, as in Kafka.)"""
        self.advance_log_start_offset(offset)
        deletions = self._delete_by_retention(self._now(now_ms), self._log_end_offset, delete_policy=False)
        return sum(len(deletion.base_offsets) for deletion in deletions)

    def delete_old_segments(self, now_ms: int, high_watermark: int) -> list[Deletion]:
        """One retention pass (storage/retention.py decides): delete the whole segments
        below the log start offset and, on `cleanup.policy=delete` logs, those beyond
        `retention.bytes` or older than `retention.ms`, never past `high_watermark`.
        Rolls first when every segment goes. Moves the log start offset to the first
        segment left and deletes the producer snapshots below it (the producers stay in
        memory until they expire, as in Kafka). Returns the deletions made, in order."""
        self._check_open()
        return self._delete_by_retention(now_ms, high_watermark, delete_policy=self.config.delete)

    def _delete_by_retention(self, now_ms: int, high_watermark: int, *, delete_policy: bool) -> list[Deletion]:
        from storage.retention import SegmentInfo, plan_retention   # imported at the first retention pass
        config = self.config
        segments = list(self._segments.values())
        # A segment's largest timestamp may cost a read of its time index: only the time
        # rule needs it, so a log it does not apply to does not pay for it.
        by_time = delete_policy and config.retention_ms >= 0
        deletions = plan_retention(
            [SegmentInfo(s.base_offset, s.size_bytes, s.largest_timestamp_ms() if by_time else NO_TIMESTAMP)
             for s in segments],
            log_start_offset=self._log_start_offset, log_end_offset=self._log_end_offset,
            high_watermark=high_watermark, now_ms=now_ms, retention_ms=config.retention_ms,
            retention_bytes=config.retention_bytes, delete_policy=delete_policy,
        )
        for deletion in deletions:
            if deletion.roll:
                self.roll(now_ms=now_ms)
            # Kafka's order (UnifiedLog.deleteSegments): the log start moves, then the
            # segments go, then their producer snapshots.
            if deletion.log_start_offset > self._log_start_offset:
                self._log_start_offset = deletion.log_start_offset
                self._epoch_cache.truncate_from_start(deletion.log_start_offset)
                self._producer_state.on_log_start_offset_incremented(deletion.log_start_offset)
            self._remove_and_delete([self._segments[base] for base in deletion.base_offsets], now_ms)
        return deletions

    def _remove_and_delete(self, segments: Sequence[LogSegment], now_ms: int, *, snapshots: bool = True) -> None:
        """Take `segments` out of the log and delete them (see "Deletion"); with
        `snapshots`, the producer snapshot at each one's base offset goes with it, renamed
        `.snapshot.deleted` (Kafka's deleteProducerSnapshots)."""
        if not segments:
            return
        delay_ms = self.config.file_delete_delay_ms
        for segment in segments:
            self._segments.pop(segment.base_offset, None)
            segment.change_suffix(files.DELETED_FILE_SUFFIX)
            snapshot = self._producer_state.mark_snapshot_for_deletion(segment.base_offset) if snapshots else None
            if delay_ms == 0:
                self._remove_files(segment, snapshot)
            else:
                self._pending_deletes.append((now_ms + delay_ms, segment, snapshot))
        self._segments_changed()
        self._pending_deletes.sort(key=lambda item: item[0])
        fsync_dir(self.dir)

    def replace_segments(
        self, new_segments: Sequence[LogSegment], old_segments: Sequence[LogSegment], *,
        now_ms: int | None = None, on_step=None,
    ) -> None:
        """Put the cleaner's `.cleaned` segments in place of `old_segments`, which must
        be inactive segments of this log, renaming files in the crash-safe order of
        storage/cleaner/swap.py (`on_step` is told after each step). The old segments'
        files go as deleted segments do (see "Deletion"), and so do the producer
        snapshots at the base offsets that no segment starts at any more (as Kafka's
        UnifiedLog.replaceSegments does; a load would remove them as strays)."""
        self._check_open()
        for old in old_segments:
            if self._segments.get(old.base_offset) is not old or old is self._active:
                raise StorageError(f"cannot replace segment {old.base_offset} of {self.name}: not an inactive segment of it")
        now_ms = self._now(now_ms)

        def add_new(segment: LogSegment) -> None:
            self._segments[segment.base_offset] = segment
            self._segments_changed()

        new_bases = {segment.base_offset for segment in new_segments}
        cleaner_swap.replace_segments(
            self.dir, new_segments, old_segments,
            delete_old=lambda segment: self._remove_and_delete(
                [segment], now_ms, snapshots=segment.base_offset not in new_bases),
            add_new=add_new, on_step=on_step,
        )

    def delete_expired_files(self, now_ms: int) -> int:
        """Remove the `.deleted` files whose `file.delete.delay.ms` has passed."""
        self._last_now_ms = now_ms
        due = [(segment, snapshot) for deadline, segment, snapshot in self._pending_deletes if deadline <= now_ms]
        self._pending_deletes = [pending for pending in self._pending_deletes if pending[0] > now_ms]
        for segment, snapshot in due:
            self._remove_files(segment, snapshot)
        return len(due)

    def _remove_files(self, segment: LogSegment, snapshot: Path | None, *, at_once: bool = False) -> None:
        """Close a deleted segment and remove its files and its producer snapshot's, through
        `file_remover` if there is one, else (or `at_once`: the log is closing) here."""
        segment.close_handlers()
        paths = segment.file_paths() + ([snapshot] if snapshot is not None else [])
        if at_once or self.file_remover is None:
            files.unlink_paths(paths)
        else:
            self.file_remover(paths)

    # -- flushing --

    @property
    def pending_flush_offset(self) -> int | None:
        """The recovery point a pending flush would reach (see "Flush policy"), or None."""
        return self._pending_flush_offset if self._pending_flush_offset > self._recovery_point else None

    def take_pending_flush(self) -> PendingFlush | None:
        """The work rolls left to do, as a PendingFlush to `run()` on any thread and then
        give to `mark_flushed`; None when there is none. Taking it clears it: a later roll
        leaves new work (and calls the listener again)."""
        self._check_open()
        offset, self._pending_flush_offset = self._pending_flush_offset, 0
        snapshots, self._unsynced_snapshots = self._unsynced_snapshots, []
        if offset <= self._recovery_point and not snapshots:
            return None
        paths: list[Path] = list(snapshots)
        if offset > self._recovery_point:
            # Segments below a roll's base offset: inactive ones only.
            for segment in self._segments_between(self._recovery_point, offset):
                paths += (segment.log_path, segment.offset_index_path, segment.time_index_path)
        offset = max(offset, self._recovery_point)
        return PendingFlush(offset, tuple(paths), self.dir, self._truncations)

    def mark_flushed(self, job: PendingFlush, *, now_ms: int | None = None) -> bool:
        """After `job.run()` returned: move the recovery point up to `job.offset`. Not if
        the log was truncated or closed since the job was taken (False)."""
        if self._closed or job.truncations != self._truncations:
            return False
        if now_ms is not None:
            self._last_now_ms = now_ms
            self._last_flush_ms = now_ms
        self._recovery_point = max(self._recovery_point, min(job.offset, self._log_end_offset))
        return True

    def run_pending_flush(self, *, now_ms: int | None = None) -> bool:
        """Take, run and mark the pending flush on this thread (for callers without a
        thread to spare, and tests); True if the recovery point moved."""
        job = self.take_pending_flush()
        if job is None:
            return False
        before = self._recovery_point
        job.run()
        self.mark_flushed(job, now_ms=now_ms)
        return self._recovery_point > before

    def _segments_between(self, from_offset: int, to_offset: int) -> list[LogSegment]:
        """The segments holding offsets in [from_offset, to_offset)."""
        first = max(self._segments.bisect_right(from_offset) - 1, 0)
        return [s for s in list(self._segments.values())[first:] if s.base_offset < to_offset]

    def _truncated(self) -> None:
        """Pending and running flushes may not move the recovery point any more."""
        self._truncations += 1
        self._pending_flush_offset = 0

    def flush(self, offset: int | None = None, *, now_ms: int | None = None) -> None:
        """fsync every segment holding offsets below `offset` (default: all) and move the
        recovery point up to it. Also fsyncs the snapshots that rolls (or a close) left
        unsynced."""
        self._check_open()
        offset = self._log_end_offset if offset is None else min(offset, self._log_end_offset)
        if now_ms is not None:
            self._last_now_ms = now_ms
            self._last_flush_ms = now_ms
        # The directory is fsynced once, if a file it holds is new since the last flush: a
        # snapshot a roll wrote, or a segment created since (its base offset at or above
        # the recovery point).
        new_files = bool(self._unsynced_snapshots)
        for path in self._unsynced_snapshots:
            fsync_file(path)
        self._unsynced_snapshots = []
        if offset >= self._pending_flush_offset:
            self._pending_flush_offset = 0
        if offset > self._recovery_point:
            segments = self._segments_between(self._recovery_point, offset)
            for segment in segments:
                segment.flush()
            new_files = new_files or any(segment.base_offset >= self._recovery_point for segment in segments)
        if new_files:
            fsync_dir(self.dir)
        self._recovery_point = max(self._recovery_point, offset)

    def maybe_flush(self, now_ms: int) -> bool:
        """fsync if `flush.ms` has passed since the last flush and there is unflushed data."""
        flush_ms = self.config.flush_ms
        if flush_ms >= LONG_MAX or self.unflushed_messages <= 0:
            return False
        if now_ms - self._last_flush_ms < flush_ms:
            return False
        self.flush(now_ms=now_ms)
        return True

    # -- lifecycle --

    def close(self) -> None:
        """Write the active segment's final index entries and trim its indexes, snapshot
        the producer state at the log end offset, fsync all of it once (the segments'
        data and indexes, the snapshot, then the directory), close. The recovery point
        becomes the log end offset."""
        if self._closed:
            return
        # Inactive segments were trimmed and fsynced when they rolled; the active one
        # gets its final index changes now, and they must be durable before the
        # clean-shutdown marker is written. Made first, they are fsynced once, by the
        # flush below; the snapshot is written unsynced, as a roll writes one, for the
        # flush to fsync with the directory.
        active = self.active_segment
        active.seal()
        self._producer_state.update_map_end_offset(self._log_end_offset)
        snapshot = self._producer_state.take_snapshot(sync=False)
        if snapshot is not None:
            self._unsynced_snapshots.append(snapshot)
        self.flush()
        active.flush()   # its trimmed indexes, should the log have been flushed already
        for segment in self._segments.values():
            segment.close()
        for _, segment, snapshot in self._pending_deletes:
            self._remove_files(segment, snapshot, at_once=True)
        self._pending_deletes = []
        self._closed = True

    def close_handlers(self) -> None:
        """Close every file without writing anything: what a crash leaves behind."""
        if self._closed:
            return
        for segment in self._segments.values():
            segment.close_handlers()
        for _, segment, _ in self._pending_deletes:
            segment.close_handlers()
        self._closed = True

    def delete(self) -> None:
        """Close the files and remove the whole directory."""
        self.close_handlers()
        self._epoch_cache.clear()
        files.remove_dir(self.dir)

    @property
    def closed(self) -> bool:
        return self._closed

    def _check_open(self) -> None:
        if self._closed:
            raise StorageError(f"log {self.name} is closed")

    def _now(self, now_ms: int | None) -> int:
        if now_ms is not None:
            self._last_now_ms = now_ms
        return self._last_now_ms

    def __repr__(self) -> str:
        return (
            f"Log({self.name}, log_start_offset={self._log_start_offset}, "
            f"log_end_offset={self._log_end_offset}, segments={len(self._segments)})"
        )


def _open_epoch_cache(dir: Path) -> tuple[LeaderEpochCache, bool]:
    """The partition's leader-epoch cache, read from its file, and whether it must be
    rebuilt from the log: a malformed file (which no crash makes: the file is replaced
    atomically) is replaced by an empty one and the epochs are read back from the
    batches. (Kafka takes the log directory offline instead; pylog has no such state.)"""
    try:
        return LeaderEpochCache(dir), False
    except CorruptCheckpoint as exc:
        logger.warning("%s: %s; rebuilding the leader-epoch cache from the log's batches", dir.name, exc)
        (dir / files.LEADER_EPOCH_CHECKPOINT_FILE_NAME).unlink()
        return LeaderEpochCache(dir), True
