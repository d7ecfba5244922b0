"""Producer state: what a partition remembers about each idempotent or transactional
producer, so that a retried batch is not appended twice and a zombie is fenced.

Kafka's ProducerStateManager, ProducerStateEntry, BatchMetadata and ProducerAppendInfo,
in one module. The snapshot file format is in storage/producer_snapshot.py.

What is kept, per producer id (a ProducerStateEntry):

| field                    | meaning                                                      |
| ------------------------ | ------------------------------------------------------------ |
| producer_epoch           | the newest epoch seen; older ones are fenced                 |
| batches                  | metadata of its last 5 batches of that epoch, oldest first:  |
|                          | (last sequence, last offset, offset delta, max timestamp)    |
| coordinator_epoch        | of the last transaction marker (-1: none yet)                |
| current_txn_first_offset | first offset of its open transaction (None: none open)       |
| last_timestamp_ms        | max timestamp of its last append: expiration counts from it  |

Theory of operation
-------------------
The rules for a batch a leader appends (producer id >= 0; Kafka 3.9's, checked against
the producer's entry as updated by the batches before it in the same append):

1. Epoch older than the entry's: InvalidProducerEpoch.
2. Duplicate: the same epoch as the STORED entry and exactly the sequence range of one
   of its cached batches: DuplicateSequence, carrying that batch's offsets. (Five batches
   because a producer has at most five requests in flight per connection.) A retry of an
   older batch is no longer recognised and fails rule 4 instead.
3. A newer epoch (a bump after InitProducerId or a fencing) must start at sequence 0;
   otherwise OutOfOrderSequence. An unknown producer id may start anywhere.
4. The same epoch: the first sequence must follow the entry's last sequence by one
   (INT32_MAX wraps to 0), else OutOfOrderSequence, unless the partition has never seen
   this producer: since KIP-360 (Kafka 2.5) a producer whose state was lost (its batches
   deleted by retention, or expired) is accepted at whatever sequence it is at, where
   older brokers answered UNKNOWN_PRODUCER_ID.
5. Transactions: a transactional batch opens a transaction at its first offset if none is
   open; a non-transactional batch while one is open is InvalidTxnState. A transaction
   marker (a control batch) closes it and records the coordinator epoch. (The marker's
   own checks -- coordinator fencing, the txn index -- come with a transaction
   coordinator, which pylog does not have yet.)

Validation computes the new entries without touching the table (`validate_append`); the
log writes the batches and only then installs them (`update`). A follower or a replay
from the log applies batches without any check (`apply_batches`).

Snapshots. The table is written to `<offset>.snapshot` (the state of every offset below
`offset`) when a segment rolls (at its new base offset) and on a clean close (at the log
end offset). Opening a log loads the latest snapshot at or below the log end offset --
a corrupt one is deleted and the next older one tried -- and replays the batch HEADERS of
the log after it (`rebuild_producer_state`; a control batch's one record is read too).
Truncation does the same from the latest snapshot at or below the new end. Producers
whose last timestamp is `producer.id.expiration.ms` old are dropped on load and by
`remove_expired_producers`.

Every roll and every clean close writes a snapshot, EMPTY TABLE INCLUDED, as Kafka does
(its `takeSnapshot` writes whenever the map end offset has moved past the last snapshot).
An empty snapshot looks like wasted bytes (10 of them), but it carries the one fact that
keeps recovery cheap: "no producer state below this offset". Without it, an unclean open
of a log that never saw an idempotent producer would have no snapshot to start from and
would have to replay the batch headers of EVERY segment from the log start, on every
crash: the cost of recovery would grow with the size of the log, the very thing the
recovery point exists to prevent. With it, the replay starts at the last snapshot at or
below the log end -- the active segment's base offset, which is also where the recovery
point sits after a roll -- and recovery reads only the unflushed tail. It also means an
older snapshot never outlives the producers it names.

`_last_snapshot_offset` is Kafka's `lastSnapOffset`: a snapshot is written only at an
offset above it, so a log closed empty at its start offset writes none (there is nothing
below the start to describe). The rules on open are Kafka's: no snapshot after a clean
shutdown means a log written before producer state existed, hence no producers (and empty
snapshots are written at the last two segment bases and the log end, so the next open
finds them); no snapshot after a crash means a replay from the log start offset.

A snapshot lists the producers in the order Kafka's table (a `HashMap` by producer id)
iterates them, so that its bytes are Kafka's: bucket by bucket of a table sized for the most
producers it has held (cleared or expired, the table does not shrink), each bucket in the
order its producers first came (`protocol.java_order`); DescribeProducers answers in the same
order. A load puts the snapshot's producers back in that order.

After a crash, snapshot files are whole or absent (written to a temp file and renamed).
A snapshot above the recovered log end offset is deleted before loading; so is one at or
below the log start offset (Kafka's rule: producers known only from deleted data are
forgotten, which KIP-360's rule 4 makes harmless).

Concurrency: not thread-safe; the log that owns it serializes access.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Iterable, Mapping, NamedTuple, Sequence

from protocol.errors import ProtocolError
from protocol.java_order import grown_hash_map_order, java_long_hashcode
from protocol.records import (
    INT32_MAX,
    NO_PRODUCER_EPOCH,
    NO_SEQUENCE,
    NO_TIMESTAMP,
    BatchHeader,
    ControlType,
    iter_records,
    read_control_record,
)
from storage import files
from storage.errors import (
    CorruptSnapshot,
    DuplicateSequence,
    InvalidBatch,
    InvalidProducerEpoch,
    InvalidTxnState,
    OutOfOrderSequence,
)
from storage.producer_snapshot import (
    SnapshotEntry,
    list_snapshot_files,
    read_snapshot_file,
    write_snapshot_file,
)

if TYPE_CHECKING:
    from storage.segment import LogSegment

logger = logging.getLogger("storage.producer_state")

NUM_BATCHES_TO_RETAIN = 5
DEFAULT_PRODUCER_ID_EXPIRATION_MS = 24 * 60 * 60 * 1000   # producer.id.expiration.ms
NO_COORDINATOR_EPOCH = -1

__all__ = [
    "BatchMetadata", "ProducerStateEntry", "ProducerStateManager", "rebuild_producer_state",
]


def decrement_sequence(sequence: int, decrement: int) -> int:
    """`sequence - decrement` on the int32 sequence circle (below 0 wraps to INT32_MAX)."""
    if sequence < decrement:
        return sequence - decrement + INT32_MAX + 1
    return sequence - decrement


def is_in_sequence(last_sequence: int, next_sequence: int) -> bool:
    """True if `next_sequence` directly follows `last_sequence` (INT32_MAX is followed by 0)."""
    return next_sequence == last_sequence + 1 or (next_sequence == 0 and last_sequence == INT32_MAX)


class BatchMetadata(NamedTuple):
    """One appended batch of a producer, as the duplicate check needs it."""

    last_sequence: int
    last_offset: int
    offset_delta: int      # last offset - first offset (the batch's last_offset_delta)
    timestamp_ms: int      # the batch's max timestamp

    @property
    def first_sequence(self) -> int:
        return decrement_sequence(self.last_sequence, self.offset_delta)

    @property
    def first_offset(self) -> int:
        return self.last_offset - self.offset_delta


class ProducerStateEntry(NamedTuple):
    """The state of one producer id (see the module docstring). Immutable: every append
    makes a new entry, so a reader may keep one."""

    producer_id: int
    producer_epoch: int = NO_PRODUCER_EPOCH
    batches: tuple[BatchMetadata, ...] = ()
    coordinator_epoch: int = NO_COORDINATOR_EPOCH
    last_timestamp_ms: int = NO_TIMESTAMP
    current_txn_first_offset: int | None = None

    @property
    def is_empty(self) -> bool:
        """True when no batch of the current epoch is cached."""
        return not self.batches

    @property
    def first_sequence(self) -> int:
        return self.batches[0].first_sequence if self.batches else NO_SEQUENCE

    @property
    def last_sequence(self) -> int:
        return self.batches[-1].last_sequence if self.batches else NO_SEQUENCE

    @property
    def last_data_offset(self) -> int:
        return self.batches[-1].last_offset if self.batches else -1

    @property
    def last_offset_delta(self) -> int:
        return self.batches[-1].offset_delta if self.batches else 0

    def batch_with_sequence_range(self, first_sequence: int, last_sequence: int) -> BatchMetadata | None:
        """The cached batch with exactly this sequence range, or None."""
        for batch in self.batches:
            if batch.last_sequence == last_sequence and batch.first_sequence == first_sequence:
                return batch
        return None

    def to_snapshot_entry(self) -> SnapshotEntry:
        return SnapshotEntry(
            self.producer_id, self.producer_epoch, self.last_sequence, self.last_data_offset,
            self.last_offset_delta, self.last_timestamp_ms, self.coordinator_epoch,
            -1 if self.current_txn_first_offset is None else self.current_txn_first_offset,
        )

    @classmethod
    def from_snapshot_entry(cls, row: SnapshotEntry) -> ProducerStateEntry:
        batches = ()
        if row.last_offset >= 0:
            batches = (BatchMetadata(row.last_sequence, row.last_offset, row.offset_delta, row.timestamp_ms),)
        return cls(
            row.producer_id, row.producer_epoch, batches, row.coordinator_epoch, row.timestamp_ms,
            row.current_txn_first_offset if row.current_txn_first_offset >= 0 else None,
        )


def end_txn_marker_coordinator_epoch(buf, position: int = 0) -> int | None:
    """The coordinator epoch of the transaction marker in the control batch at `position`;
    None for an empty control batch (its marker was cleaned away) or one of another type.
    Raises the codec's ProtocolError on a malformed record."""
    for record in iter_records(buf, position):
        control_type, coordinator_epoch = read_control_record(record)
        if control_type in (ControlType.ABORT, ControlType.COMMIT):
            return coordinator_epoch
        return None
    return None


