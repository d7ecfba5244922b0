"""Record batch v2: layout, cross-checks with kafka-python both ways, stamping, bad input.

kafka-python's record classes are the independent implementation: batches it builds
must parse and validate here with the same contents, and batches built here must pass
its CRC check and decode to the same records.
"""

import mmap
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kafka.record.default_records import DefaultRecordBatch, DefaultRecordBatchBuilder
from kafka.record.legacy_records import LegacyRecordBatchBuilder
from kafka.record.memory_records import MemoryRecords, MemoryRecordsBuilder

from protocol.compression import compress
from protocol.errors import (
    BufferUnderflow,
    CorruptRecord,
    InvalidRecord,
    ProtocolError,
    UnsupportedMagic,
)
from protocol.records import (
    BATCH_HEADER_SIZE,
    LOG_OVERHEAD,
    MAGIC,
    BatchHeader,
    Compression,
    ControlType,
    Record,
    TimestampType,
    build_batch,
    build_control_batch,
    check_magic,
    compute_crc,
    iter_batch_headers,
    iter_batches,
    iter_records,
    read_batch_header,
    read_control_record,
    stamp_base_offset,
    stamp_log_append_time,
    stamp_partition_leader_epoch,
    validate_batch,
)

CODECS = list(Compression)
NOW_MS = 1_700_000_000_000

# (key, value, headers, timestamp_ms): nulls, empty bytes, headers with a null value,
# a timestamp before the first one (negative delta), repetitive values so every codec
# really compresses (kafka-python falls back to no compression when it does not help).
SAMPLE = [
    (b"key-0", b"value " * 40, [("trace", b"abc"), ("empty", b""), ("null", None)], NOW_MS),
    (None, b"value " * 40, [], NOW_MS + 5),
    (b"key-2", None, [], NOW_MS - 3),
    (b"", b"", [("\u00e9t\u00e9", b"\x00\xff")], NOW_MS + 1000),
    (b"key-4", b"value " * 400, [], NOW_MS + 2),
]


def expected_contents(samples, base_offset=0):
    return [(base_offset + i, ts, key, value, tuple((k, v) for k, v in headers))
            for i, (key, value, headers, ts) in enumerate(samples)]


def pylog_contents(buf, position=0):
    return [(r.offset, r.timestamp, r.key, r.value, r.headers) for r in iter_records(buf, position)]


def kafka_python_contents(buf):
    batch = DefaultRecordBatch(bytes(buf))
    return [(r.offset, r.timestamp, r.key, r.value, tuple((k, v) for k, v in r.headers))
            for r in batch]


def kafka_python_batch(codec, samples=SAMPLE, *, producer_id=-1, producer_epoch=-1,
                       base_sequence=-1, transactional=False) -> bytes:
    builder = DefaultRecordBatchBuilder(
        magic=2, compression_type=int(codec), is_transactional=transactional,
        producer_id=producer_id, producer_epoch=producer_epoch,
        base_sequence=base_sequence, batch_size=1 << 20)
    for offset_delta, (key, value, headers, ts) in enumerate(samples):
        builder.append(offset_delta, timestamp=ts, key=key, value=value, headers=headers)
    return bytes(builder.build())


def pylog_batch(codec=Compression.NONE, samples=SAMPLE, **options) -> bytes:
    return build_batch(samples, compression=codec, **options)


def rewrite(batch, fmt: str, position: int, value, *, fix_crc: bool = True) -> bytes:
    """The batch with one field replaced; the CRC recomputed unless fix_crc is False."""
    changed = bytearray(batch)
    struct.pack_into(fmt, changed, position, value)
    if fix_crc:
        struct.pack_into(">I", changed, 17, compute_crc(changed))
    return bytes(changed)


# ---------------------------------------------------------------------------------------
# Layout


def test_constants():
    assert (BATCH_HEADER_SIZE, LOG_OVERHEAD, MAGIC) == (61, 12, 2)


