"""Log against a model of its batches: a Hypothesis state machine (Redpanda's opfuzz idea).

Theory of operation
-------------------
The model is the list of batches the log should hold, each with its offsets, its records
and its bytes exactly as they should sit in the `.log` file. A batch appended is the
produced bytes with the base offset, and the leader epoch when one was given, stamped in.
A batch a compaction recopied is known record by record first: the model decides which of
its records stay (tests/storage/cleaner/support.py `CompactionModel`, the rule written
once for the cleaner's tests too) and whether it gains a delete horizon, stays empty or
goes; the bytes the cleaner wrote are checked against that, field by field and record by
record, and only then become the batch's bytes in the model. Offsets are contiguous from
`physical_start` (the first segment's base offset) up to `compacted_below` and from there
to `next_offset` (the log end offset); below `compacted_below` compaction leaves holes.
`log_start_offset` may lie anywhere in between, even inside a batch or a hole.

Records are keyed from a set of four keys, some tombstones, some batches without keys
(a topic may become compacted after they were written: the cleaner drops them).

Rules (one step each):

| rule                 | the log does                               | the model does                      |
| -------------------- | ------------------------------------------ | ----------------------------------- |
| append               | `append` 1-3 batches, some compressed,     | adds them with the next offsets;    |
|                      | some from idempotent producers             | producers continue their sequences  |
| append_keyed         | the same with batches of small keyed       | the same                            |
|                      | records (a compacted topic's traffic)      |                                     |
| read                 | `read(offset, max_bytes, max_offset)` at a | checks the bytes, batch by batch,   |
|                      | random offset, in range or not             | and the records of the first one    |
| offset_for_timestamp | `offset_for_timestamp(T)`                  | scan of the first segment's records |
|                      |                                            | whose largest timestamp reaches T   |
| roll                 | `roll` (its flush stays pending)           | nothing                             |
| run_pending_flush    | `run_pending_flush`: recovery point moves  | nothing                             |
|                      | to the last roll's base offset             |                                     |
| flush / checkpoint   | `flush`; remember the recovery point as    | nothing                             |
|                      | the manager's checkpoint would             |                                     |
| truncate_to          | `truncate_to(offset)`                      | drops the batches ending at or after|
|                      |                                            | it; below the first segment: starts |
|                      |                                            | empty at that offset                |
| advance / delete     | `advance_log_start_offset`,                | moves log_start_offset; forgets the |
|                      | `delete_segments_below`                    | batches of deleted segments         |
| retain               | `delete_old_segments(now, hw)` with random | Kafka's three rules over the model's|
|                      | retention.ms / .bytes, policy and high     | segments: exactly those go; log     |
|                      | watermark                                  | start offset moves to the first left|
| compact              | maybe `roll`; a cleaner pass (`prepare_    | predicts the dirty section and where|
|                      | cleaning`, `run`, `swap_cleaned`) with a   | the pass ends (a full map ends it   |
|                      | random offset map budget and `delete.      | early); each recopied batch keeps   |
|                      | retention.ms`, from the cleaner checkpoint | the records CompactionModel keeps,  |
|                      | the broker would keep; during the copy     | or stays empty (a producer's last,  |
|                      | maybe an append, a roll or a DeleteRecords;| the pass's last), or goes; an       |
|                      | before the swap maybe a segment deletion   | abandoned pass changes nothing, one |
|                      | (the swap abandons); maybe a crash after   | cut short by a crash only the groups|
|                      | the copy or between two groups' swaps      | swapped in                          |
| close_and_reopen     | `close`, maybe delete a segment's index    | nothing                             |
|                      | files, `open(had_clean_shutdown=True)`     |                                     |
| kill_and_reopen      | drop the Log with `close_handlers` (no     | keeps every batch whose bytes are   |
|                      | flush, no trim, no marker); cut the active | still intact (those that end before |
|                      | `.log` at a random byte, maybe add zeros;  | the cut); if the log end then falls |
|                      | maybe damage index files, lose the producer| below log_start_offset, the log     |
|                      | snapshots; open unclean                    | starts empty there                  |

Compaction: the pass starts at the first dirty offset the broker would have
checkpointed (brought back to the new active segment by a truncation below it, as
pylog/broker.py `truncate_log` and Kafka's LogManager.truncateTo do; reset to the log
start offset by the cleaner when DeleteRecords or retention passed it) and the model predicts
where its offset map ends. After a whole pass, independently of CompactionModel: in
[log start, end of the pass) every key keeps its last record at its original offset and
nothing else is left but tombstones still inside `delete.retention.ms` of the pass that
first kept them. Each recopied segment keeps the modification time of the last one it
replaces (retention by time of a segment without timestamps falls back on it).

Idempotent producers: a producer's next batch continues from the last sequence the log
knows for it. Until the log rebuilds its producer state (a truncation, a reopen)
that must be the producer's last batch in the model, compacted or not: the cleaner keeps
a producer's last batch, empty if need be. After a rebuild it must be the last of its
batches the log can still replay (not dropped by compaction, not below the log start
offset), or a later one a snapshot remembers, or nothing when there is none; never one
that was truncated away. After a torn tail or a truncation the producer resends the lost
sequences, which the log must accept as new (not as duplicates, not out of order).

After every step the invariants hold: log start / end offsets match; every batch at or
after the log start offset reads back whole from its first and its last offset (and from
the log start offset and every hole); reads just outside the range raise
OffsetOutOfRange carrying the range; each segment's size is the sum of the model batches
it covers and no batch crosses a segment boundary; the `.log` files on disk are exactly
the live segments (plus `.deleted` ones awaiting removal), with no `.cleaned` or `.swap`
file left; the producers' state is one the model allows; and offset_for_timestamp
agrees with a scan by Kafka's rule for a few timestamps.

The configs are tiny (segments of a few KiB, an index entry every 0-512 bytes, indexes of
a few entries, `segment.ms` of a few seconds of record time) so that rolls of every kind
and index entries happen within a few steps; every step moves the clock a second, so
that delete horizons of a few seconds pass within a few steps.
"""

from __future__ import annotations

import dataclasses
import os
import random
import shutil
import tempfile
from bisect import bisect_right
from dataclasses import dataclass
from pathlib import Path

import hypothesis.strategies as st
import pytest
from hypothesis import HealthCheck, event, settings
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
)

from protocol.records import (
    BATCH_HEADER_SIZE,
    Compression,
    build_batch,
    iter_batch_headers,
    iter_records,
    read_batch_header,
    stamp_base_offset,
    stamp_partition_leader_epoch,
    validate_batch,
)
from storage import files
from storage.cleaner import prepare_cleaning, swap_cleaned
from storage.cleaner.offset_map import BYTES_PER_ENTRY
from storage.config import LogConfig
from storage.errors import OffsetOutOfRange, RecordBatchTooLarge
from storage.log import Log
from storage.time_index import TimestampOffset
from tests.storage.cleaner.support import CompactionModel

# The log's fsyncs (every roll, flush and close) dominate the run time on a real disk and
# prove nothing here (a crash is simulated, not suffered): use a tmpfs when there is one.
SCRATCH_DIR = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None

