"""Primitive wire types: varints, zigzag, strings, bytes, arrays, UUIDs, Reader/Writer.

Expected encodings come from a small reference implementation written here from the
definitions (LEB128 groups of 7 bits, least significant first; zigzag
(n << 1) ^ (n >> bits-1)), plus the canonical examples of the Kafka protocol guide.
"""

from __future__ import annotations

import struct
import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol import primitives as p
from protocol.errors import BufferUnderflow, InvalidLength, InvalidVarint, ProtocolError
from tests.protocol import strategies as S

INT32 = (-(1 << 31), (1 << 31) - 1)
INT64 = (-(1 << 63), (1 << 63) - 1)


def ref_uvarint(n: int) -> bytes:
    assert n >= 0
    out = bytearray()
    while True:
        group = n & 0x7F
        n >>= 7
        if n:
            out.append(group | 0x80)
        else:
            out.append(group)
            return bytes(out)


def ref_zigzag(n: int, bits: int) -> int:
    return n * 2 if n >= 0 else -n * 2 - 1


# ---------------------------------------------------------------------------------------
# Varints


@pytest.mark.parametrize("n,zigzag", [(0, 0), (-1, 1), (1, 2), (-2, 3), (2, 4), (63, 126), (-64, 127),
                                      (64, 128), (INT32[1], 0xFFFFFFFE), (INT32[0], 0xFFFFFFFF)])
def test_zigzag_canonical_values(n, zigzag):
    assert ref_zigzag(n, 32) == zigzag
    assert p.encode_varint(n) == ref_uvarint(zigzag)
    assert p.read_varint(p.encode_varint(n), 0) == (n, len(ref_uvarint(zigzag)))


@pytest.mark.parametrize("n", [0, 1, 127, 128, 255, 16383, 16384, INT32[1], (1 << 32) - 1])
def test_uvarint_edges(n):
    data = p.encode_uvarint(n)
    assert data == ref_uvarint(n)
    assert len(data) == p.size_of_uvarint(n)
    assert p.read_uvarint(data, 0) == (n, len(data))
    assert p.read_uvarlong(data, 0) == (n, len(data))


def test_uvarint_byte_lengths():
    assert [len(p.encode_uvarint(n)) for n in (0, 127, 128, 16383, 16384, (1 << 21) - 1, 1 << 21,
                                               (1 << 28) - 1, 1 << 28, (1 << 32) - 1)] == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    assert p.encode_uvarint(128) == b"\x80\x01"
    assert p.encode_uvarint(300) == b"\xac\x02"


@pytest.mark.parametrize("n", [0, 1, -1, 127, 128, -128, -129, *INT32])
def test_varint_edges(n):
    data = p.encode_varint(n)
    assert data == ref_uvarint(ref_zigzag(n, 32))
    assert len(data) <= 5
    assert p.read_varint(data, 0) == (n, len(data))


@pytest.mark.parametrize("n", [0, 1, -1, *INT32, INT32[1] + 1, INT32[0] - 1, *INT64])
def test_varlong_edges(n):
    data = p.encode_varlong(n)
    assert data == ref_uvarint(ref_zigzag(n, 64))
    assert len(data) <= 10
    assert p.read_varlong(data, 0) == (n, len(data))
    w = p.Writer()
    w.varlong(n)
    assert bytes(w.out) == data and p.Reader(data).varlong() == n


def test_extreme_varlongs_take_ten_bytes():
    assert p.encode_varlong(INT64[1]) == b"\xfe" + b"\xff" * 8 + b"\x01"
    assert p.encode_varlong(INT64[0]) == b"\xff" * 9 + b"\x01"
    assert p.encode_varint(INT32[0]) == b"\xff\xff\xff\xff\x0f"


@S.fast(100)
@given(st.integers(*INT32))
def test_varint_round_trip(n):
    data = p.encode_varint(n)
    assert data == ref_uvarint(ref_zigzag(n, 32))
    assert p.read_varint(b"\x99" + data + b"\x99", 1) == (n, 1 + len(data))


@S.fast(100)
@given(st.integers(*INT64))
def test_varlong_round_trip(n):
    data = p.encode_varlong(n)
    assert p.read_varlong(memoryview(data), 0) == (n, len(data))


@S.fast(100)
@given(st.integers(0, (1 << 32) - 1))
def test_uvarint_round_trip(n):
    data = p.encode_uvarint(n)
    assert data == ref_uvarint(n) and p.size_of_uvarint(n) == len(data)
    assert p.read_uvarint(bytearray(data), 0) == (n, len(data))


@S.fast(100)
@given(st.integers(0, (1 << 64) - 1))
def test_uvarlong_round_trip(n):
    data = p.encode_uvarint(n)
    assert p.read_uvarlong(data, 0) == (n, len(data))


