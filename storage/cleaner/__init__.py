"""The log cleaner: compaction of `cleanup.policy=compact` logs, Kafka's design.

Compaction keeps, for every key, at least its last record, so that reading a compacted
log from its start rebuilds the latest state of every key. Records keep their offsets:
a compacted log has holes, and consumers step over them.

One concept per module:

    cleanable.py     which part of a log is dirty, how dirty, which log to clean first
    offset_map.py    key -> last offset over the dirty section, within a memory budget
    grouping.py      which segments are recopied together into one
    batch_filter.py  what of each batch is kept: last records, tombstones until their
                     delete horizon, producers' last batches; the transaction hook
    cleaning.py      one pass over one log: prepare (log thread), copy into
                     `.cleaned` segments (any thread), swap (log thread)
    swap.py          `.cleaned` -> `.swap` -> final names, and why each crash is safe
    checkpoint.py    `cleaner-offset-checkpoint`: each log's first dirty offset

Invariants after a pass ending at `end_offset`:
- below `end_offset`, each key whose last record lies below `end_offset` has exactly
  that record, at its original offset, unless it is a tombstone whose delete horizon
  (`delete.retention.ms` after the pass that first kept it) has passed;
- every record at or after `end_offset` is as it was;
- the active segment is never touched; neither are the log start and end offsets.

Concurrency: only the swap changes the Log, on the thread that owns it; the copy reads
inactive segments only. Scheduling passes (threads, `log.cleaner.*` configs, backoff) is
the broker's job.
"""

from storage.cleaner.batch_filter import NO_TRANSACTIONS, TransactionFilter
from storage.cleaner.checkpoint import CleanerCheckpoint
from storage.cleaner.cleanable import CleanableRange, cleanable_range, filthiest
from storage.cleaner.cleaning import (
    CleaningAborted,
    CleaningJob,
    CleaningResult,
    clean_log,
    prepare_cleaning,
    swap_cleaned,
)
from storage.cleaner.offset_map import OffsetMap

__all__ = [
    "NO_TRANSACTIONS", "CleanableRange", "CleanerCheckpoint", "CleaningAborted", "CleaningJob", "CleaningResult",
    "OffsetMap", "TransactionFilter", "clean_log", "cleanable_range", "filthiest",
    "prepare_cleaning", "swap_cleaned",
]