BASE_TIME_MS = 1_700_000_000_000
TIME_SPAN_MS = 10_000

CONFIGS = [
    # Small segments, an index entry every 256 bytes, deletes at once.
    LogConfig(internal_segment_bytes=4096, index_interval_bytes=256, segment_index_bytes=4096, file_delete_delay_ms=0),
    # An index entry after every batch and room for 8 offset / 5 time entries: rolls on a full index.
    LogConfig(internal_segment_bytes=6144, index_interval_bytes=0, segment_index_bytes=64, file_delete_delay_ms=0),
    # Rolls by record time (segment.ms with jitter); deleted segments linger as `.deleted`.
    LogConfig(
        internal_segment_bytes=8192, index_interval_bytes=512, segment_index_bytes=1024,
        segment_ms=3000, segment_jitter_ms=1000, file_delete_delay_ms=60_000,
    ),
]

PRODUCER_IDS = (1000, 1001)
PRODUCER_EPOCH = 0

COMPRESSIONS = [Compression.NONE, Compression.NONE, Compression.GZIP, Compression.SNAPPY, Compression.LZ4, Compression.ZSTD]

KEYS = tuple(b"key-%d" % i for i in range(4))


# ---------------------------------------------------------------------------------------
# Batches: drawn as small specs, built deterministically, so that shrinking stays simple.


