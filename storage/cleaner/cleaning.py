"""One cleaning pass over one log, in three steps (Kafka's Cleaner.doClean).

1. `prepare_cleaning(log, ...)`, where the log is owned: find the dirty section
   (storage/cleaner/cleanable.py); if there is nothing to clean, return None. Otherwise
   capture what the copy needs and must not read from a changing Log: the inactive
   segments below the first uncleanable offset (their indexes opened here), the log's
   config, and the last batch of every producer in the producer state.
2. `CleaningJob.run(now_ms)`, on any thread: it reads only those inactive segments,
   which nothing appends to any more, and writes only new `.cleaned` files.
     a. Build the offset map over the dirty section (storage/cleaner/offset_map.py).
        The map may fill up first: the pass then ends at `latest_offset + 1`
        (`end_offset`), not at the first uncleanable offset.
     b. Group every segment below `end_offset`, the already clean ones too, into runs
        (storage/cleaner/grouping.py); a pass recopies the whole log below its end,
        which is how old tombstones reach their delete horizon and go.
     c. Copy each group, batch by batch through storage/cleaner/batch_filter.py, into
        one new segment named `<base offset of the group>.log.cleaned` (and
        `.index.cleaned`, `.timeindex.cleaned`); trim its indexes, fsync it, and give
        it the modification time of the group's last segment (retention by time of a
        segment without timestamps falls back on it).
3. `swap_cleaned(log, result)`, where the log is owned: for each group, in order,
   `Log.replace_segments(new, old)` (storage/cleaner/swap.py describes the renames and
   why every crash is safe). A group whose segments are no longer those of the log
   (truncated, deleted by retention meanwhile) aborts the rest of the pass: its
   `.cleaned` files are deleted and no checkpoint is returned.

Kafka copies and swaps group by group on its cleaner thread, holding the log's lock for
each swap; here every group is copied before any is swapped, so that the copy needs no
access to the Log at all. The price is disk room for the cleaned copies of the whole
pass at once (at most the size of the range cleaned).

The caller then records `end_offset` as the log's first dirty offset in
`cleaner-offset-checkpoint` (storage/cleaner/checkpoint.py). `clean_log` runs the three
steps on the calling thread.

Whoever runs the job must keep the log's segments below the first uncleanable offset
alive until the swap (Kafka pauses retention and truncation of a partition being
cleaned); step 3 checks that they were and gives up otherwise.

A job can be aborted from another thread (`CleaningJob.abort`, what Kafka's
abortAndPauseCleaning asks of its cleaner thread): the copy stops before its next batch,
deletes its `.cleaned` files and raises CleaningAborted.

Crash behaviour: a crash during step 2 leaves `.cleaned` files, which the next load
deletes (storage/recovery.py); the log is unchanged, and the checkpoint still names the
old first dirty offset, so the next pass starts over.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterator

from storage import files
from storage.checkpoint import fsync_dir
from storage.cleaner.batch_filter import NO_TRANSACTIONS, LastRecord, RetentionRules, TransactionFilter, filter_batch
from storage.cleaner.cleanable import CleanableRange, cleanable_range
from storage.cleaner.grouping import group_segments_by_size
from storage.cleaner.offset_map import DEFAULT_DEDUPE_BUFFER_BYTES, OffsetMap, build_offset_map
from storage.config import LogConfig
from storage.segment import LogSegment

if TYPE_CHECKING:
    from storage.log import Log

logger = logging.getLogger("storage.cleaner")


class CleaningAborted(Exception):
    """A pass stopped by `CleaningJob.abort` (Kafka's LogCleaningAbortedException)."""


@dataclass
class CleanerStats:
    """What one pass read and kept."""

    batches_read: int = 0
    bytes_read: int = 0
    batches_written: int = 0
    records_kept: int = 0
    bytes_written: int = 0
    map_entries: int = 0


@dataclass
class CleanedGroup:
    """One group of old segments and the `.cleaned` segment that replaces them."""

    old: list[LogSegment]
    new: LogSegment


@dataclass
class CleaningResult:
    """What `CleaningJob.run` produced: the groups to swap in, and where the pass ends."""

    first_dirty_offset: int
    end_offset: int
    groups: list[CleanedGroup]
    stats: CleanerStats = field(default_factory=CleanerStats)


@dataclass
class CleaningJob:
    """What a pass over one log needs, captured where the log is owned (step 1)."""

    log_name: str
    config: LogConfig
    range: CleanableRange
    segments: list[LogSegment]  # the inactive segments below the first uncleanable offset
    active_producers: dict[int, LastRecord]
    map_memory_bytes: int = DEFAULT_DEDUPE_BUFFER_BYTES
    transactions: TransactionFilter = NO_TRANSACTIONS
    abort_requested: bool = field(default=False, compare=False)

    def abort(self) -> None:
        """Ask a `run` under way, on any thread, to stop: it checks before each batch it
        reads (Kafka's checkDone), deletes the `.cleaned` files it wrote and raises
        CleaningAborted."""
        self.abort_requested = True

    def _check_aborted(self) -> None:
        if self.abort_requested:
            raise CleaningAborted(f"the cleaning of {self.log_name} was aborted")

    def run(self, now_ms: int) -> CleaningResult:
        """Steps 2a-2c of the module docstring; touches no Log state."""
        stats = CleanerStats()
        first_dirty = self.range.first_dirty_offset
        upper_bound = self.range.first_uncleanable_offset
        offset_map = OffsetMap(self.map_memory_bytes)
        next_bases = [s.base_offset for s in self.segments[1:]] + [upper_bound]
        dirty = [s for s, next_base in zip(self.segments, next_bases) if next_base > first_dirty]
        build_offset_map(offset_map, self._batches(dirty, first_dirty, upper_bound), first_dirty, self.transactions)
        stats.map_entries = len(offset_map)
        if offset_map.latest_offset < 0:
            # No keyed record in the dirty section: nothing to judge, nothing to copy.
            return CleaningResult(first_dirty, first_dirty, [], stats)
        end_offset = offset_map.latest_offset + 1
        result = CleaningResult(first_dirty, end_offset, [], stats)
        to_clean = [s for s in self.segments if s.base_offset < end_offset]
        rules = RetentionRules(
            offset_map=offset_map,
            now_ms=now_ms,
            delete_retention_ms=self.config.delete_retention_ms,
            upper_bound_offset=upper_bound,
            active_producers=self.active_producers,
            transactions=self.transactions,
        )
        groups = group_segments_by_size(
            to_clean, self.config.max_segment_bytes, self.config.segment_index_bytes, upper_bound
        )
        try:
            for group in groups:
                result.groups.append(CleanedGroup(group, self._clean_group(group, rules, now_ms, stats)))
        except BaseException:
            for cleaned in result.groups:
                cleaned.new.delete()
            raise
        return result

    def _batches(self, segments: list[LogSegment], start_offset: int, end_offset: int) -> Iterator[tuple]:
        """(header, bytes) of each batch of `segments` that ends at or after `start_offset`
        and begins below `end_offset`."""
        for segment in segments:
            for position, header in segment.scan_batch_headers(0):
                self._check_aborted()
                if header.last_offset < start_offset:
                    continue
                if header.base_offset >= end_offset:
                    return
                yield header, segment.read_bytes(position, header.size_bytes)

    def _clean_group(self, group: list[LogSegment], rules: RetentionRules, now_ms: int, stats: CleanerStats) -> LogSegment:
        base_offset = group[0].base_offset
        for suffix in files.SEGMENT_FILE_SUFFIXES:  # left by an earlier, interrupted pass
            stale = files.segment_file_path(group[0].dir, base_offset, suffix, files.CLEANED_FILE_SUFFIX)
            stale.unlink(missing_ok=True)
        cleaned = LogSegment(group[0].dir, base_offset, self.config, now_ms=now_ms,
                             extra_suffix=files.CLEANED_FILE_SUFFIX)
        try:
            for segment in group:
                for position, header in segment.scan_batch_headers(0):
                    self._check_aborted()
                    data = segment.read_bytes(position, header.size_bytes)
                    stats.batches_read += 1
                    stats.bytes_read += header.size_bytes
                    kept = filter_batch(header, data, rules)
                    if kept is None:
                        continue
                    h = kept.header
                    cleaned.append(kept.data, [(h.base_offset, h.last_offset, h.max_timestamp, len(kept.data))])
                    stats.batches_written += 1
                    stats.records_kept += kept.records_kept
                    stats.bytes_written += len(kept.data)
            cleaned.on_become_inactive()
            cleaned.flush()
            modified_ns = os.stat(group[-1].log_path).st_mtime_ns
            os.utime(cleaned.log_path, ns=(modified_ns, modified_ns))
            fsync_dir(cleaned.dir)
        except BaseException:
            cleaned.delete()
            raise
        return cleaned


def prepare_cleaning(
    log: Log,
    *,
    checkpoint_offset: int | None,
    now_ms: int,
    last_stable_offset: int | None = None,
    map_memory_bytes: int = DEFAULT_DEDUPE_BUFFER_BYTES,
    transactions: TransactionFilter = NO_TRANSACTIONS,
    force: bool = False,
) -> CleaningJob | None:
    """Step 1: a job for the log's dirty section, or None if it is not cleanable
    (below `min.cleanable.dirty.ratio` and within `max.compaction.lag.ms`, or empty).
    `force` skips the ratio check (a section with bytes is still required). The caller
    picks the logs to clean (`config.compact`); `last_stable_offset` is the high
    watermark (the last stable offset once transactions are cleaned)."""
    segments = log.segments
    found = cleanable_range(
        segments, log.config, log_start_offset=log.log_start_offset, log_end_offset=log.log_end_offset,
        checkpoint_offset=checkpoint_offset, now_ms=now_ms, last_stable_offset=last_stable_offset,
    )
    if found.cleanable_bytes == 0 or not (force or found.is_cleanable(log.config.min_cleanable_dirty_ratio)):
        return None
    inactive = [s for s in segments[:-1] if s.base_offset < found.first_uncleanable_offset]
    for segment in inactive:
        # Open the indexes here, on the log's thread: the job reads them elsewhere.
        segment.offset_index, segment.time_index
    producers = {
        producer_id: LastRecord(entry.last_data_offset, entry.producer_epoch)
        for producer_id, entry in log.producer_state.items()
    }
    return CleaningJob(log.name, log.config, found, inactive, producers, map_memory_bytes, transactions)


def swap_cleaned(log: Log, result: CleaningResult, *, now_ms: int, on_step=None) -> int | None:
    """Step 3: swap each group in; the offset to checkpoint, or None if the pass was
    abandoned because the log changed under it. `on_step` is handed to
    `Log.replace_segments` (tests stop there to simulate a crash)."""
    for index, group in enumerate(result.groups):
        current = log.segments
        if not all(any(old is s for s in current) for old in group.old) or group.new.base_offset >= log.active_segment.base_offset:
            logger.info("Abandoning the cleaning of %s: its segments changed during the pass", log.name)
            for abandoned in result.groups[index:]:
                abandoned.new.delete()
            return None
        log.replace_segments([group.new], group.old, now_ms=now_ms, on_step=on_step)
    return result.end_offset


def clean_log(
    log: Log,
    *,
    checkpoint_offset: int | None,
    now_ms: int,
    map_memory_bytes: int = DEFAULT_DEDUPE_BUFFER_BYTES,
    force: bool = False,
) -> CleaningResult | None:
    """The three steps on this thread; the result (its `end_offset` is the new first
    dirty offset), or None when the log was not cleanable."""
    job = prepare_cleaning(log, checkpoint_offset=checkpoint_offset, now_ms=now_ms,
                           map_memory_bytes=map_memory_bytes, force=force)
    if job is None:
        return None
    result = job.run(now_ms)
    if swap_cleaned(log, result, now_ms=now_ms) is None:
        return None
    logger.info(
        "Cleaned log %s up to offset %d: %d batch(es), %d bytes read; %d batch(es), %d bytes written",
        log.name, result.end_offset, result.stats.batches_read, result.stats.bytes_read,
        result.stats.batches_written, result.stats.bytes_written,
    )
    return result