def test_header_fields_sit_at_their_documented_positions():
    batch = pylog_batch(base_offset=0x0102030405060708, producer_id=77, producer_epoch=3,
                        base_sequence=1000, partition_leader_epoch=9)
    unpack = struct.unpack_from
    assert unpack(">q", batch, 0)[0] == 0x0102030405060708
    assert unpack(">i", batch, 8)[0] == len(batch) - 12
    assert unpack(">i", batch, 12)[0] == 9
    assert batch[16] == 2
    assert unpack(">I", batch, 17)[0] == compute_crc(batch)
    assert unpack(">h", batch, 21)[0] == 0
    assert unpack(">i", batch, 23)[0] == len(SAMPLE) - 1
    assert unpack(">q", batch, 27)[0] == NOW_MS                      # first record's timestamp
    assert unpack(">q", batch, 35)[0] == NOW_MS + 1000               # the largest
    assert unpack(">q", batch, 43)[0] == 77
    assert unpack(">h", batch, 51)[0] == 3
    assert unpack(">i", batch, 53)[0] == 1000
    assert unpack(">i", batch, 57)[0] == len(SAMPLE)


def test_same_bytes_as_kafka_python_for_an_uncompressed_batch():
    # kafka-python writes leader epoch 0 where producers usually write -1.
    ours = pylog_batch(partition_leader_epoch=0)
    assert ours == kafka_python_batch(Compression.NONE)


def test_golden_bytes_of_a_one_record_batch():
    batch = build_batch([(b"k", b"v")], timestamp_ms=0, base_offset=5)
    record = bytes([0x10,          # length 8 (zig-zag 0x10 = 8)
                    0x00,          # attributes
                    0x00, 0x00,    # timestamp delta 0, offset delta 0
                    0x02, 0x6B,    # key length 1, "k"
                    0x02, 0x76,    # value length 1, "v"
                    0x00])         # no headers
    header_after_crc = struct.pack(">hiqqqhii", 0, 0, 0, 0, -1, -1, -1, 1)
    assert batch[61:] == record
    assert batch[21:61] == header_after_crc
    assert batch[:17] == struct.pack(">qiib", 5, 49 + len(record), -1, 2)
    assert read_batch_header(batch).crc == compute_crc(batch)


# ---------------------------------------------------------------------------------------
# kafka-python -> pylog


@pytest.mark.parametrize("codec", CODECS)
def test_kafka_python_batches_validate_and_iterate(codec):
    batch = kafka_python_batch(codec)
    header = validate_batch(batch)
    assert header.compression is codec
    assert header.records_count == len(SAMPLE)
    assert header.last_offset_delta == len(SAMPLE) - 1
    assert header.base_timestamp == NOW_MS
    assert header.max_timestamp == NOW_MS + 1000
    assert header.size_bytes == len(batch)
    assert header.crc == compute_crc(batch)
    assert header.timestamp_type is TimestampType.CREATE_TIME
    assert not header.is_transactional and not header.is_control
    assert pylog_contents(batch) == expected_contents(SAMPLE)


@pytest.mark.parametrize("codec", CODECS)
def test_kafka_python_idempotent_and_transactional_batches(codec):
    batch = kafka_python_batch(codec, producer_id=4242, producer_epoch=7,
                               base_sequence=2**31 - 2, transactional=True)
    header = validate_batch(batch)
    assert (header.producer_id, header.producer_epoch, header.base_sequence) == (4242, 7, 2**31 - 2)
    assert header.is_transactional
    # 2**31 - 2 plus 4 wraps past INT32_MAX: ..., 2**31 - 1, 0, 1, 2
    assert header.last_sequence == 2
    assert header.last_sequence == DefaultRecordBatch(batch).last_sequence
    assert pylog_contents(batch) == expected_contents(SAMPLE)


def test_memory_records_of_several_batches():
    blob = bytearray()
    for codec in CODECS:
        builder = MemoryRecordsBuilder(magic=2, compression_type=int(codec), batch_size=1 << 20)
        for key, value, headers, ts in SAMPLE:
            builder.append(ts, key, value, headers)
        builder.close()
        blob += builder.buffer()
    positions = [position for position, _ in iter_batch_headers(blob)]
    assert len(positions) == len(CODECS)
    for position, codec in zip(positions, CODECS):
        assert validate_batch(blob, position).compression is codec
        assert pylog_contents(blob, position) == expected_contents(SAMPLE)


