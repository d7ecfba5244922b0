"""`pylog.tools.dump_log` against an independent reader.

Segments are written by hand (batches from protocol.records, base offsets stamped in
place, index files packed with struct). Every expected output line is built from what
kafka-python's own record classes (`MemoryRecords`, `DefaultRecordBatch`,
`LegacyRecordBatch`) read from the same bytes, in the field order of Kafka 3.9's
DumpLogSegments, so the dump is checked against a second implementation of the format
rather than against itself.
"""

from __future__ import annotations

import ast
import io
import os
import struct
from pathlib import Path

import crc32c as crc32c_lib
import pytest
from kafka.record.default_records import DefaultRecordBatch, DefaultRecordBatchBuilder
from kafka.record.legacy_records import LegacyRecordBatch, LegacyRecordBatchBuilder
from kafka.record.memory_records import MemoryRecords

from protocol import records
from protocol.compression import Compression
from pylog.tools import dump_log
from pylog.tools.dump_log import dump_files, main

SEGMENT = "00000000000000000000"
T0 = 1_700_000_000_000
CODEC_NAMES = {0: "none", 1: "gzip", 2: "snappy", 3: "lz4", 4: "zstd"}
INT32_MAX = 2**31 - 1


# ---------------------------------------------------------------------------------------
# Building segments


def stamped(batch: bytes, base_offset: int, leader_epoch: int | None = None) -> bytes:
    buf = bytearray(batch)
    records.stamp_base_offset(buf, 0, base_offset)
    if leader_epoch is not None:
        records.stamp_partition_leader_epoch(buf, 0, leader_epoch)
    return bytes(buf)


def concatenate(batches: list[bytes], first_offset: int = 0, leader_epoch: int = 0) -> bytes:
    """Lay batches end to end, stamping each base offset right after the previous batch."""
    out = bytearray()
    offset = first_offset
    for batch in batches:
        out += stamped(batch, offset, leader_epoch)
        offset += records.read_batch_header(batch).last_offset_delta + 1
    return bytes(out)


def kafka_python_batch(compression: int, count: int) -> bytes:
    """A batch written by kafka-python's builder, not by pylog."""
    builder = DefaultRecordBatchBuilder(magic=2, compression_type=compression,
                                        is_transactional=False, producer_id=-1,
                                        producer_epoch=-1, base_sequence=-1,
                                        batch_size=1 << 20)
    for i in range(count):
        builder.append(i, timestamp=T0 + 500 + i, key=f"kp{i}".encode(),
                       value=f"from kafka-python {i}".encode(), headers=[("src", b"kp")])
    return bytes(builder.build())


def mixed_batches() -> list[bytes]:
    """One of everything: nulls, headers, every codec, idempotence, transactions, markers."""
    text = [(f"key-{i}".encode(), ("value " * (i + 1)).encode()) for i in range(6)]
    return [
        records.build_batch([(b"abc", b"hello"), (None, b"no key", [("h1", b"v"), ("h2", None)]),
                             (b"tombstone", None)], timestamp_ms=T0),
        records.build_batch(text, compression=Compression.GZIP, timestamp_ms=T0 + 10),
        records.build_batch(text, compression=Compression.SNAPPY, timestamp_ms=T0 + 20),
        records.build_batch(text, compression=Compression.LZ4, timestamp_ms=T0 + 30),
        records.build_batch(text, compression=Compression.ZSTD, timestamp_ms=T0 + 40),
        records.build_batch(text[:4], producer_id=42, producer_epoch=3,
                            base_sequence=INT32_MAX - 1, timestamp_ms=T0 + 50),
        records.build_batch([(b"tx", b"in a transaction", (), T0 + 61),
                             (b"tx", b"later", (), T0 + 65)],
                            producer_id=43, producer_epoch=0, base_sequence=0,
                            is_transactional=True),
        records.build_control_batch(records.ControlType.COMMIT, producer_id=43,
                                    producer_epoch=0, coordinator_epoch=7,
                                    timestamp_ms=T0 + 70),
        records.build_batch([(b"x", b"aborted")], producer_id=44, producer_epoch=1,
                            base_sequence=5, is_transactional=True, timestamp_ms=T0 + 80),
        records.build_control_batch(records.ControlType.ABORT, producer_id=44,
                                    producer_epoch=1, coordinator_epoch=2,
                                    timestamp_ms=T0 + 90),
        records.build_batch([(b"lat", b"broker time"), (b"lat", b"same")],
                            timestamp_type=records.TimestampType.LOG_APPEND_TIME,
                            timestamp_ms=T0 + 100),
        kafka_python_batch(compression=2, count=3),
        records.build_batch([(b"\xff\xfe", "ünïcödé".encode())], timestamp_ms=T0 + 110),
    ]