@pytest.mark.parametrize("data", [b"\x80" * 5 + b"\x00", b"\xff" * 6, b"\x80\x80\x80\x80\x80\x80\x01"])
def test_overlong_varints_raise(data):
    with pytest.raises(InvalidVarint):
        p.read_uvarint(data, 0)
    with pytest.raises(InvalidVarint):
        p.read_varint(data, 0)
    with pytest.raises(InvalidVarint):
        p.Reader(data).uvarint()


def test_overlong_varlongs_raise():
    for data in (b"\x80" * 10 + b"\x00", b"\xff" * 11):
        with pytest.raises(InvalidVarint):
            p.read_uvarlong(data, 0)
        with pytest.raises(InvalidVarint):
            p.read_varlong(data, 0)
    # ten bytes is the limit: still fine
    assert p.read_uvarlong(b"\x80" * 9 + b"\x01", 0) == (1 << 63, 10)


@pytest.mark.parametrize("data", [b"", b"\x80", b"\xff\xff", b"\x80\x80\x80\x80"])
def test_truncated_varints_raise_buffer_underflow(data):
    for read in (p.read_uvarint, p.read_varint, p.read_uvarlong, p.read_varlong):
        with pytest.raises(BufferUnderflow):
            read(data, 0)


def test_five_byte_varints_stay_in_32_bits():
    """A uint32 needs at most 4 bits in the fifth byte. A fifth byte with higher bits set
    (e.g. ff ff ff ff 7f = 2^35 - 1) must not come back as a number outside the type:
    Kafka's reader keeps 32 bits; a strict reader refuses it."""
    for data in (b"\xff\xff\xff\xff\x7f", b"\xff\xff\xff\xff\x1f", b"\x80\x80\x80\x80\x10"):
        try:
            value, _ = p.read_uvarint(data, 0)
        except InvalidVarint:
            continue
        assert 0 <= value < 1 << 32, f"read_uvarint({data.hex()}) = {value}, not a uint32"
        try:
            signed, _ = p.read_varint(data, 0)
        except InvalidVarint:
            continue
        assert INT32[0] <= signed <= INT32[1], f"read_varint({data.hex()}) = {signed}, not an int32"
    # the same for ten-byte varlongs: the tenth byte may carry one bit
    for data in (b"\xff" * 9 + b"\x7f", b"\x80" * 9 + b"\x02"):
        try:
            value, _ = p.read_uvarlong(data, 0)
        except InvalidVarint:
            continue
        assert 0 <= value < 1 << 64, f"read_uvarlong({data.hex()}) = {value}, not a uint64"
        signed, _ = p.read_varlong(data, 0)
        assert INT64[0] <= signed <= INT64[1], f"read_varlong({data.hex()}) = {signed}, not an int64"


# ---------------------------------------------------------------------------------------
# Strings


@S.fast(100)
@given(st.one_of(st.none(), st.text(max_size=40)), st.booleans())
def test_string_round_trip(value, compact):
    out = bytearray()
    p.write_string(out, value, compact)
    raw = None if value is None else value.encode()
    if compact:
        expected = b"\x00" if raw is None else ref_uvarint(len(raw) + 1) + raw
    else:
        expected = b"\xff\xff" if raw is None else struct.pack(">h", len(raw)) + raw
    assert bytes(out) == expected
    assert p.read_string(bytes(out) + b"tail", 0, compact, True) == (value, len(expected))


def test_string_canonical_forms():
    for compact, null, empty, ab in ((False, b"\xff\xff", b"\x00\x00", b"\x00\x02ab"),
                                     (True, b"\x00", b"\x01", b"\x03ab")):
        for value, data in ((None, null), ("", empty), ("ab", ab)):
            out = bytearray()
            p.write_string(out, value, compact)
            assert bytes(out) == data
            assert p.read_string(data, 0, compact, True) == (value, len(data))


def test_long_compact_string_has_a_two_byte_length():
    value = "x" * 200
    out = bytearray()
    p.write_string(out, value, True)
    assert bytes(out[:2]) == ref_uvarint(201) and len(ref_uvarint(201)) == 2
    assert p.read_string(out, 0, True, False) == (value, 202)


