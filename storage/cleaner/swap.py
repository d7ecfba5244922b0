"""Swapping cleaned segments into a log (Kafka's LocalLog.replaceSegments).

The copy leaves a complete, fsynced segment under `.cleaned` names beside the old
segments it replaces, its base offset that of the first of them:

    00000000000000000000.log           old  [0, 500)
    00000000000000000500.log           old  [500, 900)
    00000000000000000000.log.cleaned   new  [0, 900), holes where records went
    (and .index / .timeindex of each)

The swap then renames, fsyncing the directory after each step:

1. the new segment's files `.cleaned` -> `.swap`: from here on the new segment is the
   truth;
2. each old segment -> `.deleted` (and out of the log; its files are removed after
   `file.delete.delay.ms`, so a read that already holds its file descriptor finishes);
3. the new segment's files `.swap` -> their final names, and into the log.

Within a step the index files are renamed before the `.log` (storage/files.py
SEGMENT_FILE_SUFFIXES); recovery (storage/recovery.py) keys on the `.log` file.

Crash at any point, and what the next load does:
- before step 1 completes (a `.log.cleaned` is still there): every `.cleaned` file is
  deleted, and so is any `.swap` at or above the lowest `.cleaned` offset; the old
  segments are untouched: the log is as before the pass.
- after step 1, during or after step 2 or during step 3 (a `.log.swap` is there):
  every file with an offset in [the swap's base offset, its next offset) that is not a
  `.swap` is deleted (the old segments, whatever their suffix, and index files the
  interrupted step 3 already renamed), then the `.swap` files are renamed; a missing
  index is rebuilt. The log is as after the pass.
- after step 3: nothing is left to do.
An old segment past the new one's next offset (all its records compacted away) would
survive a crash after step 1: it holds only superseded records, so the log reads the
same keys' newer values after it; the next pass removes it.

Runs where the log is owned (it changes the Log's segments); `Log.replace_segments`
calls it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

from storage import files
from storage.checkpoint import fsync_dir
from storage.segment import LogSegment

# The points after which `on_step` is called (tests simulate a crash there).
AFTER_RENAME_TO_SWAP = "renamed to .swap"
AFTER_OLD_SEGMENT_DELETED = "old segment renamed to .deleted"
AFTER_SWAP_DONE = "swap done"

StepListener = Callable[[str, LogSegment], None]


def replace_segments(
    dir: Path,
    new_segments: Sequence[LogSegment],
    old_segments: Sequence[LogSegment],
    *,
    delete_old: Callable[[LogSegment], None],
    add_new: Callable[[LogSegment], None],
    on_step: StepListener | None = None,
) -> None:
    """Steps 1-3 of the module docstring. `delete_old(segment)` takes an old segment
    out of the log and renames it `.deleted`; `add_new(segment)` puts a new one in."""
    step = on_step or (lambda name, segment: None)
    new_sorted = sorted(new_segments, key=lambda s: s.base_offset)
    for segment in reversed(new_sorted):
        segment.change_suffix(files.SWAP_FILE_SUFFIX)
    fsync_dir(dir)
    for segment in new_sorted:
        step(AFTER_RENAME_TO_SWAP, segment)
    for segment in old_segments:
        delete_old(segment)
        step(AFTER_OLD_SEGMENT_DELETED, segment)
    for segment in new_sorted:
        segment.change_suffix("")
        add_new(segment)
    fsync_dir(dir)
    for segment in new_sorted:
        step(AFTER_SWAP_DONE, segment)