# ---------------------------------------------------------------------------------------
# pylog -> kafka-python


@pytest.mark.parametrize("codec", CODECS)
def test_pylog_batches_pass_kafka_python(codec):
    batch = pylog_batch(codec, base_offset=1000)
    theirs = DefaultRecordBatch(batch)
    assert theirs.validate_crc()
    assert theirs.compression_type == codec
    assert theirs.base_offset == 1000
    assert theirs.next_offset == 1000 + len(SAMPLE)
    assert kafka_python_contents(batch) == expected_contents(SAMPLE, base_offset=1000)
    assert pylog_contents(batch) == expected_contents(SAMPLE, base_offset=1000)


@pytest.mark.parametrize("codec", CODECS)
def test_pylog_idempotent_and_transactional_batches_pass_kafka_python(codec):
    batch = pylog_batch(codec, producer_id=99, producer_epoch=2, base_sequence=10,
                        is_transactional=True)
    theirs = DefaultRecordBatch(batch)
    assert theirs.validate_crc()
    assert (theirs.producer_id, theirs.producer_epoch, theirs.base_sequence) == (99, 2, 10)
    assert theirs.is_transactional and not theirs.is_control_batch
    assert theirs.last_sequence == validate_batch(batch).last_sequence == 14
    assert kafka_python_contents(batch) == expected_contents(SAMPLE)


@pytest.mark.parametrize("control_type", [ControlType.ABORT, ControlType.COMMIT])
def test_control_batches_pass_kafka_python(control_type):
    batch = build_control_batch(control_type, producer_id=31, producer_epoch=4,
                                coordinator_epoch=12, timestamp_ms=NOW_MS, base_offset=50)
    header = validate_batch(batch)
    assert header.is_control and header.is_transactional
    assert (header.producer_id, header.producer_epoch, header.base_sequence) == (31, 4, -1)
    assert header.records_count == 1 and header.base_offset == 50

    theirs = DefaultRecordBatch(batch)
    assert theirs.validate_crc()
    assert theirs.is_control_batch and theirs.is_transactional
    [marker] = list(theirs)
    assert (marker.version, marker.type, marker.offset) == (0, int(control_type), 50)
    assert marker.value == struct.pack(">hi", 0, 12)

    [record] = iter_records(batch)
    assert read_control_record(record) == (control_type, 12)
    assert record.timestamp == NOW_MS


def test_log_append_time_batch_built_here():
    batch = pylog_batch(Compression.LZ4, timestamp_type=TimestampType.LOG_APPEND_TIME,
                        timestamp_ms=NOW_MS + 9999)
    header = validate_batch(batch)
    assert header.timestamp_type is TimestampType.LOG_APPEND_TIME
    assert header.max_timestamp == NOW_MS + 9999
    assert {r.timestamp for r in iter_records(batch)} == {NOW_MS + 9999}
    assert {r.timestamp for r in DefaultRecordBatch(batch)} == {NOW_MS + 9999}


def test_memory_records_reads_a_blob_of_pylog_batches():
    blob = b"".join(pylog_batch(codec, base_offset=10 * i) for i, codec in enumerate(CODECS))
    records = MemoryRecords(blob)
    seen = []
    while records.has_next():
        batch = records.next_batch()
        assert batch.validate_crc()
        seen.append((batch.base_offset, batch.compression_type, len(list(batch))))
    assert seen == [(10 * i, int(codec), len(SAMPLE)) for i, codec in enumerate(CODECS)]


# ---------------------------------------------------------------------------------------
# build_batch: the forms it accepts


