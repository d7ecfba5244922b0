"""The leader-epoch cache of one partition: which leader epoch wrote which offsets.

Every batch a leader writes carries its leader epoch (partitionLeaderEpoch). The cache
keeps, per epoch, the first offset written in it, so that a replica can answer "where
did epoch E end?" (OffsetForLeaderEpoch, a follower's truncation after a leader change)
without reading the log. Kafka's `LeaderEpochFileCache`, with its rules:

    entries     (epoch, start_offset), both >= 0, strictly increasing in BOTH fields:
                a later epoch always starts at a later offset.
    assign(e, s)            a no-op when the latest entry is epoch e and starts at or
                            before s; otherwise every entry at the end with epoch >= e or
                            start >= s is dropped and (e, s) appended. A negative field
                            is refused (ValueError).
    end_offset_for(r, leo)  -1 asked: (-1, -1); the latest epoch: (r, leo); nothing known
                            above r: (-1, -1); nothing known at or below r: (r, the start
                            of the first epoch above r); else the largest epoch <= r and
                            the start of the next epoch.
    truncate_from_end(o)    drop the entries starting at or after o (o < 0: nothing).
    truncate_from_start(o)  drop the entries starting at or before o, then put back the
                            last one dropped, now starting at o.
    epoch_for_offset(o)     the epoch whose range holds o: the latest entry starting at or
                            before o (None when o is before every entry).

File layout: `leader-epoch-checkpoint` in the partition directory, Kafka's checkpoint text
format (storage/checkpoint.py), version 0, one `epoch start_offset` line per entry:

    0          version
    2          number of entries
    0 0        epoch 0 began at offset 0
    2 1200     epoch 2 began at offset 1200

A new cache creates the file empty when it is missing (Kafka's `CheckpointFile` does), and
an empty file holds no entries. Entries read from the file go through the same rule as
`assign`, so a file whose entries go back is read as the suffix the rule keeps.

Crash behaviour: a write rewrites the whole file (`<name>.tmp`, fsync, rename over the
file, fsync of the directory), so a crash leaves the old file or the new one; a torn
`.tmp` is never read and is overwritten by the next write. Every change is written at
once, with two exceptions, which stay in memory until the next `assign` (any append: the
log assigns a batch's epoch before it writes the batch, and an assign writes a change
still unwritten even when it changes nothing) or another change that is written:
- the truncations a log's load makes (`write=False`): so no batch lands beyond an entry
  the load dropped while the file still holds it;
- a new leader's epoch (`assign(..., write=False)`, Partition.make_leader): so no batch of
  that epoch is written before the file holds it.
The log's flush and close do not write them either: nothing depends on them being on disk.
The file never misses an entry under which a batch of the log was written; it may miss an
epoch nothing was written in, which a crash or a stop then forgets, as if that leader had
never been elected here: no replica holds a batch of it, and the controller elects at a
higher epoch. Kafka writes the file synchronously on `assign` and defers the write after
a truncation to a scheduler thread. The file can also be ahead of the log: an entry the
load dropped, or an epoch assigned whose batches a crash then lost with the page cache.
Every load, after a clean stop too, drops those again, truncating the cache to the
recovered log end offset and the checkpointed log start offset (storage/recovery.py), as
Kafka's LogLoader does. Not writing at load, at a leader's election or at close saves a
restart, and the stop after it, two fsyncs per partition (its epoch rises as the
controller elects it leader again; 1,000 partitions: about half a second each), the first
append of the epoch writing the file once.

Concurrency: not thread-safe; the partition's Log owns its cache and the broker
serializes access to the Log.
"""

from __future__ import annotations

import logging
from bisect import bisect_left, bisect_right
from pathlib import Path
from typing import NamedTuple

from storage.checkpoint import read_checkpoint_file, write_checkpoint_file
from storage.files import LEADER_EPOCH_CHECKPOINT_FILE_NAME
from storage.errors import CorruptCheckpoint

__all__ = ["EpochEntry", "LeaderEpochCache", "UNDEFINED_EPOCH", "UNDEFINED_EPOCH_OFFSET"]

