"""Hypothesis: random appends of keyed records and tombstones (some from an idempotent
producer), rolls, time passing, compaction passes (with offset maps of random sizes),
clean and unclean reopens; after every step the log holds exactly what the model says
compaction may leave, and the producer's last sequence survives."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import hypothesis.strategies as st
from hypothesis import HealthCheck, event, settings
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from protocol.records import Compression
from storage import files
from storage.cleaner import CleanerCheckpoint, clean_log
from storage.cleaner.offset_map import BYTES_PER_ENTRY
from storage.log import Log
from tests.storage.builders import BASE_TIME_MS
from tests.storage.cleaner.support import CompactionModel, compact_config, keyed_batch, log_records

PRODUCER_ID = 77
KEYS = [b"a", b"b", b"c", b"d", b"e", b"f"]
rows_strategy = st.lists(
    st.tuples(st.sampled_from(KEYS), st.one_of(st.none(), st.binary(min_size=1, max_size=40))),
    min_size=1, max_size=6,
)


class CleanerStateMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.data_dir = Path(tempfile.mkdtemp(prefix="cleaner-sm-"))
        self.config = compact_config(internal_segment_bytes=600, delete_retention_ms=100,
                                     file_delete_delay_ms=0)
        self.now_ms = BASE_TIME_MS
        self.log = Log.open(self.data_dir / "t-0", self.config, now_ms=self.now_ms)
        self.model = CompactionModel()
        self.log_end_offset = 0
        self.next_sequence = 0  # of the one idempotent producer, PRODUCER_ID
        self.checkpoint = CleanerCheckpoint(self.data_dir)

    def teardown(self):
        self.log.close_handlers()
        shutil.rmtree(self.data_dir, ignore_errors=True)

    @rule(rows=rows_strategy, compression=st.sampled_from([Compression.NONE, Compression.GZIP]))
    def append(self, rows, compression):
        info = self.log.append(keyed_batch(rows, timestamp_ms=self.now_ms, compression=compression),
                               now_ms=self.now_ms)
        self.model.append(info.first_offset, rows)
        self.log_end_offset = info.last_offset + 1

    @rule(rows=rows_strategy)
    def append_idempotent(self, rows):
        batch = keyed_batch(rows, timestamp_ms=self.now_ms, producer_id=PRODUCER_ID, producer_epoch=0,
                            base_sequence=self.next_sequence)
        info = self.log.append(batch, now_ms=self.now_ms)
        assert not info.duplicate
        self.model.append(info.first_offset, rows)
        self.log_end_offset = info.last_offset + 1
        self.next_sequence += len(rows)

    @precondition(lambda self: self.log.active_segment.size_bytes > 0)
    @rule()
    def roll(self):
        self.log.roll(now_ms=self.now_ms)

    @rule(ms=st.integers(min_value=1, max_value=150))
    def time_passes(self, ms):
        self.now_ms += ms

    @rule(map_entries=st.one_of(st.none(), st.integers(min_value=2, max_value=8)))
    def compact(self, map_entries):
        kwargs = {} if map_entries is None else {"map_memory_bytes": map_entries * BYTES_PER_ENTRY}
        segment_bases = [s.base_offset for s in self.log.segments]
        result = clean_log(self.log, checkpoint_offset=self.checkpoint.get("t", 0), now_ms=self.now_ms,
                           force=True, **kwargs)
        if result is None:
            return
        below = min(b for b in segment_bases if b >= result.end_offset)
        tombstones = sum(1 for _, value in self.model.records.values() if value is None)
        self.model.clean(result.end_offset, below, self.now_ms, self.config.delete_retention_ms,
                         first_dirty_offset=result.first_dirty_offset)
        if sum(1 for _, value in self.model.records.values() if value is None) < tombstones:
            event("a pass removed tombstones")
        if result.end_offset < result.first_dirty_offset or result.end_offset < below:
            event("a pass ended before its last segment's end (full map)")
        self.checkpoint.update("t", 0, result.end_offset)

    @rule(clean=st.booleans())
    def reopen(self, clean):
        if clean:
            self.log.close()
        else:
            self.log.close_handlers()
        self.log = Log.open(self.data_dir / "t-0", self.config, now_ms=self.now_ms,
                            had_clean_shutdown=clean, recovery_point=0)

    @rule()
    def reopen_without_producer_snapshots(self):
        # As a replica rebuilding from the log alone: the producer state comes from the
        # batches, so the producer's last batch must have survived compaction.
        self.log.close_handlers()
        for snapshot in (self.data_dir / "t-0").glob("*.snapshot"):
            snapshot.unlink()
        self.log = Log.open(self.data_dir / "t-0", self.config, now_ms=self.now_ms, recovery_point=0)

    @invariant()
    def holds_what_the_model_says(self):
        assert log_records(self.log) == self.model.records
        assert self.log.log_end_offset == self.log_end_offset and self.log.log_start_offset == 0

    @invariant()
    def the_producer_keeps_its_last_sequence(self):
        # Compaction keeps the producer's last batch (empty if need be), also across reopens.
        assert self.log.last_sequence(PRODUCER_ID) == self.next_sequence - 1

    @invariant()
    def no_file_in_transit(self):
        suffixes = (files.CLEANED_FILE_SUFFIX, files.SWAP_FILE_SUFFIX)
        assert not [p for p in (self.data_dir / "t-0").iterdir() if p.name.endswith(suffixes)]


CleanerStateMachine.TestCase.settings = settings(
    max_examples=60,
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
TestCleanerStateMachine = CleanerStateMachine.TestCase
