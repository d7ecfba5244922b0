"""Record batches, magic 2: the unit a producer sends, a log file stores, a consumer fetches.

A Produce request's `records` field, a Fetch response's `records` field and a segment's
`.log` file all hold the same thing: record batches laid end to end, byte for byte the
same. The broker never rebuilds a batch on the produce or fetch path; it checks it,
writes its base offset and leader epoch into it, and copies it.

Batch layout (big-endian; "position" is the byte position from the batch's start)
---------------------------------------------------------------------------------

    position  size  field                    meaning
    0         8     base_offset              offset of the first record; producers send 0 and
                                             the leader writes the real one on append
    8         4     batch_length             bytes after this field: the batch takes
                                             batch_length + 12 (LOG_OVERHEAD) bytes in all
    12        4     partition_leader_epoch   leader epoch when appended (-1 from producers)
    16        1     magic                    2 (0 and 1 are the legacy message set formats)
    17        4     crc                      CRC-32C, unsigned, of positions 21 to the end
    21        2     attributes               bit flags, below
    23        4     last_offset_delta        offset of the last record minus base_offset
    27        8     base_timestamp           timestamp of the first record (-1 if none)
    35        8     max_timestamp            largest record timestamp, or the broker's
                                             append time for LOG_APPEND_TIME batches
    43        8     producer_id              -1 unless the producer is idempotent
    51        2     producer_epoch           -1 unless the producer is idempotent
    53        4     base_sequence            sequence number of the first record, or -1
    57        4     records_count            number of records that follow
    61        ...   records                  the records, or one compressed blob of them

The 61 bytes are BATCH_HEADER_SIZE; the smallest legal batch_length is therefore
61 - 12 = 49 (a header and no records). Offsets count records, positions count bytes:
record i of a batch has offset base_offset + its offset delta, and the next batch of a
log starts at offset last_offset + 1 (`next_offset`) and position + size_bytes.

What the CRC covers
-------------------
The CRC-32C covers positions 21 to the end: attributes through the last byte of the last
record. The first 21 bytes are outside it: base_offset and partition_leader_epoch, which
the broker rewrites in place, batch_length, magic (checked on its own) and the crc itself.
So `stamp_base_offset` and `stamp_partition_leader_epoch` write 8 and 4 bytes and touch
nothing else, while `stamp_log_append_time`, which changes attributes and max_timestamp,
must recompute the CRC.

Attribute bits
--------------

    bits 0-2   compression codec: 0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd (protocol.compression)
    bit 3      timestamp type: 0 CREATE_TIME (the producer's clock),
               1 LOG_APPEND_TIME (the broker's)
    bit 4      transactional: the records belong to a transaction
    bit 5      control: the batch holds one control record (a transaction marker)
    bit 6      delete horizon: set by log compaction; base_timestamp then holds the time
               after which tombstones in the batch may be removed
    bits 7-15  unused, zero

With compression, everything after records_count is compressed as one blob; the header
stays readable, so offsets and timestamps are known without decompressing.

Record layout (inside the records area, or inside the decompressed blob)
-------------------------------------------------------------------------
Varints here are signed zig-zag varints (see protocol.primitives); a length of -1
means null.

    length           varint    bytes of the record after this field
    attributes       int8      unused, zero
    timestamp_delta  varlong   timestamp - base_timestamp
    offset_delta     varint    offset - base_offset (0, 1, 2 ... unless compaction removed some)
    key_length       varint    then key_length bytes of key; -1 = null key
    value_length     varint    then value_length bytes of value; -1 = null value (a tombstone)
    header_count     varint    then header_count headers, each:
        name_length  varint    then the name, UTF-8, never null
        value_length varint    then the value; -1 = null

The smallest record is 7 bytes (length, attributes, two deltas, two null lengths, zero
headers), so records_count can be bounded by the bytes present without parsing.

Control records
---------------
A control batch is transactional, has the control bit, and carries the producer id and
epoch of the transaction it closes. Its one record has

    key    int16 version (0), int16 type     type 0 ABORT, 1 COMMIT (2-6 are KRaft's own)
    value  int16 version (0), int32 coordinator_epoch        for ABORT and COMMIT

Consumers skip control records but move their position past them; a read-committed
consumer uses the ABORT markers to drop the records of aborted transactions.

Errors
------
Every malformed input raises a `protocol.errors.ProtocolError` subclass: CorruptRecord
for lengths or CRCs that do not check out, UnsupportedMagic for magic other than 2,
InvalidRecord for a batch or record that breaks the format in any other way. Buffers are
byte buffers (bytes, bytearray, memoryview of bytes, mmap); stamping needs a writable one.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Iterator
from enum import IntEnum
from typing import NamedTuple

from protocol.compression import Compression, compress, decompress
from protocol.crc32c import crc32c
from protocol.errors import (
    BufferUnderflow,
    CorruptRecord,
    InvalidLength,
    InvalidRecord,
    InvalidVarint,
    UnsupportedMagic,
)
from protocol.primitives import (
    INT8,
    INT16,
    INT32,
    INT64,
    UINT32,
    decode_utf8,
    encode_varint,
    encode_varlong,
    read_varint,
    read_varlong,
)
from protocol.record_scan import iter_key_values as iter_key_values_of_records
from protocol.record_scan import skip_headers

__all__ = [
    "BATCH_HEADER_SIZE", "LOG_OVERHEAD", "MAGIC", "MIN_BATCH_LENGTH",
    "BatchHeader", "Compression", "ControlType", "PartialRecord", "Record", "TimestampType",
    "build_batch", "build_control_batch", "build_empty_batch", "build_retained_batch", "check_magic", "compute_crc",
    "iter_batch_headers", "iter_batches", "iter_key_values", "iter_partial_records", "iter_records",
    "read_batch_header",
    "read_control_record", "stamp_base_offset", "stamp_log_append_time", "stamp_max_timestamp",
    "stamp_partition_leader_epoch", "validate_batch",
]

BATCH_HEADER_SIZE = 61
LOG_OVERHEAD = 12          # base_offset (int64) + batch_length (int32)
MAGIC = 2
MIN_BATCH_LENGTH = BATCH_HEADER_SIZE - LOG_OVERHEAD   # 49: a header and no records

# Byte positions of the fields inside a batch.
BASE_OFFSET_POSITION = 0
BATCH_LENGTH_POSITION = 8
PARTITION_LEADER_EPOCH_POSITION = 12
MAGIC_POSITION = 16
CRC_POSITION = 17
ATTRIBUTES_POSITION = 21
MAX_TIMESTAMP_POSITION = 35
RECORDS_POSITION = 61

# Attribute bits.
COMPRESSION_MASK = 0x07
TIMESTAMP_TYPE_BIT = 0x08
TRANSACTIONAL_BIT = 0x10
CONTROL_BIT = 0x20
DELETE_HORIZON_BIT = 0x40

NO_PRODUCER_ID = -1
NO_PRODUCER_EPOCH = -1
NO_SEQUENCE = -1
NO_PARTITION_LEADER_EPOCH = -1
NO_TIMESTAMP = -1
INT32_MAX = 2**31 - 1

# iter_records refuses a compressed batch that inflates past this (a decompression bomb).
DEFAULT_MAX_DECOMPRESSED_BYTES = 64 * 1024 * 1024

_MIN_RECORD_BYTES = 7          # see "Record layout": the smallest possible record
_MIN_RECORD_BODY_BYTES = 6     # the same without its length varint

# The whole 61-byte header in one unpack, fields in layout order.
_HEADER = struct.Struct(">qiibIhiqqqhii")
assert _HEADER.size == BATCH_HEADER_SIZE

_CONTROL_KEY = struct.Struct(">hh")             # version, type
_END_TRANSACTION_MARKER = struct.Struct(">hi")  # version, coordinator_epoch
_CONTROL_RECORD_VERSION = 0


class TimestampType(IntEnum):
    """Bit 3 of the attributes: whose clock the timestamps come from."""

    NO_TIMESTAMP_TYPE = -1   # Kafka's name for "not applicable" (never in a v2 batch)
    NO_TIMESTAMP = -1        # alias
    CREATE_TIME = 0
    LOG_APPEND_TIME = 1


class ControlType(IntEnum):
    """The type in a control record's key."""

    UNKNOWN = -1          # a type this code does not know; Kafka says to ignore those
    ABORT = 0
    COMMIT = 1
    # Written by KRaft in its own metadata log, never in a data partition:
    LEADER_CHANGE = 2
    SNAPSHOT_HEADER = 3
    SNAPSHOT_FOOTER = 4
    KRAFT_VERSION = 5
    KRAFT_VOTERS = 6


