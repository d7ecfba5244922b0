"""validate_batch's flat fast path: same results, same errors, same order of checks.

validate_batch decides on its own that a batch is good, and hands anything else to
_checked_header_fields to raise. These tests pin each check's exception type (exactly,
not a subclass) and message, check that the first failing check in the documented
order is the one reported, and compare the fast path with the careful one on mutated
batches.
"""

from __future__ import annotations

import mmap
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol.errors import CorruptRecord, InvalidRecord, UnsupportedMagic
from protocol.records import (
    BatchHeader,
    Compression,
    _checked_header_fields,
    build_batch,
    compute_crc,
    validate_batch,
)

NOW_MS = 1_700_000_000_000
RECORDS = [(b"k%d" % i, b"v" * 30, (), NOW_MS + i) for i in range(5)]


def good_batch(codec=Compression.NONE) -> bytes:
    return build_batch(RECORDS, compression=codec)


def rewrite(batch, fmt: str, position: int, value, *, fix_crc: bool = True) -> bytearray:
    changed = bytearray(batch)
    struct.pack_into(fmt, changed, position, value)
    if fix_crc:
        struct.pack_into(">I", changed, 17, compute_crc(changed))
    return changed


def raised(buf, position=0) -> tuple[type, str]:
    with pytest.raises(Exception) as info:
        validate_batch(buf, position)
    return type(info.value), str(info.value)


@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview])
def test_good_batches_of_every_codec_and_buffer_type(kind):
    for codec in Compression:
        batch = good_batch(codec)
        header = validate_batch(kind(batch))
        assert type(header) is BatchHeader
        assert header == BatchHeader._make(struct.unpack_from(">qiibIhiqqqhii", batch))
        assert header.compression is codec
        # Mid-buffer, followed by more bytes.
        assert validate_batch(kind(b"\x00" * 7 + batch + b"\xff" * 9), 7) == header


def test_a_good_batch_in_an_mmap_which_can_then_be_closed():
    batch = good_batch(Compression.GZIP)
    mapped = mmap.mmap(-1, len(batch))
    mapped[:] = batch
    assert validate_batch(mapped).records_count == len(RECORDS)
    mapped.close()    # no view of it left behind


def test_negative_position():
    assert raised(good_batch(), -1) == (ValueError, "negative position -1")


def test_wrong_magic():
    batch = rewrite(good_batch(), ">b", 16, 1, fix_crc=False)
    assert raised(batch) == (UnsupportedMagic, "record batch magic 1 is not supported: only "
                             "magic 2 record batches (Produce v3+) are accepted")


def test_short_header():
    assert raised(good_batch()[:60]) == (
        CorruptRecord, "record batch at position 0 has 60 bytes, fewer than the 61-byte header")
    assert raised(good_batch(), 10_000) == (
        CorruptRecord, "record batch at position 10000 has 0 bytes, fewer than the 61-byte header")
    # A short legacy message set: the magic is checked first.
    short = rewrite(good_batch(), ">b", 16, 0, fix_crc=False)[:40]
    assert raised(short)[0] is UnsupportedMagic


def test_batch_length_below_the_minimum():
    batch = rewrite(good_batch(), ">i", 8, 48, fix_crc=False)
    assert raised(batch) == (CorruptRecord, "record batch at position 0 has batch_length 48, "
                             "below the minimum 49")


def test_truncated():
    batch = good_batch()
    assert raised(batch[:-1]) == (
        CorruptRecord, f"record batch at position 0 is truncated: it needs {len(batch)} bytes, "
                       f"{len(batch) - 1} are present")


def test_crc_mismatch():
    batch = good_batch()
    stored = compute_crc(batch)
    damaged = bytearray(batch)
    damaged[-1] ^= 0x01
    actual = compute_crc(damaged)
    assert raised(damaged) == (
        CorruptRecord, f"record batch at position 0 fails its CRC-32C check "
                       f"(stored 0x{stored:08x}, computed 0x{actual:08x})")


@pytest.mark.parametrize(("position", "fmt", "value", "message"), [
    (57, ">i", -1, "record batch at position 0 has records_count -1"),
    (23, ">i", -5, "record batch at position 0 has last_offset_delta -5"),
    (21, ">h", 5, "record batch at position 0 names unknown compression codec id 5"),
    (21, ">h", 0x0f, "record batch at position 0 names unknown compression codec id 7"),
])
def test_counts_and_codec(position, fmt, value, message):
    assert raised(rewrite(good_batch(), fmt, position, value)) == (InvalidRecord, message)


def test_too_many_records_for_an_uncompressed_batch():
    batch = good_batch()
    records_bytes = len(batch) - 61
    too_many = records_bytes // 7 + 1
    assert raised(rewrite(batch, ">i", 57, too_many)) == (
        InvalidRecord, f"record batch at position 0 claims {too_many} records in "
                       f"{records_bytes} bytes")
    validate_batch(rewrite(batch, ">i", 57, too_many - 1))    # the bound itself passes
    # A compressed batch is not held to that bound.
    validate_batch(rewrite(good_batch(Compression.GZIP), ">i", 57, 10_000))


def test_checks_run_in_the_documented_order():
    batch = good_batch()
    # Bad magic wins over a bad batch_length and a bad CRC.
    both = rewrite(rewrite(batch, ">i", 8, 10, fix_crc=False), ">b", 16, 0, fix_crc=False)
    assert raised(both)[0] is UnsupportedMagic
    # A truncation wins over the CRC.
    assert "truncated" in raised(rewrite(batch, ">i", 8, len(batch), fix_crc=False))[1]
    # The CRC wins over a negative records_count.
    assert "CRC-32C" in raised(rewrite(batch, ">i", 57, -1, fix_crc=False))[1]
    # records_count before last_offset_delta before the codec.
    several = rewrite(rewrite(rewrite(batch, ">h", 21, 6), ">i", 23, -1), ">i", 57, -1)
    assert "records_count -1" in raised(several)[1]
    several = rewrite(rewrite(batch, ">h", 21, 6), ">i", 23, -1)
    assert "last_offset_delta -1" in raised(several)[1]


def careful(buf, position):
    """What validate_batch must agree with: the check-by-check path."""
    try:
        return BatchHeader._make(_checked_header_fields(buf, position, True))
    except Exception as error:          # noqa: BLE001 - compared by type and message
        return type(error), str(error)


def fast(buf, position):
    try:
        return validate_batch(buf, position)
    except Exception as error:          # noqa: BLE001
        return type(error), str(error)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), codec=st.sampled_from(list(Compression)), fix_crc=st.booleans(),
       kind=st.sampled_from([bytes, bytearray, memoryview]))
def test_fast_path_agrees_with_the_careful_path(data, codec, fix_crc, kind):
    batch = bytearray(b"\x00" * 3 + good_batch(codec))
    for _ in range(data.draw(st.integers(0, 3))):
        # Mostly the header, where the checks look.
        where = data.draw(st.integers(3, min(len(batch) - 1, 3 + 70)))
        batch[where] = data.draw(st.integers(0, 255))
    if fix_crc and len(batch) >= 3 + 61:
        try:
            struct.pack_into(">I", batch, 3 + 17, compute_crc(batch, 3))
        except CorruptRecord:
            pass
    cut = data.draw(st.integers(0, len(batch)))
    buf = kind(bytes(batch[:cut]))
    position = data.draw(st.sampled_from([3, 0, cut, -1]))
    assert fast(buf, position) == careful(buf, position)
