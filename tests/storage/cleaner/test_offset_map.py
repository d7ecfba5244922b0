"""OffsetMap and build_offset_map: last offset per key, the memory budget, where a
partial map stops."""

from __future__ import annotations

import pytest

from protocol.records import ControlType, build_control_batch, read_batch_header
from storage.cleaner.offset_map import BYTES_PER_ENTRY, OffsetMap, build_offset_map
from tests.storage.cleaner.support import keyed_batch


def batches(*rows_per_batch, start=0):
    out, offset = [], start
    for rows in rows_per_batch:
        data = keyed_batch(rows, base_offset=offset)
        out.append((read_batch_header(data), data))
        offset += len(rows)
    return out


def test_each_key_maps_to_its_last_offset():
    offset_map = OffsetMap(1024 * BYTES_PER_ENTRY)
    full = build_offset_map(offset_map, batches([(b"a", b"1"), (b"b", b"2")], [(b"a", None), (b"c", b"3")]), 0)
    assert not full
    assert [offset_map.get(k) for k in (b"a", b"b", b"c", b"zz")] == [2, 1, 3, -1]
    assert offset_map.latest_offset == 3 and len(offset_map) == 3


def test_records_below_the_start_offset_and_unkeyed_records_are_not_mapped():
    offset_map = OffsetMap(1024 * BYTES_PER_ENTRY)
    build_offset_map(offset_map, batches([(b"a", b"1"), (None, b"x"), (b"b", b"2")]), 1)
    assert offset_map.get(b"a") == -1 and offset_map.get(b"b") == 2 and len(offset_map) == 1


def test_a_full_map_stops_before_the_record_that_does_not_fit():
    # 3 entries at load factor 1: the fourth key, and every record after it, stay out.
    offset_map = OffsetMap(3 * BYTES_PER_ENTRY, load_factor=1.0)
    full = build_offset_map(offset_map, batches([(b"a", b"1"), (b"b", b"2"), (b"c", b"3")], [(b"a", b"4"), (b"d", b"5")]), 0)
    assert full
    # Kafka checks the size before every put, so even a known key (a at 3) is not put.
    assert offset_map.get(b"a") == 0 and offset_map.get(b"d") == -1
    assert offset_map.latest_offset == 2


def test_load_factor_bounds_the_entries():
    assert OffsetMap(100 * BYTES_PER_ENTRY, load_factor=0.9).max_entries == 90
    with pytest.raises(ValueError):
        OffsetMap(BYTES_PER_ENTRY - 1)


def test_control_batches_put_no_key():
    marker = build_control_batch(ControlType.COMMIT, producer_id=7, producer_epoch=0, timestamp_ms=1, base_offset=5)
    offset_map = OffsetMap(1024 * BYTES_PER_ENTRY)
    build_offset_map(offset_map, [(read_batch_header(marker), marker)], 0)
    assert len(offset_map) == 0 and offset_map.latest_offset == -1