class BatchHeader(NamedTuple):
    """The 61-byte header of a magic-2 record batch, as read (no validation implied).

    A NamedTuple rather than a dataclass because one is built for every produced batch:
    it is made straight from `struct.unpack_from`'s tuple at a fifth of the cost.
    """

    base_offset: int
    batch_length: int
    partition_leader_epoch: int
    magic: int
    crc: int
    attributes: int
    last_offset_delta: int
    base_timestamp: int
    max_timestamp: int
    producer_id: int
    producer_epoch: int
    base_sequence: int
    records_count: int

    @property
    def size_bytes(self) -> int:
        """Bytes the whole batch takes, header included."""
        return self.batch_length + LOG_OVERHEAD

    @property
    def last_offset(self) -> int:
        return self.base_offset + self.last_offset_delta

    @property
    def next_offset(self) -> int:
        return self.base_offset + self.last_offset_delta + 1

    @property
    def compression(self) -> Compression:
        codec = self.attributes & COMPRESSION_MASK
        try:
            return Compression(codec)
        except ValueError:
            raise InvalidRecord(f"unknown compression codec id {codec} in batch attributes"
                                ) from None

    @property
    def timestamp_type(self) -> TimestampType:
        if self.attributes & TIMESTAMP_TYPE_BIT:
            return TimestampType.LOG_APPEND_TIME
        return TimestampType.CREATE_TIME

    @property
    def is_transactional(self) -> bool:
        return bool(self.attributes & TRANSACTIONAL_BIT)

    @property
    def is_control(self) -> bool:
        return bool(self.attributes & CONTROL_BIT)

    @property
    def has_delete_horizon(self) -> bool:
        return bool(self.attributes & DELETE_HORIZON_BIT)

    @property
    def last_sequence(self) -> int:
        """Sequence number of the last record; sequences wrap from INT32_MAX to 0."""
        if self.base_sequence == NO_SEQUENCE:
            return NO_SEQUENCE
        sequence = self.base_sequence + self.last_offset_delta
        if sequence > INT32_MAX:
            sequence -= INT32_MAX + 1
        return sequence