def write_segment(directory: Path, data: bytes, name: str = SEGMENT) -> Path:
    path = directory / f"{name}.log"
    path.write_bytes(data)
    return path


# ---------------------------------------------------------------------------------------
# Expected lines, from kafka-python


def java_bool(value) -> str:
    return "true" if value else "false"


def increment_sequence(sequence: int, increment: int) -> int:
    if sequence > INT32_MAX - increment:
        return increment - (INT32_MAX - sequence) - 1
    return sequence + increment


def kafka_python_walk(data: bytes) -> list[tuple[int, object]]:
    """(position, batch) of each whole batch, as kafka-python's MemoryRecords walks them."""
    walked = []
    position = 0
    for batch in MemoryRecords(data):
        walked.append((position, batch))
        position += batch.size_in_bytes
    return walked


def expected_batch_line(position: int, batch: DefaultRecordBatch, valid: bool) -> str:
    assert batch.magic == 2
    timestamp_type = "LogAppendTime" if batch.timestamp_type else "CreateTime"
    delete_horizon = (f"OptionalLong[{batch.first_timestamp}]" if batch.attributes & 0x40
                      else "OptionalLong.empty")
    return (f"baseOffset: {batch.base_offset} lastOffset: {batch.last_offset} "
            f"count: {batch.records_count} baseSequence: {batch.base_sequence} "
            f"lastSequence: {batch.last_sequence} producerId: {batch.producer_id} "
            f"producerEpoch: {batch.producer_epoch} partitionLeaderEpoch: {batch.leader_epoch} "
            f"isTransactional: {java_bool(batch.is_transactional)} "
            f"isControl: {java_bool(batch.is_control_batch)} deleteHorizonMs: {delete_horizon} "
            f"position: {position} {timestamp_type}: {batch.max_timestamp} "
            f"size: {batch.size_in_bytes} magic: 2 "
            f"compresscodec: {CODEC_NAMES[batch.compression_type]} crc: {batch.crc} "
            f"isvalid: {java_bool(valid)}")


def expected_record_line(batch: DefaultRecordBatch, record, print_data: bool) -> str:
    timestamp_type = "LogAppendTime" if batch.timestamp_type else "CreateTime"
    sequence = (-1 if batch.base_sequence == -1
                else increment_sequence(batch.base_sequence, record.offset - batch.base_offset))
    key_size = -1 if record.key is None else len(record.key)
    value_size = -1 if record.value is None else len(record.value)
    line = (f"| offset: {record.offset} {timestamp_type}: {record.timestamp} "
            f"keySize: {key_size} valueSize: {value_size} sequence: {sequence} "
            f"headerKeys: [{','.join(key for key, _ in record.headers)}]")
    if batch.is_control_batch:
        _, type_id = struct.unpack(">hh", record.key)
        _, coordinator_epoch = struct.unpack(">hi", record.value)
        return line + f" endTxnMarker: {['ABORT', 'COMMIT'][type_id]} " \
                      f"coordinatorEpoch: {coordinator_epoch}"
    if print_data:
        if record.key is not None:
            line += f" key: {record.key.decode('utf-8', 'replace')}"
        if record.value is not None:
            line += f" payload: {record.value.decode('utf-8', 'replace')}"
    return line


def expected_log_lines(data: bytes, deep: bool, print_data: bool) -> list[str]:
    lines = ["Log starting offset: 0"]
    for position, batch in kafka_python_walk(data):
        lines.append(expected_batch_line(position, batch, batch.validate_crc()))
        if deep:
            lines.extend(expected_record_line(batch, record, print_data) for record in batch)
    return lines


def run_dump(paths, **options) -> tuple[list[str], list[str], list]:
    out, err = io.StringIO(), io.StringIO()
    results = dump_files([str(path) for path in paths], out, err, **options)
    return out.getvalue().splitlines(), err.getvalue().splitlines(), results


# ---------------------------------------------------------------------------------------
# .log files


@pytest.mark.parametrize("options, deep, print_data", [
    ({}, False, False),
    ({"deep_iteration": True}, True, False),
    ({"print_data_log": True}, True, True),
    ({"print_data_log": True, "deep_iteration": True}, True, True),
])
def test_log_dump_matches_kafka_python(tmp_path, options, deep, print_data):
    data = concatenate(mixed_batches(), leader_epoch=5)
    path = write_segment(tmp_path, data)

    lines, errors, [result] = run_dump([path], **options)

    assert lines == [f"Dumping {path}"] + expected_log_lines(data, deep, print_data)
    assert errors == []
    assert result.ok
    assert result.batches == len(mixed_batches())
    assert result.valid_bytes == len(data)


