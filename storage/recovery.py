"""Opening a partition directory: finish what a crash interrupted, then trust or re-check.

Theory of operation
-------------------
What is on disk after a stop depends on how the broker stopped:

- After a clean shutdown (the data directory holds `.kafka_cleanshutdown`), every segment
  was flushed and closed: its indexes trimmed and final. Loading then reads no segment
  data: sizes come from `stat`, the indexes are trusted, and the log end offset is found
  by reading the batch headers after the active segment's last offset-index entry (one
  index interval at most), exactly as Kafka does.
- After a crash, everything up to the recovery point (from
  `recovery-point-offset-checkpoint`) is known to have reached the disk; everything after
  it may be torn, half-written or zero-filled. Each segment from the one holding the
  recovery point onwards is recovered (`LogSegment.recover`): every batch is validated
  (length, magic, CRC-32C, offsets increasing) and the indexes are rebuilt. At the first
  bad batch the segment is truncated and every later segment deleted: a log has no holes,
  so nothing after a corrupt batch can be trusted.

Either way, loading first resolves files left in transit (Kafka's `LogLoader` passes):

1. `*.deleted`: a deletion was pending; delete the file.
   `*.cleaned`: the cleaner had not finished copying; delete the file. A `.swap` at or
   above the lowest `.cleaned` offset is part of the same unfinished operation: delete it.
2. The remaining `*.swap` files were complete copies about to replace the segments they
   cover: delete the originals in [lowest swap base offset, highest swap next offset),
   then rename each `.swap` to its final name.
3. Every `.log` becomes a segment. Index files without a `.log` are deleted. A segment
   whose `.timeindex` alone is missing gets an empty one, as in Kafka (LogLoader /
   LogSegment.sanityCheck): the segment is not read for it, so its largest timestamp is
   unknown and retention and ListOffsets by time use the `.log` file's modification
   time instead (LogSegment.largest_timestamp_ms), until a recovery rebuilds the index.
   A segment whose `.index` is missing is recovered (which rebuilds both). Only the
   presence of the files is checked, from the directory's listing, as Kafka's sanityCheck
   does; an index whose length is no whole number of entries is read to its last whole
   entry (storage/index.py), as Kafka's AbstractIndex reads it. Each directory is listed
   once: the producer state and the stray-snapshot pass take the same names.

Finally: if the log end offset is below the checkpointed log start offset (segment files
deleted by hand), all segments go; an empty directory gets one empty segment at the log
start offset; the active segment's indexes are preallocated again. Then the producer
state is rebuilt (storage/producer_state.py): stray `.snapshot` files are removed, the
latest valid snapshot at or below the log end offset is loaded, and the batch headers
after it are replayed -- nothing after a clean shutdown, whose snapshot sits at the log
end offset; everything after the last snapshot after a crash.

The leader-epoch cache (storage/leader_epoch_cache.py), read from its file before
loading, gets back the epochs of the batches each recovered segment holds, and is then
cut to the log end offset and the checkpointed log start offset (emptied when all
segments went).

Everything that recovery changed goes into ONE log line per partition (WARNING when data
was dropped, INFO otherwise; DEBUG for a clean load that changed nothing).

Concurrency: runs before the log is shared; the caller owns the directory.
"""

from __future__ import annotations

import logging
import os
import random
from pathlib import Path

from sortedcontainers import SortedDict

from storage import files
from storage.config import LogConfig
from storage.errors import CorruptIndex
from storage.leader_epoch_cache import LeaderEpochCache
from storage.producer_state import ProducerStateManager, rebuild_producer_state
from storage.segment import LogSegment

logger = logging.getLogger("storage.recovery")

OFFSET_STEM_CHARS = len(files.file_name_prefix(0))   # 20 digits
# what pass 1 looks at (one suffix test per name: a directory holds three files per segment)
_TEMPORARY_FILE_SUFFIXES = (files.DELETED_FILE_SUFFIX, files.CLEANED_FILE_SUFFIX, files.SWAP_FILE_SUFFIX)