class Record:
    """One record with its absolute offset and timestamp. Immutable, equal by value."""

    __slots__ = ("offset", "timestamp", "key", "value", "headers", "attributes")

    def __init__(self, offset: int, timestamp: int, key: bytes | None, value: bytes | None,
                 headers: tuple[tuple[str, bytes | None], ...] = (), attributes: int = 0):
        initialize = object.__setattr__
        initialize(self, "offset", offset)
        initialize(self, "timestamp", timestamp)
        initialize(self, "key", key)
        initialize(self, "value", value)
        initialize(self, "headers", headers)
        initialize(self, "attributes", attributes)

    def __setattr__(self, name: str, value) -> None:
        raise AttributeError(f"a Record is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a Record is immutable: cannot delete {name!r}")

    def _fields(self) -> tuple:
        return (self.offset, self.timestamp, self.key, self.value, self.headers, self.attributes)

    def __eq__(self, other: object) -> bool:
        if type(other) is not Record:
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return ("Record(offset={!r}, timestamp={!r}, key={!r}, value={!r}, headers={!r}, attributes={!r})"
                .format(*self._fields()))


# ---------------------------------------------------------------------------------------
# Reading and checking headers

_make_header = BatchHeader._make

# For validate_batch's hot path: module-level names for what it calls, and plain ints for
# the codec ids (comparing an int with an IntEnum member costs ~6x comparing two ints).
_unpack_header = _HEADER.unpack_from
_new_header = tuple.__new__   # _new_header(BatchHeader, fields): a third cheaper than _make
_NO_COMPRESSION = int(Compression.NONE)
_LAST_CODEC = int(Compression.ZSTD)


def read_batch_header(buf, position: int = 0) -> BatchHeader:
    """Parse the 61 header bytes at `position`. Checks nothing; BufferUnderflow if short."""
    try:
        fields = _HEADER.unpack_from(buf, position)
    except struct.error:
        raise BufferUnderflow(f"a batch header needs {BATCH_HEADER_SIZE} bytes at position "
                              f"{position}; the buffer has {len(buf) - position}") from None
    return _make_header(fields)


def check_magic(buf, position: int = 0) -> None:
    """Refuse anything but a magic-2 batch: UnsupportedMagic for a v0/v1 message set.

    Every format puts its magic byte at position 16, so this works on any input that
    long; BufferUnderflow if it is shorter.
    """
    try:
        magic, = INT8.unpack_from(buf, position + MAGIC_POSITION)
    except struct.error:
        raise BufferUnderflow(f"no magic byte at position {position + MAGIC_POSITION}") from None
    if magic != MAGIC:
        raise UnsupportedMagic(magic)