@dataclass(frozen=True)
class BatchSpec:
    records: int
    value_bytes: int
    random_values: bool
    keyed: bool
    tombstones: bool
    with_headers: bool
    compression: Compression
    base_timestamp_ms: int
    timestamp_spread_ms: int  # each record's timestamp lies within this of the base one
    seed: int
    producer: int | None = None  # an idempotent producer (index into PRODUCER_IDS), or none

    def rows(self) -> list[tuple[bytes | None, bytes | None, tuple, int]]:
        """(key, value, headers, timestamp) of each record; a None value is a tombstone."""
        rng = random.Random(self.seed)
        deltas = [rng.randint(-self.timestamp_spread_ms, self.timestamp_spread_ms) for _ in range(self.records)]
        rows = []
        for i in range(self.records):
            key = KEYS[rng.randrange(len(KEYS))] if self.keyed else None
            if self.keyed and self.tombstones and rng.randrange(3) == 0:
                value = None
            elif self.random_values:
                value = rng.randbytes(self.value_bytes)
            else:
                value = (b"v%d.%d;" % (self.seed, i) * (self.value_bytes // 4 + 1))[: self.value_bytes]
            headers = (("h", b"%d" % i), ("null", None)) if self.with_headers and i % 2 == 0 else ()
            timestamp = self.base_timestamp_ms + deltas[i]
            rows.append((key, value, headers, timestamp))
        return rows


@st.composite
def batch_specs(draw, *, compacted_traffic: bool = False) -> BatchSpec:
    """A batch of any kind; with `compacted_traffic`, of several small keyed records."""
    value_bytes = draw(st.sampled_from([0, 7, 40] if compacted_traffic else [0, 7, 40, 150, 1200]))
    records = draw(st.integers(2 if compacted_traffic else 1, max(1, 1600 // (value_bytes + 24))))
    base = BASE_TIME_MS + draw(st.integers(0, TIME_SPAN_MS))
    return BatchSpec(
        records=records,
        value_bytes=value_bytes,
        random_values=draw(st.booleans()),
        keyed=compacted_traffic or draw(st.sampled_from([True, True, True, False])),
        tombstones=draw(st.booleans()),
        with_headers=draw(st.booleans()),
        compression=draw(st.sampled_from(COMPRESSIONS)),
        base_timestamp_ms=base,
        timestamp_spread_ms=draw(st.sampled_from([0, 0, 5, 400])),
        seed=draw(st.integers(0, 2**32 - 1)),
        producer=draw(st.none() | st.sampled_from(range(len(PRODUCER_IDS)))),
    )


@dataclass(frozen=True)
class ModelRecord:
    offset: int
    timestamp: int
    key: bytes | None
    value: bytes | None
    headers: tuple


@dataclass(frozen=True)
class ModelBatch:
    base_offset: int
    last_offset: int
    data: bytes  # exactly as it should be in the .log file
    records: tuple[ModelRecord, ...]  # fewer than the offsets once compacted, none when empty
    max_timestamp_ms: int
    producer_id: int = -1
    delete_horizon_ms: int | None = None  # set by the compaction that first kept a tombstone

    @property
    def size_bytes(self) -> int:
        return len(self.data)

    @property
    def next_offset(self) -> int:
        return self.last_offset + 1


@dataclass(frozen=True)
class ProducerBatch:
    """A batch an idempotent producer appended and no truncation removed (those deleted
    with old segments stay: a partition may keep remembering their producers)."""

    base_offset: int
    last_offset: int
    producer_id: int
    last_sequence: int
    dropped: bool = False  # compaction removed it: no rebuild of the producer state sees it


# ---------------------------------------------------------------------------------------


class LogStateMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="pylog-log-sm-", dir=SCRATCH_DIR))
        self.dir = self.tmp / "topic-0"
        self.now_ms = BASE_TIME_MS
        self.log: Log | None = None
        self.config: LogConfig | None = None
        self.rng = random.Random(0)
        # The model.
        self.batches: list[ModelBatch] = []
        self.next_offset = 0
        self.log_start_offset = 0
        self.physical_start = 0
        # Below it compaction may have left holes; from it on offsets are contiguous.
        self.compacted_below = 0
        self.producer_batches: list[ProducerBatch] = []
        self.sequences_sent: dict[int, int] = {}  # producer id -> next sequence never sent
        # Producers whose state the log rebuilt (truncation, reopen) since their
        # last append: what it knows of them may be less than their last batch.
        self.rebuilt_producers: set[int] = set()
        # What the manager's recovery-point checkpoint would hold.
        self.checkpointed_recovery_point = 0
        # What `cleaner-offset-checkpoint` would hold: the first dirty offset, lowered
        # by truncations as the broker does (None: no pass yet).
        self.cleaner_checkpoint: int | None = None
        self.steps = 0
        # Base offsets of segments whose time index a clean reopen found missing: the
        # log then does not know their timestamps (see check_offset_for_timestamp).
        self.unknown_timestamps: set[int] = set()

    # -- helpers --

    def tick(self) -> int:
        self.now_ms += 1000
        self.steps += 1
        return self.now_ms

    def open(self, *, had_clean_shutdown: bool, recovery_point: int) -> Log:
        self.log = Log.open(
            self.dir, self.config, now_ms=self.tick(), log_start_offset=self.log_start_offset,
            recovery_point=recovery_point, had_clean_shutdown=had_clean_shutdown, rng=self.rng,
        )
        return self.log

    def visible_batches(self) -> list[ModelBatch]:
        return [b for b in self.batches if b.last_offset >= self.log_start_offset]

    def first_batch_from(self, offset: int) -> int:
        """Index of the batch holding `offset`, or of the first after it (in a hole);
        len(batches) when there is none."""
        return bisect_right(self.batches, offset - 1, key=lambda b: b.last_offset)

    def segment_of(self, offset: int) -> int:
        """Base offset of the segment holding `offset`."""
        bases = self.segment_bases()
        return bases[bisect_right(bases, offset) - 1]

    def batches_by_segment(self) -> list[tuple[object, list[ModelBatch]]]:
        """(segment, the model batches that start inside it) for each segment."""
        segments = self.log.segments
        bounds = [s.base_offset for s in segments[1:]] + [self.next_offset + 1]
        return [(segment, [b for b in self.batches if segment.base_offset <= b.base_offset < bound])
                for segment, bound in zip(segments, bounds)]

    def producer_knowledge_allowed(self, producer_id: int) -> list[ProducerBatch | None]:
        """What the log may know of the producer's last batch (None: nothing); see the
        module docstring."""
        entries = [p for p in self.producer_batches if p.producer_id == producer_id]
        if producer_id not in self.rebuilt_producers:
            return [entries[-1] if entries else None]
        replayable = [i for i, p in enumerate(entries) if not p.dropped and p.last_offset >= self.log_start_offset]
        if not replayable:
            return [None, *entries]
        return entries[replayable[-1]:]

    def known_producer_batch(self, producer_id: int) -> ProducerBatch | None:
        """The producer's last batch as the log knows it, checked against the model."""
        entry = self.log.producer_state.get(producer_id)
        allowed = self.producer_knowledge_allowed(producer_id)
        if entry is None or entry.is_empty:
            assert None in allowed, f"the log forgot producer {producer_id}; it must know one of {allowed}"
            return None
        assert entry.producer_epoch == PRODUCER_EPOCH
        for batch in reversed(allowed):
            if batch is not None and (batch.last_offset, batch.last_sequence) == (entry.last_data_offset, entry.last_sequence):
                return batch
        raise AssertionError(
            f"the log knows producer {producer_id} up to offset {entry.last_data_offset}, sequence "
            f"{entry.last_sequence}; the model allows only {allowed}")

    def next_sequence(self, producer_id: int) -> int:
        """The sequence the producer's next batch must start at. A producer the log no
        longer knows (every batch of it truncated away, or none it can replay) starts
        again at 0, which the log must accept from an unknown producer (KIP-360)."""
        known = self.known_producer_batch(producer_id)
        return 0 if known is None else known.last_sequence + 1

    def truncate_model_to(self, next_offset: int) -> None:
        """Forget the batches at or after `next_offset` (truncation, a torn tail)."""
        self.batches = [b for b in self.batches if b.base_offset < next_offset]
        self.producer_batches = [p for p in self.producer_batches if p.base_offset < next_offset]
        self.next_offset = next_offset
        self.compacted_below = min(self.compacted_below, next_offset)
        self.rebuilt_producers = set(PRODUCER_IDS)

    def forget_batches_below(self, offset: int) -> None:
        self.batches = [b for b in self.batches if b.base_offset >= offset]
        self.physical_start = offset
        self.compacted_below = max(self.compacted_below, offset)

    def segment_bases(self) -> list[int]:
        return [segment.base_offset for segment in self.log.segments]

    # -- setup --

    @initialize(config=st.sampled_from(CONFIGS))
    def start(self, config):
        self.config = config
        self.open(had_clean_shutdown=False, recovery_point=0)
        assert (self.log.log_start_offset, self.log.log_end_offset) == (0, 0)

    def teardown(self):
        if self.log is not None and not self.log.closed:
            self.log.close_handlers()
        shutil.rmtree(self.tmp, ignore_errors=True)

    # -- rules --

    @rule(
        specs=st.lists(batch_specs(), min_size=1, max_size=3),
        writable=st.booleans(),
        leader_epoch=st.none() | st.integers(0, 7),
    )
    def append(self, specs, writable, leader_epoch):
        built, sequences = [], {}
        for spec in specs:
            if spec.producer is None:
                built.append(build_batch(spec.rows(), compression=spec.compression))
                continue
            producer_id = PRODUCER_IDS[spec.producer]
            sequence = sequences.get(producer_id, self.next_sequence(producer_id))
            sequences[producer_id] = sequence + spec.records
            if sequence < self.sequences_sent.get(producer_id, 0):
                event("producer: resends sequences lost to a crash or truncation")
            self.sequences_sent[producer_id] = max(self.sequences_sent.get(producer_id, 0), sequence + spec.records)
            built.append(build_batch(
                spec.rows(), compression=spec.compression, producer_id=producer_id,
                producer_epoch=PRODUCER_EPOCH, base_sequence=sequence,
            ))
        produced = b"".join(built)
        buffer = bytearray(produced) if writable else produced
        now_ms = self.tick()
        if len(produced) > self.config.max_segment_bytes:
            with pytest.raises(RecordBatchTooLarge):
                self.log.append(buffer, now_ms=now_ms, leader_epoch=leader_epoch)
            return
        info = self.log.append(buffer, now_ms=now_ms, leader_epoch=leader_epoch)
        assert not info.duplicate

        first_offset = self.next_offset
        for spec, data in zip(specs, built):
            header = read_batch_header(data)
            if spec.producer is not None:
                self.producer_batches.append(ProducerBatch(
                    self.next_offset, self.next_offset + spec.records - 1, header.producer_id, header.last_sequence))
                self.rebuilt_producers.discard(header.producer_id)
            stamped = bytearray(data)
            stamp_base_offset(stamped, 0, self.next_offset)
            if leader_epoch is not None:
                stamp_partition_leader_epoch(stamped, 0, leader_epoch)
            records = tuple(
                ModelRecord(self.next_offset + i, ts, key, value, tuple(headers))
                for i, (key, value, headers, ts) in enumerate(spec.rows())
            )
            self.batches.append(ModelBatch(
                self.next_offset, self.next_offset + spec.records - 1, bytes(stamped), records,
                max(r.timestamp for r in records), header.producer_id,
            ))
            self.next_offset += spec.records
        assert (info.first_offset, info.last_offset) == (first_offset, self.next_offset - 1)
        assert info.batch_count == len(specs)
        assert info.record_count == sum(spec.records for spec in specs)
        assert info.size_bytes == len(produced)
        assert info.log_end_offset == self.next_offset
        event(f"segments after an append: {min(self.log.num_segments, 5)}{'+' if self.log.num_segments >= 5 else ''}")
        if writable:  # stamped in place
            assert bytes(buffer) == b"".join(b.data for b in self.batches[-len(specs):])

    @rule(specs=st.lists(batch_specs(compacted_traffic=True), min_size=1, max_size=3))
    def append_keyed(self, specs):
        """What a compacted topic gets: keyed records, updates of a few keys."""
        self.append(specs, True, None)

    @rule(
        pick=st.integers(0, 2**20),
        max_bytes=st.sampled_from([0, 1, 100, 700, 3000, 1 << 20]),
        limit=st.none() | st.integers(0, 2**20),
    )
    def read(self, pick, max_bytes, limit):
        lo, hi = self.log_start_offset - 2, self.next_offset + 2
        # `max_offset` (a high watermark) anywhere in [log start, log end], or none.
        span = self.next_offset - self.log_start_offset + 1
        max_offset = None if limit is None else self.log_start_offset + limit % span
        self.check_read(lo + pick % (hi - lo + 1), max_bytes, max_offset)

    @rule(pick=st.integers(0, 2**20))
    def offset_for_timestamp(self, pick):
        span = TIME_SPAN_MS + 1000
        self.check_offset_for_timestamp(BASE_TIME_MS - 500 + pick % (span + 1))

    @rule()
    def roll(self):
        recovery_point = self.log.recovery_point
        segment = self.log.roll(now_ms=self.tick())
        assert segment.base_offset == self.next_offset
        assert self.log.active_segment is segment
        # The roll fsyncs nothing: the recovery point waits for the pending flush.
        assert self.log.recovery_point == recovery_point
        expected_pending = self.next_offset if self.next_offset > recovery_point else None
        assert self.log.pending_flush_offset == expected_pending

    @rule()
    def run_pending_flush(self):
        """What the broker runs on a thread after a roll (also after the rolls of appends)."""
        pending = self.log.pending_flush_offset
        recovery_point = self.log.recovery_point
        self.log.run_pending_flush(now_ms=self.tick())
        assert self.log.recovery_point == (recovery_point if pending is None else pending)
        assert self.log.pending_flush_offset is None

    @rule(checkpoint_only=st.booleans())
    def flush_or_checkpoint(self, checkpoint_only):
        if not checkpoint_only:
            self.log.flush(now_ms=self.tick())
            assert self.log.recovery_point == self.next_offset
        self.checkpointed_recovery_point = self.log.recovery_point

    @rule(pick=st.integers(0, 2**20))
    def truncate_to(self, pick):
        lo, hi = max(0, self.physical_start - 2), self.next_offset + 2
        offset = lo + pick % (hi - lo + 1)
        below_active = offset < self.log.active_segment.base_offset
        changed = self.log.truncate_to(offset, now_ms=self.tick())
        if below_active and self.cleaner_checkpoint is not None:
            # The broker's truncate_log (Kafka's LogManager.truncateTo): the cleaner's
            # checkpoint comes back to the new active segment.
            self.cleaner_checkpoint = min(self.cleaner_checkpoint, self.log.active_segment.base_offset)
        if offset >= self.next_offset:
            assert changed is False
            return
        assert changed is True
        if offset < self.physical_start:
            # Below the first segment: the log starts afresh, empty, at `offset`.
            self.truncate_model_to(0)
            self.next_offset = self.log_start_offset = self.physical_start = self.compacted_below = offset
            self.rebuilt_producers = set()  # it forgot every producer
            return
        # The batch holding `offset` goes whole; the log then ends after the last batch
        # left in the segment holding `offset` (at its base when none is left: the
        # offsets in a hole that compaction left before `offset` are not given again).
        segment_base = self.segment_of(offset)
        index = self.first_batch_from(offset)
        kept = self.batches[:index]
        if index == len(self.batches) or self.batches[index].base_offset > offset:
            event("truncate_to: into a hole compaction left")
        if kept and kept[-1].base_offset >= segment_base:
            self.truncate_model_to(kept[-1].next_offset)
        else:
            self.truncate_model_to(segment_base)
        self.log_start_offset = min(self.log_start_offset, self.next_offset)

    @rule(pick=st.integers(0, 2**20), delete=st.booleans())
    def advance_log_start_offset(self, pick, delete):
        lo, hi = self.log_start_offset - 2, self.next_offset + 2
        offset = max(0, lo + pick % (hi - lo + 1))
        bases = self.segment_bases()
        call = self.log.delete_segments_below if delete else self.log.advance_log_start_offset
        kwargs = {"now_ms": self.tick()} if delete else {}
        if offset > self.next_offset:
            with pytest.raises(OffsetOutOfRange) as raised:
                call(offset, **kwargs)
            assert (raised.value.log_start_offset, raised.value.log_end_offset) == (self.log_start_offset, self.next_offset)
            assert self.segment_bases() == bases
            return
        result = call(offset, **kwargs)
        moved = offset > self.log_start_offset
        self.log_start_offset = max(self.log_start_offset, offset)
        if not delete:
            assert result is moved
            return
        # Every segment wholly below the log start offset goes; the one holding it stays.
        keep_from = max(base for base in bases if base <= self.log_start_offset)
        assert result == sum(1 for base in bases if base < keep_from)
        assert self.segment_bases() == [base for base in bases if base >= keep_from]
        self.forget_batches_below(keep_from)

    @rule(
        age_pick=st.none() | st.integers(0, 2**20),
        bytes_pick=st.none() | st.integers(0, 2**20),
        hw_pick=st.none() | st.integers(0, 2**20),
        policy=st.sampled_from([("delete",), ("delete",), ("compact",), ("compact", "delete")]),
    )
    def retain(self, age_pick, bytes_pick, hw_pick, policy):
        """A retention pass with a random retention.ms / retention.bytes (None: -1) and
        high watermark; exactly the segments Kafka's rules pick go."""
        now_ms = self.tick()
        described = []  # (base offset, size, largest timestamp) by the model
        for segment, inside in self.batches_by_segment():
            largest_ms = max((b.max_timestamp_ms for b in inside), default=-1)
            if largest_ms < 0 or segment.base_offset in self.unknown_timestamps:
                largest_ms = segment.largest_timestamp_ms()
            described.append((segment.base_offset, sum(b.size_bytes for b in inside), largest_ms))
        # Ages that cut between the records' timestamps; sizes up to the whole log and more.
        retention_ms = -1 if age_pick is None else max(0, now_ms - BASE_TIME_MS - age_pick % (TIME_SPAN_MS + 2000))
        total = sum(size for _, size, _ in described)
        retention_bytes = -1 if bytes_pick is None else bytes_pick % (total + 2000)
        high_watermark = self.next_offset if hw_pick is None else (
            self.log_start_offset + hw_pick % (self.next_offset - self.log_start_offset + 1))

        # The model: each rule deletes the longest prefix of candidates it accepts.
        expected: list[int] = []
        log_start_offset = self.log_start_offset

        def rule_deletes(accepts) -> None:
            nonlocal described, log_start_offset
            gone = 0
            for i, (base, size, largest_ms) in enumerate(described):
                upper = described[i + 1][0] if i + 1 < len(described) else self.next_offset
                last_and_empty = i + 1 == len(described) and size == 0
                if upper > high_watermark or last_and_empty or not accepts(i):
                    break
                gone += 1
            if gone == 0:
                return
            expected.extend(base for base, _, _ in described[:gone])
            if gone == len(described):
                described.append((self.next_offset, 0, now_ms))
            described = described[gone:]
            log_start_offset = max(log_start_offset, described[0][0])

        rule_deletes(lambda i: i + 1 < len(described) and described[i + 1][0] <= log_start_offset)
        if "delete" in policy:
            size_now = sum(size for _, size, _ in described)
            if retention_bytes >= 0 and size_now >= retention_bytes:
                budget = size_now - retention_bytes
                fits = [sum(size for _, size, _ in described[: i + 1]) <= budget for i in range(len(described))]
                rule_deletes(lambda i: fits[i])
            if retention_ms >= 0:
                rule_deletes(lambda i: now_ms - described[i][2] > retention_ms)

        self.log.update_config(self.config.replace(
            retention_ms=retention_ms, retention_bytes=retention_bytes, cleanup_policy=policy))
        try:
            deletions = self.log.delete_old_segments(now_ms, high_watermark)
        finally:
            self.log.update_config(self.config)
        got = [base for deletion in deletions for base in deletion.base_offsets]
        assert got == expected
        assert self.segment_bases() == [base for base, _, _ in described]
        if expected:
            event(f"retention: deleted {'all' if any(d.roll for d in deletions) else 'some'} segments")
            for deletion in deletions:
                event(f"retention: {deletion.reason}")
            if any(base < self.compacted_below for base in expected):
                event("retention: deleted compacted segments")
        self.log_start_offset = log_start_offset
        self.forget_batches_below(described[0][0])
        # The producer snapshot at each deleted segment's base offset goes with it (Kafka's
        # deleteProducerSnapshots); one elsewhere (at a log end a close or recovery wrote)
        # stays until a load removes it as a stray.
        assert not set(expected) & set(self.log.producer_snapshot_offsets)

    @rule(
        roll_first=st.booleans(),
        map_keys=st.none() | st.integers(1, 3),
        delete_retention_ms=st.sampled_from([0, 2000, 5000, 60_000]),
        policy=st.sampled_from([("compact",), ("compact", "delete")]),
        meanwhile=st.sampled_from(["nothing"] * 5 + ["append", "roll", "delete_records", "delete_segments"]),
        crash=st.sampled_from(["none"] * 6 + ["after_copy", "between_groups"]),
        pick=st.integers(0, 2**20),
        data=st.data(),
    )
    def compact(self, roll_first, map_keys, delete_retention_ms, policy, meanwhile, crash, pick, data):
        """A cleaner pass, as the broker runs it: prepare on the log's thread, copy (the
        log serves appends, rolls and DeleteRecords meanwhile), swap, checkpoint. Maybe
        after a roll, so that what was just appended is cleanable. Between the copy and
        the swap segments may go (retention, had the topic stopped being compacted): the
        swap must then abandon the pass. (Not during the copy: whoever runs the job keeps
        its segments alive until then, see storage/cleaner/cleaning.py.)"""
        if roll_first:
            self.roll()
        now_ms = self.tick()
        segments = self.log.segments
        bases = [s.base_offset for s in segments]
        active_base = bases[-1]
        checkpoint = self.cleaner_checkpoint
        first_dirty = checkpoint if checkpoint is not None and self.log_start_offset <= checkpoint <= self.next_offset \
            else self.log_start_offset
        dirty_bytes = sum(s.size_bytes for s, next_base in zip(segments[:-1], bases[1:]) if next_base > first_dirty)
        config = self.config.replace(cleanup_policy=policy, delete_retention_ms=delete_retention_ms)
        # An offset map for `map_keys` keys (of the four there are), or the default 128 MiB.
        map_kwargs = {} if map_keys is None else {"map_memory_bytes": (map_keys + 1) * BYTES_PER_ENTRY}
        self.log.update_config(config)
        try:
            job = prepare_cleaning(self.log, checkpoint_offset=checkpoint, now_ms=now_ms, force=True, **map_kwargs)
        finally:
            self.log.update_config(self.config)
        if dirty_bytes == 0:
            assert job is None
            event("compact: nothing dirty")
            return
        assert job is not None
        assert (job.range.first_dirty_offset, job.range.first_uncleanable_offset) == (first_dirty, active_base)
        # What the pass will see: the producers' last batches (checked against the model
        # by known_producer_batch) and where its map ends.
        producers_last = {}
        for producer_id in PRODUCER_IDS:
            known = self.known_producer_batch(producer_id)
            if known is not None:
                producers_last[producer_id] = known.last_offset
        mapped, end_offset = set(), first_dirty
        for batch in self.batches:
            if batch.base_offset >= active_base:
                break
            for record in batch.records:
                if record.offset < first_dirty or record.key is None:
                    continue
                if map_keys is not None and len(mapped) >= map_keys:
                    break
                mapped.add(record.key)
                end_offset = record.offset + 1
            else:
                continue
            event("compact: the map filled up")
            break
        batches_before = list(self.batches)
        log_start_offset = self.log_start_offset

        if meanwhile == "append":
            self.append(data.draw(st.lists(batch_specs(), min_size=1, max_size=2)), False, None)
        elif meanwhile == "roll":
            self.roll()
        elif meanwhile == "delete_records":  # the broker's DeleteRecords: no segment goes
            self.advance_log_start_offset(data.draw(st.integers(0, 2**20)), False)

        result = job.run(now_ms)
        modified_ms = {group.new.base_offset: group.old[-1].last_modified_ms() for group in result.groups}
        if meanwhile == "delete_segments":
            self.advance_log_start_offset(data.draw(st.integers(0, 2**20)), True)
        # The pass's first segment went: the swap must give it all up.
        abandoned = bool(result.groups) and self.segment_bases()[0] != bases[0]
        assert (result.first_dirty_offset, result.end_offset) == (first_dirty, end_offset)
        if end_offset == first_dirty:
            event("compact: no key in the dirty section")
            assert result.groups == []
        recopied_below = min(b for b in bases if b >= end_offset) if result.groups else bases[0]
        assert [s.base_offset for group in result.groups for s in group.old] == [b for b in bases if b < recopied_below]
        assert all(group.new.base_offset == group.old[0].base_offset for group in result.groups)
        if len(result.groups) > 1:
            event("compact: several groups")

        model = CompactionModel()
        for batch in batches_before:
            for record in batch.records:
                model.add(batch.base_offset, record.offset, record.key, record.value)
            if batch.delete_horizon_ms is not None:
                model.horizons[batch.base_offset] = batch.delete_horizon_ms
        model.clean(end_offset, recopied_below, now_ms, delete_retention_ms, first_dirty_offset=first_dirty)

        groups = result.groups
        if crash == "between_groups" and len(groups) >= 2:
            groups = groups[: 1 + pick % (len(groups) - 1)]
        elif crash != "none":
            groups = []
        if abandoned:
            assert swap_cleaned(self.log, result, now_ms=now_ms) is None
            event("compact: abandoned, its first segment went meanwhile")
            groups = []
        elif crash == "none":
            assert swap_cleaned(self.log, result, now_ms=now_ms) == end_offset
            self.cleaner_checkpoint = end_offset
        elif groups:
            swap_cleaned(self.log, dataclasses.replace(result, groups=groups), now_ms=now_ms)
        swapped_below = groups[-1].old[-1].base_offset if groups else bases[0]
        if groups:
            swapped_below = min(b for b in bases if b > swapped_below)
        for group in groups:
            assert group.new.last_modified_ms() == modified_ms[group.new.base_offset], "mtime of the last old segment"
            for old in group.old:
                self.unknown_timestamps.discard(old.base_offset)
        if groups:
            self.apply_compaction(model, swapped_below, active_base, producers_last)
            if crash == "none":
                self.check_compacted_range(batches_before, log_start_offset, end_offset, now_ms)
        if crash != "none" and not abandoned:
            # The broker dies before the swap, or between two groups' swaps: the next
            # load deletes the `.cleaned` files left; the checkpoint stays where it was.
            for group in result.groups[len(groups):]:
                group.new.close_handlers()
            event(f"compact: crash {crash}")
            self.kill_and_reopen(10_000, 0, "none", False, "log", 0)

    def check_compacted_range(self, before: list[ModelBatch], log_start_offset: int, end_offset: int, now_ms: int) -> None:
        """What a whole pass ending at `end_offset` promises, said without CompactionModel:
        in [log start, end) every key keeps its last record at its original offset, and
        nothing else is left; a tombstone goes once the delete horizon an earlier pass
        gave it has passed, and one left has a horizon it is still inside (or was just
        given one). (The part below the first dirty offset holds each key once: earlier
        passes left it so.)"""
        def records(batches):
            return {r.offset: (r, b.delete_horizon_ms) for b in batches for r in b.records
                    if log_start_offset <= r.offset < end_offset}

        last_of_key = {}
        for offset, (record, _) in sorted(records(before).items()):
            if record.key is not None:
                last_of_key[record.key] = offset
        old = records(before)
        expected = {offset for offset in last_of_key.values()
                    if not (old[offset][0].value is None and old[offset][1] is not None and old[offset][1] <= now_ms)}
        after = records(self.batches)
        assert set(after) == expected, f"compacted range [{log_start_offset}, {end_offset})"
        for offset, (record, horizon) in after.items():
            assert record == old[offset][0]
            if record.value is None:
                assert horizon is not None and (horizon > now_ms or old[offset][1] is None), record

    def apply_compaction(self, model: CompactionModel, below: int, upper_bound: int, producers_last: dict) -> None:
        """The model batches below `below` as the pass must have recopied them, checked
        against the log's batches there, whose bytes then become the model's."""
        log_batches = []
        for segment in self.log.segments:
            if segment.base_offset >= below:
                break
            data = segment.read_bytes(0, segment.size_bytes)
            log_batches.extend((header, data[position : position + header.size_bytes])
                               for position, header in iter_batch_headers(data))
        found = iter(log_batches)
        dropped = set()
        new_batches = []
        for batch in self.batches:
            if batch.base_offset >= below:
                new_batches.append(batch)
                continue
            kept = tuple(r for r in batch.records if r.offset in model.records)
            horizon = model.horizons.get(batch.base_offset)
            if not kept:
                if producers_last.get(batch.producer_id) != batch.last_offset and batch.next_offset != upper_bound:
                    dropped.add(batch.base_offset)
                    continue
                event("compact: a batch kept empty (" + ("a producer's last)" if batch.producer_id >= 0 else "the pass's last)"))
            header, data = next(found, (None, None))
            assert header is not None, f"batch {batch.base_offset} is missing after the pass"
            if kept == batch.records and horizon == batch.delete_horizon_ms:
                assert data == batch.data, f"batch {batch.base_offset} was kept whole but not copied byte for byte"
                new_batches.append(batch)
                continue
            original = read_batch_header(batch.data)
            assert validate_batch(data) == header
            assert (header.base_offset, header.last_offset) == (batch.base_offset, batch.last_offset)
            assert (header.producer_id, header.producer_epoch, header.base_sequence, header.partition_leader_epoch) == (
                original.producer_id, original.producer_epoch, original.base_sequence, original.partition_leader_epoch)
            assert header.records_count == len(kept)
            if kept:
                assert header.compression == original.compression
                assert header.has_delete_horizon == (horizon is not None)
                if horizon is not None:
                    assert header.base_timestamp == horizon
                    if batch.delete_horizon_ms is None:
                        event("compact: a delete horizon set")
                max_timestamp_ms = max(r.timestamp for r in kept)
            else:
                assert (header.compression, header.has_delete_horizon, header.size_bytes) == (
                    Compression.NONE, False, BATCH_HEADER_SIZE)
                horizon = None
                max_timestamp_ms = batch.max_timestamp_ms  # an empty batch keeps it (Kafka's writeEmptyHeader)
            assert header.max_timestamp == max_timestamp_ms
            got = [(r.offset, r.timestamp, r.key, r.value, tuple(r.headers)) for r in iter_records(data)]
            assert got == [(r.offset, r.timestamp, r.key, r.value, r.headers) for r in kept]
            event("compact: records removed")
            if any(r.value is None for r in batch.records) and not any(r.value is None for r in kept):
                event("compact: tombstones removed")
            new_batches.append(ModelBatch(batch.base_offset, batch.last_offset, bytes(data), kept, max_timestamp_ms,
                                          batch.producer_id, horizon))
        assert next(found, None) is None, "the pass left a batch the model does not know"
        self.batches = new_batches
        self.producer_batches = [dataclasses.replace(p, dropped=True) if p.base_offset in dropped else p
                                 for p in self.producer_batches]
        self.compacted_below = max(self.compacted_below, below)
        if dropped:
            event("compact: whole batches removed")

    @rule(damage=st.sampled_from(["none", "none", "delete_index", "delete_timeindex", "delete_both"]), pick=st.integers(0, 2**20))
    def close_and_reopen(self, damage, pick):
        self.log.close()
        recovery_point = self.log.recovery_point
        assert recovery_point == self.next_offset
        bases = self.segment_bases()
        if damage != "none":
            base = bases[pick % len(bases)]
            if damage in ("delete_index", "delete_both"):
                files.offset_index_file_path(self.dir, base).unlink()
            if damage in ("delete_timeindex", "delete_both"):
                files.time_index_file_path(self.dir, base).unlink()
        self.checkpointed_recovery_point = recovery_point
        # The producers come back from the snapshot the close wrote at the log end; one
        # whose batches all lie below the log start offset is not in it (Kafka's rule).
        self.rebuilt_producers = set(PRODUCER_IDS)
        log = self.open(had_clean_shutdown=True, recovery_point=recovery_point)
        report = log.recovery_report
        self.check_no_leftover_files()
        assert report.bytes_truncated == 0 and report.segments_deleted == 0, report
        # A missing time index alone is created empty; a missing offset index rebuilds both.
        assert report.index_rebuilds == (0 if damage in ("none", "delete_timeindex") else 1), report
        assert report.time_indexes_created == (1 if damage == "delete_timeindex" else 0), report
        if damage == "delete_timeindex":
            self.unknown_timestamps.add(base)
        assert self.segment_bases() == bases
        assert log.recovery_point == self.next_offset

    @rule(
        cut=st.integers(0, 10_000),
        zeros=st.sampled_from([0, 0, 1, 60, 700]),
        active_index_damage=st.sampled_from(["none", "none", "delete_index", "delete_timeindex", "truncate_index", "truncate_timeindex"]),
        delete_older_indexes=st.booleans(),
        recovery_point_from=st.sampled_from(["log", "checkpoint", "zero"]),
        pick=st.integers(0, 2**20),
        lose_snapshots=st.sampled_from([False, False, False, True]),
    )
    def kill_and_reopen(self, cut, zeros, active_index_damage, delete_older_indexes, recovery_point_from, pick,
                        lose_snapshots=False):
        log = self.log
        active = log.active_segment
        base, size = active.base_offset, active.size_bytes
        recovery_point = {
            "log": log.recovery_point, "checkpoint": self.checkpointed_recovery_point, "zero": 0,
        }[recovery_point_from]
        recovery_point = min(recovery_point, log.recovery_point)
        older = [segment.base_offset for segment in log.segments[:-1]]

        # The crash: no flush, no index trimming, no clean-shutdown marker...
        log.close_handlers()
        self.log = None
        # ...and the page cache lost everything after byte `cut` of the active segment
        # (possibly after the file system had already extended it with zeros).
        position = cut * size // 10_000
        log_path = files.log_file_path(self.dir, base)
        os.truncate(log_path, position)
        if zeros:
            with open(log_path, "ab") as f:
                f.write(bytes(zeros))
        for suffix_path, kind in (
            (files.offset_index_file_path(self.dir, base), "index"),
            (files.time_index_file_path(self.dir, base), "timeindex"),
        ):
            if active_index_damage == f"delete_{kind}":
                suffix_path.unlink(missing_ok=True)
            elif active_index_damage == f"truncate_{kind}" and suffix_path.exists():
                length = suffix_path.stat().st_size
                os.truncate(suffix_path, pick % (length + 1))
        if delete_older_indexes and older:
            doomed = older[pick % len(older)]
            files.offset_index_file_path(self.dir, doomed).unlink(missing_ok=True)
            files.time_index_file_path(self.dir, doomed).unlink(missing_ok=True)
        if lose_snapshots:
            # As a replica rebuilding from the log alone: the producers come back from the
            # batches the log can replay (a compacted producer's last one must be there).
            for snapshot in self.dir.glob("*" + files.PRODUCER_SNAPSHOT_FILE_SUFFIX):
                snapshot.unlink()

        # The model: the batches of the active segment whose bytes are intact survive, up to
        # the first one that is not. That is every batch that ends at or before the cut,
        # and the one across it too if the zeros happen to restore its tail (a record with
        # an empty value and no headers ends in zero bytes).
        kept = [b for b in self.batches if b.base_offset < base]
        in_active = [b for b in self.batches if b.base_offset >= base]
        after_crash = b"".join(b.data for b in in_active)[:position] + bytes(zeros)
        end = 0
        for batch in in_active:
            if after_crash[end : end + batch.size_bytes] != batch.data:
                break
            kept.append(batch)
            end += batch.size_bytes
        expected_truncated_bytes = position + zeros - end
        self.truncate_model_to(kept[-1].next_offset if kept and kept[-1].base_offset >= base else base)
        if self.next_offset < self.log_start_offset:
            # Nothing at or after the log start offset survived: the log starts empty there.
            self.batches = []
            self.next_offset = self.physical_start = self.compacted_below = self.log_start_offset

        log = self.open(had_clean_shutdown=False, recovery_point=recovery_point)
        report = log.recovery_report
        event("kill: torn tail dropped" if expected_truncated_bytes else "kill: cut at a batch boundary")
        self.check_no_leftover_files()
        assert report.bytes_truncated == expected_truncated_bytes, report
        assert (report.batches_dropped > 0) == (expected_truncated_bytes > 0), report
        assert log.recovery_point <= log.log_end_offset
        self.checkpointed_recovery_point = min(self.checkpointed_recovery_point, log.recovery_point)

    # -- checks --

    def check_read(self, offset: int, max_bytes: int, max_offset: int | None = None, *, decode: bool = True) -> None:
        """A read checked against the model, byte for byte; with `decode` the records
        of the first batch are decoded and compared too."""
        log = self.log
        if not self.log_start_offset <= offset <= self.next_offset:
            with pytest.raises(OffsetOutOfRange) as raised:
                log.read(offset, max_bytes, max_offset=max_offset)
            error = raised.value
            assert (error.offset, error.log_start_offset, error.log_end_offset) == (
                offset, self.log_start_offset, self.next_offset,
            )
            return
        result = log.read(offset, max_bytes, max_offset=max_offset)
        # Batches from `limit` on are beyond max_offset: the one holding it and later ones.
        limit = len(self.batches)
        if max_offset is not None and max_offset < self.next_offset:
            limit = self.first_batch_from(max_offset)
        if offset == self.next_offset or (max_offset is not None and offset >= max_offset):
            assert result.size_bytes == 0
            return
        # The batch holding the offset, or the first after it when it lies in a hole.
        index = self.first_batch_from(offset)
        if index >= limit:  # max_offset lies inside that batch, or no batch follows
            assert result.size_bytes == 0
            return
        data = result.read_bytes()
        assert len(data) == result.size_bytes
        first = self.batches[index]
        # At least the batch holding the offset (min_one_batch); otherwise at most max_bytes.
        assert len(data) == first.size_bytes if max_bytes < first.size_bytes else len(data) <= max_bytes
        headers = list(iter_batch_headers(data))
        assert headers, f"read at {offset} returned no whole batch"
        covered = 0
        for k, (position, header) in enumerate(headers):
            expected = self.batches[index + k]
            assert position == covered
            assert header.base_offset == expected.base_offset
            assert data[position : position + header.size_bytes] == expected.data, (
                f"batch {expected.base_offset} read at {offset} differs from the model's"
            )
            covered += header.size_bytes
        following = index + len(headers)
        assert following <= limit, f"read at {offset} returned batches past max_offset {max_offset}"
        if covered < len(data):
            # A batch cut by max_bytes, as Kafka does: the bytes are its prefix.
            assert len(data) == max_bytes
            assert following < limit, f"read at {offset} returned bytes past max_offset {max_offset}"
            assert data[covered:] == self.batches[following].data[: len(data) - covered]
        elif len(data) < max_bytes and following < limit:
            # A short read ends at a segment boundary only.
            next_base = self.batches[following].base_offset
            assert self.segment_of(next_base) != self.segment_of(self.batches[following - 1].base_offset), (
                f"read at {offset} stopped at offset {next_base}, which is not the first batch of a segment"
            )
        if decode:
            got = [(r.offset, r.timestamp, r.key, r.value, tuple(r.headers)) for r in iter_records(data, 0)]
            want = [(r.offset, r.timestamp, r.key, r.value, r.headers) for r in first.records]
            assert got == want

    def check_no_leftover_files(self) -> None:
        """After loading: no `.deleted` files, and index files only beside a `.log`."""
        names = {p.name for p in self.dir.iterdir()}
        assert not [n for n in names if n.endswith(files.DELETED_FILE_SUFFIX)], sorted(names)
        for name in names:
            if files.is_index_file(name):
                base = files.base_offset_from_file_name(name)
                assert files.log_file_path(self.dir, base).name in names, f"orphan index file {name}"

    def check_offset_for_timestamp(self, timestamp_ms: int) -> None:
        """Kafka's rule: only the first segment whose largest timestamp reaches T is
        searched. A segment's largest timestamp is the largest of its model batches' (an
        empty batch compaction kept has one), or its `.log` file's modification time
        when it holds none; for a segment whose time index was deleted (and so is
        unknown to the log) it is what the log says."""
        expected = None
        answer = self.log.offset_for_timestamp(timestamp_ms)
        for segment, inside in self.batches_by_segment():
            candidates = [TimestampOffset(r.timestamp, r.offset) for b in inside for r in b.records
                          if r.offset >= self.log_start_offset and r.timestamp >= timestamp_ms]
            if segment.base_offset in self.unknown_timestamps:
                # Its time index was lost and started again empty, as Kafka's does: entries
                # added since know only the records appended since, and a lookup may start
                # past an older record that would have matched (Kafka answers the same).
                if segment.largest_timestamp_ms() < timestamp_ms:
                    continue
                assert answer is None or answer in candidates, f"timestamp {timestamp_ms}: {answer}"
                return
            largest_ms = max((b.max_timestamp_ms for b in inside), default=-1)
            if largest_ms < 0:
                largest_ms = segment.last_modified_ms()
            if largest_ms < timestamp_ms:
                continue
            expected = candidates[0] if candidates else None
            break
        assert answer == expected, f"timestamp {timestamp_ms}"

    # -- invariants --

    @invariant()
    def offsets_match_the_model(self):
        if self.log is None:
            return
        log = self.log
        assert (log.log_start_offset, log.log_end_offset) == (self.log_start_offset, self.next_offset)
        assert log.recovery_point <= log.log_end_offset
        # The model's own invariant: batches in offset order, contiguous from the first
        # segment's base except for the holes compaction left below `compacted_below`.
        expected_next = self.physical_start
        for batch in self.batches:
            if batch.base_offset >= self.compacted_below:
                assert batch.base_offset == max(expected_next, self.compacted_below)
            else:
                assert batch.base_offset >= expected_next and batch.next_offset <= self.compacted_below
            expected_next = batch.next_offset
        assert max(expected_next, self.compacted_below) == self.next_offset
        assert self.physical_start <= self.log_start_offset <= self.next_offset

    @invariant()
    def segments_hold_the_model_batches(self):
        if self.log is None:
            return
        segments = self.log.segments
        assert segments[0].base_offset == self.physical_start
        bounds = [s.base_offset for s in segments[1:]] + [self.next_offset + 1]
        for (segment, inside), bound in zip(self.batches_by_segment(), bounds):
            assert all(b.last_offset < bound for b in inside), f"a batch of {segment} crosses its end"
            assert segment.size_bytes == sum(b.size_bytes for b in inside), segment
        live = {s.log_path.name for s in segments}
        names = [p.name for p in self.dir.iterdir()]
        on_disk = {name for name in names if name.endswith(files.LOG_FILE_SUFFIX)}
        assert on_disk == live
        in_transit = (files.CLEANED_FILE_SUFFIX, files.SWAP_FILE_SUFFIX)
        assert not [name for name in names if name.endswith(in_transit)], sorted(names)

    @invariant()
    def every_batch_reads_back(self):
        if self.log is None:
            return
        offsets = {self.log_start_offset}
        previous_next = self.physical_start
        for batch in self.batches:
            if batch.base_offset > previous_next:
                offsets.add(previous_next)  # a hole compaction left
            offsets |= {batch.base_offset, batch.last_offset}
            previous_next = batch.next_offset
        # (Byte for byte is enough here: a batch's records follow from its bytes, which
        # the `read` rule decodes.)
        for offset in sorted(offsets):
            if offset >= self.log_start_offset:
                self.check_read(offset, 1, decode=False)
        for offset in (self.log_start_offset - 1, self.next_offset, self.next_offset + 1):
            if offset >= 0:
                self.check_read(offset, 1, decode=False)

    @invariant()
    def producers_are_known_as_the_model_allows(self):
        if self.log is None:
            return
        for producer_id in PRODUCER_IDS:
            self.known_producer_batch(producer_id)

    @invariant()
    def offsets_for_timestamps_match_a_scan(self):
        if self.log is None:
            return
        timestamps = [r.timestamp for b in self.visible_batches() for r in b.records]
        probes = {BASE_TIME_MS - 1000, BASE_TIME_MS + TIME_SPAN_MS + 1000}
        if timestamps:
            probes |= {min(timestamps), max(timestamps), max(timestamps) + 1}
            rng = random.Random(self.steps)
            probes |= set(rng.sample(timestamps, min(3, len(timestamps))))
        for timestamp_ms in sorted(probes):
            self.check_offset_for_timestamp(timestamp_ms)


LogStateMachine.TestCase.settings = settings(
    max_examples=250,
    stateful_step_count=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
TestLogStateMachine = LogStateMachine.TestCase


# ---------------------------------------------------------------------------------------
# What an unclean open reads. (Counted in bytes, not timed: timing belongs in bench/.)


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc to name the files read")
def test_unclean_open_reads_nothing_below_the_recovery_point(tmp_path, monkeypatch):
    """Issue 3: after an unclean stop the batches AFTER the recovery point are validated;
    the segments below it were fsynced when they rolled and are trusted, as on a clean
    open. So the cost of recovery is that of the unflushed tail, whatever the size of the
    log. Here a log of 8 full segments and a partly written 9th, from a plain (not
    idempotent) producer, is dropped without closing and reopened: not one byte of the 8
    older `.log` files may be read."""
    config = LogConfig(internal_segment_bytes=64 * 1024, index_interval_bytes=4096, segment_index_bytes=4096)
    dir = tmp_path / "topic-0"
    log = Log.open(dir, config, now_ms=BASE_TIME_MS)
    batch = build_batch([(None, b"v" * 1000, (), BASE_TIME_MS)] * 15)
    while log.num_segments < 9 or log.active_segment.size_bytes < 32 * 1024:
        log.append(bytearray(batch), now_ms=BASE_TIME_MS)
    active = log.active_segment
    assert log.recovery_point < active.base_offset  # rolls leave their flush pending...
    log.run_pending_flush()
    recovery_point = log.recovery_point
    end_offset = log.log_end_offset
    assert recovery_point == active.base_offset  # ...which fsyncs everything before the last roll
    older = {segment.log_path.name for segment in log.segments[:-1]}
    log.close_handlers()  # an unclean stop: no flush, no marker

    bytes_read: dict[str, int] = {}
    real_pread = os.pread

    def counting_pread(fd, size, position):
        data = real_pread(fd, size, position)
        name = os.path.basename(os.readlink(f"/proc/self/fd/{fd}"))
        bytes_read[name] = bytes_read.get(name, 0) + len(data)
        return data

    monkeypatch.setattr(os, "pread", counting_pread)
    reopened = Log.open(dir, config, now_ms=BASE_TIME_MS, recovery_point=recovery_point, had_clean_shutdown=False)
    monkeypatch.undo()
    try:
        assert reopened.log_end_offset == end_offset
        assert reopened.recovery_report.segments_recovered == 1
        read_below = {name: n for name, n in sorted(bytes_read.items()) if name in older}
        assert not read_below, (
            f"an unclean open with the recovery point at offset {recovery_point} (the active "
            f"segment) read {sum(read_below.values())} bytes from the {len(read_below)} older "
            f"segments, which it should trust: {read_below}"
        )
    finally:
        reopened.close_handlers()