class RecoveryReport:
    """What loading one partition directory found and changed: counts that recovery adds
    to as it goes, and the problems it met."""

    def __init__(self, log_name: str, had_clean_shutdown: bool, recovery_point: int):
        self.log_name = log_name
        self.had_clean_shutdown = had_clean_shutdown
        self.recovery_point = recovery_point
        self.segments_recovered = 0
        self.bytes_truncated = 0
        self.batches_dropped = 0
        self.segments_deleted = 0
        self.index_rebuilds = 0
        self.time_indexes_created = 0
        self.swap_files_completed = 0
        self.stray_files_deleted = 0
        self.producer_snapshot_offset: int | None = None
        self.producer_batches_replayed = 0
        self.errors: list[str] = []

    @property
    def dropped_data(self) -> bool:
        return self.bytes_truncated > 0 or self.segments_deleted > 0

    @property
    def changed_anything(self) -> bool:
        return bool(
            self.segments_recovered or self.dropped_data or self.index_rebuilds
            or self.time_indexes_created or self.swap_files_completed or self.stray_files_deleted
        )

    def summary(self, log_end_offset: int) -> str:
        how = "a clean shutdown" if self.had_clean_shutdown else "an unclean shutdown"
        text = (
            f"Loaded log {self.log_name} after {how}: recovered {self.segments_recovered} "
            f"segment(s) from recovery point {self.recovery_point}, dropped "
            f"{self.bytes_truncated} bytes in {self.batches_dropped} batch(es), deleted "
            f"{self.segments_deleted} segment(s), rebuilt the indexes of "
            f"{self.index_rebuilds} segment(s), created {self.time_indexes_created} missing time "
            f"index(es) empty, completed {self.swap_files_completed} swap "
            f"file(s), removed {self.stray_files_deleted} stray file(s); log end offset "
            f"{log_end_offset}"
        )
        if self.producer_batches_replayed:
            start = "the log start" if self.producer_snapshot_offset is None else (
                f"the snapshot at offset {self.producer_snapshot_offset}"
            )
            text += f"; replayed {self.producer_batches_replayed} producer batch(es) from {start}"
        if self.errors:
            text += f"; first problem: {self.errors[0]}"
        return text


class LoadedLog:
    """The segments of a loaded directory and the offsets recovery settled on."""

    __slots__ = ("segments", "log_start_offset", "recovery_point", "log_end_offset", "report")

    def __init__(self, segments: SortedDict, log_start_offset: int, recovery_point: int, log_end_offset: int,
                 report: RecoveryReport):
        self.segments = segments   # base offset -> LogSegment
        self.log_start_offset = log_start_offset
        self.recovery_point = recovery_point
        self.log_end_offset = log_end_offset
        self.report = report


def load_log(
    dir: Path,
    config: LogConfig,
    *,
    now_ms: int,
    log_start_offset: int = 0,
    recovery_point: int = 0,
    had_clean_shutdown: bool = False,
    rng: random.Random | None = None,
    producer_state: ProducerStateManager | None = None,
    epoch_cache: LeaderEpochCache | None = None,
    file_names: list[str] | None = None,
) -> LoadedLog:
    """Open every segment of `dir`, recovering as the module docstring describes, and
    rebuild `producer_state` (when given) up to the log end offset. `epoch_cache` (when
    given, read from its file) gets the epochs of the recovered segments and is then
    truncated to the log end offset and to `log_start_offset`."""
    dir = dir if isinstance(dir, Path) else Path(dir)
    rng = rng or random.Random()
    report = RecoveryReport(dir.name, had_clean_shutdown, recovery_point)

    names = file_names if file_names is not None else files.regular_file_names(dir)
    swap_files = _remove_temp_files_and_collect_swap_files(dir, names, report)
    if swap_files:
        _complete_interrupted_swaps(dir, swap_files, config, now_ms, report)
    relisted = bool(report.stray_files_deleted or swap_files)
    if relisted:
        names = files.regular_file_names(dir)
    segments, recovered = _load_segments(dir, names, config, now_ms, rng, report, epoch_cache)

    if not had_clean_shutdown:
        _recover_after_recovery_point(segments, recovery_point, recovered, report, epoch_cache)
    elif segments:
        active = segments.peekitem(-1)[1]
        active.prepare_for_appends()   # (here first: its indexes are opened once, preallocated)
        try:
            active.sanity_check_indexes()
        except CorruptIndex as exc:
            report.errors.append(str(exc))
            _recover_segment(active, report, rebuild_only=True, epoch_cache=epoch_cache)

    log_end_offset = segments.peekitem(-1)[1].read_next_offset() if segments else log_start_offset
    if segments and log_end_offset < log_start_offset:
        report.errors.append(
            f"log end offset {log_end_offset} is below the log start offset {log_start_offset}: "
            "segment files were deleted from the file system"
        )
        for segment in list(segments.values()):
            _delete_segment(segments, segment, report)
        log_end_offset = log_start_offset
        if epoch_cache is not None:
            epoch_cache.clear_and_flush()
    if not segments:
        segments[log_start_offset] = LogSegment(
            dir, log_start_offset, config, now_ms=now_ms, roll_jitter_ms=config.random_segment_jitter_ms(rng)
        )
        log_end_offset = log_start_offset
    segments.peekitem(-1)[1].prepare_for_appends()

    if epoch_cache is not None:
        # The file may be ahead of the log (epochs assigned, then their batches lost in
        # the crash) or behind its start (a log start move not written): clamp it, with
        # the checkpointed log start offset, as Kafka's LogLoader does. In memory only,
        # as Kafka defers these writes: the log's next change written (an append) writes
        # the file, and a stop or a crash before that leaves entries the next load drops
        # again.
        epoch_cache.truncate_from_end(log_end_offset, write=False)
        epoch_cache.truncate_from_start(log_start_offset, write=False)
    log_start_offset = max(log_start_offset, segments.peekitem(0)[0])
    if had_clean_shutdown:
        recovery_point = log_end_offset
    else:
        recovery_point = min(recovery_point, log_end_offset)

    if producer_state is not None:
        # (its snapshots were listed from the same names, unless this pass changed the directory)
        producer_state.remove_stray_snapshots(segments.keys(), names if relisted else None)
        report.producer_batches_replayed = rebuild_producer_state(
            producer_state, list(segments.values()), log_start_offset, log_end_offset,
            now_ms=now_ms, reload_from_clean_shutdown=had_clean_shutdown,
        )
        report.producer_snapshot_offset = producer_state.loaded_snapshot_offset

    # What the start read or rebuilt is in the kernel's hands: no index stays mapped (a map
    # holds a descriptor before Python 3.13; storage/index.py, "Mapping").
    for segment in segments.values():
        segment.unmap_indexes()

    level = logging.DEBUG
    if report.dropped_data or report.errors:
        level = logging.WARNING
    elif report.changed_anything or not had_clean_shutdown:
        level = logging.INFO
    logger.log(level, "%s", report.summary(log_end_offset))
    return LoadedLog(segments, log_start_offset, recovery_point, log_end_offset, report)


