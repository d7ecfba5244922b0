"""filter_batch: which records stay, how a batch is re-encoded, the delete horizon
(KIP-534), the empty batches kept for producers and for the end of a pass."""

from __future__ import annotations

import pytest

from protocol.records import (
    Compression,
    ControlType,
    TimestampType,
    build_control_batch,
    iter_records,
    read_batch_header,
    validate_batch,
)
from storage.cleaner.batch_filter import LastRecord, RetentionRules, filter_batch
from storage.cleaner.offset_map import BYTES_PER_ENTRY, OffsetMap
from tests.storage.builders import BASE_TIME_MS
from tests.storage.cleaner.support import keyed_batch

NOW_MS = BASE_TIME_MS + 10_000
RETENTION_MS = 5_000


def rules(mapping: dict[bytes, int], *, latest: int | None = None, now_ms: int = NOW_MS,
          upper_bound: int = 1_000, producers=None) -> RetentionRules:
    offset_map = OffsetMap(1024 * BYTES_PER_ENTRY)
    for key, offset in sorted(mapping.items(), key=lambda item: item[1]):
        offset_map.put(key, offset)
    if latest is not None:
        offset_map.latest_offset = latest
    return RetentionRules(offset_map, now_ms, RETENTION_MS, upper_bound, producers or {})


def run(data: bytes, r: RetentionRules):
    kept = filter_batch(read_batch_header(data), data, r)
    if kept is not None:
        validate_batch(kept.data)  # a well-formed batch with a correct CRC
    return kept


def test_a_batch_whose_records_all_stay_is_copied_byte_for_byte():
    data = keyed_batch([(b"a", b"1"), (b"b", b"2")], base_offset=10)
    kept = run(data, rules({b"a": 10, b"b": 11}))
    assert kept.data == data and kept.records_kept == 2


@pytest.mark.parametrize("compression", [Compression.NONE, Compression.GZIP, Compression.LZ4])
def test_a_batch_losing_records_is_re_encoded_with_its_offsets_producer_fields_and_codec(compression):
    data = keyed_batch([(b"a", b"1"), (b"b", b"2"), (b"a", b"3"), (b"c", b"4")], base_offset=10,
                       compression=compression, producer_id=42, producer_epoch=3, base_sequence=7,
                       partition_leader_epoch=5)
    kept = run(data, rules({b"a": 12, b"b": 20, b"c": 13}))
    original, header = read_batch_header(data), kept.header
    assert [(r.offset, r.key, r.value) for r in iter_records(kept.data)] == [(12, b"a", b"3"), (13, b"c", b"4")]
    assert (header.base_offset, header.last_offset, header.records_count) == (10, 13, 2)
    assert (header.producer_id, header.producer_epoch, header.base_sequence, header.last_sequence) == (42, 3, 7, 10)
    assert header.partition_leader_epoch == 5 and header.compression is compression
    assert header.attributes == original.attributes and not header.has_delete_horizon
    assert header.last_sequence == original.last_sequence


def test_the_last_record_of_a_batch_may_go_and_the_last_offset_stays():
    data = keyed_batch([(b"a", b"1"), (b"b", b"2")], base_offset=10)
    kept = run(data, rules({b"a": 10, b"b": 30}))
    assert kept.header.last_offset == 11 and [r.offset for r in iter_records(kept.data)] == [10]


def test_records_past_the_map_are_kept_unjudged():
    data = keyed_batch([(b"a", b"1"), (b"a", b"2")], base_offset=10)
    kept = run(data, rules({b"a": 5}, latest=10))
    # Offset 10 is judged (<= latest) and is at or past the key's offset in the map: kept.
    # Offset 11 lies past the map: kept, although it supersedes 10.
    assert [r.offset for r in iter_records(kept.data)] == [10, 11]


def test_a_record_without_key_is_removed():
    data = keyed_batch([(None, b"1"), (b"a", b"2")], base_offset=0)
    kept = run(data, rules({b"a": 1}))
    assert [r.key for r in iter_records(kept.data)] == [b"a"]


def test_a_kept_tombstone_gets_the_delete_horizon_and_goes_after_it():
    data = keyed_batch([(b"a", None), (b"b", b"2")], base_offset=0, timestamp_ms=BASE_TIME_MS)
    first = run(data, rules({b"a": 0, b"b": 1}))
    header = first.header
    assert header.has_delete_horizon and header.base_timestamp == NOW_MS + RETENTION_MS
    # Record timestamps are unchanged, stored as (negative) deltas from the horizon.
    assert [r.timestamp for r in iter_records(first.data)] == [BASE_TIME_MS, BASE_TIME_MS]
    assert header.max_timestamp == BASE_TIME_MS
    # Before the horizon the batch stays as it is (horizon already set: no rewrite).
    again = run(first.data, rules({b"a": 0, b"b": 1}, now_ms=NOW_MS + RETENTION_MS - 1))
    assert again.data == first.data
    # At the horizon the tombstone goes; the horizon stays on the batch.
    after = run(first.data, rules({b"a": 0, b"b": 1}, now_ms=NOW_MS + RETENTION_MS))
    assert [(r.key, r.value) for r in iter_records(after.data)] == [(b"b", b"2")]
    assert after.header.has_delete_horizon and after.header.base_timestamp == NOW_MS + RETENTION_MS


def test_a_superseded_tombstone_goes_at_once_and_sets_no_horizon():
    data = keyed_batch([(b"a", None), (b"b", b"2")], base_offset=0)
    kept = run(data, rules({b"a": 9, b"b": 1}))
    assert kept.records_kept == 1 and not kept.header.has_delete_horizon


def test_log_append_time_batches_keep_their_max_timestamp():
    data = keyed_batch([(b"a", b"1"), (b"a", b"2")], base_offset=0, timestamp_type=TimestampType.LOG_APPEND_TIME)
    kept = run(data, rules({b"a": 1}))
    assert kept.header.max_timestamp == read_batch_header(data).max_timestamp
    assert kept.header.timestamp_type is TimestampType.LOG_APPEND_TIME


def test_an_emptied_batch_goes_unless_it_is_a_producers_last_or_ends_the_pass():
    data = keyed_batch([(b"a", b"1")], base_offset=10, producer_id=42, producer_epoch=1, base_sequence=3)
    superseded = rules({b"a": 50})
    assert run(data, superseded) is None
    # The batch holding producer 42's last data offset stays, empty (Kafka's RETAIN_EMPTY).
    kept = run(data, rules({b"a": 50}, producers={42: LastRecord(10, 1)}))
    header = kept.header
    assert kept.records_kept == 0 and header.records_count == 0 and len(kept.data) == 61
    assert (header.base_offset, header.last_offset, header.producer_id, header.producer_epoch,
            header.base_sequence) == (10, 10, 42, 1, 3)
    assert header.base_timestamp == -1 and header.max_timestamp == read_batch_header(data).max_timestamp
    # Another batch of the same producer goes.
    assert run(data, rules({b"a": 50}, producers={42: LastRecord(20, 1)})) is None
    # The last batch of the pass stays, empty, so the cleaned range keeps its end.
    assert run(data, rules({b"a": 50}, upper_bound=11)).records_kept == 0


def test_transaction_markers_stay():
    marker = build_control_batch(ControlType.COMMIT, producer_id=7, producer_epoch=0, timestamp_ms=1, base_offset=5)
    kept = run(marker, rules({}))
    assert kept.data == marker