def _trusted_marker(header: BatchHeader, buf, position: int, log_name: str) -> int | None:
    """The coordinator epoch of a marker already in the log; None (and a warning) if it
    cannot be read."""
    try:
        return end_txn_marker_coordinator_epoch(buf, position)
    except ProtocolError:
        logger.warning(
            "Ignoring the unreadable transaction marker of producer %d at offset %d in %s",
            header.producer_id, header.base_offset, log_name,
        )
        return None


def _next_entry(
    entry: ProducerStateEntry,
    header: BatchHeader,
    first_offset: int,
    timestamp_ms: int,
    coordinator_epoch: int | None,
    stored_epoch: int,
    validate: bool,
) -> ProducerStateEntry:
    """The entry after one more batch of its producer (rules 1, 3, 4 and 5 of the module
    docstring when `validate`; none of them otherwise)."""
    epoch = header.producer_epoch
    if validate and epoch < entry.producer_epoch:
        raise InvalidProducerEpoch(
            f"producer {entry.producer_id} at offset {first_offset}: epoch {epoch} is older than "
            f"the last seen epoch {entry.producer_epoch}",
            entry.producer_id, first_offset,
        )
    batches = entry.batches if epoch == entry.producer_epoch else ()
    if header.is_control:
        if coordinator_epoch is None:
            return entry
        return ProducerStateEntry(
            entry.producer_id, epoch, batches, coordinator_epoch, timestamp_ms, None
        )
    first_sequence = header.base_sequence
    if validate:
        if epoch != entry.producer_epoch:
            if first_sequence != 0 and entry.producer_epoch != NO_PRODUCER_EPOCH:
                raise OutOfOrderSequence(
                    f"producer {entry.producer_id} at offset {first_offset}: a new epoch {epoch} "
                    f"(the last seen is {entry.producer_epoch}) must start at sequence 0, not "
                    f"{first_sequence}",
                    entry.producer_id, first_offset,
                )
        elif stored_epoch != NO_PRODUCER_EPOCH and not is_in_sequence(entry.last_sequence, first_sequence):
            raise OutOfOrderSequence(
                f"producer {entry.producer_id} at offset {first_offset}: sequence {first_sequence} "
                f"does not follow the last appended sequence {entry.last_sequence}",
                entry.producer_id, first_offset,
            )
    last_offset_delta = header.last_offset_delta
    batch = BatchMetadata(header.last_sequence, first_offset + last_offset_delta, last_offset_delta, timestamp_ms)
    batches = (*batches[1:], batch) if len(batches) >= NUM_BATCHES_TO_RETAIN else (*batches, batch)
    txn_first_offset = entry.current_txn_first_offset
    if header.is_transactional:
        if txn_first_offset is None:
            txn_first_offset = first_offset
    elif txn_first_offset is not None and validate:
        raise InvalidTxnState(
            f"producer {entry.producer_id} at offset {first_offset}: a non-transactional batch "
            f"while its transaction from offset {txn_first_offset} is open",
            entry.producer_id, first_offset,
        )
    return ProducerStateEntry(
        entry.producer_id, epoch, batches, entry.coordinator_epoch, timestamp_ms, txn_first_offset
    )


