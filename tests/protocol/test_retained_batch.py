"""build_retained_batch and build_empty_batch: the batches log compaction writes."""

from __future__ import annotations

import pytest

from protocol.records import (
    Compression,
    build_batch,
    build_empty_batch,
    build_retained_batch,
    iter_records,
    read_batch_header,
    validate_batch,
)


def original(**kwargs) -> bytes:
    return build_batch([(b"a", b"1", (), 100), (b"b", None, (), 105), (b"c", b"3", (), 110)], base_offset=40,
                       **kwargs)


def test_kept_records_keep_their_offsets_and_timestamps_and_the_header_its_range():
    data = original(compression=Compression.ZSTD, producer_id=3, producer_epoch=1, base_sequence=9)
    header = read_batch_header(data)
    kept = [r for r in iter_records(data) if r.key != b"c"]
    rebuilt = build_retained_batch(header, kept)
    new = validate_batch(rebuilt)
    assert [(r.offset, r.timestamp, r.key, r.value) for r in iter_records(rebuilt)] == [
        (40, 100, b"a", b"1"), (41, 105, b"b", None)]
    assert (new.base_offset, new.last_offset, new.records_count, new.base_timestamp, new.max_timestamp) == (
        40, 42, 2, 100, 105)
    assert (new.attributes, new.producer_id, new.producer_epoch, new.base_sequence) == (header.attributes, 3, 1, 9)


def test_a_delete_horizon_sets_the_bit_and_the_base_timestamp():
    data = original()
    rebuilt = build_retained_batch(read_batch_header(data), list(iter_records(data)), delete_horizon_ms=5000)
    new = validate_batch(rebuilt)
    assert new.has_delete_horizon and new.base_timestamp == 5000 and new.max_timestamp == 110
    assert [r.timestamp for r in iter_records(rebuilt)] == [100, 105, 110]


def test_records_outside_the_batch_or_none_at_all_are_refused():
    data = original()
    header = read_batch_header(data)
    with pytest.raises(ValueError):
        build_retained_batch(header, [])
    other = list(iter_records(build_batch([(b"x", b"y", (), 1)], base_offset=99)))
    with pytest.raises(ValueError):
        build_retained_batch(header, other)


def test_an_empty_batch_keeps_the_producer_fields_and_the_offsets():
    data = original(compression=Compression.GZIP, producer_id=3, producer_epoch=1, base_sequence=9)
    empty = validate_batch(build_empty_batch(read_batch_header(data)))
    assert (empty.base_offset, empty.last_offset, empty.records_count, empty.size_bytes) == (40, 42, 0, 61)
    assert (empty.producer_id, empty.producer_epoch, empty.base_sequence, empty.last_sequence) == (3, 1, 9, 11)
    assert empty.compression is Compression.NONE and empty.base_timestamp == -1 and empty.max_timestamp == 110