def test_every_codec_and_kind_of_batch_appears():
    """The fixture really covers what the other tests claim to check."""
    walked = kafka_python_walk(concatenate(mixed_batches()))
    assert {batch.compression_type for _, batch in walked} == {0, 1, 2, 3, 4}
    assert any(batch.is_control_batch for _, batch in walked)
    assert any(batch.timestamp_type == 1 for _, batch in walked)
    assert any(batch.last_sequence < batch.base_sequence for _, batch in walked)  # wraps


def test_record_fields_for_one_batch(tmp_path):
    """The example of the module docstring, spelled out field by field."""
    path = write_segment(tmp_path, stamped(records.build_batch(
        [(b"abc", b"hello"), (None, b"x", [("a", b"1"), ("b", None)]), (b"k", None)],
        timestamp_ms=T0), 0, 0))
    lines, _, _ = run_dump([path], print_data_log=True)
    batch = DefaultRecordBatch(path.read_bytes())
    assert lines[2].startswith("baseOffset: 0 lastOffset: 2 count: 3 baseSequence: -1 "
                               "lastSequence: -1 producerId: -1 producerEpoch: -1 "
                               "partitionLeaderEpoch: 0 isTransactional: false isControl: false "
                               "deleteHorizonMs: OptionalLong.empty position: 0 "
                               f"CreateTime: {T0} size: {batch.size_in_bytes} magic: 2 "
                               f"compresscodec: none crc: {batch.crc} isvalid: true")
    assert lines[3:] == [
        f"| offset: 0 CreateTime: {T0} keySize: 3 valueSize: 5 sequence: -1 headerKeys: [] "
        "key: abc payload: hello",
        f"| offset: 1 CreateTime: {T0} keySize: -1 valueSize: 1 sequence: -1 "
        "headerKeys: [a,b] payload: x",
        f"| offset: 2 CreateTime: {T0} keySize: 1 valueSize: -1 sequence: -1 headerKeys: [] "
        "key: k",
    ]


def test_control_records_print_the_marker_and_no_data(tmp_path):
    marker = records.build_control_batch(records.ControlType.ABORT, producer_id=9,
                                         producer_epoch=4, coordinator_epoch=11,
                                         timestamp_ms=T0)
    path = write_segment(tmp_path, stamped(marker, 17, 2))
    lines, _, _ = run_dump([path], print_data_log=True)
    assert " isTransactional: true isControl: true " in lines[2]
    assert " producerId: 9 producerEpoch: 4 " in lines[2]
    assert lines[3] == (f"| offset: 17 CreateTime: {T0} keySize: 4 valueSize: 6 sequence: -1 "
                        "headerKeys: [] endTxnMarker: ABORT coordinatorEpoch: 11")


def test_kraft_control_types_print_their_name(tmp_path):
    """A LEADER_CHANGE record (KRaft's metadata log) prints as Kafka's default case does."""
    batch = records.build_control_batch(records.ControlType.COMMIT, producer_id=1,
                                        producer_epoch=0, timestamp_ms=T0)
    # Rewrite the record key's type from COMMIT (1) to LEADER_CHANGE (2), then the CRC.
    buf = bytearray(batch)
    key_at = buf.rindex(b"\x08" + struct.pack(">hh", 0, 1)) + 1   # after key length 4
    struct.pack_into(">hh", buf, key_at, 0, 2)
    struct.pack_into(">I", buf, 17, crc32c_lib.crc32c(bytes(buf[21:])))
    path = write_segment(tmp_path, bytes(buf))
    lines, _, [result] = run_dump([path], deep_iteration=True)
    assert lines[3].endswith(" headerKeys: [] controlType: LEADER_CHANGE(2)")
    assert result.ok


def test_delete_horizon_is_printed_when_set(tmp_path):
    buf = bytearray(records.build_batch([(b"k", None)], timestamp_ms=T0))
    attributes, = struct.unpack_from(">h", buf, 21)
    struct.pack_into(">h", buf, 21, attributes | 0x40)
    struct.pack_into(">I", buf, 17, crc32c_lib.crc32c(bytes(buf[21:])))
    path = write_segment(tmp_path, bytes(buf))
    lines, _, _ = run_dump([path])
    assert f" deleteHorizonMs: OptionalLong[{T0}] " in lines[2]
    assert lines[2:] == expected_log_lines(bytes(buf), False, False)[1:]


def test_skip_record_metadata_prints_only_data(tmp_path):
    path = write_segment(tmp_path, records.build_batch([(b"k", b"v"), (None, b"w")],
                                                       timestamp_ms=T0))
    lines, _, _ = run_dump([path], print_data_log=True, skip_record_metadata=True)
    assert lines[3:] == ["| key: k payload: v", "| payload: w"]


