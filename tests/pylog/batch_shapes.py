"""Produce payloads a broker must refuse, and a few it must accept, built byte by byte.

Each `Shape` is one partition's `records` field of a Produce request, with the topic config
it is sent under and what Apache Kafka answers: error code, the record errors (batch index
and message, Produce v8+) and the error message. tests/pylog/test_produce_refusals.py sends
every shape to pylog and checks the answer; tests/compat/test_produce_refusals.py sends the
same shapes to the reference Kafka and checks that it answers the same, so the expectations
below are Kafka's, measured, not guessed.

Expected messages are patterns: `{tp}` stands for the partition as Kafka names it
(`<topic>-<partition>`), and `{ts}`, `{low}`, `{high}` for the numbers the broker's clock
puts in a timestamp error (`expected_pattern` turns one into a regular expression).
"""

from __future__ import annotations

import re
import struct
import time
from dataclasses import dataclass, field

from protocol.compression import Compression, compress
from protocol.crc32c import crc32c
from protocol.error_codes import ErrorCode
from protocol.primitives import encode_varint, encode_varlong
from protocol.records import build_batch, build_control_batch, ControlType

HEADER = struct.Struct(">qiibIhiqqqhii")  # the 61-byte batch header, in layout order


def record_bytes(offset_delta: int = 0, timestamp_delta: int = 0, key: bytes | None = b"k",
                 value: bytes | None = b"v", headers=(), *, length_adjust: int = 0,
                 header_count: int | None = None, attributes: int = 0, null_length: int = -1) -> bytes:
    """One record's bytes (see protocol/records.py "Record layout"); the knobs break it.
    A None key or value is written with length `null_length` (any negative one is null)."""
    body = bytearray([attributes])
    body += encode_varlong(timestamp_delta) + encode_varint(offset_delta)
    for data in (key, value):
        body += encode_varint(null_length) if data is None else encode_varint(len(data)) + data
    body += encode_varint(len(headers) if header_count is None else header_count)
    for name, header_value in headers:
        body += encode_varint(len(name)) + name
        body += encode_varint(-1) if header_value is None else encode_varint(len(header_value)) + header_value
    return encode_varint(len(body) + length_adjust) + bytes(body)


def raw_batch(records: bytes, *, records_count: int, last_offset_delta: int, base_timestamp: int,
              max_timestamp: int | None = None, compression: Compression = Compression.NONE,
              attributes: int = 0, base_offset: int = 0, producer_id: int = -1, producer_epoch: int = -1,
              base_sequence: int = -1, magic: int = 2, crc_adjust: int = 0) -> bytes:
    """A batch around `records` (compressed with `compression`), with a correct CRC unless told."""
    payload = records if compression is Compression.NONE else compress(compression, records)
    batch = bytearray(HEADER.size) + payload
    HEADER.pack_into(batch, 0, base_offset, len(batch) - 12, -1, magic, 0, attributes | compression,
                     last_offset_delta, base_timestamp,
                     base_timestamp if max_timestamp is None else max_timestamp,
                     producer_id, producer_epoch, base_sequence, records_count)
    struct.pack_into(">I", batch, 17, (crc32c(memoryview(batch)[21:]) + crc_adjust) & 0xFFFFFFFF)
    return bytes(batch)


@dataclass(frozen=True)
class Shape:
    name: str
    records: bytes
    code: ErrorCode
    record_errors: tuple[tuple[int, str], ...] = ()
    message: str | None = None
    topic_configs: dict = field(default_factory=dict)
    produce_version: int = 9
    log_start_offset: int = 0   # in the answer: the fresh topic's 0, or -1 where Kafka sends none