def test_records_as_tuples_and_record_objects():
    records = [
        (b"a", b"1"),                                          # gets timestamp_ms
        (b"b", b"2", [("h", b"x")]),
        (b"c", b"3", (), NOW_MS + 7),
        Record(offset=123, timestamp=NOW_MS + 8, key=b"d", value=None, headers=(("z", None),)),
    ]
    batch = build_batch(records, timestamp_ms=NOW_MS, base_offset=40)
    assert pylog_contents(batch) == [
        (40, NOW_MS, b"a", b"1", ()),
        (41, NOW_MS, b"b", b"2", (("h", b"x"),)),
        (42, NOW_MS + 7, b"c", b"3", ()),
        (43, NOW_MS + 8, b"d", None, (("z", None),)),          # offset from position, not .offset
    ]


def test_records_round_trip_through_iter_records_and_build_batch():
    first = build_batch(SAMPLE, compression=Compression.GZIP, base_offset=7)
    again = build_batch(list(iter_records(first)), compression=Compression.GZIP, base_offset=7)
    assert pylog_contents(again) == pylog_contents(first)


def test_a_record_without_timestamp_needs_timestamp_ms():
    with pytest.raises(ValueError, match="timestamp"):
        build_batch([(b"k", b"v")])


def test_wrong_types_and_ranges_are_refused():
    with pytest.raises(TypeError):
        build_batch([("text key", b"v")], timestamp_ms=0)
    with pytest.raises(TypeError):
        build_batch([(b"k", b"v", [(b"bytes name", b"x")])], timestamp_ms=0)
    with pytest.raises(ValueError):
        build_batch([(b"k",)], timestamp_ms=0)
    with pytest.raises(ValueError):
        build_batch([(b"k", b"v")], timestamp_ms=0, producer_epoch=40_000)   # not an int16


def test_empty_batch():
    batch = build_batch([], timestamp_ms=NOW_MS)
    header = validate_batch(batch)
    assert (header.records_count, header.last_offset_delta, header.size_bytes) == (0, 0, 61)
    assert header.base_timestamp == header.max_timestamp == NOW_MS
    assert list(iter_records(batch)) == []
    assert DefaultRecordBatch(batch).validate_crc()


def test_control_batch_types_other_than_markers_are_refused():
    with pytest.raises(ValueError):
        build_control_batch(ControlType.LEADER_CHANGE, producer_id=1, producer_epoch=0,
                            timestamp_ms=0)


# ---------------------------------------------------------------------------------------
# BatchHeader properties


def header_with(**fields) -> BatchHeader:
    defaults = dict(base_offset=100, batch_length=49, partition_leader_epoch=0, magic=2, crc=0,
                    attributes=0, last_offset_delta=4, base_timestamp=0, max_timestamp=0,
                    producer_id=-1, producer_epoch=-1, base_sequence=-1, records_count=5)
    return BatchHeader(**{**defaults, **fields})


def test_offsets_and_size():
    header = header_with()
    assert (header.last_offset, header.next_offset, header.size_bytes) == (104, 105, 61)


@pytest.mark.parametrize(("base_sequence", "last_offset_delta", "last_sequence"), [
    (-1, 4, -1),
    (0, 4, 4),
    (2**31 - 1, 0, 2**31 - 1),
    (2**31 - 1, 1, 0),
    (2**31 - 3, 4, 1),
])
def test_last_sequence_wraps_to_zero(base_sequence, last_offset_delta, last_sequence):
    header = header_with(base_sequence=base_sequence, last_offset_delta=last_offset_delta)
    assert header.last_sequence == last_sequence


def test_attribute_bits():
    header = header_with(attributes=0b0111_1100)    # zstd, log append time, txn, control, horizon
    assert header.compression is Compression.ZSTD
    assert header.timestamp_type is TimestampType.LOG_APPEND_TIME
    assert header.is_transactional and header.is_control and header.has_delete_horizon
    assert not header_with(attributes=0).has_delete_horizon
    with pytest.raises(InvalidRecord):
        header_with(attributes=6).compression


def test_read_batch_header_needs_61_bytes_and_checks_nothing_else():
    batch = pylog_batch()
    assert read_batch_header(batch) == validate_batch(batch)
    garbage = bytes(range(61))
    assert read_batch_header(garbage).magic == 16            # parsed, not judged
    assert read_batch_header(b"\x00" * 10 + batch, 10) == validate_batch(batch)
    with pytest.raises(BufferUnderflow):
        read_batch_header(batch[:60])