def test_offset_gaps_are_reported_with_deep_iteration(tmp_path):
    first = stamped(records.build_batch([(b"a", b"1"), (b"b", b"2")], timestamp_ms=T0), 0)
    second = stamped(records.build_batch([(b"c", b"3")], timestamp_ms=T0), 10)
    path = write_segment(tmp_path, first + second)
    lines, errors, [result] = run_dump([path], deep_iteration=True)
    assert result.non_consecutive_offsets == [(1, 10)]
    assert errors == [f"Non-consecutive offsets in {os.path.abspath(path)}",
                      "  1 is followed by 10"]
    shallow_lines, shallow_errors, [shallow] = run_dump([path])
    assert shallow.ok and shallow_errors == []      # Kafka checks offsets only when deep


def test_segment_with_nonzero_base_offset(tmp_path):
    data = concatenate(mixed_batches()[:3], first_offset=1234)
    path = write_segment(tmp_path, data, name="00000000000000001234")
    lines, _, _ = run_dump([path])
    assert lines[1] == "Log starting offset: 1234"
    assert lines[2].startswith("baseOffset: 1234 ")


def test_empty_log(tmp_path):
    path = write_segment(tmp_path, b"")
    lines, errors, [result] = run_dump([path], print_data_log=True)
    assert lines == [f"Dumping {path}", "Log starting offset: 0"]
    assert result.ok and errors == []


def test_max_bytes_reads_only_whole_batches_within_the_limit(tmp_path):
    data = concatenate(mixed_batches())
    walked = kafka_python_walk(data)
    limit = walked[2][0] + 5                 # five bytes into the third batch
    path = write_segment(tmp_path, data)
    lines, _, [result] = run_dump([path], max_bytes=limit)
    assert lines[2:] == [expected_batch_line(p, b, True) for p, b in walked[:2]]
    assert result.ok


def test_path_is_printed_as_given(tmp_path, monkeypatch):
    write_segment(tmp_path, b"")
    monkeypatch.chdir(tmp_path)
    lines, _, _ = run_dump([f"./{SEGMENT}.log"])
    assert lines[0] == f"Dumping ./{SEGMENT}.log"


def test_corruption_within_max_bytes_is_still_reported(tmp_path):
    data = concatenate(mixed_batches()[:3])
    path = write_segment(tmp_path, data + bytes(100))
    lines, _, [result] = run_dump([path], max_bytes=len(data) + 50)
    assert lines[-1].startswith(f"Stopped reading at position {len(data)}: ")
    assert result.trailing_bytes == 0 and not result.ok


def test_transit_suffixes_are_read_as_the_file_underneath(tmp_path):
    data = concatenate(mixed_batches()[:2])
    path = tmp_path / f"{SEGMENT}.log.deleted"
    path.write_bytes(data)
    lines, _, [result] = run_dump([path])
    assert lines[1:] == expected_log_lines(data, False, False)
    assert result.kind == "log"


def test_kraft_snapshot_heading(tmp_path):
    data = concatenate(mixed_batches()[:1])
    path = tmp_path / "00000000000000000100-0000000005.checkpoint"
    path.write_bytes(data)
    lines, _, _ = run_dump([path])
    assert lines[1] == "Snapshot end offset: 100, epoch: 5"
    assert lines[2:] == expected_log_lines(data, False, False)[1:]


# Damaged .log files ---------------------------------------------------------------------


def test_truncated_tail_stops_and_says_where(tmp_path):
    data = concatenate(mixed_batches())
    cut = data[:-25]                                    # inside the last batch
    path = write_segment(tmp_path, cut)
    lines, _, [result] = run_dump([path], print_data_log=True)

    walked = kafka_python_walk(cut)                     # kafka-python also stops before it
    assert len(walked) == len(mixed_batches()) - 1
    stop = MemoryRecords(cut).valid_bytes()
    trailing = len(cut) - stop
    assert lines[1:-2] == expected_log_lines(cut, True, True)
    assert lines[-2].startswith(f"Stopped reading at position {stop}: the batch there needs ")
    assert "the file ends inside it" in lines[-2]
    assert lines[-1] == f"Found {trailing} invalid bytes at the end of {SEGMENT}.log"
    assert (result.valid_bytes, result.trailing_bytes) == (stop, trailing)
    assert not result.ok


@pytest.mark.parametrize("tail, reason", [
    (bytes(4096), "the bytes are zeros"),
    (bytes(9), "fewer than the 17"),
    (struct.pack(">qi", 99, 3) + bytes(20), "below the minimum of 14"),
    (struct.pack(">qii", 99, 60, -1) + b"\x07" + bytes(59), "magic 7"),
    (struct.pack(">qii", 99, 30, -1) + b"\x02" + bytes(29), "below the minimum of 49"),
])
def test_garbage_after_the_last_batch(tmp_path, tail, reason):
    data = concatenate(mixed_batches()[:4])
    path = write_segment(tmp_path, data + tail)
    lines, _, [result] = run_dump([path])
    assert lines[1:-2] == expected_log_lines(data, False, False)
    assert lines[-2].startswith(f"Stopped reading at position {len(data)}: ")
    assert reason in lines[-2]
    assert lines[-1] == f"Found {len(tail)} invalid bytes at the end of {SEGMENT}.log"
    assert result.trailing_bytes == len(tail)