def validate_batch(buf, position: int = 0) -> BatchHeader:
    """Check the batch at `position` as a broker does before appending it; return its header.

    In order: the magic is 2 (UnsupportedMagic); the header and the whole batch_length
    are present and batch_length is at least 49 (CorruptRecord); the CRC-32C matches
    (CorruptRecord); records_count and last_offset_delta are not negative, the codec id
    is known and an uncompressed batch has room for records_count records (InvalidRecord).
    Records are not parsed. The batch may be followed by more bytes (the next batch).
    """
    # Written flat -- no helper calls, no enum members, plain ints only -- because it runs
    # for every produced batch, and Python overhead, not the CRC, was most of its cost.
    # This fast path only decides whether the batch is good. If anything looks wrong it
    # hands over to _checked_header_fields, which makes the same checks one by one and
    # raises the right error: the checks' order and error messages live there only.
    if position >= 0:
        available = len(buf) - position
        if available >= BATCH_HEADER_SIZE:
            fields = _unpack_header(buf, position)
            (_, batch_length, _, magic, stored_crc, attributes, last_offset_delta,
             _, _, _, _, _, records_count) = fields
            if magic == MAGIC and MIN_BATCH_LENGTH <= batch_length <= available - LOG_OVERHEAD:
                view = buf if type(buf) is memoryview else memoryview(buf)
                end = position + LOG_OVERHEAD + batch_length
                codec = attributes & COMPRESSION_MASK
                if (crc32c(view[position + ATTRIBUTES_POSITION:end]) == stored_crc
                        and records_count >= 0
                        and last_offset_delta >= 0
                        and codec <= _LAST_CODEC
                        and (codec != _NO_COMPRESSION or records_count
                             <= (batch_length - MIN_BATCH_LENGTH) // _MIN_RECORD_BYTES)):
                    return _new_header(BatchHeader, fields)
    # Something is wrong (or position is negative): let the careful path say what.
    return _make_header(_checked_header_fields(buf, position, True))


def _checked_header_fields(buf, position: int, verify_crc: bool) -> tuple:
    """The header's fields as a tuple, after the checks of `validate_batch`.

    The reference for those checks: their order and their errors are defined here.
    `validate_batch` makes them all at once on its fast path and calls this (with
    verify_crc) only when one fails, to raise; `iter_records` calls it without.
    """
    if position < 0:
        raise ValueError(f"negative position {position}")
    available = len(buf) - position
    if available < BATCH_HEADER_SIZE:
        if available > MAGIC_POSITION:
            check_magic(buf, position)    # a short legacy message set gets the clear error
        raise CorruptRecord(f"record batch at position {position} has {max(available, 0)} "
                            f"bytes, fewer than the {BATCH_HEADER_SIZE}-byte header")
    fields = _HEADER.unpack_from(buf, position)
    (_, batch_length, _, magic, stored_crc, attributes, last_offset_delta,
     _, _, _, _, _, records_count) = fields

    if magic != MAGIC:
        raise UnsupportedMagic(magic)
    if batch_length < MIN_BATCH_LENGTH:
        raise CorruptRecord(f"record batch at position {position} has batch_length "
                            f"{batch_length}, below the minimum {MIN_BATCH_LENGTH}")
    if batch_length + LOG_OVERHEAD > available:
        raise CorruptRecord(f"record batch at position {position} is truncated: it needs "
                            f"{batch_length + LOG_OVERHEAD} bytes, {available} are present")
    if verify_crc:
        view = buf if type(buf) is memoryview else memoryview(buf)
        end = position + LOG_OVERHEAD + batch_length
        actual_crc = crc32c(view[position + ATTRIBUTES_POSITION:end])
        if actual_crc != stored_crc:
            raise CorruptRecord(f"record batch at position {position} fails its CRC-32C check "
                                f"(stored 0x{stored_crc:08x}, computed 0x{actual_crc:08x})")

    if records_count < 0:
        raise InvalidRecord(f"record batch at position {position} has records_count "
                            f"{records_count}")
    if last_offset_delta < 0:
        raise InvalidRecord(f"record batch at position {position} has last_offset_delta "
                            f"{last_offset_delta}")
    codec = attributes & COMPRESSION_MASK
    if codec > _LAST_CODEC:
        raise InvalidRecord(f"record batch at position {position} names unknown compression "
                            f"codec id {codec}")
    records_bytes = batch_length - MIN_BATCH_LENGTH
    if codec == _NO_COMPRESSION and records_count > records_bytes // _MIN_RECORD_BYTES:
        raise InvalidRecord(f"record batch at position {position} claims {records_count} "
                            f"records in {records_bytes} bytes")
    return fields


def iter_batch_headers(buf, position: int = 0) -> Iterator[tuple[int, BatchHeader]]:
    """Yield (position, header) of each complete batch laid end to end from `position`.

    Stops silently before a trailing partial batch (a torn write, or a fetch cut at a
    size limit). Does not check CRCs. A header that cannot be walked past -- magic other
    than 2 (UnsupportedMagic) or batch_length below 49 (CorruptRecord) -- raises, after
    every batch before it has been yielded.
    """
    size = len(buf)
    while size - position >= BATCH_HEADER_SIZE:
        header = read_batch_header(buf, position)
        if header.magic != MAGIC:
            raise UnsupportedMagic(header.magic)
        if header.batch_length < MIN_BATCH_LENGTH:
            raise CorruptRecord(f"record batch at position {position} has batch_length "
                                f"{header.batch_length}, below the minimum {MIN_BATCH_LENGTH}")
        next_position = position + LOG_OVERHEAD + header.batch_length
        if next_position > size:
            return
        yield position, header
        position = next_position


def iter_batches(buf, position: int = 0) -> Iterator[memoryview]:
    """Yield a memoryview of each complete batch, as `iter_batch_headers` walks them."""
    view = memoryview(buf)
    for batch_position, header in iter_batch_headers(view, position):
        yield view[batch_position:batch_position + header.size_bytes]


# ---------------------------------------------------------------------------------------
# Stamping in place


def stamp_base_offset(buf, position: int, base_offset: int) -> None:
    """Write base_offset into the batch at `position` (outside the CRC: nothing else changes)."""
    INT64.pack_into(buf, position + BASE_OFFSET_POSITION, base_offset)


def stamp_partition_leader_epoch(buf, position: int, leader_epoch: int) -> None:
    """Write partition_leader_epoch into the batch at `position` (outside the CRC)."""
    INT32.pack_into(buf, position + PARTITION_LEADER_EPOCH_POSITION, leader_epoch)


def stamp_log_append_time(buf, position: int, timestamp_ms: int) -> None:
    """Mark the batch LOG_APPEND_TIME with max_timestamp = timestamp_ms; recompute the CRC.

    The records keep their own timestamp deltas; readers of a LOG_APPEND_TIME batch give
    every record max_timestamp instead.
    """
    stamp_max_timestamp(buf, position, TimestampType.LOG_APPEND_TIME, timestamp_ms)


def stamp_max_timestamp(buf, position: int, timestamp_type: TimestampType, timestamp_ms: int) -> None:
    """Set the batch's timestamp type and max_timestamp; recompute the CRC (both are inside it)."""
    start, end = _crc_range(buf, position)    # checks the batch is whole before writing
    attributes, = INT16.unpack_from(buf, position + ATTRIBUTES_POSITION)
    if timestamp_type == TimestampType.LOG_APPEND_TIME:
        attributes |= TIMESTAMP_TYPE_BIT
    else:
        attributes &= ~TIMESTAMP_TYPE_BIT
    INT16.pack_into(buf, position + ATTRIBUTES_POSITION, attributes)
    INT64.pack_into(buf, position + MAX_TIMESTAMP_POSITION, timestamp_ms)
    with memoryview(buf) as view:
        UINT32.pack_into(buf, position + CRC_POSITION, crc32c(view[start:end]))


def compute_crc(buf, position: int = 0) -> int:
    """CRC-32C of the batch at `position` as it should be stored in its crc field."""
    start, end = _crc_range(buf, position)
    with memoryview(buf) as view:
        return crc32c(view[start:end])


def _crc_range(buf, position: int) -> tuple[int, int]:
    """Positions [start, end) the CRC covers; CorruptRecord unless the batch is whole."""
    try:
        batch_length, = INT32.unpack_from(buf, position + BATCH_LENGTH_POSITION)
    except struct.error:
        raise CorruptRecord(f"no record batch header at position {position}") from None
    end = position + LOG_OVERHEAD + batch_length
    if batch_length < MIN_BATCH_LENGTH or end > len(buf):
        raise CorruptRecord(f"record batch at position {position} with batch_length "
                            f"{batch_length} does not fit the {len(buf) - position} bytes present")
    return position + ATTRIBUTES_POSITION, end


# ---------------------------------------------------------------------------------------
# Reading records


def iter_records(buf, position: int = 0, *,
                 max_decompressed_bytes: int | None = DEFAULT_MAX_DECOMPRESSED_BYTES,
                 ) -> Iterator[Record]:
    """Yield the records of the batch at `position`, with absolute offsets and timestamps.

    Decompresses if needed (at most `max_decompressed_bytes`). In a LOG_APPEND_TIME batch
    every record's timestamp is the batch's max_timestamp. Checks the header's lengths,
    counts and codec as `validate_batch` does, but not the CRC (call `validate_batch`
    for that). Malformed records raise InvalidRecord, bad lengths or compressed data
    CorruptRecord. On an mmap, a view of it is held until the iterator is finished.
    """
    header, data = _records_data(buf, position, max_decompressed_bytes, memoryview)
    log_append_time = (header.max_timestamp
                       if header.timestamp_type is TimestampType.LOG_APPEND_TIME else None)

    record_position = 0
    for index in range(header.records_count):
        if record_position >= len(data):
            raise InvalidRecord(f"batch declares {header.records_count} records but its data "
                                f"ends after {index}")
        try:
            record, record_position = _decode_record(data, record_position, header, log_append_time)
        except (BufferUnderflow, InvalidVarint, InvalidLength) as error:
            raise InvalidRecord(f"record {index} of the batch is malformed: {error}") from None
        yield record
    if record_position != len(data):
        raise InvalidRecord(f"{len(data) - record_position} bytes follow the batch's last record")


class PartialRecord(NamedTuple):
    """A record read as Kafka reads those of a compressed batch it keeps as it came
    (DefaultRecord.readPartiallyFrom): its length prefix read and not checked, its key,
    value and headers skipped and the key's and value's sizes kept (negative: null)."""

    offset: int
    timestamp: int
    key_size: int
    value_size: int


def iter_partial_records(buf, position: int = 0, *,
                         max_decompressed_bytes: int | None = DEFAULT_MAX_DECOMPRESSED_BYTES,
                         ) -> Iterator[PartialRecord]:
    """Yield the records of the batch at `position` as PartialRecords: the fields follow
    one another whatever each record's length prefix says (protocol.record_scan's lenient
    reading, which Kafka validates such a batch with). A field running past the data, a
    negative header count or header name size, or bytes after the last record raise
    InvalidRecord; the header checks and decompression are `iter_records`'."""
    header, data = _records_data(buf, position, max_decompressed_bytes, memoryview)
    log_append_time = (header.max_timestamp
                       if header.timestamp_type is TimestampType.LOG_APPEND_TIME else None)
    cursor = 0
    for index in range(header.records_count):
        try:
            _, cursor = read_varint(data, cursor)   # the length prefix
            if cursor >= len(data):
                raise BufferUnderflow("the record ends before its attributes")
            timestamp_delta, cursor = read_varlong(data, cursor + 1)
            offset_delta, cursor = read_varint(data, cursor)
            key_size, cursor = _skipped_field(data, cursor)
            value_size, cursor = _skipped_field(data, cursor)
            cursor = skip_headers(data, cursor + 1, data[cursor])   # the scan's rule for them
        except (BufferUnderflow, InvalidVarint, IndexError) as error:
            raise InvalidRecord(f"record {index} of the batch is malformed: {error or 'it runs past the data'}"
                                ) from None
        if cursor > len(data):
            raise InvalidRecord(f"record {index} of the batch runs past the data")
        timestamp = log_append_time if log_append_time is not None else header.base_timestamp + timestamp_delta
        yield PartialRecord(header.base_offset + offset_delta, timestamp, key_size, value_size)
    if cursor != len(data):
        raise InvalidRecord(f"{len(data) - cursor} bytes follow the batch's last record")


def _skipped_field(data: memoryview, cursor: int) -> tuple[int, int]:
    """Skip a key or value (a negative size is null and takes no bytes); return its size
    and the position after it."""
    size, cursor = read_varint(data, cursor)
    if size > 0:
        if cursor + size > len(data):
            raise InvalidRecord(f"Reached end of input stream before skipping all bytes. Remaining bytes:"
                                f"{cursor + size - len(data)}")
        cursor += size
    return size, cursor


def iter_key_values(buf, position: int = 0, *,
                    max_decompressed_bytes: int | None = DEFAULT_MAX_DECOMPRESSED_BYTES,
                    ) -> Iterator[tuple[int, bytes | None, bytes | None]]:
    """Yield (offset, key, value) of each record of the batch at `position`: what a reader
    of a compacted topic needs, read in one tight loop (protocol.record_scan) without
    building a Record, its timestamp or its headers. Same header checks and
    decompression as `iter_records`."""
    header, data = _records_data(buf, position, max_decompressed_bytes, bytes)
    base_offset = header.base_offset
    for offset_delta, key, value in iter_key_values_of_records(data, header.records_count):
        yield base_offset + offset_delta, key, value


def _records_data(buf, position: int, max_decompressed_bytes: int | None, kind) -> tuple[BatchHeader, object]:
    """The header of the batch at `position` (its lengths, counts and codec checked) and
    its records area, decompressed: a memoryview of `buf` (`kind` memoryview) or a copy
    (`kind` bytes)."""
    header = _make_header(_checked_header_fields(buf, position, False))
    records_area = memoryview(buf)[position + RECORDS_POSITION:position + header.size_bytes]
    if header.compression is Compression.NONE:
        return header, records_area if kind is memoryview else bytes(records_area)
    data = decompress(header.compression, records_area, max_decompressed_bytes)
    records_area.release()
    return header, memoryview(data) if kind is memoryview else bytes(data)


def _decode_record(data: memoryview, position: int, header: BatchHeader,
                   log_append_time: int | None) -> tuple[Record, int]:
    """Decode the record at `position` of the records area; return it and the next position."""
    length, position = read_varint(data, position)
    end = position + length
    if length < _MIN_RECORD_BODY_BYTES or end > len(data):
        raise InvalidRecord(f"record length {length} does not fit the {len(data) - position} "
                            f"bytes left in the batch")
    # Parse inside the record's own bytes, so that no field can run into the next record.
    body = data[position:end]
    attributes = body[0] - 256 if body[0] > 127 else body[0]
    timestamp_delta, cursor = read_varlong(body, 1)
    offset_delta, cursor = read_varint(body, cursor)
    key, cursor = _read_nullable_bytes(body, cursor)
    value, cursor = _read_nullable_bytes(body, cursor)
    header_count, cursor = read_varint(body, cursor)
    if header_count < 0 or header_count * 2 > len(body) - cursor:   # a header takes >= 2 bytes
        raise InvalidRecord(f"record header count {header_count} does not fit the record")
    headers = []
    for _ in range(header_count):
        name_length, cursor = read_varint(body, cursor)
        name_end = cursor + name_length
        if name_length < 0 or name_end > len(body):
            raise InvalidRecord(f"record header name length {name_length} is invalid")
        name = decode_utf8(body[cursor:name_end])
        header_value, cursor = _read_nullable_bytes(body, name_end)
        headers.append((name, header_value))
    if cursor != len(body):
        raise InvalidRecord(f"record length {length} disagrees with its fields ({cursor} bytes)")
    timestamp = log_append_time if log_append_time is not None else (
        header.base_timestamp + timestamp_delta)
    record = Record(offset=header.base_offset + offset_delta, timestamp=timestamp,
                    key=key, value=value, headers=tuple(headers), attributes=attributes)
    return record, end


def _read_nullable_bytes(body: memoryview, position: int) -> tuple[bytes | None, int]:
    """A key, value or header value: any negative length means null (Kafka's
    DefaultRecord reads it so, and so does protocol.record_scan)."""
    length, position = read_varint(body, position)
    if length < 0:
        return None, position
    end = position + length
    if end > len(body):
        raise InvalidRecord(f"record field length {length} does not fit the record")
    return bytes(body[position:end]), end


# ---------------------------------------------------------------------------------------
# Control records


def read_control_record(record: Record) -> tuple[ControlType, int]:
    """(type, coordinator_epoch) of a control record; coordinator_epoch is -1 unless
    the type is ABORT or COMMIT. A type this code does not know gives ControlType.UNKNOWN.
    """
    key = record.key
    if key is None or len(key) < _CONTROL_KEY.size:
        raise InvalidRecord("control record key must hold an int16 version and an int16 type")
    version, type_id = _CONTROL_KEY.unpack_from(key)
    if version < 0:
        raise InvalidRecord(f"control record key has version {version}")
    try:
        control_type = ControlType(type_id)
    except ValueError:
        return ControlType.UNKNOWN, -1
    if control_type not in (ControlType.ABORT, ControlType.COMMIT):
        return control_type, -1
    value = record.value
    if value is None or len(value) < _END_TRANSACTION_MARKER.size:
        raise InvalidRecord("transaction marker value must hold an int16 version and an "
                            "int32 coordinator epoch")
    marker_version, coordinator_epoch = _END_TRANSACTION_MARKER.unpack_from(value)
    if marker_version < 0:
        raise InvalidRecord(f"transaction marker has version {marker_version}")
    return control_type, coordinator_epoch


# ---------------------------------------------------------------------------------------
# Building batches


def build_batch(records: Iterable, *, base_offset: int = 0,
                compression: Compression = Compression.NONE,
                producer_id: int = NO_PRODUCER_ID, producer_epoch: int = NO_PRODUCER_EPOCH,
                base_sequence: int = NO_SEQUENCE, is_transactional: bool = False,
                partition_leader_epoch: int = NO_PARTITION_LEADER_EPOCH,
                timestamp_type: TimestampType = TimestampType.CREATE_TIME,
                timestamp_ms: int | None = None, is_control: bool = False) -> bytes:
    """Encode `records` as one batch, with offset deltas 0..n-1.

    Each record is a tuple (key, value), (key, value, headers) or (key, value, headers,
    timestamp_ms), or an object with `key`, `value` and optionally `headers` and
    `timestamp` attributes (a Record). Keys and values are bytes-like or None; headers
    are (str, bytes-like or None) pairs. A record without a timestamp gets
    `timestamp_ms`, which is then required (ValueError). For LOG_APPEND_TIME,
    `timestamp_ms`, if given, is the append time stored as max_timestamp. An empty
    batch gets last_offset_delta 0 and timestamps `timestamp_ms` (or -1). `is_control`
    sets the control bit: the caller gives records whose keys are control keys (Raft's
    control batches in `__cluster_metadata`; transaction markers use
    `build_control_batch`).
    """
    return _build(records, base_offset=base_offset, compression=compression,
                  producer_id=producer_id, producer_epoch=producer_epoch,
                  base_sequence=base_sequence, is_transactional=is_transactional,
                  is_control=is_control, partition_leader_epoch=partition_leader_epoch,
                  timestamp_type=timestamp_type, timestamp_ms=timestamp_ms)


def build_control_batch(control_type: ControlType, *, producer_id: int, producer_epoch: int,
                        coordinator_epoch: int = 0, timestamp_ms: int, base_offset: int = 0,
                        partition_leader_epoch: int = NO_PARTITION_LEADER_EPOCH) -> bytes:
    """A transaction marker: a transactional control batch with one ABORT or COMMIT record."""
    if control_type not in (ControlType.ABORT, ControlType.COMMIT):
        raise ValueError(f"a transaction marker is ABORT or COMMIT, not {control_type!r}")
    key = _CONTROL_KEY.pack(_CONTROL_RECORD_VERSION, control_type)
    value = _END_TRANSACTION_MARKER.pack(_CONTROL_RECORD_VERSION, coordinator_epoch)
    return _build([(key, value, (), timestamp_ms)], base_offset=base_offset,
                  compression=Compression.NONE, producer_id=producer_id,
                  producer_epoch=producer_epoch, base_sequence=NO_SEQUENCE,
                  is_transactional=True, is_control=True,
                  partition_leader_epoch=partition_leader_epoch,
                  timestamp_type=TimestampType.CREATE_TIME, timestamp_ms=timestamp_ms)


def _build(records: Iterable, *, base_offset: int, compression: Compression,
           producer_id: int, producer_epoch: int, base_sequence: int,
           is_transactional: bool, is_control: bool, partition_leader_epoch: int,
           timestamp_type: TimestampType, timestamp_ms: int | None) -> bytes:
    entries = [_normalize_record(record, timestamp_ms) for record in records]
    if entries:
        base_timestamp = entries[0][3]
        max_timestamp = max(entry[3] for entry in entries)
    else:
        base_timestamp = max_timestamp = NO_TIMESTAMP if timestamp_ms is None else timestamp_ms
    timestamp_type = TimestampType(timestamp_type)
    if timestamp_type is TimestampType.LOG_APPEND_TIME and timestamp_ms is not None:
        max_timestamp = timestamp_ms

    records_area = bytearray()
    for offset_delta, (key, value, headers, timestamp) in enumerate(entries):
        _encode_record(records_area, offset_delta, timestamp - base_timestamp, key, value, headers)

    codec = Compression(compression)
    attributes = codec | (TIMESTAMP_TYPE_BIT if timestamp_type is TimestampType.LOG_APPEND_TIME
                          else 0)
    attributes |= TRANSACTIONAL_BIT if is_transactional else 0
    attributes |= CONTROL_BIT if is_control else 0

    batch = bytearray(BATCH_HEADER_SIZE)
    batch += records_area if codec is Compression.NONE else compress(codec, records_area)
    try:
        _HEADER.pack_into(batch, 0, base_offset, len(batch) - LOG_OVERHEAD,
                          partition_leader_epoch, MAGIC, 0, attributes,
                          max(len(entries) - 1, 0), base_timestamp, max_timestamp,
                          producer_id, producer_epoch, base_sequence, len(entries))
    except struct.error as error:
        raise ValueError(f"a batch header field is out of range: {error}") from None
    with memoryview(batch) as view:
        UINT32.pack_into(batch, CRC_POSITION, crc32c(view[ATTRIBUTES_POSITION:]))
    return bytes(batch)


def build_retained_batch(original: BatchHeader, records: Iterable[Record], *,
                         delete_horizon_ms: int | None = None) -> bytes:
    """Encode the `records` kept from batch `original` (log compaction) as one batch.

    The new batch keeps what the original's header says about its producer and its
    range: base offset, last offset (so last_offset_delta, and with it the last
    sequence, are unchanged even if the last record went), producer id, epoch, base
    sequence, leader epoch, codec, timestamp type and the transactional and control
    bits. Each record keeps its own offset, hence holes in the offset deltas.

    With `delete_horizon_ms` the delete-horizon bit is set and base_timestamp holds the
    horizon; record timestamps are then stored as deltas from it (they may be
    negative). Without it base_timestamp is the first record's timestamp. max_timestamp
    is the largest record timestamp, or the original's for LOG_APPEND_TIME.
    """
    kept = list(records)
    if not kept:
        raise ValueError("a retained batch needs at least one record; see build_empty_batch")
    log_append_time = original.attributes & TIMESTAMP_TYPE_BIT
    if delete_horizon_ms is not None:
        base_timestamp = delete_horizon_ms
    else:
        base_timestamp = kept[0].timestamp
    max_timestamp = (original.max_timestamp if log_append_time
                     else max(record.timestamp for record in kept))
    records_area = bytearray()
    for record in kept:
        offset_delta = record.offset - original.base_offset
        if not 0 <= offset_delta <= original.last_offset_delta:
            raise ValueError(f"record offset {record.offset} lies outside the batch "
                             f"[{original.base_offset}, {original.last_offset}]")
        _encode_record(records_area, offset_delta, record.timestamp - base_timestamp,
                       record.key, record.value, record.headers)
    codec = original.attributes & COMPRESSION_MASK
    attributes = original.attributes & ~DELETE_HORIZON_BIT
    if delete_horizon_ms is not None:
        attributes |= DELETE_HORIZON_BIT
    batch = bytearray(BATCH_HEADER_SIZE)
    batch += records_area if codec == _NO_COMPRESSION else compress(codec, records_area)
    _HEADER.pack_into(batch, 0, original.base_offset, len(batch) - LOG_OVERHEAD,
                      original.partition_leader_epoch, MAGIC, 0, attributes,
                      original.last_offset_delta, base_timestamp, max_timestamp,
                      original.producer_id, original.producer_epoch, original.base_sequence,
                      len(kept))
    with memoryview(batch) as view:
        UINT32.pack_into(batch, CRC_POSITION, crc32c(view[ATTRIBUTES_POSITION:]))
    return bytes(batch)


def build_empty_batch(original: BatchHeader) -> bytes:
    """A batch with no records standing for `original` (log compaction keeps one for a
    producer's last batch, so its sequence and epoch survive): the same offsets,
    producer fields, leader epoch, timestamp type and transactional/control bits; no
    compression; base_timestamp -1 and the original max_timestamp (Kafka's
    DefaultRecordBatch.writeEmptyHeader)."""
    attributes = original.attributes & (TIMESTAMP_TYPE_BIT | TRANSACTIONAL_BIT | CONTROL_BIT)
    batch = bytearray(BATCH_HEADER_SIZE)
    _HEADER.pack_into(batch, 0, original.base_offset, BATCH_HEADER_SIZE - LOG_OVERHEAD,
                      original.partition_leader_epoch, MAGIC, 0, attributes,
                      original.last_offset_delta, NO_TIMESTAMP, original.max_timestamp,
                      original.producer_id, original.producer_epoch, original.base_sequence, 0)
    with memoryview(batch) as view:
        UINT32.pack_into(batch, CRC_POSITION, crc32c(view[ATTRIBUTES_POSITION:]))
    return bytes(batch)


def _normalize_record(record, default_timestamp_ms: int | None) -> tuple:
    """(key, value, headers, timestamp_ms) from a tuple or a Record-like object."""
    if isinstance(record, (tuple, list)):
        if not 2 <= len(record) <= 4:
            raise ValueError(f"a record tuple has 2 to 4 items, not {len(record)}")
        key, value, headers, timestamp = (*record, None, None)[:4]
    else:
        key, value = record.key, record.value
        headers = getattr(record, "headers", ())
        timestamp = getattr(record, "timestamp", None)
    if timestamp is None:
        if default_timestamp_ms is None:
            raise ValueError("a record has no timestamp and no timestamp_ms was given")
        timestamp = default_timestamp_ms
    return key, value, headers or (), timestamp


def _encode_record(out: bytearray, offset_delta: int, timestamp_delta: int,
                   key, value, headers) -> None:
    body = bytearray(b"\x00")                       # attributes: unused
    body += encode_varlong(timestamp_delta)
    body += encode_varint(offset_delta)
    _write_nullable_bytes(body, key, "key")
    _write_nullable_bytes(body, value, "value")
    body += encode_varint(len(headers))
    for name, header_value in headers:
        if not isinstance(name, str):
            raise TypeError(f"a header name must be a str, not {type(name).__name__}")
        raw_name = name.encode("utf-8")
        body += encode_varint(len(raw_name))
        body += raw_name
        _write_nullable_bytes(body, header_value, "header value")
    out += encode_varint(len(body))
    out += body


def _write_nullable_bytes(out: bytearray, data, what: str) -> None:
    if data is None:
        out += encode_varint(-1)
        return
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"a record {what} must be bytes-like or None, not {type(data).__name__}")
    out += encode_varint(len(data))
    out += data