# ---------------------------------------------------------------------------------------
# Walking a log of batches


def test_iter_batch_headers_and_iter_batches_stop_at_a_partial_batch():
    batches = [pylog_batch(codec, base_offset=100 * i) for i, codec in enumerate(CODECS)]
    blob = b"".join(batches)
    expected_positions = [sum(len(b) for b in batches[:i]) for i in range(len(batches))]
    walked = list(iter_batch_headers(blob))
    assert [position for position, _ in walked] == expected_positions
    assert [header.base_offset for _, header in walked] == [0, 100, 200, 300, 400]
    assert [bytes(view) for view in iter_batches(blob)] == batches
    # A torn tail: any prefix of the last batch is skipped silently.
    last_start = expected_positions[-1]
    for cut in (1, 16, 60, 61, len(batches[-1]) - 1):
        torn = blob[:last_start + cut]
        assert [p for p, _ in iter_batch_headers(torn)] == expected_positions[:-1]
    # Starting part-way through.
    assert [p for p, _ in iter_batch_headers(blob, expected_positions[2])] == expected_positions[2:]


def test_iter_batch_headers_refuses_a_length_it_cannot_walk_past():
    good = pylog_batch()
    bad = rewrite(good, ">i", 8, 10, fix_crc=False)
    walker = iter_batch_headers(good + bad + good)
    assert next(walker) == (0, validate_batch(good))
    with pytest.raises(CorruptRecord, match=f"position {len(good)}"):
        next(walker)
    legacy = rewrite(good, ">b", 16, 1, fix_crc=False)
    with pytest.raises(UnsupportedMagic):
        list(iter_batch_headers(good + legacy))


# ---------------------------------------------------------------------------------------
# Stamping


def test_stamping_base_offset_and_leader_epoch_keeps_the_crc():
    original = pylog_batch(Compression.SNAPPY)
    log = bytearray(b"\xee" * 7) + original           # the batch at position 7 of a buffer
    stamp_base_offset(log, 7, 123_456_789_000)
    stamp_partition_leader_epoch(log, 7, 42)
    header = validate_batch(log, 7)
    assert header.base_offset == 123_456_789_000
    assert header.partition_leader_epoch == 42
    assert header.crc == read_batch_header(original).crc
    assert log[7 + 16:] == original[16:]              # nothing else moved
    assert log[:7] == b"\xee" * 7
    assert [r.offset for r in iter_records(log, 7)] == [123_456_789_000 + i for i in range(5)]
    theirs = DefaultRecordBatch(bytes(log[7:]))
    assert theirs.validate_crc() and theirs.base_offset == 123_456_789_000
    assert theirs.leader_epoch == 42


def test_stamping_a_writable_memoryview_and_an_mmap():
    batch = pylog_batch()
    buffer = bytearray(batch)
    stamp_base_offset(memoryview(buffer), 0, 5)
    assert validate_batch(buffer).base_offset == 5
    with mmap.mmap(-1, len(batch)) as mapped:
        mapped[:] = batch
        stamp_base_offset(mapped, 0, 6)
        stamp_partition_leader_epoch(mapped, 0, 3)
        stamp_log_append_time(mapped, 0, NOW_MS)
        header = validate_batch(mapped)
        assert (header.base_offset, header.partition_leader_epoch) == (6, 3)
        assert header.timestamp_type is TimestampType.LOG_APPEND_TIME
        mapped.close()          # BufferError if any function had left a view of it behind
        assert mapped.closed