def test_crc_mismatch_is_flagged_and_the_dump_goes_on(tmp_path):
    data = bytearray(concatenate(mixed_batches()))
    walked = kafka_python_walk(bytes(data))
    position, first = walked[0]
    data[position + first.size_in_bytes - 3] ^= 0x20     # a byte of the last record's key
    path = write_segment(tmp_path, bytes(data))

    lines, _, [result] = run_dump([path], print_data_log=True)

    rewalked = kafka_python_walk(bytes(data))
    assert not rewalked[0][1].validate_crc()
    assert " isvalid: false" in lines[2]
    assert lines[1:] == expected_log_lines(bytes(data), True, True)
    assert result.invalid_batch_positions == [0]
    assert not result.ok


def test_undecodable_compressed_batch_does_not_stop_the_dump(tmp_path):
    batches = mixed_batches()
    data = bytearray(concatenate(batches))
    position, gzip_batch = kafka_python_walk(bytes(data))[1]
    start, end = position + 61, position + gzip_batch.size_in_bytes
    data[start:end] = b"\xee" * (end - start)              # the gzip blob, destroyed
    path = write_segment(tmp_path, bytes(data))

    lines, _, [result] = run_dump([path], print_data_log=True)

    bad = [line for line in lines if line.startswith("Could not read the records")]
    assert len(bad) == 1
    assert bad[0].startswith(f"Could not read the records of the batch at position {position}: ")
    assert result.batches == len(batches)                # every batch was still listed
    assert result.invalid_batch_positions == [position]
    assert len(result.record_problems) == 1
    assert lines[-1].startswith("| offset: ")            # records after it still print


def test_corrupt_length_mid_file_stops_there(tmp_path):
    data = bytearray(concatenate(mixed_batches()))
    walked = kafka_python_walk(bytes(data))
    position = walked[3][0]
    struct.pack_into(">i", data, position + 8, 2**30)      # batch 3 claims a GiB
    path = write_segment(tmp_path, bytes(data))
    lines, _, [result] = run_dump([path])
    assert lines[2:-2] == [expected_batch_line(p, b, True) for p, b in walked[:3]]
    assert lines[-2].startswith(f"Stopped reading at position {position}: ")
    assert lines[-1] == (f"Found {len(data) - position} invalid bytes at the end of "
                         f"{SEGMENT}.log")
    assert result.stop_reason is not None


# Old message sets ----------------------------------------------------------------------


def legacy_message_set(magic: int, compression: int, first_offset: int) -> bytes:
    builder = LegacyRecordBatchBuilder(magic=magic, compression_type=compression,
                                       batch_size=1 << 20)
    relative = compression != 0 and magic == 1
    for i in range(3):
        offset = i if relative else first_offset + i
        builder.append(offset, timestamp=T0 + i, key=None if i == 1 else b"k%d" % i,
                       value=b"legacy value %d" % i)
    data = bytearray(builder.build())
    if compression:                    # a broker gives the wrapper its last inner offset
        struct.pack_into(">q", data, 0, first_offset + 2)
    return bytes(data)


def expected_legacy_lines(data: bytes) -> list[str]:
    lines = []
    for position, batch in kafka_python_walk(data):
        assert isinstance(batch, LegacyRecordBatch)
        crc, = struct.unpack_from(">I", data, position + 12)
        timestamp = -1 if batch.magic == 0 else struct.unpack_from(">q", data, position + 18)[0]
        timestamp_type = ("NoTimestampType" if batch.timestamp_type is None
                          else ["CreateTime", "LogAppendTime"][batch.timestamp_type])
        lines.append(f"offset: {batch.base_offset} position: {position} {timestamp_type}: "
                     f"{timestamp} size: {batch.size_in_bytes} magic: {batch.magic} "
                     f"compresscodec: {CODEC_NAMES[batch.compression_type]} crc: {crc} "
                     f"isvalid: {java_bool(batch.validate_crc())}")
        for record in batch:
            line = (f"| offset: {record.offset} {timestamp_type}: "
                    f"{-1 if record.timestamp is None else record.timestamp} "
                    f"keySize: {-1 if record.key is None else len(record.key)} "
                    f"valueSize: {len(record.value)} "
                    f"isValid: {java_bool(record.validate_crc())} crc: {record.checksum}")
            if record.key is not None:
                line += f" key: {record.key.decode()}"
            lines.append(line + f" payload: {record.value.decode()}")
    return lines


