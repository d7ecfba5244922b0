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

import importlib

# The names this package offers, and the module of each. A module is imported when one of
# its names is first asked for (PEP 562): a broker with no log to compact never loads the
# copy (`cleaning` and what it uses), and `storage.log` takes only `swap`.
_MODULE_OF = {
    "NO_TRANSACTIONS": "batch_filter", "TransactionFilter": "batch_filter",
    "CleanerCheckpoint": "checkpoint",
    "CleanableRange": "cleanable", "cleanable_range": "cleanable", "filthiest": "cleanable",
    "CleaningAborted": "cleaning", "CleaningJob": "cleaning", "CleaningResult": "cleaning",
    "clean_log": "cleaning", "prepare_cleaning": "cleaning", "swap_cleaned": "cleaning",
    "OffsetMap": "offset_map",
}

__all__ = sorted(_MODULE_OF)


def __getattr__(name: str):
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