def _remove_temp_files_and_collect_swap_files(dir: Path, names: list[str], report: RecoveryReport) -> list[Path]:
    """Pass 1: delete `.deleted` and `.cleaned` files, and `.swap` files at or above the
    lowest `.cleaned` offset; return the remaining `.swap` files. `names` are the files
    of `dir`."""
    swap_files: list[Path] = []
    cleaned_files: list[Path] = []
    for name in names:
        if not name.endswith(_TEMPORARY_FILE_SUFFIXES):
            continue
        if name.endswith(files.DELETED_FILE_SUFFIX):
            _unlink(dir / name, report)
        elif name.endswith(files.CLEANED_FILE_SUFFIX):
            cleaned_files.append(dir / name)
        elif name.endswith(files.SWAP_FILE_SUFFIX):
            swap_files.append(dir / name)
    min_cleaned_offset = min(
        (_offset_or_none(path.name) for path in cleaned_files if _offset_or_none(path.name) is not None),
        default=None,
    )
    valid_swaps = []
    for path in swap_files:
        offset = _offset_or_none(path.name)
        if min_cleaned_offset is not None and offset is not None and offset >= min_cleaned_offset:
            _unlink(path, report)
        else:
            valid_swaps.append(path)
    for path in cleaned_files:
        _unlink(path, report)
    return valid_swaps


def _complete_interrupted_swaps(
    dir: Path, swap_files: list[Path], config: LogConfig, now_ms: int, report: RecoveryReport
) -> None:
    """Passes 2 and 3: delete the segments a complete `.swap` replaces, rename the swaps."""
    min_swap_offset: int | None = None
    max_swap_offset: int | None = None
    for path in swap_files:
        original_name = files.strip_suffix(path.name, files.SWAP_FILE_SUFFIX)
        if not files.is_log_file(original_name):
            continue
        base_offset = files.base_offset_from_file_name(path.name)
        segment = LogSegment(dir, base_offset, config, now_ms=now_ms, extra_suffix=files.SWAP_FILE_SUFFIX)
        try:
            next_offset = base_offset
            for _, header in segment.scan_batch_headers(0):
                next_offset = header.next_offset
        finally:
            segment.close_handlers()
        min_swap_offset = base_offset if min_swap_offset is None else min(min_swap_offset, base_offset)
        max_swap_offset = next_offset if max_swap_offset is None else max(max_swap_offset, next_offset)
    if min_swap_offset is not None and max_swap_offset is not None:
        for name in files.regular_file_names(dir):
            if name.endswith(files.SWAP_FILE_SUFFIX):
                continue
            offset = _offset_or_none(name)
            if offset is not None and min_swap_offset <= offset < max_swap_offset:
                _unlink(dir / name, report)
    for path in swap_files:
        os.replace(path, path.with_name(files.strip_suffix(path.name, files.SWAP_FILE_SUFFIX)))
        report.swap_files_completed += 1