def test_legacy_message_sets(tmp_path):
    data = (legacy_message_set(0, 0, 0) + legacy_message_set(0, 1, 3)
            + legacy_message_set(1, 0, 6) + legacy_message_set(1, 1, 9)
            + legacy_message_set(1, 2, 12))
    path = write_segment(tmp_path, data)
    lines, errors, [result] = run_dump([path], print_data_log=True)
    assert lines[2:] == expected_legacy_lines(data)
    assert result.ok and errors == []
    assert result.records == 15


# ---------------------------------------------------------------------------------------
# Index files


def indexed_segment(directory: Path) -> tuple[bytes, list[tuple[int, int]], list[tuple[int, int]]]:
    """A .log of 12 batches and Kafka-style index entries for every third batch:
    offset index (batch last offset, batch position), time index (max timestamp so far,
    last offset of the batch holding it)."""
    batches = [records.build_batch([(b"k%d" % i, b"v" * 40)] * (1 + i % 3),
                                   timestamp_ms=T0 + 1000 * i - (500 if i == 7 else 0))
               for i in range(12)]
    data = concatenate(batches)
    write_segment(directory, data)
    offset_entries, time_entries = [], []
    max_timestamp, max_offset = -1, -1
    for number, (position, batch) in enumerate(kafka_python_walk(data)):
        if batch.max_timestamp > max_timestamp:
            max_timestamp, max_offset = batch.max_timestamp, batch.last_offset
        if number % 3 == 2:
            offset_entries.append((batch.last_offset, position))
            if not time_entries or max_timestamp > time_entries[-1][0]:
                time_entries.append((max_timestamp, max_offset))
    return data, offset_entries, time_entries


def write_offset_index(directory: Path, entries, padding_entries: int = 0) -> Path:
    path = directory / f"{SEGMENT}.index"
    path.write_bytes(b"".join(struct.pack(">ii", offset, position)
                              for offset, position in entries) + bytes(8 * padding_entries))
    return path


def write_time_index(directory: Path, entries, padding_entries: int = 0) -> Path:
    path = directory / f"{SEGMENT}.timeindex"
    path.write_bytes(b"".join(struct.pack(">qi", timestamp, offset)
                              for timestamp, offset in entries) + bytes(12 * padding_entries))
    return path


def test_offset_index_dump_and_clean_check(tmp_path):
    _, entries, _ = indexed_segment(tmp_path)
    path = write_offset_index(tmp_path, entries)
    lines, errors, [result] = run_dump([path])
    assert lines == [f"Dumping {path}"] + [f"offset: {o} position: {p}" for o, p in entries]
    assert errors == [] and result.ok and result.entries == len(entries)


def test_time_index_dump_and_clean_check(tmp_path):
    _, offset_entries, time_entries = indexed_segment(tmp_path)
    write_offset_index(tmp_path, offset_entries)
    path = write_time_index(tmp_path, time_entries)
    lines, errors, [result] = run_dump([path])
    assert lines == [f"Dumping {path}"] + [f"timestamp: {t} offset: {o}" for t, o in time_entries]
    assert errors == [] and result.ok


def test_preallocated_offset_index_stops_at_the_zero_padding(tmp_path):
    _, entries, _ = indexed_segment(tmp_path)
    path = write_offset_index(tmp_path, entries, padding_entries=1000)
    lines, errors, [result] = run_dump([path], index_sanity_check=True)
    assert lines == [f"Dumping {path}", f"{path} passed sanity check."]
    assert result.entries == len(entries) and errors == []
    assert run_dump([path])[0][1:] == [f"offset: {o} position: {p}" for o, p in entries]


def test_index_of_only_zeros_is_empty(tmp_path):
    indexed_segment(tmp_path)
    path = write_offset_index(tmp_path, [], padding_entries=1000)
    lines, _, [result] = run_dump([path])
    assert lines == [f"Dumping {path}", f"{path} is empty."]
    assert result.ok


def test_verify_index_only_prints_no_entries(tmp_path):
    _, entries, _ = indexed_segment(tmp_path)
    path = write_offset_index(tmp_path, entries)
    lines, errors, [result] = run_dump([path], verify_index_only=True)
    assert lines == [f"Dumping {path}"] and errors == [] and result.ok