logger = logging.getLogger("storage.leader_epoch_cache")

LEADER_EPOCH_CHECKPOINT_VERSION = 0
UNDEFINED_EPOCH = -1         # OffsetForLeaderEpoch's "no such epoch"
UNDEFINED_EPOCH_OFFSET = -1  # and its "no end offset"


class EpochEntry(NamedTuple):
    epoch: int
    start_offset: int


class LeaderEpochCache:
    """The epoch -> start offset entries of one partition and their checkpoint file.

    `LeaderEpochCache(dir)` reads `dir/leader-epoch-checkpoint` (creating it empty when
    missing); a malformed file raises CorruptCheckpoint. See the module docstring.
    """

    __slots__ = ("path", "_epochs", "_starts", "_unwritten")

    def __init__(self, dir: Path):
        self.path = (dir if isinstance(dir, Path) else Path(dir)) / LEADER_EPOCH_CHECKPOINT_FILE_NAME
        # Two parallel lists, both strictly increasing: epochs and their start offsets.
        self._epochs: list[int] = []
        self._starts: list[int] = []
        self._unwritten = False   # a truncation kept in memory only (see "Crash behaviour")
        for entry in self._read():
            self._assign(entry.epoch, entry.start_offset)

    def _read(self) -> list[EpochEntry]:
        entries = []
        for line in read_checkpoint_file(self.path, LEADER_EPOCH_CHECKPOINT_VERSION, create=True):
            fields = line.split()
            try:
                if len(fields) != 2:
                    raise ValueError
                entries.append(EpochEntry(int(fields[0]), int(fields[1])))
            except ValueError:
                raise CorruptCheckpoint(f"malformed line in checkpoint file {self.path}: {line!r}") from None
            if entries[-1].epoch < 0 or entries[-1].start_offset < 0:
                raise CorruptCheckpoint(f"negative leader epoch entry in checkpoint file {self.path}: {line!r}")
        return entries

    def _write(self) -> None:
        write_checkpoint_file(self.path, LEADER_EPOCH_CHECKPOINT_VERSION,
                              [f"{epoch} {start}" for epoch, start in zip(self._epochs, self._starts)])
        self._unwritten = False

    @property
    def unwritten(self) -> bool:
        """Whether a change made with `write=False` (a load's truncation, a new leader's
        epoch) is not written yet."""
        return self._unwritten

    # -- reading --

    @property
    def entries(self) -> list[EpochEntry]:
        """The entries, oldest first (a copy)."""
        return [EpochEntry(epoch, start) for epoch, start in zip(self._epochs, self._starts)]

    def __len__(self) -> int:
        return len(self._epochs)

    @property
    def latest_entry(self) -> EpochEntry | None:
        return EpochEntry(self._epochs[-1], self._starts[-1]) if self._epochs else None

    @property
    def latest_epoch(self) -> int | None:
        """The epoch of the latest entry: the one the log is written in now (None: empty)."""
        return self._epochs[-1] if self._epochs else None

    @property
    def earliest_entry(self) -> EpochEntry | None:
        return EpochEntry(self._epochs[0], self._starts[0]) if self._epochs else None

    def end_offset_for(self, requested_epoch: int, log_end_offset: int) -> tuple[int, int]:
        """(epoch, end offset) for `requested_epoch`: the largest known epoch at or below
        it and the offset where that epoch ended; (-1, -1) when the cache cannot tell
        (the rules are in the module docstring)."""
        epochs = self._epochs
        if requested_epoch == UNDEFINED_EPOCH:
            return UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
        if epochs and epochs[-1] == requested_epoch:
            return requested_epoch, log_end_offset
        higher = bisect_right(epochs, requested_epoch)  # the first epoch above the one asked
        if higher == len(epochs):
            return UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
        if higher == 0:
            # Older than everything still known: the log before the first epoch is gone,
            # so the epoch asked about ends where the first known one starts.
            return requested_epoch, self._starts[0]
        return epochs[higher - 1], self._starts[higher]

    def epoch_for_offset(self, offset: int) -> int | None:
        """The epoch that wrote `offset`: the latest entry starting at or before it."""
        index = bisect_right(self._starts, offset)
        return self._epochs[index - 1] if index else None

    # -- changes (each rewrites the file when it changes anything, unless told not to) --

    def assign(self, epoch: int, start_offset: int, *, write: bool = True) -> bool:
        """Record that `epoch` begins at `start_offset` (a new leader before its first
        append, every appended batch, recovery); True if the entries changed. With
        `write=False` (a new leader's epoch) a change stays in memory until the next
        write (see "Crash behaviour")."""
        changed = self._assign(epoch, start_offset)
        if not write:
            self._unwritten = self._unwritten or changed
        elif changed or self._unwritten:
            self._write()
        return changed

    def assign_recovered(self, epoch: int, base_offset: int) -> bool:
        """Recovery's rule for a batch re-read from a segment (Kafka's LogSegment.recover):
        its epoch is assigned only when it is above the latest one (or the cache is
        empty), so that re-reading old batches never truncates newer entries; a batch no
        leader stamped (epoch -1) is skipped. True if the entries changed."""
        if epoch < 0 or (self._epochs and epoch <= self._epochs[-1]):
            return False
        return self.assign(epoch, base_offset)

    def _assign(self, epoch: int, start_offset: int) -> bool:
        if epoch < 0 or start_offset < 0:
            raise ValueError(f"invalid leader epoch entry: epoch {epoch}, start offset {start_offset}")
        epochs, starts = self._epochs, self._starts
        if epochs and epochs[-1] == epoch and starts[-1] <= start_offset:
            return False
        # Drop, from the end, every entry that the new one would not follow.
        keep = len(epochs)
        while keep and (epochs[keep - 1] >= epoch or starts[keep - 1] >= start_offset):
            keep -= 1
        removed = list(zip(epochs[keep:], starts[keep:]))
        if len(removed) > 1 or (removed and removed[0][1] != start_offset):
            # (Replacing one entry that starts at the same offset is a leader change
            # before any write in the old epoch: expected, not worth a warning.)
            logger.warning("%s: new entry (epoch %d, start %d) drops the conflicting entries %s",
                           self.path.parent.name, epoch, start_offset, removed)
        del epochs[keep:], starts[keep:]
        epochs.append(epoch)
        starts.append(start_offset)
        return True

    def truncate_from_end(self, end_offset: int, *, write: bool = True) -> bool:
        """Drop the entries starting at or after `end_offset` (the log was cut back to
        it); True if any went. `write=False`: not written yet (see "Crash behaviour")."""
        if end_offset < 0 or not self._starts or self._starts[-1] < end_offset:
            return False
        keep = bisect_left(self._starts, end_offset)
        del self._epochs[keep:], self._starts[keep:]
        self._written_or_not(write)
        return True

    def truncate_from_start(self, start_offset: int, *, write: bool = True) -> bool:
        """The log now starts at `start_offset`: drop the entries starting at or before it
        and let the last of them start at `start_offset` instead (so an entry starting
        exactly there stays as it is); True if any entry changed. (Kafka rewrites the
        file even when nothing changed; the bytes would be the same.) `write=False`: not
        written yet (see "Crash behaviour")."""
        dropped = bisect_right(self._starts, start_offset)
        if dropped == 0 or (dropped == 1 and self._starts[0] == start_offset):
            return False
        epoch = self._epochs[dropped - 1]
        self._epochs[:dropped] = [epoch]
        self._starts[:dropped] = [start_offset]
        self._written_or_not(write)
        return True

    def _written_or_not(self, write: bool) -> None:
        if write:
            self._write()
        else:
            self._unwritten = True

    def clear_and_flush(self) -> None:
        """Forget every entry and write the empty file (the log was emptied)."""
        self.clear()
        self._write()

    def clear(self) -> None:
        """Forget every entry, leaving the file as it is (the directory is going away)."""
        self._epochs.clear()
        self._starts.clear()

    def __repr__(self) -> str:
        return f"LeaderEpochCache({self.path.parent.name}, {self.entries})"