@pytest.mark.parametrize("compact", [False, True])
def test_string_errors(compact):
    null = b"\x00" if compact else b"\xff\xff"
    with pytest.raises(InvalidLength):
        p.read_string(null, 0, compact, False)  # null where not nullable
    if not compact:   # any negative length is null where null is allowed, as Kafka reads it
        assert p.read_string(b"\xff\xfe", 0, compact, True) == (None, 2)  # -2
        with pytest.raises(InvalidLength):
            p.read_string(b"\xff\xfe", 0, compact, False)
    long_length = ref_uvarint(6) if compact else b"\x00\x05"
    with pytest.raises(BufferUnderflow):
        p.read_string(long_length + b"abcd", 0, compact, False)
    bad = b"\xff\xfe"   # not UTF-8: read as Java reads it (tests/protocol/test_java_utf8.py)
    prefix = ref_uvarint(3) if compact else b"\x00\x02"
    assert p.read_string(prefix + bad, 0, compact, False) == ("\ufffd\ufffd", len(prefix) + 2)
    with pytest.raises(BufferUnderflow):
        p.read_string(b"", 0, compact, True)
    assert p.decode_utf8(b"\xc3") == "\ufffd"
    assert p.decode_utf8(memoryview("ü".encode())) == "ü"


# ---------------------------------------------------------------------------------------
# Bytes


@S.fast(100)
@given(st.one_of(st.none(), st.binary(max_size=300)), st.booleans())
def test_bytes_round_trip_without_copy(value, compact):
    out = bytearray()
    p.write_bytes(out, value, compact)
    if compact:
        expected = b"\x00" if value is None else ref_uvarint(len(value) + 1) + value
    else:
        expected = b"\xff\xff\xff\xff" if value is None else struct.pack(">i", len(value)) + value
    assert bytes(out) == expected
    view = memoryview(bytes(out) + b"zz")
    read, end = p.read_bytes(view, 0, compact, True)
    assert end == len(expected)
    if value is None:
        assert read is None
    else:
        assert isinstance(read, memoryview) and read.obj is view.obj and bytes(read) == value


@pytest.mark.parametrize("compact", [False, True])
def test_bytes_errors(compact):
    with pytest.raises(InvalidLength):
        p.read_bytes(b"\x00" if compact else b"\xff\xff\xff\xff", 0, compact, False)
    if not compact:
        assert p.read_bytes(struct.pack(">i", -2), 0, compact, True) == (None, 4)
        with pytest.raises(InvalidLength):
            p.read_bytes(struct.pack(">i", -2), 0, compact, False)
    huge = ref_uvarint(1 << 31) if compact else struct.pack(">i", (1 << 31) - 1)
    with pytest.raises(BufferUnderflow):
        p.read_bytes(huge + b"abc", 0, compact, False)


# ---------------------------------------------------------------------------------------
# Arrays


@S.fast(100)
@given(st.one_of(st.none(), st.integers(0, 1000)), st.booleans())
def test_array_count_round_trip(count, compact):
    out = bytearray()
    p.write_array_count(out, count, compact)
    if compact:
        expected = b"\x00" if count is None else ref_uvarint(count + 1)
    else:
        expected = b"\xff\xff\xff\xff" if count is None else struct.pack(">i", count)
    assert bytes(out) == expected
    data = bytes(out) + b"\x00" * (count or 0)  # room for the items
    assert p.read_array_count(data, 0, compact, True) == (-1 if count is None else count, len(expected))


@pytest.mark.parametrize("compact", [False, True])
def test_array_count_errors(compact):
    null = b"\x00" if compact else b"\xff\xff\xff\xff"
    with pytest.raises(InvalidLength):
        p.read_array_count(null, 0, compact, False)
    if not compact:
        assert p.read_array_count(struct.pack(">i", -7), 0, compact, True) == (-1, 4)
        with pytest.raises(InvalidLength):
            p.read_array_count(struct.pack(">i", -7), 0, compact, False)
    # a count larger than the bytes left cannot be honest: every item takes a byte
    three = ref_uvarint(4) if compact else struct.pack(">i", 3)
    with pytest.raises(InvalidLength):
        p.read_array_count(three + b"\x00\x00", 0, compact, False)
    assert p.read_array_count(three + b"\x00\x00\x00", 0, compact, False)[0] == 3
    with pytest.raises(InvalidLength):
        p.check_count(b"abc", 1, 3)
    p.check_count(b"abc", 1, 2)


# ---------------------------------------------------------------------------------------
# Tagged fields, UUIDs, lengths


def test_skip_tagged_fields():
    section = b"\x02" + b"\x00\x03abc" + ref_uvarint(300) + ref_uvarint(130) + b"x" * 130
    assert p.skip_tagged_fields(section + b"rest", 0) == len(section)
    assert p.skip_tagged_fields(b"\x00", 0) == 1
    with pytest.raises(InvalidLength):
        p.skip_tagged_fields(b"\x05\x00\x00", 0)
    with pytest.raises(BufferUnderflow):
        p.skip_tagged_fields(b"\x01\x00\x05ab", 0)
    reader = p.Reader(section + b"!")
    reader.skip_tagged_fields()
    assert reader.raw(1) == b"!" and reader.remaining == 0