def test_index_sanity_check_catches_bad_entries(tmp_path):
    data, entries, _ = indexed_segment(tmp_path)
    walked = kafka_python_walk(data)
    bad = list(entries)
    bad[1] = (bad[1][0] - 1, bad[1][1])                    # offset not the batch's last
    bad.append((bad[-1][0] - 5, walked[-1][0]))            # offset goes backwards
    bad.append((bad[-2][0] + 50, len(data) + 100))         # position past the log
    path = write_offset_index(tmp_path, bad)

    lines, errors, [result] = run_dump([path], index_sanity_check=True)

    assert lines == [f"Dumping {path}", f"{path} failed sanity check."]
    assert result.index_mismatches == [(bad[1][0], entries[1][0]),
                                       (bad[-2][0], walked[-1][1].last_offset)]
    assert f"Mismatches in :{os.path.abspath(path)}" in errors
    assert f"  Index offset: {bad[1][0]}, log offset: {entries[1][0]}" in errors
    assert any("is not above the previous entry's" in line for line in errors)
    assert any(f"position {len(data) + 100} is outside the log" in line for line in errors)
    assert main(["--index-sanity-check", str(path)], stdout=io.StringIO(),
                stderr=io.StringIO()) == 1


def test_index_entry_pointing_inside_a_batch(tmp_path):
    _, entries, _ = indexed_segment(tmp_path)
    offset, position = entries[0]
    path = write_offset_index(tmp_path, [(offset, position + 13)])
    _, errors, [result] = run_dump([path], verify_index_only=True)
    assert any(f"no batch can be read at position {position + 13}" in line for line in errors)
    assert not result.ok


def test_index_size_not_a_multiple_of_the_entry_size(tmp_path):
    _, entries, _ = indexed_segment(tmp_path)
    path = write_offset_index(tmp_path, entries)
    path.write_bytes(path.read_bytes() + b"\x01\x02\x03")
    lines, errors, [result] = run_dump([path], index_sanity_check=True)
    assert lines[-1] == f"{path} failed sanity check."
    assert any("not a whole number of 8-byte entries" in line for line in errors)


def test_index_without_its_log(tmp_path):
    path = write_offset_index(tmp_path, [(5, 100)])
    lines, errors, [result] = run_dump([path])
    assert lines == [f"Dumping {path}", "offset: 5 position: 100"]
    assert any("does not exist" in line for line in errors)
    assert not result.ok


def test_time_index_findings(tmp_path):
    data, offset_entries, time_entries = indexed_segment(tmp_path)
    write_offset_index(tmp_path, offset_entries)
    walked = kafka_python_walk(data)
    first_batch = walked[0][1]
    bad = list(time_entries)
    bad[0] = (bad[0][0] + 1, bad[0][1])                      # timestamp not the batch's max
    bad[2] = (bad[1][0], bad[2][1])                          # not above the previous one
    bad.append((bad[-1][0] + 10, first_batch.base_offset + 10_000))   # no such offset
    path = write_time_index(tmp_path, bad)

    lines, errors, [result] = run_dump([path])

    assert lines[1:] == [f"timestamp: {t} offset: {o}" for t, o in bad]
    assert result.timestamp_mismatches == [(bad[0][0], time_entries[0][0]),
                                           (bad[2][0], time_entries[2][0])]
    assert result.out_of_order_timestamps == [(bad[2][0], bad[1][0])]
    assert result.offsets_not_found == [(bad[-1][1], -1)]
    assert errors == [
        f"Found timestamp mismatch in :{os.path.abspath(path)}",
        f"  Index timestamp: {bad[0][0]}, log timestamp: {time_entries[0][0]}",
        f"  Index timestamp: {bad[2][0]}, log timestamp: {time_entries[2][0]}",
        f"Found out of order timestamp in :{os.path.abspath(path)}",
        f"  Index timestamp: {bad[2][0]}, Previously indexed timestamp: {bad[1][0]}",
        "The following indexed offsets are not found in the log.",
        f"Indexed offset: {bad[-1][1]}, found log offset: -1",
    ]


def test_time_index_offset_inside_a_batch_is_not_found(tmp_path):
    """Kafka's time index names a batch's last offset; any other offset is reported."""
    data, _, _ = indexed_segment(tmp_path)
    multi = next(batch for _, batch in kafka_python_walk(data) if batch.records_count > 1)
    path = write_time_index(tmp_path, [(multi.max_timestamp, multi.base_offset)])
    _, _, [result] = run_dump([path])       # no .index: the search starts at position 0
    assert result.offsets_not_found == [(multi.base_offset, multi.last_offset)]


def test_preallocated_time_index_fails_kafkas_startup_check(tmp_path):
    _, offset_entries, time_entries = indexed_segment(tmp_path)
    write_offset_index(tmp_path, offset_entries)
    path = write_time_index(tmp_path, time_entries, padding_entries=100)
    lines, errors, [result] = run_dump([path])
    assert lines[1:] == [f"timestamp: {t} offset: {o}" for t, o in time_entries]
    assert any("last slot's timestamp 0 is below the first" in line for line in errors)
    trimmed = write_time_index(tmp_path, time_entries)
    assert run_dump([trimmed], index_sanity_check=True)[0][-1] == (
        f"{trimmed} passed sanity check.")


