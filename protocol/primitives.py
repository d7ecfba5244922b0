"""Kafka's primitive wire types: fixed-width integers, varints, strings, bytes, arrays, UUIDs.

All integers are big-endian two's complement. The variable-length forms:

    unsigned varint   7 bits per byte, least significant group first; the high bit of a
                      byte says "more bytes follow". uint32 takes at most 5 bytes, uint64
                      at most 10. Used for compact lengths and tagged-field headers.
    zigzag varint     (n << 1) ^ (n >> 31) mapped to an unsigned varint, so small negative
                      numbers stay short (-1 -> 1, 1 -> 2). Used inside record batches.

    type              classic (non-flexible) form        compact form (flexible, KIP-482)
    string            int16 length + UTF-8, null = -1    uvarint(length + 1) + UTF-8, null = 0
                      (bytes that are not UTF-8 are read as Java reads them: `decode_utf8`)
    bytes / records   int32 length + data,  null = -1    uvarint(length + 1) + data,  null = 0
    array             int32 count + items,  null = -1    uvarint(count + 1) + items,  null = 0
                      (reading, any negative length or count is null where null is allowed, as
                      Kafka's readers take it; elsewhere it is an error)
    uuid              16 raw bytes
    tagged fields     (flexible only) uvarint count, then per field in ascending tag order:
                      uvarint tag, uvarint size, size bytes

Two interfaces over the same rules:

- functions `read_x(buf, pos) -> (value, new_pos)` and `write_x(out, value)`; the
  compiled message codec (`protocol/codec.py`) calls these in straight-line code;
- `Reader` (a cursor over a memoryview) and `Writer` (over a bytearray) for hand-written
  code and tests.

Reading never copies `bytes` fields: on a memoryview input they come back as memoryview
slices of it. Every length is checked against the bytes that remain before anything is
sliced or allocated, so a hostile length costs nothing. Truncated input raises
`BufferUnderflow`; `struct.error` and `IndexError` never escape `Reader`.
"""

from __future__ import annotations

import codecs
import functools
import struct
import uuid as _uuid

from protocol.errors import BufferUnderflow, InvalidLength, InvalidVarint

INT8 = struct.Struct(">b")
INT16 = struct.Struct(">h")
UINT16 = struct.Struct(">H")
INT32 = struct.Struct(">i")
UINT32 = struct.Struct(">I")
INT64 = struct.Struct(">q")
FLOAT64 = struct.Struct(">d")

ZERO_UUID = _uuid.UUID(int=0)


# ---------------------------------------------------------------------------------------
# Varints


def read_uvarint(buf, pos: int) -> tuple[int, int]:
    """Unsigned varint of at most 5 bytes (a uint32)."""
    return _read_unsigned(buf, pos, 5)


def read_uvarlong(buf, pos: int) -> tuple[int, int]:
    """Unsigned varint of at most 10 bytes (a uint64)."""
    return _read_unsigned(buf, pos, 10)


def _read_unsigned(buf, pos: int, max_bytes: int) -> tuple[int, int]:
    try:
        b = buf[pos]
        if b < 0x80:
            return b, pos + 1
        result = b & 0x7F
        shift = 7
        end = pos + max_bytes
        pos += 1
        while pos < end:
            b = buf[pos]
            pos += 1
            result |= (b & 0x7F) << shift
            if b < 0x80:
                if result >> _VALUE_BITS[max_bytes]:
                    raise InvalidVarint(f"varint of {max_bytes} bytes at most overflows "
                                        f"{_VALUE_BITS[max_bytes]} bits")
                return result, pos
            shift += 7
    except IndexError:
        raise BufferUnderflow("input ends inside a varint") from None
    raise InvalidVarint(f"varint longer than {max_bytes} bytes")


_VALUE_BITS = {5: 32, 10: 64}


def read_varint(buf, pos: int) -> tuple[int, int]:
    """Zigzag-encoded signed varint (an int32)."""
    n, pos = _read_unsigned(buf, pos, 5)
    return (n >> 1) ^ -(n & 1), pos


def read_varlong(buf, pos: int) -> tuple[int, int]:
    """Zigzag-encoded signed varlong (an int64)."""
    n, pos = _read_unsigned(buf, pos, 10)
    return (n >> 1) ^ -(n & 1), pos