def _load_segments(
    dir: Path, names: list[str], config: LogConfig, now_ms: int, rng: random.Random, report: RecoveryReport,
    epoch_cache: LeaderEpochCache | None,
) -> tuple[SortedDict, set[int]]:
    """Pass 4: a segment per `.log` of `names` (the files of `dir`); delete orphan
    indexes; rebuild missing index files. Returns the segments and the base offsets
    already recovered."""
    recovered: set[int] = set()
    names = set(names)
    # (names, not Paths, until a file must be touched: a Path costs microseconds; and the
    # names filtered by comprehensions, whose suffix tests run in C: a directory holds
    # several files per segment, and a start reads thousands of directories)
    for name in sorted(n for n in names if n.endswith(files.INDEX_FILE_SUFFIXES)):
        stem = name.partition(".")[0]
        if stem.isdigit() and stem + files.LOG_FILE_SUFFIX not in names:
            _unlink(dir / name, report)
    log_suffix_bytes = len(files.LOG_FILE_SUFFIX)
    stems = sorted(name[:-log_suffix_bytes] for name in names if name.endswith(files.LOG_FILE_SUFFIX))
    loaded = []
    for stem in stems:
        if len(stem) != OFFSET_STEM_CHARS or not stem.isdigit():
            continue   # not a segment of Kafka's naming
        base_offset = int(stem)
        segment = LogSegment(
            dir, base_offset, config, now_ms=now_ms, roll_jitter_ms=config.random_segment_jitter_ms(rng), lazy=True,
        )
        index_name, time_index_name = stem + files.INDEX_FILE_SUFFIX, stem + files.TIME_INDEX_FILE_SUFFIX
        if time_index_name not in names and index_name in names:
            # Kafka's rule: a missing time index alone is created empty, the segment
            # is not read (its timestamps are then unknown: see LogSegment.largest_timestamp_ms).
            segment.time_index.resize(0)
            report.time_indexes_created += 1
            names.add(time_index_name)
        if index_name not in names or time_index_name not in names:
            # (Kafka's LogSegment.sanityCheck: only whether the file is there. An index
            # file of a length that is no whole number of entries is read to its last
            # whole entry, as Kafka's AbstractIndex does.)
            missing = index_name if index_name not in names else time_index_name
            report.errors.append(f"index file {missing} is missing")
            _recover_segment(segment, report, rebuild_only=True, epoch_cache=epoch_cache)
            recovered.add(base_offset)
        loaded.append((base_offset, segment))
    segments = SortedDict(loaded)
    return segments, recovered


def _recover_after_recovery_point(
    segments: SortedDict, recovery_point: int, recovered: set[int], report: RecoveryReport,
    epoch_cache: LeaderEpochCache | None,
) -> None:
    """Recover every segment from the one holding the recovery point; at the first
    truncation, delete every later segment."""
    if not segments:
        return
    start = segments.bisect_right(recovery_point) - 1
    unflushed = list(segments.values())[max(start, 0) :]
    for index, segment in enumerate(unflushed):
        if segment.base_offset in recovered:
            result_truncated = False
        else:
            result = _recover_segment(segment, report, rebuild_only=False, epoch_cache=epoch_cache,
                                      last=index == len(unflushed) - 1)
            result_truncated = result.truncated_bytes > 0
        if result_truncated:
            for later in unflushed[index + 1 :]:
                report.bytes_truncated += later.size_bytes
                report.batches_dropped += sum(1 for _ in later.scan_batch_headers(0))
                _delete_segment(segments, later, report)
            break


def _recover_segment(segment: LogSegment, report: RecoveryReport, *, rebuild_only: bool,
                     epoch_cache: LeaderEpochCache | None = None, last: bool = False):
    """`last`: the log's last segment, which becomes the active one (its indexes stay preallocated)."""
    result = segment.recover(epoch_cache, trim_indexes=not last)
    if rebuild_only:
        report.index_rebuilds += 1
    else:
        report.segments_recovered += 1
    report.bytes_truncated += result.truncated_bytes
    report.batches_dropped += result.dropped_batches
    if result.error is not None and result.truncated_bytes:
        report.errors.append(
            f"segment {segment.base_offset}: {result.error} at position {result.valid_bytes}"
        )
    return result


def _delete_segment(segments: SortedDict, segment: LogSegment, report: RecoveryReport) -> None:
    segments.pop(segment.base_offset, None)
    segment.delete()
    report.segments_deleted += 1


def _offset_or_none(name: str) -> int | None:
    try:
        return files.base_offset_from_file_name(name)
    except ValueError:
        return None


def _unlink(path: Path, report: RecoveryReport) -> None:
    try:
        os.unlink(path)
        report.stray_files_deleted += 1
    except FileNotFoundError:
        pass
