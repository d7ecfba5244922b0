"""What the copy keeps of one batch: Kafka's cleaner filter (Cleaner.cleanInto with
MemoryRecords.filterTo), batch by batch.

Records. A record of a data batch is kept when
  - its offset lies past what the offset map covers (`offset > map.latest_offset`: the
    pass did not look at its key), or
  - it has a key, its offset is the key's last one in the map (`offset >= map[key]`),
    and it has a value or is a tombstone still inside its delete horizon.
Records without a key are dropped (a compacted topic refuses them on produce). Control
records (transaction markers) are always kept by this filter.

Tombstones and the delete horizon (KIP-534). The first pass that keeps a tombstone in a
batch without a delete horizon rewrites the batch with the horizon bit set and
`base_timestamp = now_ms + delete.retention.ms`. A later pass keeps the tombstone only
while `now_ms < horizon`; after that it is removed. So a tombstone lives at least
`delete.retention.ms` after the pass that first cleaned it, long enough for consumers
reading the log from the start to see the deletion.

Batches. A batch whose records all stay, and which needs no new horizon, is copied byte
for byte. One that loses records (or gains a horizon) is re-encoded by
`protocol.records.build_retained_batch`: the same base and last offset, producer id,
epoch, base sequence, leader epoch, codec and attributes; the records keep their
offsets, leaving holes. A batch that keeps no record is dropped, except (Kafka's
RETAIN_EMPTY) an empty header is written instead:
  - for the batch holding the last data offset of a producer still in the producer
    state (or, for a producer whose last entry is a marker, its control batch of the
    current epoch), so that the producer's last sequence and epoch survive and its next
    idempotent append is still checked against them;
  - for the last batch of the pass (its next offset is the pass's upper bound), so the
    log does not forget where the cleaned range ends.

Transactions. `TransactionFilter` is where a transactional log would track open and
aborted transactions (Kafka's CleanedTransactionMetadata): it sees every batch with its
transactional and control bits and says whether its records may all go (an aborted
transaction's data, a marker whose transaction was wholly removed). pylog does not
clean transactional state yet: `NO_TRANSACTIONS` discards nothing, so data batches are
filtered record by record and markers always stay.

Pure functions over bytes; no file I/O, no shared state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, NamedTuple

from protocol.records import (
    BatchHeader,
    build_empty_batch,
    build_retained_batch,
    iter_records,
    read_batch_header,
)


class TransactionFilter:
    """The hook for transaction markers and aborted records (see the module docstring).

    The base class knows of no transaction: nothing is discarded as aborted, and no
    marker may go.
    """

    def on_control_batch(self, header: BatchHeader, data) -> bool:
        """A control batch (`header.is_control`, with its transactional bit) was read;
        True if its transaction is wholly removed, so the marker itself may go once its
        delete horizon has passed."""
        return False

    def discard_batch(self, header: BatchHeader) -> bool:
        """A data batch was read: True if all its records may go (an aborted
        transaction's records)."""
        return False


NO_TRANSACTIONS = TransactionFilter()


class LastRecord(NamedTuple):
    """What the producer state says of an active producer (Kafka's LastRecord)."""

    last_data_offset: int  # -1: the producer's last entry is a marker, not data
    producer_epoch: int


class FilteredBatch(NamedTuple):
    """What to write for one source batch: its bytes and the header they start with."""

    data: bytes
    header: BatchHeader
    records_kept: int


@dataclass
class RetentionRules:
    """What the filter needs besides the batch (fixed for one cleaning pass)."""

    offset_map: object               # OffsetMap: get(key), latest_offset
    now_ms: int
    delete_retention_ms: int
    upper_bound_offset: int          # the pass's first uncleanable offset
    active_producers: Mapping[int, LastRecord]
    transactions: TransactionFilter = NO_TRANSACTIONS


def filter_batch(header: BatchHeader, data, rules: RetentionRules) -> FilteredBatch | None:
    """What of the batch `data` (whose header is `header`) the cleaned segment keeps;
    None when the whole batch goes."""
    if header.is_control:
        discard_records = rules.transactions.on_control_batch(header, data) and (
            header.has_delete_horizon and header.base_timestamp <= rules.now_ms
        )
    else:
        discard_records = rules.transactions.discard_batch(header)

    if _is_last_batch_of_active_producer(header, rules.active_producers):
        retain_empty = True
    else:
        retain_empty = header.next_offset == rules.upper_bound_offset

    kept = []
    all_kept = True
    has_tombstone = False
    for record in iter_records(data):
        if discard_records:
            keep = False
        elif header.is_control:
            keep = True
        else:
            keep = _should_retain_record(header, record, rules)
        if keep:
            kept.append(record)
            has_tombstone = has_tombstone or record.value is None
        else:
            all_kept = False

    if kept:
        needs_horizon = has_tombstone and not header.has_delete_horizon
        if all_kept and not needs_horizon:
            return FilteredBatch(bytes(data), header, len(kept))
        if needs_horizon:
            horizon = rules.now_ms + rules.delete_retention_ms
        else:
            horizon = header.base_timestamp if header.has_delete_horizon else None
        rebuilt = build_retained_batch(header, kept, delete_horizon_ms=horizon)
        return FilteredBatch(rebuilt, _header_of(rebuilt), len(kept))
    if retain_empty:
        empty = build_empty_batch(header)
        return FilteredBatch(empty, _header_of(empty), 0)
    return None


def _should_retain_record(header: BatchHeader, record, rules: RetentionRules) -> bool:
    offset_map = rules.offset_map
    if record.offset > offset_map.latest_offset:
        return True  # past what this pass mapped: not judged yet
    if record.key is None:
        return False
    if record.offset < offset_map.get(record.key):
        return False  # a later record of the same key exists
    if record.value is not None:
        return True
    # A tombstone: kept until its batch's delete horizon has passed.
    return not header.has_delete_horizon or rules.now_ms < header.base_timestamp


def _is_last_batch_of_active_producer(header: BatchHeader, producers: Mapping[int, LastRecord]) -> bool:
    if header.producer_id < 0:
        return False
    last = producers.get(header.producer_id)
    if last is None:
        return False
    if last.last_data_offset >= 0:
        return header.last_offset == last.last_data_offset
    return header.is_control and header.producer_epoch == last.producer_epoch


def _header_of(data: bytes) -> BatchHeader:
    return read_batch_header(data)