def encode_uvarint(n: int) -> bytes:
    if n < 0x80:
        return _SMALL[n]
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


_SMALL = [bytes([i]) for i in range(0x80)]


def encode_varint(n: int) -> bytes:
    """Zigzag varint of an int32."""
    return encode_uvarint(((n << 1) ^ (n >> 31)) & 0xFFFFFFFF)


def encode_varlong(n: int) -> bytes:
    """Zigzag varlong of an int64."""
    return encode_uvarint(((n << 1) ^ (n >> 63)) & 0xFFFFFFFFFFFFFFFF)


def size_of_uvarint(n: int) -> int:
    size = 1
    while n >= 0x80:
        n >>= 7
        size += 1
    return size


# ---------------------------------------------------------------------------------------
# Strings, bytes, arrays: the length prefixes and their checks


def check_length(buf, pos: int, length: int) -> int:
    """Return the end position of a `length`-byte value at `pos`, or raise."""
    end = pos + length
    if end > len(buf):
        raise BufferUnderflow(f"a {length}-byte value needs {end - len(buf)} more bytes")
    return end


def check_count(buf, pos: int, count: int) -> None:
    """An array of `count` items needs at least one byte per item (every encoding does)."""
    if count > len(buf) - pos:
        raise InvalidLength(f"array count {count} exceeds the {len(buf) - pos} bytes left")


# Kafka reads every string with Java's `new String(bytes, UTF_8)`, which never fails: each
# malformed sequence becomes one U+FFFD and reading goes on. So a string that is not UTF-8
# is a value like any other (a topic name the broker then refuses, a group id, a client
# id), not an unreadable request; and Kafka's tools print keys and values the same way.
# Valid UTF-8 reads the same in both languages. Where the input is not, Python's own
# "replace" cuts it into other pieces (it replaces ED A0 80, a surrogate written in UTF-8,
# with three U+FFFD, Java with one), hence this error handler, named by `JAVA_REPLACE` (the
# codec's decoders pass the name to `str`). Java's rules (`java.lang.String.decodeUTF8_UTF16`,
# JDK 17), for a sequence that is malformed:
#
# - a byte 0x80-0xC1 or 0xF8-0xFF that starts it, or a two-byte lead (0xC2-0xDF) without its
#   continuation byte (0x80-0xBF): one U+FFFD for that byte, and the next is read again;
# - a three-byte lead (0xE0-0xEF): one U+FFFD for the lead alone when the next byte cannot
#   continue it (or, after 0xE0, would make an overlong form); for the lead and that byte
#   when only the byte after is at fault; for all three bytes when they encode a UTF-16
#   surrogate (0xED 0xA0-0xBF ..);
# - a four-byte lead (0xF0-0xF7): one U+FFFD for the lead alone when it is above 0xF4 or the
#   next byte cannot continue it (or is out of range after 0xF0 and 0xF4, the overlong and
#   above-U+10FFFF forms); for two bytes when the third is at fault; for three otherwise;
# - a sequence cut short by the end of the input: one U+FFFD for the rest.

JAVA_REPLACE = "pylog-java-replace"


def _continues(byte: int) -> bool:
    return byte & 0xC0 == 0x80


def java_malformed_length(data, start: int) -> int:
    """How many bytes from `start` Java's UTF-8 decoding (JDK 17, `String.decodeUTF8_UTF16`)
    replaces with one U+FFFD, given that the sequence starting at `start` is malformed.
    A lead byte cut off by the end of the input takes the rest of the input with it."""
    left = len(data) - start - 1  # bytes after the lead byte
    lead = data[start]
    if 0xE0 <= lead <= 0xEF:
        if left >= 1:
            second = data[start + 1]
            if (lead == 0xE0 and second & 0xE0 == 0x80) or not _continues(second):
                return 1  # an overlong lead or no continuation: the lead byte alone
            if left >= 2:
                # a second continuation makes a whole sequence (a surrogate); else two bytes
                return 3 if _continues(data[start + 2]) else 2
        return left + 1
    if 0xF0 <= lead <= 0xF7:
        if lead > 0xF4:
            return 1
        if left >= 1:
            second = data[start + 1]
            if ((lead == 0xF0 and not 0x90 <= second <= 0xBF) or (lead == 0xF4 and second & 0xF0 != 0x80)
                    or not _continues(second)):
                return 1  # overlong, above U+10FFFF, or no continuation: the lead byte alone
            if left >= 2:
                return 3 if _continues(data[start + 2]) else 2
        return left + 1
    return 1  # a continuation byte, C0, C1, F8-FF, or a two-byte lead without its continuation