class ProducerStateManager:
    """The producer table of one partition, and its snapshot files (see the module
    docstring).

    `map_end_offset` is the offset the table is up to date with (the log end offset after
    every append); a snapshot is taken at it. Not thread-safe: the owning log serializes
    access.
    """

    __slots__ = (
        "dir", "producer_id_expiration_ms", "_producers", "_view", "_snapshots", "_map_end_offset",
        "_last_snapshot_offset", "loaded_snapshot_offset", "_most_producers",
    )

    def __init__(self, dir: Path, *, producer_id_expiration_ms: int = DEFAULT_PRODUCER_ID_EXPIRATION_MS,
                 file_names: Iterable[str] | None = None):
        """`file_names`: the files of `dir`, when the caller has just listed it."""
        self.dir = dir if isinstance(dir, Path) else Path(dir)
        self.producer_id_expiration_ms = producer_id_expiration_ms
        self._producers: dict[int, ProducerStateEntry] = {}   # in the order first put
        self._view = MappingProxyType(self._producers)
        self._most_producers = 0   # the most the table has held: Kafka's HashMap is sized by it
        self._snapshots = list_snapshot_files(self.dir, file_names)  # SortedList of the snapshot files' offsets
        self._map_end_offset = 0
        # Kafka's lastSnapOffset: take_snapshot writes only above it (see the docstring).
        self._last_snapshot_offset = 0
        # The offset of the snapshot the last reload started from (None: from nothing).
        self.loaded_snapshot_offset: int | None = None

    # -- reading --

    @property
    def producers(self) -> Mapping[int, ProducerStateEntry]:
        """producer id -> entry: a read-only live view."""
        return self._view

    def in_kafkas_order(self) -> list[tuple[int, ProducerStateEntry]]:
        """(producer id, entry) as Kafka's HashMap of the producers iterates them (see the
        module docstring): the order of its snapshots and of DescribeProducers."""
        producers = self._producers
        return [(producer_id, producers[producer_id])
                for producer_id in grown_hash_map_order(producers, java_long_hashcode, self._most_producers)]

    def last_entry(self, producer_id: int) -> ProducerStateEntry | None:
        return self._producers.get(producer_id)

    @property
    def is_empty(self) -> bool:
        return not self._producers

    @property
    def map_end_offset(self) -> int:
        return self._map_end_offset

    def update_map_end_offset(self, offset: int) -> None:
        self._map_end_offset = offset

    @property
    def snapshot_offsets(self) -> list[int]:
        """Offsets of the snapshot files, oldest first."""
        return list(self._snapshots)

    @property
    def latest_snapshot_offset(self) -> int | None:
        return self._snapshots[-1] if self._snapshots else None

    # -- appending --

    def validate_append(
        self,
        headers: Sequence[tuple[int, BatchHeader]],
        first_offset: int,
        buf=None,
        *,
        log_append_time_ms: int | None = None,
    ) -> dict[int, ProducerStateEntry]:
        """Check the batches a leader is about to append; return the new entries of their
        producers (to give to `update` once they are written). Nothing changes here.

        `headers` are (position in `buf`, header) of each batch, in order; the batches will
        get offsets from `first_offset` on. `log_append_time_ms` is the time stamped into
        every batch when the topic uses LogAppendTime.

        Raises DuplicateSequence (a retry of a cached batch: nothing must be appended),
        InvalidProducerEpoch, OutOfOrderSequence, InvalidTxnState, or InvalidBatch (a data
        batch with a producer id and no sequence, or an unreadable transaction marker).
        """
        updated: dict[int, ProducerStateEntry] = {}
        producers = self._producers
        next_offset = first_offset
        for position, header in headers:
            batch_offset = next_offset
            next_offset += header.last_offset_delta + 1
            producer_id = header.producer_id
            if producer_id < 0:
                continue
            stored = producers.get(producer_id)
            coordinator_epoch = None
            if header.is_control:
                try:
                    coordinator_epoch = end_txn_marker_coordinator_epoch(buf, position)
                except ProtocolError as exc:
                    raise InvalidBatch(f"unreadable transaction marker: {exc}", position) from exc
            else:
                if header.base_sequence < 0:
                    raise InvalidBatch(
                        f"batch of producer {producer_id} has no sequence number ({header.base_sequence})",
                        position,
                    )
                if stored is not None and stored.producer_epoch == header.producer_epoch:
                    duplicate = stored.batch_with_sequence_range(header.base_sequence, header.last_sequence)
                    if duplicate is not None:
                        raise DuplicateSequence(
                            f"producer {producer_id} epoch {header.producer_epoch}: sequences "
                            f"[{duplicate.first_sequence}, {duplicate.last_sequence}] are already at "
                            f"offsets [{duplicate.first_offset}, {duplicate.last_offset}]",
                            producer_id, batch_offset,
                            first_offset=duplicate.first_offset, last_offset=duplicate.last_offset,
                            first_sequence=duplicate.first_sequence,
                            last_sequence=duplicate.last_sequence, timestamp_ms=duplicate.timestamp_ms,
                        )
            entry = updated.get(producer_id)
            if entry is None:
                entry = stored if stored is not None else ProducerStateEntry(producer_id)
            timestamp_ms = header.max_timestamp if log_append_time_ms is None else log_append_time_ms
            updated[producer_id] = _next_entry(
                entry, header, batch_offset, timestamp_ms, coordinator_epoch,
                NO_PRODUCER_EPOCH if stored is None else stored.producer_epoch, True,
            )
        return updated

    def update(self, entries: Mapping[int, ProducerStateEntry], map_end_offset: int) -> None:
        """Install the entries `validate_append` returned, once their batches are written."""
        if entries:
            self._producers.update(entries)
            self._most_producers = max(self._most_producers, len(self._producers))
        self._map_end_offset = map_end_offset

    def apply_batches(
        self, headers: Iterable[tuple[int, BatchHeader]], buf=None, *, map_end_offset: int | None = None
    ) -> int:
        """Apply batches that are in the log already (a follower's append), at their own
        offsets and without any check. `buf` holds them at the positions given (read only
        for transaction markers). Returns how many batches had a producer id."""
        count = 0
        for position, header in headers:
            if header.producer_id >= 0:
                coordinator_epoch = None
                if header.is_control:
                    coordinator_epoch = _trusted_marker(header, buf, position, self.dir.name)
                self.apply_batch(header, coordinator_epoch)
                count += 1
        if map_end_offset is not None:
            self._map_end_offset = map_end_offset
        return count

    def apply_batch(self, header: BatchHeader, coordinator_epoch: int | None = None) -> None:
        """Apply one batch with a producer id, unchecked (see `apply_batches`);
        `coordinator_epoch` is that of a transaction marker (None: an empty one)."""
        producer_id = header.producer_id
        entry = self._producers.get(producer_id)
        if entry is None:
            entry = ProducerStateEntry(producer_id)
        self._producers[producer_id] = _next_entry(
            entry, header, header.base_offset, header.max_timestamp, coordinator_epoch,
            entry.producer_epoch, False,
        )
        self._most_producers = max(self._most_producers, len(self._producers))

    # -- expiration --

    def _is_expired(self, entry: ProducerStateEntry, now_ms: int) -> bool:
        return (
            entry.current_txn_first_offset is None
            and now_ms - entry.last_timestamp_ms >= self.producer_id_expiration_ms
        )

    def remove_expired_producers(self, now_ms: int) -> int:
        """Forget producers idle for `producer.id.expiration.ms` (those with an open
        transaction stay); return how many went."""
        expired = [pid for pid, entry in self._producers.items() if self._is_expired(entry, now_ms)]
        for producer_id in expired:
            del self._producers[producer_id]
        return len(expired)

    # -- snapshots --

    def take_snapshot(self, *, sync: bool = True) -> Path | None:
        """Write the table, empty or not, to `<map end offset>.snapshot` if the map end
        offset has moved past the last snapshot (Kafka's rule; see the module docstring).
        Returns the path written, or None. Without `sync` the file is not fsynced (see
        `write_snapshot_file`): the caller does it."""
        offset = self._map_end_offset
        latest = self.latest_snapshot_offset
        if offset <= self._last_snapshot_offset or (latest is not None and offset <= latest):
            return None
        path = files.producer_snapshot_file_path(self.dir, offset)
        write_snapshot_file(path, (entry.to_snapshot_entry() for _, entry in self.in_kafkas_order()), sync=sync)
        self._snapshots.add(offset)
        self._last_snapshot_offset = offset
        logger.debug("Wrote producer snapshot %s with %d producer(s)", path.name, len(self._producers))
        return path

    def _load_from_snapshot(self, log_start_offset: int, now_ms: int) -> None:
        """Load the latest readable snapshot (deleting corrupt ones on the way), minus
        expired producers; with none, start empty at the log start offset."""
        while self._snapshots:
            offset = self._snapshots[-1]
            path = files.producer_snapshot_file_path(self.dir, offset)
            try:
                rows = read_snapshot_file(path)
            except (CorruptSnapshot, OSError) as exc:
                logger.warning("Deleting producer snapshot %s of %s: %s", path.name, self.dir.name, exc)
                self._remove_snapshot(offset)
                continue
            for row in rows:
                entry = ProducerStateEntry.from_snapshot_entry(row)
                if not self._is_expired(entry, now_ms):
                    self._producers[entry.producer_id] = entry
            self._most_producers = max(self._most_producers, len(self._producers))
            self._map_end_offset = self._last_snapshot_offset = offset
            self.loaded_snapshot_offset = offset
            return
        self._map_end_offset = self._last_snapshot_offset = log_start_offset
        self.loaded_snapshot_offset = None

    def truncate_and_reload(self, log_start_offset: int, log_end_offset: int, now_ms: int) -> None:
        """Make the table describe [log start, log end): drop snapshots outside that range,
        then, unless the table already ends at `log_end_offset`, reload it from the latest
        remaining snapshot (the caller replays the log after `map_end_offset`)."""
        for offset in list(self._snapshots):
            if offset > log_end_offset or offset <= log_start_offset:
                self._remove_snapshot(offset)
        if log_end_offset != self._map_end_offset:
            self._producers.clear()
            self._load_from_snapshot(log_start_offset, now_ms)
        else:
            self.on_log_start_offset_incremented(log_start_offset)

    def on_log_start_offset_incremented(self, log_start_offset: int) -> None:
        """The log start moved up (DeleteRecords, retention). The producers stay (they
        expire in their own time, as in Kafka); the table's range begins at the new start,
        and with no snapshot left the last snapshot offset becomes the start, so a log whose
        every record is now below its start writes no snapshot for them on close."""
        self._map_end_offset = max(self._map_end_offset, log_start_offset)
        latest = self.latest_snapshot_offset
        self._last_snapshot_offset = log_start_offset if latest is None else latest

    def truncate_fully_and_start_at(self, offset: int) -> None:
        """Forget everything, snapshots included; the table starts empty at `offset`."""
        self._producers.clear()
        for snapshot_offset in list(self._snapshots):
            self._remove_snapshot(snapshot_offset)
        self._map_end_offset = offset
        self._last_snapshot_offset = 0

    def mark_snapshot_for_deletion(self, offset: int) -> Path | None:
        """Forget the snapshot at `offset` and rename it `<offset>.snapshot.deleted`, to be
        removed with the files of the segment that starts there (Kafka's
        removeAndMarkSnapshotForDeletion); its new path, or None if there was none."""
        if offset not in self._snapshots:
            return None
        self._snapshots.remove(offset)
        path = files.producer_snapshot_file_path(self.dir, offset)
        doomed = path.with_name(path.name + files.DELETED_FILE_SUFFIX)
        try:
            path.replace(doomed)
        except FileNotFoundError:
            return None
        return doomed

    def remove_stray_snapshots(self, segment_base_offsets: Iterable[int], file_names: Iterable[str] | None = None) -> None:
        """Delete every snapshot that does not sit at a segment's base offset, except the
        latest one above the last base offset (the one a clean shutdown wrote at the log
        end offset). Kafka does this on load. The snapshots are those listed when this
        state was made, or those of `file_names` (the directory's files as the caller has
        listed them since)."""
        if file_names is not None:
            self._snapshots = list_snapshot_files(self.dir, file_names)
        bases = set(segment_base_offsets)
        max_base = max(bases, default=None)
        strays = [offset for offset in self._snapshots if offset not in bases]
        keep = strays[-1] if strays and max_base is not None and strays[-1] > max_base else None
        for offset in strays:
            if offset != keep:
                self._remove_snapshot(offset)

    def _remove_snapshot(self, offset: int) -> None:
        if offset in self._snapshots:
            self._snapshots.remove(offset)
            try:
                os.unlink(files.producer_snapshot_file_path(self.dir, offset))
            except FileNotFoundError:
                pass

    def __repr__(self) -> str:
        return (
            f"ProducerStateManager({self.dir.name}, producers={len(self._producers)}, "
            f"map_end_offset={self._map_end_offset}, snapshots={self.snapshot_offsets})"
        )


