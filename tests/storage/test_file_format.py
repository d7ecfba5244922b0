"""Files written by pylog, read by an independent reader: kafka-python's record classes for
the .log, `struct` for .index / .timeindex, checked against Kafka's indexing rule."""

from __future__ import annotations

import random

from kafka.record.default_records import DefaultRecordBatch
from kafka.record.memory_records import MemoryRecords

from protocol.records import Compression
from storage.log import Log
from tests.storage.builders import (
    BASE_TIME_MS,
    expected_index_entries,
    make_batch,
    read_offset_index,
    read_time_index,
    small_config,
)


def kafka_python_batches(data: bytes) -> list[DefaultRecordBatch]:
    records = MemoryRecords(data)
    batches = []
    while records.has_next():
        batch = records.next_batch()
        assert isinstance(batch, DefaultRecordBatch)
        batches.append(batch)
    return batches


def test_segments_parse_with_kafka_python_and_indexes_with_struct(tmp_path):
    rng = random.Random(5)
    config = small_config(internal_segment_bytes=6000, index_interval_bytes=500)
    log = Log.open(tmp_path / "orders-2", config, now_ms=0)
    appended = []  # (first_offset, count, values, timestamps, leader_epoch)
    for i in range(150):
        count = rng.randint(1, 4)
        timestamps = [BASE_TIME_MS + rng.randint(0, 10_000) for _ in range(count)]
        compression = Compression.GZIP if i % 7 == 0 else Compression.NONE
        batch = make_batch(count, timestamps=timestamps, tag=i, value_bytes=rng.randint(5, 200), compression=compression)
        info = log.append(batch, now_ms=0, leader_epoch=i // 50)
        appended.append((info.first_offset, count, timestamps, i // 50))
    log.close()

    # .log: batches as kafka-python reads them, with the offsets and epochs the log assigned.
    seen = []
    for log_file in sorted((tmp_path / "orders-2").glob("*.log")):
        base_offset = int(log_file.name.split(".")[0])
        data = log_file.read_bytes()
        batches = kafka_python_batches(data)
        assert batches and batches[0].base_offset == base_offset
        position = 0
        positioned = []
        for batch in batches:
            assert batch.validate_crc()
            assert batch.magic == 2
            records = list(batch)
            seen.append(
                (batch.base_offset, len(records), [r.timestamp for r in records], batch.leader_epoch)
            )
            assert [r.offset for r in records] == list(range(batch.base_offset, batch.base_offset + len(records)))
            positioned.append((position, batch.size_in_bytes, batch.last_offset, batch.max_timestamp))
            position += batch.size_in_bytes
        assert position == len(data)

        # .index / .timeindex: Kafka's rule, recomputed from kafka-python's view of the batches.
        offset_entries, time_entries = expected_index_entries(positioned, config.index_interval_bytes)
        assert read_offset_index(log_file.with_suffix(".index"), base_offset) == offset_entries
        time_file = read_time_index(log_file.with_suffix(".timeindex"), base_offset)
        max_ts = max(p[3] for p in positioned)
        final = (max_ts, next(p[2] for p in positioned if p[3] == max_ts))
        assert time_file == (time_entries + [final] if not time_entries or final[0] > time_entries[-1][0] else time_entries)
    assert seen == appended


def test_file_names_are_twenty_digit_base_offsets(tmp_path):
    log = Log.open(tmp_path / "t-0", small_config(internal_segment_bytes=300), now_ms=0)
    for i in range(20):
        log.append(make_batch(3, value_bytes=50, tag=i), now_ms=0)
    bases = [s.base_offset for s in log.segments]
    end = log.log_end_offset
    log.close()
    names = sorted(p.name for p in (tmp_path / "t-0").iterdir())
    expected = [f"{base:020d}{suffix}" for base in bases for suffix in (".log", ".index", ".timeindex")]
    # Producer snapshots, as Kafka writes them even with no idempotent producer: one at
    # each rolled-to base offset and one at the log end offset on close.
    expected += [f"{offset:020d}.snapshot" for offset in [*bases[1:], end]]
    # And the leader-epoch checkpoint, created (empty here: no batch carried an epoch)
    # when the log opens, as Kafka creates it.
    expected.append("leader-epoch-checkpoint")
    assert names == sorted(expected)
    assert (tmp_path / "t-0" / "leader-epoch-checkpoint").read_bytes() == b""