def shapes(now_ms: int | None = None) -> list[Shape]:
    """Every shape, with timestamps near `now_ms` (the test's clock, close to the broker's)."""
    now = int(time.time() * 1000) if now_ms is None else now_ms
    two = record_bytes(0) + record_bytes(1)
    hour = 3_600_000
    many_errors = ("One or more records have been rejected due to {n} record errors in total, and only "
                   "showing the first three errors at most: [{errors}]")
    keyless = "Compacted topic cannot accept message without key in topic partition {tp}"
    return [
        Shape("a well-formed batch", raw_batch(two, records_count=2, last_offset_delta=1, base_timestamp=now),
              ErrorCode.NONE),
        Shape("records_count 0", raw_batch(b"", records_count=0, last_offset_delta=0, base_timestamp=now),
              ErrorCode.INVALID_RECORD),
        Shape("records_count -1", raw_batch(two, records_count=-1, last_offset_delta=1, base_timestamp=now),
              ErrorCode.INVALID_RECORD),
        Shape("records_count disagrees with last_offset_delta",
              raw_batch(two, records_count=2, last_offset_delta=2, base_timestamp=now), ErrorCode.INVALID_RECORD),
        Shape("fewer records than records_count",
              raw_batch(two, records_count=3, last_offset_delta=2, base_timestamp=now), ErrorCode.INVALID_RECORD),
        Shape("bytes after the last record",
              raw_batch(two + b"\x00\x00", records_count=2, last_offset_delta=1, base_timestamp=now),
              ErrorCode.INVALID_RECORD),
        Shape("offset deltas 1, 0",
              raw_batch(record_bytes(1) + record_bytes(0), records_count=2, last_offset_delta=1, base_timestamp=now),
              ErrorCode.NONE),
        Shape("offset deltas 0, 5",
              raw_batch(record_bytes(0) + record_bytes(5), records_count=2, last_offset_delta=1, base_timestamp=now),
              ErrorCode.NONE),
        Shape("record length past the batch end",
              raw_batch(record_bytes(0) + record_bytes(1, length_adjust=40), records_count=2, last_offset_delta=1,
                        base_timestamp=now), ErrorCode.INVALID_RECORD),
        Shape("a record length of -3",
              raw_batch(b"\x05" + record_bytes(0)[1:], records_count=1, last_offset_delta=0, base_timestamp=now),
              ErrorCode.INVALID_RECORD),
        Shape("record length shorter than its fields",
              raw_batch(record_bytes(0, length_adjust=-2) + record_bytes(1), records_count=2, last_offset_delta=1,
                        base_timestamp=now), ErrorCode.INVALID_RECORD),
        Shape("negative header count",
              raw_batch(record_bytes(0, header_count=-1), records_count=1, last_offset_delta=0, base_timestamp=now),
              ErrorCode.INVALID_RECORD),
        Shape("header count past the record",
              raw_batch(record_bytes(0, header_count=30), records_count=1, last_offset_delta=0, base_timestamp=now),
              ErrorCode.INVALID_RECORD),
        Shape("header with a negative name length",
              raw_batch(record_bytes(0, headers=[(b"h", b"x")]).replace(b"\x02h\x02x", b"\x01h\x02x"),
                        records_count=1, last_offset_delta=0, base_timestamp=now), ErrorCode.INVALID_RECORD),
        # Kafka reads the records of a compressed batch it keeps as it came without looking
        # at their length prefixes: a wrong one passes (protocol/record_scan.py, "lenient").
        Shape("gzip batch with a record length past its end",
              raw_batch(record_bytes(0) + record_bytes(1, length_adjust=40), records_count=2, last_offset_delta=1,
                        base_timestamp=now, compression=Compression.GZIP), ErrorCode.NONE),
        Shape("gzip batch with a record length shorter than its fields",
              raw_batch(record_bytes(0, length_adjust=-2) + record_bytes(1), records_count=2, last_offset_delta=1,
                        base_timestamp=now, compression=Compression.GZIP), ErrorCode.NONE),
        Shape("gzip batch with fewer inner records than records_count",
              raw_batch(two, records_count=3, last_offset_delta=2, base_timestamp=now, compression=Compression.GZIP),
              ErrorCode.INVALID_RECORD),
        Shape("gzip batch with bytes after its last inner record",
              raw_batch(two + b"\x00\x00", records_count=2, last_offset_delta=1, base_timestamp=now,
                        compression=Compression.GZIP), ErrorCode.INVALID_RECORD),
        Shape("gzip batch with a negative header count inside",
              raw_batch(record_bytes(0, header_count=-1), records_count=1, last_offset_delta=0, base_timestamp=now,
                        compression=Compression.GZIP), ErrorCode.INVALID_RECORD),
        Shape("gzip batch whose last record's value runs past the data",
              raw_batch(record_bytes(0) + record_bytes(1)[:-3], records_count=2, last_offset_delta=1,
                        base_timestamp=now, compression=Compression.GZIP), ErrorCode.INVALID_RECORD),
        # Kafka must rebuild such a batch and fails, reading it back from its partial records.
        Shape("lz4 batch with inner offset deltas 0, 5",
              raw_batch(record_bytes(0) + record_bytes(5), records_count=2, last_offset_delta=1, base_timestamp=now,
                        compression=Compression.LZ4), ErrorCode.UNKNOWN_SERVER_ERROR),
        Shape("gzip batch whose data is not gzip",
              _with_payload(raw_batch(b"", records_count=1, last_offset_delta=0, base_timestamp=now),
                            b"not gzip at all", Compression.GZIP),
              ErrorCode.UNKNOWN_SERVER_ERROR),
        Shape("lz4 batch, well formed", build_batch([(b"k", b"v"), (None, b"w")], timestamp_ms=now,
                                                    compression=Compression.LZ4), ErrorCode.NONE),
        Shape("CRC mismatch", raw_batch(two, records_count=2, last_offset_delta=1, base_timestamp=now, crc_adjust=1),
              ErrorCode.CORRUPT_MESSAGE, log_start_offset=-1),
        Shape("unknown codec id 5", raw_batch(two, records_count=2, last_offset_delta=1, base_timestamp=now, attributes=5),
              ErrorCode.UNKNOWN_SERVER_ERROR),
        Shape("batch_length past the data",
              raw_batch(two, records_count=2, last_offset_delta=1, base_timestamp=now)[:-3],
              ErrorCode.INVALID_RECORD, log_start_offset=-1),
        Shape("no bytes at all", b"", ErrorCode.INVALID_RECORD, log_start_offset=-1),
        Shape("batch_length 10", struct.pack(">qi", 0, 10) + bytes(10), ErrorCode.CORRUPT_MESSAGE,
              message="Record size 10 is less than the minimum record overhead (14)", log_start_offset=-1),
        Shape("magic 1", raw_batch(two, records_count=2, last_offset_delta=1, base_timestamp=now, magic=1),
              ErrorCode.INVALID_RECORD, log_start_offset=-1),
        Shape("magic 3", raw_batch(two, records_count=2, last_offset_delta=1, base_timestamp=now, magic=3),
              ErrorCode.CORRUPT_MESSAGE, message="Invalid magic found in record: 3", log_start_offset=-1),
        Shape("a partial batch after the batch",
              build_batch([(b"k", b"v")], timestamp_ms=now) + build_batch([(b"k", b"v")], timestamp_ms=now)[:40],
              ErrorCode.NONE),
        Shape("zeros after the batch", build_batch([(b"k", b"v")], timestamp_ms=now) + bytes(20),
              ErrorCode.CORRUPT_MESSAGE, log_start_offset=-1),
        Shape("base offset 7 from a client",
              raw_batch(two, records_count=2, last_offset_delta=1, base_timestamp=now, base_offset=7),
              ErrorCode.INVALID_RECORD),
        Shape("two batches", build_batch([(b"k", b"v")], timestamp_ms=now) * 2, ErrorCode.INVALID_RECORD,
              log_start_offset=-1),
        Shape("a transaction marker from a client",
              build_control_batch(ControlType.COMMIT, producer_id=1, producer_epoch=0, timestamp_ms=now),
              ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, log_start_offset=-1),
        Shape("a transactional batch without a transactional id",
              raw_batch(two, records_count=2, last_offset_delta=1, base_timestamp=now, attributes=0x10,
                        producer_id=3, producer_epoch=0, base_sequence=0),
              ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, log_start_offset=-1),
        Shape("a control batch that is not transactional",
              raw_batch(two, records_count=2, last_offset_delta=1, base_timestamp=now, attributes=0x20),
              ErrorCode.INVALID_RECORD),
        Shape("producer id with base sequence -1",
              raw_batch(two, records_count=2, last_offset_delta=1, base_timestamp=now, producer_id=5,
                        producer_epoch=0, base_sequence=-1), ErrorCode.INVALID_RECORD),
        Shape("zstd before Produce v7", build_batch([(b"k", b"v")], timestamp_ms=now, compression=Compression.ZSTD),
              ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, produce_version=6, log_start_offset=-1),
        Shape("batch over max.message.bytes", build_batch([(b"k", bytes(2000))], timestamp_ms=now),
              ErrorCode.MESSAGE_TOO_LARGE, topic_configs={"max.message.bytes": "1000"}, log_start_offset=-1),
        Shape("inner offset deltas 0, 5 and record attributes 5, uncompressed",
              raw_batch(record_bytes(0, attributes=5) + record_bytes(5), records_count=2, last_offset_delta=1,
                        base_timestamp=now), ErrorCode.NONE),
        Shape("records without timestamps (-1)",
              raw_batch(two, records_count=2, last_offset_delta=1, base_timestamp=-1), ErrorCode.NONE,
              topic_configs={"message.timestamp.before.max.ms": "3600000"}),
        Shape("a record two hours ahead on a topic with Kafka's defaults",
              build_batch([(b"k", b"v")], timestamp_ms=now + 2 * hour), ErrorCode.INVALID_TIMESTAMP,
              record_errors=((0, "Timestamp {ts} of message with offset 0 is out of range. "
                                 "The timestamp should be within [{low}, {high}]"),),
              message="One or more records have been rejected due to invalid timestamp"),
        Shape("a record 30 minutes ahead on a topic with Kafka's defaults",
              build_batch([(b"k", b"v")], timestamp_ms=now + hour // 2), ErrorCode.NONE),
        Shape("keyless record on a compacted topic",
              raw_batch(record_bytes(0) + record_bytes(1, key=None), records_count=2, last_offset_delta=1,
                        base_timestamp=now), ErrorCode.INVALID_RECORD,
              record_errors=((1, keyless),),
              message=many_errors.format(n=1, errors="RecordError(batchIndex=1, message='" + keyless + "')"),
              topic_configs={"cleanup.policy": "compact"}),
        Shape("a key of length -5 (null, as any negative length) on a compacted topic",
              raw_batch(record_bytes(0) + record_bytes(1, key=None, null_length=-5), records_count=2,
                        last_offset_delta=1, base_timestamp=now), ErrorCode.INVALID_RECORD,
              record_errors=((1, keyless),),
              message=many_errors.format(n=1, errors="RecordError(batchIndex=1, message='" + keyless + "')"),
              topic_configs={"cleanup.policy": "compact"}),
        Shape("a value of length -38 (null) in a record two hours ahead",
              raw_batch(record_bytes(0, value=None, null_length=-38), records_count=1, last_offset_delta=0,
                        base_timestamp=now + 2 * hour), ErrorCode.INVALID_TIMESTAMP,
              record_errors=((0, "Timestamp {ts} of message with offset 0 is out of range. "
                                 "The timestamp should be within [{low}, {high}]"),),
              message="One or more records have been rejected due to invalid timestamp"),
        Shape("a keyless record after one whose length prefix is wrong, compressed, on a compacted topic",
              raw_batch(record_bytes(0, length_adjust=-9) + record_bytes(1, key=None), records_count=2,
                        last_offset_delta=1, base_timestamp=now, compression=Compression.GZIP),
              ErrorCode.INVALID_RECORD,
              record_errors=((1, keyless),),
              message=many_errors.format(n=1, errors="RecordError(batchIndex=1, message='" + keyless + "')"),
              topic_configs={"cleanup.policy": "compact"}),
        # A record that breaks a rule is refused before Kafka gets to rebuild the batch (which
        # fails, as "lz4 batch with inner offset deltas 0, 5" above shows).
        Shape("a keyless record with inner offset deltas 0, 5, compressed, on a compacted topic",
              raw_batch(record_bytes(0) + record_bytes(5, key=None), records_count=2, last_offset_delta=1,
                        base_timestamp=now, compression=Compression.LZ4),
              ErrorCode.INVALID_RECORD,
              record_errors=((1, keyless),),
              message=many_errors.format(n=1, errors="RecordError(batchIndex=1, message='" + keyless + "')"),
              topic_configs={"cleanup.policy": "compact"}),
        Shape("a record two hours ahead with inner offset deltas 0, 5, compressed",
              raw_batch(record_bytes(0) + record_bytes(5, timestamp_delta=2 * hour), records_count=2,
                        last_offset_delta=1, base_timestamp=now, compression=Compression.GZIP),
              ErrorCode.INVALID_TIMESTAMP,
              record_errors=((1, "Timestamp {ts} of message with offset 5 is out of range. "
                                 "The timestamp should be within [{low}, {high}]"),),
              message="One or more records have been rejected due to invalid timestamp"),
        Shape("a compressed LogAppendTime batch from a client on a LogAppendTime topic",
              raw_batch(record_bytes(0) + record_bytes(1, value=None), records_count=2, last_offset_delta=1,
                        base_timestamp=now, attributes=0x08, compression=Compression.LZ4),
              ErrorCode.INVALID_TIMESTAMP,
              record_errors=tuple((i, f"Invalid timestamp type in message PartialDefaultRecord(offset={i}, "
                                      f"timestamp={{ts}}, key=1 bytes, value={v} bytes). Producer should not set "
                                      "timestamp type to LogAppendTime.") for i, v in ((0, 1), (1, -1))),
              message="One or more records have been rejected due to invalid timestamp",
              topic_configs={"message.timestamp.type": "LogAppendTime"}),
        Shape("keyless records in a compressed batch on a compacted topic",
              raw_batch(record_bytes(0, key=None) + record_bytes(1, key=None) + record_bytes(2)
                        + record_bytes(3, key=None) + record_bytes(4, key=None),
                        records_count=5, last_offset_delta=4, base_timestamp=now, compression=Compression.SNAPPY),
              ErrorCode.INVALID_RECORD,
              record_errors=((0, keyless), (1, keyless), (3, keyless), (4, keyless)),
              message=many_errors.format(n=4, errors=", ".join(
                  f"RecordError(batchIndex={i}, message='{keyless}')" for i in (0, 1, 3))),
              topic_configs={"cleanup.policy": "compact"}),
        Shape("a middle record two hours ahead (the header's max says otherwise)",
              raw_batch(record_bytes(0) + record_bytes(1, timestamp_delta=2 * hour) + record_bytes(2),
                        records_count=3, last_offset_delta=2, base_timestamp=now, max_timestamp=now),
              ErrorCode.INVALID_TIMESTAMP,
              record_errors=((1, "Timestamp {ts} of message with offset 1 is out of range. "
                                 "The timestamp should be within [{low}, {high}]"),),
              message="One or more records have been rejected due to invalid timestamp"),
        Shape("a middle record a day old on a topic bounded to an hour",
              raw_batch(record_bytes(0) + record_bytes(1, timestamp_delta=-24 * hour) + record_bytes(2),
                        records_count=3, last_offset_delta=2, base_timestamp=now, max_timestamp=now),
              ErrorCode.INVALID_TIMESTAMP,
              record_errors=((1, "Timestamp {ts} of message with offset 1 is out of range. "
                                 "The timestamp should be within [{low}, {high}]"),),
              message="One or more records have been rejected due to invalid timestamp",
              topic_configs={"message.timestamp.before.max.ms": str(hour)}),
        Shape("a LogAppendTime batch from a client on a LogAppendTime topic",
              raw_batch(two, records_count=2, last_offset_delta=1, base_timestamp=now, attributes=0x08),
              ErrorCode.INVALID_TIMESTAMP,
              record_errors=tuple((i, f"Invalid timestamp type in message DefaultRecord(offset={i}, timestamp={{ts}}, "
                                      "key=1 bytes, value=1 bytes). Producer should not set timestamp type to "
                                      "LogAppendTime.") for i in (0, 1)),
              message="One or more records have been rejected due to invalid timestamp",
              topic_configs={"message.timestamp.type": "LogAppendTime"}),
    ]


def expected_pattern(text: str, partition: str) -> re.Pattern:
    """An expected message as a regular expression (see the module docstring)."""
    pattern = re.escape(text)
    pattern = pattern.replace(re.escape("{tp}"), re.escape(partition))
    for name in ("ts", "low", "high"):
        pattern = pattern.replace(re.escape("{" + name + "}"), "-?[0-9]+")
    return re.compile(pattern)


def _with_payload(batch: bytes, payload: bytes, compression: Compression) -> bytes:
    """`batch`'s header over `payload` as its (claimed `compression`) records area."""
    out = bytearray(batch[:HEADER.size]) + payload
    struct.pack_into(">i", out, 8, len(out) - 12)
    attributes, = struct.unpack_from(">h", out, 21)
    struct.pack_into(">h", out, 21, (attributes & ~7) | compression)
    struct.pack_into(">I", out, 17, crc32c(memoryview(out)[21:]))
    return bytes(out)