@S.fast(100)
@given(st.uuids())
def test_uuid_round_trip(value):
    w = p.Writer()
    w.uuid(value)
    assert bytes(w.out) == value.bytes
    assert p.read_uuid(bytes(w.out), 0) == (value, 16)
    assert p.Reader(w.out).uuid() == value


def test_uuid_truncated():
    with pytest.raises(BufferUnderflow):
        p.read_uuid(b"\x00" * 15, 0)
    assert p.read_uuid(b"\x00" * 16, 0) == (uuid.UUID(int=0), 16)


def test_check_length():
    assert p.check_length(b"abcd", 1, 3) == 4
    with pytest.raises(BufferUnderflow):
        p.check_length(b"abcd", 1, 4)


# ---------------------------------------------------------------------------------------
# Reader / Writer

FIXED = {
    "int8": st.integers(-128, 127), "int16": st.integers(-(1 << 15), (1 << 15) - 1),
    "uint16": st.integers(0, (1 << 16) - 1), "int32": st.integers(*INT32),
    "uint32": st.integers(0, (1 << 32) - 1), "int64": st.integers(*INT64),
    "float64": st.floats(allow_nan=False), "boolean": st.booleans(),
}

OPS = st.one_of(
    *[st.tuples(st.just(name), values) for name, values in FIXED.items()],
    st.tuples(st.just("uvarint"), st.integers(0, (1 << 32) - 1)),
    st.tuples(st.just("varint"), st.integers(*INT32)),
    st.tuples(st.just("varlong"), st.integers(*INT64)),
    st.tuples(st.just("uuid"), st.uuids()),
    st.tuples(st.just("string"), st.one_of(st.none(), st.text(max_size=10)), st.booleans()),
    st.tuples(st.just("bytes"), st.one_of(st.none(), st.binary(max_size=10)), st.booleans()),
    st.tuples(st.just("array_count"), st.one_of(st.none(), st.integers(0, 3)), st.booleans()),
    st.tuples(st.just("raw"), st.binary(max_size=5)),
    st.tuples(st.just("empty_tagged_fields")),
)


@S.fast(200)
@given(st.lists(OPS, max_size=12))
def test_writer_then_reader(ops):
    writer = p.Writer()
    for op in ops:
        name = op[0]
        if name in ("string", "bytes", "array_count"):
            getattr(writer, name)(op[1], compact=op[2])
        elif name == "empty_tagged_fields":
            writer.empty_tagged_fields()
        else:
            getattr(writer, name)(op[1])
        if name == "array_count" and op[1]:
            writer.raw(b"\x00" * op[1])  # items
    reader = p.Reader(bytes(writer.out))
    for op in ops:
        name = op[0]
        if name in ("string", "bytes", "array_count"):
            value = getattr(reader, name)(compact=op[2], nullable=True)
            expected = op[1]
            if name == "array_count":
                expected = -1 if op[1] is None else op[1]
                reader.raw(op[1] or 0)
            if name == "bytes" and value is not None:
                value = bytes(value)
            assert value == expected
        elif name == "raw":
            assert reader.raw(len(op[1])) == op[1]
        elif name == "empty_tagged_fields":
            reader.skip_tagged_fields()
        elif name == "float64":
            assert reader.float64() == op[1]
        else:
            assert getattr(reader, name)() == op[1], name
    assert reader.remaining == 0


@pytest.mark.parametrize("method,size", [("int8", 1), ("int16", 2), ("uint16", 2), ("int32", 4), ("uint32", 4),
                                         ("int64", 8), ("float64", 8), ("boolean", 1), ("uuid", 16)])
def test_reader_truncated_fixed_width(method, size):
    for available in range(size):
        reader = p.Reader(b"\x01" * available)
        with pytest.raises(BufferUnderflow):
            getattr(reader, method)()
    reader = p.Reader(b"\x01" * size)
    getattr(reader, method)()
    assert reader.remaining == 0 and reader.pos == size


def test_reader_errors_are_protocol_errors():
    for data, call in ((b"", lambda r: r.raw(1)), (b"\x80", lambda r: r.uvarint()),
                       (b"\xff\xff", lambda r: r.string()), (b"\x00\x03a", lambda r: r.string()),
                       (b"\xff\xff\xff\x7f", lambda r: r.bytes())):
        with pytest.raises(ProtocolError):
            call(p.Reader(data))


def test_reader_over_an_offset_and_shared_buffer():
    out = bytearray(b"junk")
    writer = p.Writer(out)
    writer.int32(-5)
    writer.string("hé", compact=True)
    assert writer.out is out
    reader = p.Reader(memoryview(out), 4)
    assert reader.int32() == -5 and reader.string(compact=True) == "hé" and reader.remaining == 0
    assert p.Reader(bytes([1])).boolean() is True and p.Reader(bytes([0])).boolean() is False
    assert p.Reader(bytes([2])).boolean() is True  # any non-zero byte is true
