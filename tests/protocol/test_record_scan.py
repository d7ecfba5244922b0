"""protocol.record_scan: the numbers it returns agree with decoding every record, and each
malformed shape fails the way the module docstring says (strict and lenient)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.errors import InvalidRecord
from protocol.compression import Compression
from protocol.record_scan import iter_key_values as iter_key_values_of_records
from protocol.record_scan import scan_records
from protocol.records import RECORDS_POSITION, build_batch, iter_key_values, iter_partial_records, iter_records
from tests.pylog.batch_shapes import raw_batch, record_bytes

BASE_MS = 1_700_000_000_000

rows = st.lists(st.tuples(
    st.one_of(st.none(), st.binary(max_size=300)),
    st.one_of(st.none(), st.binary(max_size=3000)),
    st.lists(st.tuples(st.text(max_size=5), st.one_of(st.none(), st.binary(max_size=20))), max_size=3),
    st.integers(BASE_MS - 10**9, BASE_MS + 10**9)), max_size=40)


@settings(max_examples=200, deadline=None)
@given(rows)
def test_the_numbers_match_the_decoded_records(rows):
    batch = build_batch(rows, timestamp_ms=BASE_MS)
    scan = scan_records(batch[RECORDS_POSITION:], len(rows))
    records = list(iter_records(batch))
    deltas = [record.timestamp - records[0].timestamp for record in records] if records else [0]
    keyless = [i for i, record in enumerate(records) if record.key is None]
    assert (scan.min_timestamp_delta, scan.max_timestamp_delta) == (min(deltas), max(deltas))
    assert scan.first_keyless_index == (keyless[0] if keyless else -1)
    assert scan.first_out_of_order_index == -1


def test_offset_deltas_out_of_order_are_reported_not_refused():
    data = record_bytes(0) + record_bytes(2) + record_bytes(1)
    assert scan_records(data, 3).first_out_of_order_index == 1


def test_multi_byte_varints():
    data = record_bytes(0, timestamp_delta=-(2**40), key=bytes(200), value=bytes(70000)) + record_bytes(
        300, timestamp_delta=2**33, headers=[(b"n" * 130, bytes(129))])
    scan = scan_records(data, 2)
    assert (scan.min_timestamp_delta, scan.max_timestamp_delta) == (-(2**40), 2**33)
    assert scan.first_out_of_order_index == 1


@pytest.mark.parametrize("misplaced", [None, 5, 63, 64, 100, 8191, 8192, 8500])
def test_offset_deltas_of_one_two_and_three_bytes(misplaced):
    """A batch long enough for offset deltas of every width (index 64 is the first of two
    bytes, 8192 the first of three), timestamp deltas of one and two bytes: in order it is
    in order, a record whose delta is not its index is found whatever the widths of the
    two, and iter_key_values reads every delta back."""
    deltas = list(range(9000))
    if misplaced is not None:
        deltas[misplaced] = 70 if misplaced < 64 else 3   # a delta of another width than its index's
    data = b"".join(record_bytes(delta, timestamp_delta=index % 300, key=None if index % 7 else b"k")
                    for index, delta in enumerate(deltas))
    scan = scan_records(data, len(deltas))
    assert scan.first_out_of_order_index == (-1 if misplaced is None else misplaced)
    assert (scan.min_timestamp_delta, scan.max_timestamp_delta) == (0, 299)
    assert scan.first_keyless_index == 1
    read = list(iter_key_values_of_records(data, len(deltas)))
    assert [offset_delta for offset_delta, _, _ in read] == deltas
    assert [key for _, key, _ in read[:8]] == [b"k", None, None, None, None, None, None, b"k"]


@pytest.mark.parametrize("data, count, strict_error, lenient_error", [
    (record_bytes(0, length_adjust=40), 1, "expected 48 bytes of record payload", None),
    (record_bytes(0, length_adjust=-2), 1, "expected to read 6 bytes in record payload, but instead read 8", None),
    (record_bytes(0, header_count=-1), 1, "invalid number of record headers -1", "invalid number of record headers -1"),
    (record_bytes(0, headers=[(b"h", b"x")]).replace(b"\x02h\x02x", b"\x01h\x02x"), 1,
     "Invalid negative header key size -1", "Invalid negative header key size -1"),
    (record_bytes(0) + b"\x00", 1, "records still remaining", "records still remaining"),
    (record_bytes(0), 2, "premature EOF", "premature EOF"),
    (record_bytes(0)[:-2], 1, "expected 8 bytes of record payload", "premature EOF"),
    (b"\x10" + b"\xff" * 11, 1, "a varint longer than 10 bytes", "a varint longer than 10 bytes"),
])
def test_malformed_records(data, count, strict_error, lenient_error):
    with pytest.raises(InvalidRecord, match=strict_error):
        scan_records(data, count, strict_lengths=True)
    # the partial records (what the validator names errors from) are read as leniently
    batch = raw_batch(data, records_count=count, last_offset_delta=count - 1, base_timestamp=BASE_MS,
                      compression=Compression.GZIP)
    if lenient_error is None:
        scan_records(data, count, strict_lengths=False)
        assert len(list(iter_partial_records(batch))) == count
    else:
        with pytest.raises(InvalidRecord, match=lenient_error):
            scan_records(data, count, strict_lengths=False)
        with pytest.raises(InvalidRecord):
            list(iter_partial_records(batch))


@settings(max_examples=100, deadline=None)
@given(rows, st.sampled_from(list(Compression)))
def test_partial_records_match_the_decoded_records(rows, compression):
    batch = build_batch(rows, timestamp_ms=BASE_MS, compression=compression, base_offset=7)
    assert [tuple(r) for r in iter_partial_records(batch)] == [
        (r.offset, r.timestamp, -1 if r.key is None else len(r.key), -1 if r.value is None else len(r.value))
        for r in iter_records(batch)]


# -- iter_key_values -------------------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(rows, st.sampled_from(list(Compression)), st.integers(0, 2**40))
def test_key_values_match_the_decoded_records(rows, compression, base_offset):
    batch = build_batch(rows, timestamp_ms=BASE_MS, compression=compression, base_offset=base_offset)
    expected = [(record.offset, record.key, record.value) for record in iter_records(batch)]
    assert list(iter_key_values(batch)) == expected


def test_key_values_of_multi_byte_lengths_and_offset_deltas():
    data = record_bytes(0, timestamp_delta=-(2**40), key=bytes(200), value=None) + record_bytes(
        300, timestamp_delta=2**33, key=None, value=bytes(70000), headers=[(b"n" * 130, bytes(129))])
    assert list(iter_key_values_of_records(data, 2)) == [(0, bytes(200), None), (300, None, bytes(70000))]


@pytest.mark.parametrize("data, count, error", [
    (record_bytes(0, length_adjust=40), 1, "expected 48 bytes of record payload"),
    (record_bytes(0, key=b"key", length_adjust=-4), 1, "key and value run past"),
    (record_bytes(0) + b"\x00", 1, "records still remaining"),
    (record_bytes(0), 2, "premature EOF"),
    (record_bytes(0, value=b"v" * 10)[:-5], 1, "expected 17 bytes of record payload, but instead the buffer has only 12"),
    (b"\x10" + b"\xff" * 11, 1, "a varint longer than 10 bytes"),
])
def test_key_values_of_malformed_records(data, count, error):
    with pytest.raises(InvalidRecord, match=error):
        list(iter_key_values_of_records(data, count))