def _replace_as_java(error: UnicodeDecodeError) -> tuple[str, int]:
    return "\ufffd", error.start + java_malformed_length(error.object, error.start)


codecs.register_error(JAVA_REPLACE, _replace_as_java)


def decode_utf8(raw) -> str:
    """A string field's bytes as Kafka reads them: UTF-8, malformed sequences replaced as
    Java replaces them."""
    return str(raw, "utf-8", JAVA_REPLACE)


def read_string(buf, pos: int, compact: bool, nullable: bool) -> tuple[str | None, int]:
    if compact:
        n, pos = _read_unsigned(buf, pos, 5)
        n -= 1
    else:
        n, = _unpack(INT16, buf, pos)
        pos += 2
    if n < 0:   # Kafka's readers take any negative length for null
        if nullable:
            return None, pos
        raise InvalidLength(f"string length {n} where null is not allowed")
    end = check_length(buf, pos, n)
    return decode_utf8(buf[pos:end]), end


def read_bytes(buf, pos: int, compact: bool, nullable: bool):
    if compact:
        n, pos = _read_unsigned(buf, pos, 5)
        n -= 1
    else:
        n, = _unpack(INT32, buf, pos)
        pos += 4
    if n < 0:
        if nullable:
            return None, pos
        raise InvalidLength(f"bytes length {n} where null is not allowed")
    end = check_length(buf, pos, n)
    return buf[pos:end], end


def read_array_count(buf, pos: int, compact: bool, nullable: bool) -> tuple[int, int]:
    """Return (count, pos); count is -1 for a null array."""
    if compact:
        n, pos = _read_unsigned(buf, pos, 5)
        n -= 1
    else:
        n, = _unpack(INT32, buf, pos)
        pos += 4
    if n < 0:
        if nullable:
            return -1, pos
        raise InvalidLength(f"array count {n} where null is not allowed")
    check_count(buf, pos, n)
    return n, pos


def read_uuid(buf, pos: int) -> tuple[_uuid.UUID, int]:
    end = check_length(buf, pos, 16)
    return _uuid_of(bytes(buf[pos:end])), end


@functools.lru_cache(maxsize=1024)
def _uuid_of(raw: bytes) -> _uuid.UUID:
    """The UUID of 16 raw bytes. Kept for the ids read most (a topic's id comes back in every
    record about its partitions, every request naming it): building a UUID is Python code,
    several times the cost of the lookup; UUIDs are immutable, so sharing one is safe."""
    return _uuid.UUID(bytes=raw)


def _unpack(st: struct.Struct, buf, pos: int):
    try:
        return st.unpack_from(buf, pos)
    except struct.error:
        raise BufferUnderflow(f"input ends inside a {st.size}-byte integer") from None


def write_string(out: bytearray, value: str | None, compact: bool) -> None:
    if value is None:
        out += b"\x00" if compact else b"\xff\xff"
        return
    raw = value.encode("utf-8")
    out += encode_uvarint(len(raw) + 1) if compact else INT16.pack(len(raw))
    out += raw


def write_bytes(out: bytearray, value, compact: bool) -> None:
    if value is None:
        out += b"\x00" if compact else b"\xff\xff\xff\xff"
        return
    out += encode_uvarint(len(value) + 1) if compact else INT32.pack(len(value))
    out += value


def write_array_count(out: bytearray, count: int | None, compact: bool) -> None:
    if count is None:
        out += b"\x00" if compact else b"\xff\xff\xff\xff"
    else:
        out += encode_uvarint(count + 1) if compact else INT32.pack(count)


def skip_tagged_fields(buf, pos: int) -> int:
    """Skip a whole tagged-field section (used where no tag is known)."""
    count, pos = _read_unsigned(buf, pos, 5)
    check_count(buf, pos, count)
    for _ in range(count):
        _, pos = _read_unsigned(buf, pos, 5)
        size, pos = _read_unsigned(buf, pos, 5)
        pos = check_length(buf, pos, size)
    return pos