def rebuild_producer_state(
    state: ProducerStateManager,
    segments: Sequence[LogSegment],
    log_start_offset: int,
    last_offset: int,
    *,
    now_ms: int,
    reload_from_clean_shutdown: bool,
) -> int:
    """Bring `state` up to `last_offset` (the log end offset): from its latest snapshot,
    or from nothing, by replaying the batch headers of `segments` after it (Kafka's
    `UnifiedLog.rebuildProducerState`). Returns how many batches were replayed.

    Snapshots are taken on the way at the base offsets of the last two segments, and at
    `last_offset` at the end, so that the next rebuild starts close to the end.
    """
    offsets_to_snapshot = {last_offset}
    if segments:
        offsets_to_snapshot.add(segments[-1].base_offset)
        if len(segments) > 1:
            offsets_to_snapshot.add(segments[-2].base_offset)

    if state.latest_snapshot_offset is None and reload_from_clean_shutdown:
        # No snapshot after a clean shutdown: a log from before producer state, so no
        # producers (see the module docstring). As Kafka does, write empty snapshots at
        # the last two segment bases and the log end, so that a later truncation or
        # unclean open need not replay from the log start.
        for offset in sorted(offsets_to_snapshot):
            if offset > log_start_offset:
                state.update_map_end_offset(offset)
                state.take_snapshot()
        state.update_map_end_offset(last_offset)
        return 0

    was_empty = state.is_empty and state.map_end_offset >= last_offset
    state.truncate_and_reload(log_start_offset, last_offset, now_ms)
    replayed = 0
    if last_offset > state.map_end_offset and not was_empty:
        for index, segment in enumerate(segments):
            following = segments[index + 1] if index + 1 < len(segments) else None
            if following is not None and following.base_offset <= state.map_end_offset:
                continue
            if segment.base_offset >= last_offset:
                break
            start_offset = max(segment.base_offset, state.map_end_offset, log_start_offset)
            state.update_map_end_offset(start_offset)
            if segment.base_offset in offsets_to_snapshot:
                state.take_snapshot()
            start = segment.translate_offset(start_offset)
            if start is None:
                continue
            end_position = segment.size_bytes
            if following is None or following.base_offset > last_offset:
                end = segment.translate_offset(last_offset, start.position)
                end_position = end.position if end is not None else segment.size_bytes
            replayed += _replay_segment(state, segment, start.position, end_position)
    state.update_map_end_offset(last_offset)
    state.take_snapshot()
    return replayed


def _replay_segment(state: ProducerStateManager, segment: LogSegment, start: int, end: int) -> int:
    replayed = 0
    for position, header in segment.scan_batch_headers(start, end):
        if header.producer_id < 0:
            continue
        coordinator_epoch = None
        if header.is_control:
            # The one place a record is read: a transaction marker's coordinator epoch.
            coordinator_epoch = _trusted_marker(
                header, segment.read_bytes(position, header.size_bytes), 0, state.dir.name
            )
        state.apply_batch(header, coordinator_epoch)
        replayed += 1
    return replayed