def test_log_append_time_recomputes_the_crc():
    batch = bytearray(pylog_batch(Compression.ZSTD, producer_id=5, producer_epoch=0,
                                  base_sequence=0))
    before = read_batch_header(batch)
    stamp_log_append_time(batch, 0, NOW_MS + 60_000)
    after = validate_batch(batch)
    assert after.crc != before.crc
    assert after.timestamp_type is TimestampType.LOG_APPEND_TIME
    assert after.max_timestamp == NOW_MS + 60_000
    assert after.base_timestamp == before.base_timestamp
    assert after.attributes == before.attributes | 0x08
    assert after.compression is Compression.ZSTD
    assert {r.timestamp for r in iter_records(batch)} == {NOW_MS + 60_000}
    theirs = DefaultRecordBatch(bytes(batch))
    assert theirs.validate_crc()
    assert theirs.timestamp_type == 1
    assert {r.timestamp for r in theirs} == {NOW_MS + 60_000}


def test_log_append_time_on_a_truncated_batch_writes_nothing():
    batch = bytearray(pylog_batch()[:-1])
    snapshot = bytes(batch)
    with pytest.raises(CorruptRecord):
        stamp_log_append_time(batch, 0, NOW_MS)
    assert batch == snapshot


# ---------------------------------------------------------------------------------------
# Bad input


def legacy_message_set(magic: int) -> bytes:
    builder = LegacyRecordBatchBuilder(magic=magic, compression_type=0, batch_size=1 << 20)
    builder.append(0, timestamp=NOW_MS if magic else None, key=b"k", value=b"v" * 100)
    return bytes(builder.build())


@pytest.mark.parametrize("magic", [0, 1])
def test_legacy_message_sets_get_a_clear_unsupported_magic(magic):
    message_set = legacy_message_set(magic)
    assert message_set[16] == magic
    clear_message = f"magic {magic} is not supported.*only magic 2"
    with pytest.raises(UnsupportedMagic, match=clear_message) as info:
        validate_batch(message_set)
    assert info.value.magic == magic
    with pytest.raises(UnsupportedMagic, match=clear_message):
        check_magic(message_set)
    with pytest.raises(UnsupportedMagic, match=clear_message):
        list(iter_records(message_set))
    with pytest.raises(UnsupportedMagic, match=clear_message):
        list(iter_batch_headers(message_set))


@pytest.mark.parametrize("magic", [0, 1])
def test_a_legacy_message_set_shorter_than_a_v2_header_still_gets_unsupported_magic(magic):
    message_set = legacy_message_set(magic)[:40]   # 17..60 bytes: magic readable, header not
    with pytest.raises(UnsupportedMagic):
        validate_batch(message_set)


@pytest.mark.parametrize("magic", [3, -1, 127])
def test_other_magic_values(magic):
    with pytest.raises(UnsupportedMagic):
        validate_batch(rewrite(pylog_batch(), ">b", 16, magic, fix_crc=False))


def test_every_flipped_bit_of_the_crc_covered_bytes_is_caught():
    batch = pylog_batch(Compression.GZIP)
    for position in range(17, len(batch)):
        flipped = bytearray(batch)
        flipped[position] ^= 0x01
        with pytest.raises(CorruptRecord, match="CRC"):
            validate_batch(flipped)


def test_bytes_outside_the_crc_may_change():
    batch = rewrite(pylog_batch(), ">q", 0, 987, fix_crc=False)
    assert validate_batch(batch).base_offset == 987


def test_every_truncation_is_corrupt():
    batch = pylog_batch(Compression.LZ4)
    for cut in range(len(batch)):
        with pytest.raises(CorruptRecord):
            validate_batch(batch[:cut])
        with pytest.raises(CorruptRecord):
            list(iter_records(batch[:cut]))


@pytest.mark.parametrize("batch_length", [2**31 - 1, 10**6, -1, -12, -(2**31), 0, 48])
def test_impossible_batch_lengths(batch_length):
    batch = rewrite(pylog_batch(), ">i", 8, batch_length, fix_crc=False)
    with pytest.raises(CorruptRecord):
        validate_batch(batch)
    with pytest.raises(CorruptRecord):
        list(iter_records(batch))


def test_position_past_the_end():
    with pytest.raises(CorruptRecord):
        validate_batch(pylog_batch(), 10_000)