def test_transaction_index(tmp_path):
    path = tmp_path / f"{SEGMENT}.txnindex"
    path.write_bytes(struct.pack(">hqqqq", 0, 44, 20, 21, 19)
                     + struct.pack(">hqqqq", 0, 45, 30, 35, 30))
    lines, errors, [result] = run_dump([path])
    assert lines[1:] == [
        "version: 0 producerId: 44 firstOffset: 20 lastOffset: 21 lastStableOffset: 19",
        "version: 0 producerId: 45 firstOffset: 30 lastOffset: 35 lastStableOffset: 30",
    ]
    assert result.ok and errors == []


# ---------------------------------------------------------------------------------------
# main()


def test_main_exit_status_and_kafka_options(tmp_path, capsys):
    data, entries, _ = indexed_segment(tmp_path)
    log = tmp_path / f"{SEGMENT}.log"
    index = write_offset_index(tmp_path, entries)

    assert main([str(log), str(index)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == f"Dumping {log}"

    assert main(["--files", f"{log},{index}", "--print-data-log"]) == 0
    assert capsys.readouterr().out.count("Dumping ") == 2

    unknown = tmp_path / "notes.txt"
    unknown.write_text("hello")
    assert main([str(unknown)]) == 1
    assert "Ignoring unknown file" in capsys.readouterr().err

    assert main([str(tmp_path / f"{'9' * 20}.log")]) == 1
    assert "no such file" in capsys.readouterr().err

    log.write_bytes(data[:-7])
    assert main([str(log)]) == 1
    assert "invalid bytes at the end" in capsys.readouterr().out

    assert main([]) == 2
    assert main(["--no-such-option", str(log)]) == 2
    assert main(["--help"]) == 0
    assert "--print-data-log" in capsys.readouterr().out


def test_main_writes_dumps_to_stdout_and_findings_to_stderr(tmp_path):
    _, entries, _ = indexed_segment(tmp_path)
    index = write_offset_index(tmp_path, [(entries[0][0] + 1, entries[0][1])])
    out, err = io.StringIO(), io.StringIO()
    assert main([str(index)], stdout=out, stderr=err) == 1
    assert out.getvalue().splitlines() == [f"Dumping {index}",
                                           f"offset: {entries[0][0] + 1} position: {entries[0][1]}"]
    assert err.getvalue().splitlines()[0] == f"Mismatches in :{os.path.abspath(index)}"


# ---------------------------------------------------------------------------------------
# Layering


def test_imports_only_the_record_codec_and_file_formats():
    """dump-log reads segments and indexes itself, so that it can check the engine's files;
    it may borrow only the record codec, the producer-snapshot file format and the
    Java-compatible text decoding of keys and values."""
    tree = ast.parse(Path(dump_log.__file__).read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module)
            imported.update(f"{node.module}.{alias.name}" for alias in node.names
                            if node.module == "protocol")
    project = {name for name in imported if name.split(".")[0] in ("protocol", "pylog", "storage")}
    assert project <= {"protocol", "protocol.records", "protocol.compression", "protocol.errors",
                       "protocol.primitives", "storage.errors", "storage.producer_snapshot"}


def test_producer_snapshot_files_are_dumped(tmp_path):
    """A `.snapshot` written by the producer-state code prints one line per producer."""
    from storage.producer_snapshot import SnapshotEntry, write_snapshot_file

    path = tmp_path / "00000000000000000042.snapshot"
    write_snapshot_file(path, [SnapshotEntry(7, 2, 41, 40, 4, 1_700_000_000_000, -1, -1),
                               SnapshotEntry(8, 0, 3, 30, 0, 1_700_000_000_001, 5, 27)])
    out, err = io.StringIO(), io.StringIO()
    assert dump_log.main([str(path)], stdout=out, stderr=err) == 0, err.getvalue()
    lines = out.getvalue().splitlines()
    assert lines[0] == f"Dumping {path}"
    assert lines[1] == ("producerId: 7 producerEpoch: 2 coordinatorEpoch: -1 currentTxnFirstOffset: OptionalLong.empty "
                        "lastTimestamp: 1700000000000 firstSequence: 37 lastSequence: 41 lastOffset: 40 "
                        "offsetDelta: 4 timestamp: 1700000000000")
    assert lines[2] == ("producerId: 8 producerEpoch: 0 coordinatorEpoch: 5 currentTxnFirstOffset: OptionalLong[27] "
                        "lastTimestamp: 1700000000001 firstSequence: 3 lastSequence: 3 lastOffset: 30 "
                        "offsetDelta: 0 timestamp: 1700000000001")