# ---------------------------------------------------------------------------------------
# Cursor-style reader and writer


class Reader:
    """A cursor over a memoryview. Methods read a value and advance `pos`."""

    __slots__ = ("buf", "pos")

    def __init__(self, data, pos: int = 0):
        self.buf = data if isinstance(data, memoryview) else memoryview(data)
        self.pos = pos

    @property
    def remaining(self) -> int:
        return len(self.buf) - self.pos

    def _fixed(self, st: struct.Struct):
        value, = _unpack(st, self.buf, self.pos)
        self.pos += st.size
        return value

    def int8(self) -> int:
        return self._fixed(INT8)

    def int16(self) -> int:
        return self._fixed(INT16)

    def uint16(self) -> int:
        return self._fixed(UINT16)

    def int32(self) -> int:
        return self._fixed(INT32)

    def uint32(self) -> int:
        return self._fixed(UINT32)

    def int64(self) -> int:
        return self._fixed(INT64)

    def float64(self) -> float:
        return self._fixed(FLOAT64)

    def boolean(self) -> bool:
        return self._fixed(INT8) != 0

    def uvarint(self) -> int:
        value, self.pos = _read_unsigned(self.buf, self.pos, 5)
        return value

    def uvarlong(self) -> int:
        value, self.pos = _read_unsigned(self.buf, self.pos, 10)
        return value

    def varint(self) -> int:
        value, self.pos = read_varint(self.buf, self.pos)
        return value

    def varlong(self) -> int:
        value, self.pos = read_varlong(self.buf, self.pos)
        return value

    def uuid(self) -> _uuid.UUID:
        value, self.pos = read_uuid(self.buf, self.pos)
        return value

    def string(self, compact: bool = False, nullable: bool = False) -> str | None:
        value, self.pos = read_string(self.buf, self.pos, compact, nullable)
        return value

    def bytes(self, compact: bool = False, nullable: bool = False) -> memoryview | None:
        value, self.pos = read_bytes(self.buf, self.pos, compact, nullable)
        return value

    def array_count(self, compact: bool = False, nullable: bool = False) -> int:
        value, self.pos = read_array_count(self.buf, self.pos, compact, nullable)
        return value

    def raw(self, size: int) -> memoryview:
        end = check_length(self.buf, self.pos, size)
        value = self.buf[self.pos:end]
        self.pos = end
        return value

    def skip_tagged_fields(self) -> None:
        self.pos = skip_tagged_fields(self.buf, self.pos)


class Writer:
    """Appends encoded values to a bytearray (`out`)."""

    __slots__ = ("out",)

    def __init__(self, out: bytearray | None = None):
        self.out = bytearray() if out is None else out

    def int8(self, v: int) -> None:
        self.out += INT8.pack(v)

    def int16(self, v: int) -> None:
        self.out += INT16.pack(v)

    def uint16(self, v: int) -> None:
        self.out += UINT16.pack(v)

    def int32(self, v: int) -> None:
        self.out += INT32.pack(v)

    def uint32(self, v: int) -> None:
        self.out += UINT32.pack(v)

    def int64(self, v: int) -> None:
        self.out += INT64.pack(v)

    def float64(self, v: float) -> None:
        self.out += FLOAT64.pack(v)

    def boolean(self, v: bool) -> None:
        self.out += b"\x01" if v else b"\x00"

    def uvarint(self, v: int) -> None:
        self.out += encode_uvarint(v)

    def varint(self, v: int) -> None:
        self.out += encode_varint(v)

    def varlong(self, v: int) -> None:
        self.out += encode_varlong(v)

    def uuid(self, v: _uuid.UUID) -> None:
        self.out += v.bytes

    def string(self, v: str | None, compact: bool = False) -> None:
        write_string(self.out, v, compact)

    def bytes(self, v, compact: bool = False) -> None:
        write_bytes(self.out, v, compact)

    def array_count(self, count: int | None, compact: bool = False) -> None:
        write_array_count(self.out, count, compact)

    def raw(self, data) -> None:
        self.out += data

    def empty_tagged_fields(self) -> None:
        self.out += b"\x00"