def test_records_count_lying_upwards():
    # Uncompressed: more records than the bytes can hold is caught without parsing.
    batch = rewrite(pylog_batch(), ">i", 57, 1_000_000)
    with pytest.raises(InvalidRecord, match="claims"):
        validate_batch(batch)
    # Within that bound, or compressed: caught when the records run out.
    for codec in CODECS:
        batch = rewrite(pylog_batch(codec), ">i", 57, len(SAMPLE) + 1)
        validate_batch(batch)
        with pytest.raises(InvalidRecord, match="declares"):
            list(iter_records(batch))
    batch = rewrite(pylog_batch(Compression.ZSTD), ">i", 57, 2**31 - 1)
    with pytest.raises(InvalidRecord):
        list(iter_records(batch))


def test_records_count_lying_downwards():
    for codec in CODECS:
        batch = rewrite(pylog_batch(codec), ">i", 57, len(SAMPLE) - 1)
        validate_batch(batch)
        records = iter_records(batch)
        assert [next(records).key for _ in range(len(SAMPLE) - 1)] == [s[0] for s in SAMPLE[:-1]]
        with pytest.raises(InvalidRecord, match="follow"):
            next(records)


@pytest.mark.parametrize(("position", "fmt", "value"), [
    (57, ">i", -1),                # records_count
    (23, ">i", -5),                # last_offset_delta
    (21, ">h", 5),                 # compression codec 5
    (21, ">h", 7),
])
def test_negative_counts_and_unknown_codecs(position, fmt, value):
    batch = rewrite(pylog_batch(), fmt, position, value)
    with pytest.raises(InvalidRecord):
        validate_batch(batch)
    with pytest.raises(InvalidRecord):
        list(iter_records(batch))


@pytest.mark.parametrize("codec", [c for c in CODECS if c is not Compression.NONE])
def test_corrupt_compressed_payload_with_a_valid_crc(codec):
    batch = bytearray(pylog_batch(codec))
    # Replace the compressed blob by a truncated copy; fix up the length and the CRC.
    blob = bytes(batch[61:])
    damaged = bytearray(batch[:61]) + blob[:len(blob) // 2]
    struct.pack_into(">i", damaged, 8, len(damaged) - 12)
    struct.pack_into(">I", damaged, 17, compute_crc(damaged))
    validate_batch(damaged)                          # the header and CRC are fine
    with pytest.raises(CorruptRecord):
        list(iter_records(damaged))


def test_records_with_lying_lengths():
    valid = bytearray(pylog_batch(samples=[(b"k", b"v", [], NOW_MS)]))
    # The record's length varint at position 61 says 8 (0x10); claim 9, 7, 60 and -1.
    assert valid[61] == 0x10
    for record_length in (0x12, 0x0E, 0x78, 0x01):
        changed = bytearray(valid)
        changed[61] = record_length
        struct.pack_into(">I", changed, 17, compute_crc(changed))
        with pytest.raises(InvalidRecord):
            list(iter_records(changed))
    # Key length 63 inside an 8-byte record (iter_records does not check the CRC).
    changed = bytearray(valid)
    changed[65] = 0x7E
    with pytest.raises(InvalidRecord):
        list(iter_records(changed))


def test_compressed_batch_over_the_decompression_limit():
    samples = [(b"k", bytes(100_000), [], NOW_MS)]
    batch = pylog_batch(Compression.ZSTD, samples=samples)
    assert len(list(iter_records(batch))) == 1
    with pytest.raises(CorruptRecord, match="limit"):
        list(iter_records(batch, max_decompressed_bytes=50_000))


# ---------------------------------------------------------------------------------------
# Control records


def control_record(key, value) -> Record:
    return Record(offset=0, timestamp=0, key=key, value=value)


def test_read_control_record():
    abort = control_record(b"\x00\x00\x00\x00", b"\x00\x00\x00\x00\x00\x07")
    assert read_control_record(abort) == (ControlType.ABORT, 7)
    # A newer key version with extra bytes is still read.
    newer_commit = control_record(b"\x00\x01\x00\x01xx", b"\x00\x00\x00\x00\x00\x02")
    assert read_control_record(newer_commit) == (ControlType.COMMIT, 2)
    leader_change = control_record(b"\x00\x00\x00\x02", b"anything")
    assert read_control_record(leader_change) == (ControlType.LEADER_CHANGE, -1)
    unknown = control_record(b"\x00\x00\x00\x63", None)
    assert read_control_record(unknown) == (ControlType.UNKNOWN, -1)


@pytest.mark.parametrize(("key", "value"), [
    (None, b"\x00\x00\x00\x00\x00\x07"),
    (b"\x00\x00\x00", b"\x00\x00\x00\x00\x00\x07"),
    (b"\xff\xff\x00\x00", b"\x00\x00\x00\x00\x00\x07"),
    (b"\x00\x00\x00\x01", None),
    (b"\x00\x00\x00\x01", b"\x00\x00\x00\x00\x07"),
    (b"\x00\x00\x00\x00", b"\xff\xff\x00\x00\x00\x07"),
])
def test_malformed_control_records(key, value):
    with pytest.raises(InvalidRecord):
        read_control_record(control_record(key, value))


# ---------------------------------------------------------------------------------------
# Fuzzing: only ProtocolError subclasses escape


def _valid_batches():
    batches = [pylog_batch(codec) for codec in CODECS]
    batches.append(build_control_batch(ControlType.ABORT, producer_id=1, producer_epoch=1,
                                       timestamp_ms=NOW_MS))
    batches.append(kafka_python_batch(Compression.GZIP))
    return batches


VALID_BATCHES = _valid_batches()


def validate_and_read(buf, *, check_crc: bool):
    try:
        if check_crc:
            validate_batch(buf)
        for record in iter_records(buf, max_decompressed_bytes=1 << 20):
            if read_batch_header(buf).is_control:
                read_control_record(record)
    except ProtocolError:
        pass


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), which=st.integers(0, len(VALID_BATCHES) - 1), fix_crc=st.booleans())
def test_mutated_batches_raise_only_protocol_errors(data, which, fix_crc):
    batch = bytearray(VALID_BATCHES[which])
    flips = data.draw(st.lists(st.tuples(st.integers(0, len(batch) - 1), st.integers(1, 255)),
                               min_size=1, max_size=6))
    for position, xor in flips:
        batch[position] ^= xor
    cut = data.draw(st.integers(0, len(batch)))
    batch = batch[:cut] if data.draw(st.booleans()) else batch
    if fix_crc and len(batch) >= 61:
        # Without a CRC fix nearly every mutation stops at the CRC; with it, the
        # record parser and the decompressors see the damage.
        length = struct.unpack_from(">i", batch, 8)[0]
        if 49 <= length and 12 + length <= len(batch):
            struct.pack_into(">I", batch, 17, compute_crc(batch))
    validate_and_read(batch, check_crc=True)
    validate_and_read(batch, check_crc=False)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_raise_only_protocol_errors(blob):
    validate_and_read(blob, check_crc=True)
    validate_and_read(b"\x00" * 16 + b"\x02" + blob, check_crc=False)
    try:
        list(iter_batch_headers(blob))
    except ProtocolError:
        pass


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.none() | st.binary(max_size=50),
                          st.none() | st.binary(max_size=300),
                          st.lists(st.tuples(st.text(max_size=10),
                                             st.none() | st.binary(max_size=20)), max_size=3),
                          st.integers(-(2**40), 2**40)),
                min_size=1, max_size=8),
       st.sampled_from(CODECS))
def test_build_then_read_round_trip(samples, codec):
    batch = build_batch(samples, compression=codec, base_offset=3)
    validate_batch(batch)
    assert pylog_contents(batch) == expected_contents(samples, base_offset=3)
    assert kafka_python_contents(batch) == expected_contents(samples, base_offset=3)


def test_compress_helper_is_what_batches_hold():
    # The records area of a compressed batch is compress() of the uncompressed one.
    plain = pylog_batch(Compression.NONE)
    zstd = pylog_batch(Compression.ZSTD)
    assert zstd[61:] == compress(Compression.ZSTD, plain[61:])
