"""`pylog dump-log`: print segment files the way Kafka's `kafka-dump-log.sh` does.

A study tool. Point it at the files of a partition directory -- pylog's or Apache Kafka's,
the format is the same -- and it prints what is inside, one line per record batch (and,
on request, one line per record), or one line per index entry. It never changes a file,
and a corrupt or truncated file makes it stop and say where and why, not crash.

    pylog dump-log 00000000000000000000.log                   one line per batch
    pylog dump-log --print-data-log 00000000000000000000.log  ... and per record, with data
    pylog dump-log --deep-iteration  00000000000000000000.log ... and per record, no data
    pylog dump-log 00000000000000000000.index                 offset index entries
    pylog dump-log 00000000000000000000.timeindex             time index entries
    pylog dump-log --index-sanity-check 00000000000000000000.index
    pylog dump-log --files a.log,a.index                      Kafka's spelling also works

The output is Kafka 4.1's (`kafka.tools.DumpLogSegments`), field for field, so what you
learn here carries over to a real cluster and the two tools can be compared line by line
(`make compat` does, on Kafka's own files). Keys and values print as Java decodes UTF-8,
malformed bytes included (`protocol.primitives.decode_utf8`).

Reading a `.log` dump
---------------------

    Dumping /data/orders-0/00000000000000000000.log
    Log starting offset: 0
    baseOffset: 0 lastOffset: 2 count: 3 baseSequence: -1 lastSequence: -1 producerId: -1
        producerEpoch: -1 partitionLeaderEpoch: 0 isTransactional: false isControl: false
        deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 1700000000002 size: 94
        magic: 2 compresscodec: none crc: 2583410322 isvalid: true
    | offset: 0 CreateTime: 1700000000000 keySize: 3 valueSize: 5 sequence: -1
        headerKeys: [] key: abc payload: hello

(each batch and record is one line; they are wrapped here to fit.) `Log starting offset`
is the segment's base offset, read from the file name: the offset of its first record,
zero-padded to 20 digits so that names sort by offset. Then, per batch:

| field                   | meaning                                                            |
| ----------------------- | ------------------------------------------------------------------ |
| `baseOffset`            | offset of the batch's first record (written by the broker on append) |
| `lastOffset`            | offset of its last record: baseOffset + lastOffsetDelta             |
| `count`                 | records in the batch (fewer than lastOffset-baseOffset+1 after compaction) |
| `baseSequence`          | the idempotent producer's sequence number of the first record, or -1 |
| `lastSequence`          | sequence of the last record (wraps from 2^31-1 to 0), or -1          |
| `producerId`            | id of the idempotent / transactional producer, or -1                 |
| `producerEpoch`         | that producer's epoch (bumped when a new instance fences the old), or -1 |
| `partitionLeaderEpoch`  | leader epoch of the partition when the leader appended the batch     |
| `isTransactional`       | the records belong to a transaction                                  |
| `isControl`             | the batch holds a control record (a COMMIT or ABORT marker)          |
| `deleteHorizonMs`       | `OptionalLong[t]` once compaction has set the delete horizon: tombstones in the batch may be removed after time t; `OptionalLong.empty` otherwise |
| `position`              | byte position of the batch in the file (what the `.index` points to) |
| `CreateTime` / `LogAppendTime` | the batch's timestamp type, then its max timestamp: the largest record timestamp (CreateTime, the producer's clock) or the broker's append time (LogAppendTime) |
| `size`                  | bytes of the whole batch: the 12 bytes of offset and length, plus batchLength |
| `magic`                 | format version: 2 for record batches (0 and 1 are the old message sets) |
| `compresscodec`         | none, gzip, snappy, lz4 or zstd: the records after the 61-byte header are one compressed blob |
| `crc`                   | the stored CRC-32C of the batch (attributes to the end), unsigned    |
| `isvalid`               | whether the CRC computed over the bytes matches the stored one        |

With `--deep-iteration` (implied by `--print-data-log`) a line per record follows its
batch, starting with `|`: `offset`, the batch's timestamp type with the record's
timestamp (in a LogAppendTime batch every record shows the batch's time), `keySize` and
`valueSize` (-1 for null), `sequence` (baseSequence + the record's offset delta, or -1)
and `headerKeys` (the header names, `[a,b]`). A control record adds `endTxnMarker:
COMMIT coordinatorEpoch: 0` (or ABORT), or `controlType: NAME(id)` for KRaft's own
types. `--print-data-log` adds `key:` (left out when the key is null) and `payload:`
(left out for a null value, i.e. a tombstone), decoded as UTF-8 as Kafka's
StringDecoder does; control records show no data. With `--deep-iteration`, offsets
that do not follow each other (gaps left by compaction, or damage) are listed at the end.

Old message sets (magic 0 and 1, from before Kafka 0.11) print as Kafka prints them:
`offset: <last offset> position: ... size: ... magic: ... compresscodec: ... crc: ...
isvalid: ...` per entry, and per inner record `| offset: ... keySize: ... valueSize: ...
isValid: ... crc: ...`. (Kafka 3.9 prints a stray `}` after that crc; pylog does not.)

When the file cannot be read to its end -- a torn write, a zero-filled tail, garbage --
the dump stops at the first batch it cannot frame and says so, then gives Kafka's
`Found N invalid bytes at the end of <file>`:

    Stopped reading at position 4096: the batch there needs 1108 bytes but only 300 remain ...
    Found 300 invalid bytes at the end of 00000000000000000000.log

A batch whose CRC does not match is printed with `isvalid: false` and the dump goes on
(its length still says where the next batch starts).

Reading an index dump
---------------------
`.index` files map offsets to byte positions, one 8-byte entry (int32 offset relative to
the segment's base offset, int32 position) every `index.interval.bytes` (4096) of log;
the dump prints `offset: N position: P` with the absolute offset. Kafka writes an entry
for a batch as (the batch's *last* offset, the batch's position). `.timeindex` files hold
12-byte entries (int64 timestamp, int32 relative offset) and print `timestamp: T offset:
N`: the largest timestamp seen so far in the segment and the last offset of the batch
holding it. An active segment's index files are preallocated (10 MiB by default) and
zero-filled past the last entry; the dump stops at the first all-zero entry after the
first, as Kafka's does.

Each entry is checked against the segment's `.log` (Kafka does this on every index
dump), and findings are listed at the end of the run, on the error stream, in Kafka's
words:

| finding (Kafka's heading)                          | what was checked                      |
| -------------------------------------------------- | ------------------------------------- |
| `Mismatches in :<file>`                            | the batch at the entry's position has the entry's offset as its last offset |
| `The following indexed offsets are not found in the log.` | a time index entry's offset is the last offset of some batch |
| `Found timestamp mismatch in :<file>`              | the time index entry's timestamp is the largest record timestamp of that batch |
| `Found out of order timestamp in :<file>`          | time index timestamps strictly increase |
| `Index problems in :<file>` (pylog's own)          | the file's size is a whole number of entries, offsets and positions strictly increase, no offset is below the base offset, each position is inside the log and starts a readable batch |

`--verify-index-only` runs the checks without printing the entries. `--index-sanity-check`
prints only `<file> passed sanity check.` or `<file> failed sanity check.`; Kafka's
version of that flag runs only the cheap check a broker runs at startup (whole entries,
last offset not below the base offset, last timestamp not below the first, counted over
the whole file including preallocated zeros) -- pylog runs that and everything above.

Other files: `.txnindex` (aborted transactions: `version: producerId: firstOffset:
lastOffset: lastStableOffset:`) and KRaft snapshots (`.checkpoint`, dumped like a `.log`)
are read too; a name with `.deleted`, `.cleaned` or `.swap` after it is read as the file
it was. Anything else gets a message saying what this tool reads.

Exit status of `main`: 0 when every file was read and nothing was wrong; 1 when a file
could not be dumped (missing, unknown kind) or something was wrong in one (an invalid
batch, an unreadable tail, an index finding); 2 for bad arguments. (Kafka's tool exits 0
in these cases; a status lets a script use this one as a check.)

Layering: this tool takes only the record-batch codec from `protocol` (`protocol.records`,
and `protocol.compression` for old message sets) and, from `storage`, its errors and the
producer-snapshot file reader; it reads segments and index files with `struct`, so it
does not depend on the segment classes it checks.
"""

from __future__ import annotations

import argparse
import bisect
import mmap
import os
import struct
import sys
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TextIO

from protocol import records
from protocol.compression import decompress
from protocol.errors import ProtocolError
from protocol.primitives import decode_utf8
from storage.errors import CorruptSnapshot
from storage.producer_snapshot import read_snapshot_file

__all__ = [
    "DumpResult", "dump_files", "dump_file", "dump_log_segment", "dump_offset_index",
    "dump_time_index", "dump_transaction_index", "main", "write_findings",
]

LOG_OVERHEAD = records.LOG_OVERHEAD                    # 12: base offset + length
HEADER_SIZE_UP_TO_MAGIC = 17                           # offset, length, epoch/crc, magic
# Kafka's smallest frame (LegacyRecord.RECORD_OVERHEAD_V0): a length below it cannot be a
# batch of any format, so the walk cannot go on.
MIN_FRAME_LENGTH = 14
LEGACY_RECORD_OVERHEAD = {0: 14, 1: 22}                # crc .. value length, per magic

OFFSET_INDEX_ENTRY = struct.Struct(">ii")              # relative offset, position
TIME_INDEX_ENTRY = struct.Struct(">qi")                # timestamp, relative offset
ABORTED_TXN_ENTRY = struct.Struct(">hqqqq")            # version, producer id, first, last, LSO

_FRAME_START = struct.Struct(">qi")                    # base offset (or offset), length
_LEGACY_START = struct.Struct(">Ibb")                   # crc, magic, attributes
_INT64 = struct.Struct(">q")
_INT32 = struct.Struct(">i")
_INT16 = struct.Struct(">h")

_CODEC_NAMES = {0: "none", 1: "gzip", 2: "snappy", 3: "lz4", 4: "zstd"}
_CONTROL_TYPE_NAMES = {0: "ABORT", 1: "COMMIT", 2: "LEADER_CHANGE", 3: "SNAPSHOT_HEADER",
                       4: "SNAPSHOT_FOOTER", 5: "KRAFT_VERSION", 6: "KRAFT_VOTERS"}
# Suffixes Kafka appends to a segment file in transit; the file under them is ordinary.
_TRANSIT_SUFFIXES = (".deleted", ".cleaned", ".swap")
_KNOWN_KINDS = ".log, .index, .timeindex, .txnindex and .checkpoint"


@dataclass
class DumpResult:
    """What dumping one file found; `ok` when nothing was wrong.

    The lists hold what Kafka's tool collects and prints at the end of a run, as pairs in
    Kafka's order (see the module docstring), plus pylog's own `index_problems` and
    `record_problems` as sentences.
    """

    path: str
    kind: str                           # "log", "index", "timeindex", "txnindex", "unknown"
    error: str | None = None            # the file could not be dumped at all
    batches: int = 0                    # log: batches read (valid or not)
    records: int = 0                    # log: records read (deep iteration only)
    invalid_batch_positions: list[int] = field(default_factory=list)   # CRC failures
    valid_bytes: int = 0                # log: bytes of whole batches read
    stop_reason: str | None = None      # log: why reading stopped before the end
    trailing_bytes: int = 0             # log: bytes after the last whole batch
    non_consecutive_offsets: list[tuple[int, int]] = field(default_factory=list)
    record_problems: list[str] = field(default_factory=list)
    entries: int = 0                    # index: entries read (zero padding excluded)
    index_mismatches: list[tuple[int, int]] = field(default_factory=list)   # (index, log)
    offsets_not_found: list[tuple[int, int]] = field(default_factory=list)  # (index, log)
    timestamp_mismatches: list[tuple[int, int]] = field(default_factory=list)  # (index, log)
    out_of_order_timestamps: list[tuple[int, int]] = field(default_factory=list)  # (ts, prev)
    index_problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.error or self.invalid_batch_positions or self.stop_reason
                    or self.trailing_bytes or self.record_problems or self.index_mismatches
                    or self.offsets_not_found or self.timestamp_mismatches
                    or self.out_of_order_timestamps or self.index_problems)


# ---------------------------------------------------------------------------------------
# Entry points


def main(argv: Sequence[str] | None = None, *, stdout: TextIO | None = None,
         stderr: TextIO | None = None) -> int:
    """`pylog dump-log` with Kafka's options; returns the exit status (see module doc)."""
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    parser = _argument_parser()
    try:
        options = parser.parse_args(argv)
        paths = list(options.paths)
        for files in options.files:
            paths.extend(name for name in files.split(",") if name)
        if not paths:
            parser.error("no files given: name segment files as arguments or with --files")
    except SystemExit as exit_:             # argparse exits on --help and on bad arguments
        return exit_.code if isinstance(exit_.code, int) else 2
    try:
        results = dump_files(paths, out, err, print_data_log=options.print_data_log,
                             deep_iteration=options.deep_iteration,
                             index_sanity_check=options.index_sanity_check,
                             verify_index_only=options.verify_index_only,
                             skip_record_metadata=options.skip_record_metadata,
                             max_bytes=options.max_bytes)
    except BrokenPipeError:                 # `pylog dump-log x.log | head`
        if stdout is None:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return 1
    return 0 if all(result.ok for result in results) else 1


def _argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pylog dump-log",
        description="Print Kafka segment files (.log, .index, .timeindex, .txnindex) the "
                    "way kafka-dump-log.sh does.")
    parser.add_argument("paths", nargs="*", metavar="PATH", help="segment files to dump")
    parser.add_argument("--files", action="append", default=[], metavar="FILE1,FILE2",
                        help="comma-separated files to dump (Kafka's spelling)")
    parser.add_argument("--print-data-log", action="store_true",
                        help="print each record with its key and value (implies "
                             "--deep-iteration)")
    parser.add_argument("--deep-iteration", action="store_true",
                        help="print a line per record, not only per batch")
    parser.add_argument("--index-sanity-check", action="store_true",
                        help="check index files without printing their entries; print "
                             "whether each passed")
    parser.add_argument("--verify-index-only", action="store_true",
                        help="check index files against the log without printing entries")
    parser.add_argument("--skip-record-metadata", action="store_true",
                        help="with --print-data-log, print only keys and values")
    parser.add_argument("--max-bytes", type=int, default=None, metavar="N",
                        help="read only the whole batches within the first N bytes of "
                             "each .log")
    return parser


def dump_files(paths: Sequence[str | os.PathLike], out: TextIO, err: TextIO | None = None, *,
               print_data_log: bool = False, deep_iteration: bool = False,
               index_sanity_check: bool = False, verify_index_only: bool = False,
               skip_record_metadata: bool = False,
               max_bytes: int | None = None) -> list[DumpResult]:
    """Dump each file to `out`, then list the findings of all of them to `err` (default
    `out`), as Kafka's tool does at the end of a run. Returns one result per file."""
    err = out if err is None else err
    results = []
    for path in paths:
        results.append(dump_file(path, out, err, print_data_log=print_data_log,
                                 deep_iteration=deep_iteration,
                                 index_sanity_check=index_sanity_check,
                                 verify_index_only=verify_index_only,
                                 skip_record_metadata=skip_record_metadata,
                                 max_bytes=max_bytes))
    write_findings(results, err)
    return results


def dump_file(path: str | os.PathLike, out: TextIO, err: TextIO | None = None, *,
              print_data_log: bool = False, deep_iteration: bool = False,
              index_sanity_check: bool = False, verify_index_only: bool = False,
              skip_record_metadata: bool = False,
              max_bytes: int | None = None) -> DumpResult:
    """Dump one file, choosing by its extension; file-level errors go to `err`."""
    err = out if err is None else err
    out.write(f"Dumping {os.fspath(path)}\n")           # as given, like Kafka's File
    path = Path(path)
    kind = _file_kind(path.name)
    if kind == "unknown":
        message = f"Ignoring unknown file {path}: dump-log reads {_KNOWN_KINDS} files"
        err.write(message + "\n")
        return DumpResult(str(path), kind, error=message)
    if not path.is_file():
        message = f"Cannot dump {path}: " + ("no such file" if not path.exists()
                                              else "not a regular file")
        err.write(message + "\n")
        return DumpResult(str(path), kind, error=message)
    try:
        if kind in ("log", "snapshot"):
            return dump_log_segment(path, out, print_data_log=print_data_log,
                                    deep_iteration=deep_iteration,
                                    skip_record_metadata=skip_record_metadata,
                                    max_bytes=max_bytes)
        if kind == "index":
            return dump_offset_index(path, out, sanity_check_only=index_sanity_check,
                                     verify_only=verify_index_only)
        if kind == "timeindex":
            return dump_time_index(path, out, sanity_check_only=index_sanity_check,
                                   verify_only=verify_index_only)
        if kind == "producer_snapshot":
            return dump_producer_snapshot(path, out)
        return dump_transaction_index(path, out)
    except OSError as error:
        message = f"Cannot dump {path}: {error.strerror or error}"
        err.write(message + "\n")
        return DumpResult(str(path), kind, error=message)


def write_findings(results: Sequence[DumpResult], err: TextIO) -> None:
    """Kafka's end-of-run report of index mismatches and offset gaps, plus pylog's own."""
    for result in results:
        name = os.path.abspath(result.path)
        if result.index_problems:
            err.write(f"Index problems in :{name}\n")
            for problem in result.index_problems:
                err.write(f"  {problem}\n")
        if result.index_mismatches:
            err.write(f"Mismatches in :{name}\n")
            for index_offset, log_offset in result.index_mismatches:
                err.write(f"  Index offset: {index_offset}, log offset: {log_offset}\n")
        if result.timestamp_mismatches:
            err.write(f"Found timestamp mismatch in :{name}\n")
            for index_timestamp, log_timestamp in result.timestamp_mismatches:
                err.write(f"  Index timestamp: {index_timestamp}, "
                          f"log timestamp: {log_timestamp}\n")
        if result.out_of_order_timestamps:
            err.write(f"Found out of order timestamp in :{name}\n")
            for index_timestamp, previous in result.out_of_order_timestamps:
                err.write(f"  Index timestamp: {index_timestamp}, "
                          f"Previously indexed timestamp: {previous}\n")
        if result.offsets_not_found:
            err.write("The following indexed offsets are not found in the log.\n")
            for index_offset, log_offset in result.offsets_not_found:
                err.write(f"Indexed offset: {index_offset}, found log offset: {log_offset}\n")
        if result.non_consecutive_offsets:
            err.write(f"Non-consecutive offsets in {name}\n")
            for first, second in result.non_consecutive_offsets:
                err.write(f"  {first} is followed by {second}\n")


def _file_kind(name: str) -> str:
    for suffix in _TRANSIT_SUFFIXES:
        if name.endswith(suffix):
            name = name[:-len(suffix)]
            break
    extension = os.path.splitext(name)[1]
    return {".log": "log", ".index": "index", ".timeindex": "timeindex",
            ".txnindex": "txnindex", ".checkpoint": "snapshot",
            ".snapshot": "producer_snapshot"}.get(extension, "unknown")


def _base_offset_from_name(path: Path) -> int | None:
    stem = path.name.split(".")[0]
    return int(stem) if stem.isdigit() else None


# ---------------------------------------------------------------------------------------
# Walking the batches of a .log


class _Unreadable(Exception):
    """The bytes at a position cannot be framed as a batch; the message says why."""


@dataclass(frozen=True)
class LegacyMessage:
    """One entry of a magic 0/1 message set (a single message, or a compressed wrapper)."""

    offset: int                  # absolute; for a wrapper, the offset of its last inner one
    size_bytes: int              # LOG_OVERHEAD + the message size
    crc: int
    magic: int
    attributes: int
    timestamp: int               # -1 in magic 0
    key: bytes | None
    value: bytes | None
    is_valid: bool               # CRC-32 (zlib's) of magic .. end matches `crc`
    problem: str | None = None   # why key / value could not be read, if they could not

    @property
    def codec(self) -> int:
        return self.attributes & 0x07

    @property
    def timestamp_type_name(self) -> str:
        if self.magic == 0:
            return "NoTimestampType"
        return "LogAppendTime" if self.attributes & 0x08 else "CreateTime"


@dataclass(frozen=True)
class _Frame:
    """A whole batch found in the file: a magic-2 header or a legacy message."""

    position: int
    size_bytes: int
    header: records.BatchHeader | None
    legacy: LegacyMessage | None

    @property
    def last_offset(self) -> int:
        return self.header.last_offset if self.header is not None else self.legacy.offset

    @property
    def magic(self) -> int:
        return self.header.magic if self.header is not None else self.legacy.magic


def _read_frame(buf, position: int, end: int) -> _Frame | None:
    """The batch at `position`, None at the end, _Unreadable if it cannot be framed.

    The checks follow Kafka's FileLogInputStream: 17 bytes to read offset, length and
    magic; a length of at least 14; the whole batch inside the file.
    """
    remaining = end - position
    if remaining == 0:
        return None
    if remaining < HEADER_SIZE_UP_TO_MAGIC:
        raise _Unreadable(f"{remaining} bytes remain, fewer than the {HEADER_SIZE_UP_TO_MAGIC} "
                          f"that hold a batch's offset, length and magic")
    _, length = _FRAME_START.unpack_from(buf, position)
    if length < MIN_FRAME_LENGTH:
        zeros = bytes(buf[position:position + HEADER_SIZE_UP_TO_MAGIC]) == bytes(
            HEADER_SIZE_UP_TO_MAGIC)
        raise _Unreadable(f"the batch length there is {length}, below the minimum of "
                          f"{MIN_FRAME_LENGTH}" + (": the bytes are zeros (a zero-filled or "
                                                   "preallocated tail)" if zeros else
                                                   ": this is not the start of a batch"))
    size = LOG_OVERHEAD + length
    if size > remaining:
        raise _Unreadable(f"the batch there needs {size} bytes but only {remaining} remain: "
                          f"the file ends inside it (a torn write?)")
    magic = _signed_byte(buf[position + 16])
    if magic == records.MAGIC:
        if length < records.MIN_BATCH_LENGTH:
            raise _Unreadable(f"the magic 2 batch there has length {length}, below the "
                              f"minimum of {records.MIN_BATCH_LENGTH} (a 61-byte header)")
        return _Frame(position, size, records.read_batch_header(buf, position), None)
    if magic in (0, 1):
        return _Frame(position, size, None, _read_legacy_message(buf, position, size))
    raise _Unreadable(f"the batch there has magic {magic}; only 0, 1 and 2 exist")


def _signed_byte(value: int) -> int:
    return value - 256 if value > 127 else value


def _read_legacy_message(buf, position: int, size: int) -> LegacyMessage:
    """Parse a magic 0/1 entry of `size` bytes (LOG_OVERHEAD included) at `position`."""
    offset, _ = _FRAME_START.unpack_from(buf, position)
    start = position + LOG_OVERHEAD                    # the message: crc, magic, ...
    end = position + size
    crc, magic, attributes = _LEGACY_START.unpack_from(buf, start)
    overhead = LEGACY_RECORD_OVERHEAD[magic]
    if size - LOG_OVERHEAD < overhead:
        raise _Unreadable(f"the magic {magic} message there has {size - LOG_OVERHEAD} bytes, "
                          f"below the minimum of {overhead}")
    is_valid = zlib.crc32(buf[start + 4:end]) == crc
    cursor = start + 6
    timestamp = -1
    if magic == 1:
        timestamp, = _INT64.unpack_from(buf, cursor)
        cursor += 8
    key = value = None
    problem = None
    try:
        key, cursor = _legacy_bytes(buf, cursor, end)
        value, cursor = _legacy_bytes(buf, cursor, end)
        if cursor != end:
            raise ValueError(f"{end - cursor} bytes follow the value")
    except ValueError as error:
        key = value = None
        problem = f"the message at position {position} is malformed: {error}"
    return LegacyMessage(offset, size, crc, magic, attributes, timestamp, key, value,
                         is_valid, problem)


def _legacy_bytes(buf, cursor: int, end: int) -> tuple[bytes | None, int]:
    if end - cursor < 4:
        raise ValueError("a length field runs past the end of the message")
    length, = _INT32.unpack_from(buf, cursor)
    cursor += 4
    if length < 0:
        return None, cursor
    if cursor + length > end:
        raise ValueError(f"a field of {length} bytes runs past the end of the message")
    return bytes(buf[cursor:cursor + length]), cursor + length


@contextmanager
def _mapped(path: Path) -> Iterator:
    """The file's bytes, memory-mapped (segments can be a GiB); b"" for an empty file."""
    with open(path, "rb") as file:
        if os.fstat(file.fileno()).st_size == 0:
            yield b""
            return
        mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
        try:
            yield mapped
        finally:
            try:
                mapped.close()
            except BufferError:     # a view is still alive; the map goes when it does
                pass


# ---------------------------------------------------------------------------------------
# .log (and KRaft .checkpoint) files


def dump_log_segment(path: str | os.PathLike, out: TextIO, *, print_data_log: bool = False,
                     deep_iteration: bool = False, skip_record_metadata: bool = False,
                     max_bytes: int | None = None) -> DumpResult:
    """Print the batches of a `.log` file (and its records, if asked) to `out`."""
    path = Path(path)
    deep = deep_iteration or print_data_log
    result = DumpResult(str(path), "log")
    out.write(_log_heading(path) + "\n")
    last_offset = None                             # of the last record, for the gap check
    with _mapped(path) as buf:
        size = len(buf)
        position = 0
        while True:
            try:
                frame = _read_frame(buf, position, size)
            except _Unreadable as error:
                result.stop_reason = f"Stopped reading at position {position}: {error}"
                break
            if frame is None:
                break
            if max_bytes is not None and position + frame.size_bytes > max_bytes:
                break                               # Kafka's --max-bytes: whole batches only
            valid = _frame_is_valid(buf, frame)
            out.write(_batch_line(frame, valid) + "\n")
            result.batches += 1
            if not valid:
                result.invalid_batch_positions.append(position)
            if deep:
                last_offset = _dump_records(buf, frame, out, result, last_offset,
                                            print_data_log, skip_record_metadata)
            position += frame.size_bytes
        result.valid_bytes = position
    if result.stop_reason is not None:
        out.write(result.stop_reason + "\n")
    if max_bytes is None:                           # as Kafka: no tail report under a limit
        result.trailing_bytes = size - position
    if result.trailing_bytes:
        out.write(f"Found {result.trailing_bytes} invalid bytes at the end of {path.name}\n")
    return result


def _log_heading(path: Path) -> str:
    name = path.name
    if _file_kind(name) == "snapshot":
        if name == "bootstrap.checkpoint":
            return "KRaft bootstrap snapshot"
        parts = name.split(".")[0].split("-")
        if len(parts) == 2 and all(part.isdigit() for part in parts):
            return f"Snapshot end offset: {int(parts[0])}, epoch: {int(parts[1])}"
        return "Snapshot end offset: unknown (the file name is not <offset>-<epoch>.checkpoint)"
    base_offset = _base_offset_from_name(path)
    if base_offset is None:
        return ("Log starting offset: unknown (the file name is not a 20-digit base "
                "offset)")
    return f"Log starting offset: {base_offset}"


def _frame_is_valid(buf, frame: _Frame) -> bool:
    """Kafka's isValid: the stored CRC matches the bytes (CRC-32C, or CRC-32 for 0/1)."""
    if frame.header is None:
        return frame.legacy.is_valid
    return records.compute_crc(buf, frame.position) == frame.header.crc


def _batch_line(frame: _Frame, valid: bool) -> str:
    if frame.header is None:
        message = frame.legacy
        return (f"offset: {message.offset} position: {frame.position} "
                f"{message.timestamp_type_name}: {message.timestamp} "
                f"size: {frame.size_bytes} magic: {message.magic} "
                f"compresscodec: {_codec_name(message.codec)} crc: {message.crc} "
                f"isvalid: {_java_bool(valid)}")
    header = frame.header
    delete_horizon = (f"OptionalLong[{header.base_timestamp}]" if header.has_delete_horizon
                      else "OptionalLong.empty")
    return (f"baseOffset: {header.base_offset} lastOffset: {header.last_offset} "
            f"count: {header.records_count} baseSequence: {header.base_sequence} "
            f"lastSequence: {header.last_sequence} producerId: {header.producer_id} "
            f"producerEpoch: {header.producer_epoch} "
            f"partitionLeaderEpoch: {header.partition_leader_epoch} "
            f"isTransactional: {_java_bool(header.is_transactional)} "
            f"isControl: {_java_bool(header.is_control)} deleteHorizonMs: {delete_horizon} "
            f"position: {frame.position} {_timestamp_type_name(header)}: "
            f"{header.max_timestamp} size: {header.size_bytes} magic: {header.magic} "
            f"compresscodec: {_codec_name(header.attributes & records.COMPRESSION_MASK)} "
            f"crc: {header.crc} isvalid: {_java_bool(valid)}")


def _java_bool(value: bool) -> str:
    return "true" if value else "false"


def _codec_name(codec: int) -> str:
    return _CODEC_NAMES.get(codec, f"unknown({codec})")


def _timestamp_type_name(header: records.BatchHeader) -> str:
    return ("LogAppendTime" if header.attributes & records.TIMESTAMP_TYPE_BIT
            else "CreateTime")


def _dump_records(buf, frame: _Frame, out: TextIO, result: DumpResult,
                  last_offset: int | None, print_data_log: bool,
                  skip_record_metadata: bool) -> int | None:
    """Print one line per record of the batch; return the last record offset seen."""
    if frame.header is not None:
        iterator = records.iter_records(buf, frame.position)
        line = _record_line
    else:
        iterator = _legacy_records(frame.legacy)
        line = _legacy_record_line
    try:
        for record in iterator:
            if last_offset is not None and record.offset != last_offset + 1:
                result.non_consecutive_offsets.append((last_offset, record.offset))
            last_offset = record.offset
            result.records += 1
            out.write(line(frame, record, print_data_log, skip_record_metadata, result) + "\n")
    except (ProtocolError, ValueError) as error:
        problem = f"Could not read the records of the batch at position {frame.position}: {error}"
        result.record_problems.append(problem)
        out.write(problem + "\n")
    finally:
        close = getattr(iterator, "close", None)
        if close is not None:
            close()                         # drop its view of the mapped file now
    return last_offset


def _record_line(frame: _Frame, record: records.Record, print_data_log: bool,
                 skip_record_metadata: bool, result: DumpResult) -> str:
    header = frame.header
    line = "| "
    separator = ""                 # what goes before the next field (Kafka's `prefix`)
    if not skip_record_metadata:
        sequence = _record_sequence(header, record.offset - header.base_offset)
        header_keys = ",".join(name for name, _ in record.headers)
        line += (f"offset: {record.offset} {_timestamp_type_name(header)}: {record.timestamp} "
                 f"keySize: {_size(record.key)} valueSize: {_size(record.value)} "
                 f"sequence: {sequence} headerKeys: [{header_keys}]")
        if header.is_control:
            line += _control_fields(record, frame.position, result)
        separator = " "
    if print_data_log and not header.is_control:
        line += _data_fields(record.key, record.value, separator)
    return line


def _record_sequence(header: records.BatchHeader, offset_delta: int) -> int:
    """Kafka's DefaultRecord.sequence: baseSequence + offset delta, wrapping at 2^31-1."""
    if header.base_sequence == records.NO_SEQUENCE:
        return records.NO_SEQUENCE
    sequence = header.base_sequence + offset_delta
    return sequence - (records.INT32_MAX + 1) if sequence > records.INT32_MAX else sequence


def _size(data: bytes | None) -> int:
    return -1 if data is None else len(data)


def _control_fields(record: records.Record, position: int, result: DumpResult) -> str:
    try:
        control_type, coordinator_epoch = records.read_control_record(record)
    except ProtocolError as error:
        result.record_problems.append(f"control record at offset {record.offset} (batch at "
                                      f"position {position}) is malformed: {error}")
        return f" controlType: malformed ({error})"
    if control_type in (records.ControlType.ABORT, records.ControlType.COMMIT):
        return f" endTxnMarker: {control_type.name} coordinatorEpoch: {coordinator_epoch}"
    type_id, = _INT16.unpack_from(record.key, 2)
    return f" controlType: {_CONTROL_TYPE_NAMES.get(type_id, 'UNKNOWN')}({type_id})"


def _data_fields(key: bytes | None, value: bytes | None, separator: str) -> str:
    """` key: ...` and ` payload: ...`, each left out when null, as Kafka's StringDecoder
    prints them: UTF-8, malformed bytes replaced as Java replaces them."""
    text = ""
    if key is not None:
        text += f"{separator}key: {decode_utf8(key)}"
        separator = " "
    if value is not None:
        text += f"{separator}payload: {decode_utf8(value)}"
    return text


# Old message sets (magic 0 and 1) ------------------------------------------------------


def _legacy_records(wrapper: LegacyMessage) -> Iterator[LegacyMessage]:
    """The messages of a legacy entry: itself, or the inner messages of a compressed one.

    In magic 1 the inner offsets are relative and the wrapper holds the absolute offset of
    the last one; in magic 0 they are absolute. In a LogAppendTime wrapper every inner
    message takes the wrapper's timestamp.
    """
    if wrapper.problem is not None:
        raise ValueError(wrapper.problem)
    if wrapper.codec == 0:
        yield wrapper
        return
    if wrapper.value is None:
        raise ValueError("a compressed wrapper message has a null value")
    inner_bytes = decompress(wrapper.codec, wrapper.value,
                             records.DEFAULT_MAX_DECOMPRESSED_BYTES)
    inner = []
    position = 0
    while position < len(inner_bytes):
        try:
            frame = _read_frame(inner_bytes, position, len(inner_bytes))
        except _Unreadable as error:
            raise ValueError(f"inside the compressed message set, at position {position}: "
                             f"{error}") from None
        if frame.legacy is None:
            raise ValueError(f"the compressed message set holds a magic {frame.magic} batch")
        if frame.legacy.problem is not None:
            raise ValueError(frame.legacy.problem)
        inner.append(frame.legacy)
        position += frame.size_bytes
    if not inner:
        return
    base = wrapper.offset - inner[-1].offset if wrapper.magic > 0 else 0
    log_append_time = wrapper.magic > 0 and bool(wrapper.attributes & 0x08)
    for message in inner:
        yield replace(message, offset=base + message.offset,
                      timestamp=wrapper.timestamp if log_append_time else message.timestamp)


def _legacy_record_line(frame: _Frame, message: LegacyMessage, print_data_log: bool,
                        skip_record_metadata: bool, result: DumpResult) -> str:
    line = "| "
    separator = ""
    if not skip_record_metadata:
        line += (f"offset: {message.offset} {frame.legacy.timestamp_type_name}: "
                 f"{message.timestamp} keySize: {_size(message.key)} "
                 f"valueSize: {_size(message.value)} isValid: {_java_bool(message.is_valid)} "
                 f"crc: {message.crc}")
        separator = " "
    if print_data_log:
        line += _data_fields(message.key, message.value, separator)
    return line


# ---------------------------------------------------------------------------------------
# .index files


def _read_entries(data: bytes, entry: struct.Struct) -> list[tuple]:
    """The whole entries of an index file, stopping at zero padding.

    Kafka preallocates an active segment's index and fills it from the start, so an
    all-zero entry after the first one marks the end of what was written, and a file of
    only zeros has no entries. (Kafka's tool would print that file's first slot as
    `offset: <base offset> position: 0`; no writer puts an entry at position 0, as the
    first entry comes after index.interval.bytes of log.)
    """
    if not data.strip(b"\x00"):
        return []               # only zeros: a preallocated index nothing was written to
    entries = []
    zero = bytes(entry.size)
    for position in range(0, len(data) - entry.size + 1, entry.size):
        if position > 0 and data[position:position + entry.size] == zero:
            break
        entries.append(entry.unpack_from(data, position))
    return entries


def _read_index_file(path: Path, kind: str, out: TextIO) -> tuple[DumpResult, bytes, int | None]:
    """An index file's DumpResult, bytes and base offset (from its name). A name that is
    not a 20-digit offset gives None, with the error written and set on the result."""
    result = DumpResult(str(path), kind)
    data = path.read_bytes()
    base_offset = _base_offset_from_name(path)
    if base_offset is None:
        result.error = f"cannot read {path}: its name is not a 20-digit base offset"
        out.write(result.error + "\n")
    return result, data, base_offset


def dump_offset_index(path: str | os.PathLike, out: TextIO, *, sanity_check_only: bool = False,
                      verify_only: bool = False) -> DumpResult:
    """Print an `.index` file's entries and check each against the segment's `.log`."""
    path = Path(path)
    result, data, base_offset = _read_index_file(path, "index", out)
    if base_offset is None:
        return result
    entries = [(base_offset + relative, position)
               for relative, position in _read_entries(data, OFFSET_INDEX_ENTRY)]
    result.entries = len(entries)
    if not entries and len(data) % OFFSET_INDEX_ENTRY.size == 0:
        out.write(f"{path} is empty.\n")
        return result
    problems = result.index_problems
    _check_index_size(len(data), OFFSET_INDEX_ENTRY.size, problems)
    if len(data) >= OFFSET_INDEX_ENTRY.size:
        last_relative, _ = OFFSET_INDEX_ENTRY.unpack_from(
            data, len(data) - len(data) % OFFSET_INDEX_ENTRY.size - OFFSET_INDEX_ENTRY.size)
        if last_relative < 0:
            problems.append(f"the last entry's offset {base_offset + last_relative} is below "
                            f"the base offset {base_offset} (Kafka's startup check fails)")
    for number, (offset, position) in enumerate(entries):
        if number > 0:
            previous_offset, previous_position = entries[number - 1]
            if offset <= previous_offset:
                problems.append(f"entry {number}: offset {offset} is not above the previous "
                                f"entry's {previous_offset}")
            if position <= previous_position:
                problems.append(f"entry {number}: position {position} is not after the "
                                f"previous entry's {previous_position}")
    with _segment_log(path, problems) as log:
        for number, (offset, position) in enumerate(entries):
            if log is not None:
                _check_offset_entry(log, number, offset, position, result)
            if not verify_only and not sanity_check_only:
                out.write(f"offset: {offset} position: {position}\n")
    if sanity_check_only:
        verdict = "passed" if result.ok else "failed"
        out.write(f"{path} {verdict} sanity check.\n")
    return result


def _check_index_size(size: int, entry_size: int, problems: list[str]) -> None:
    if size % entry_size:
        problems.append(f"the file has {size} bytes, not a whole number of {entry_size}-byte "
                        f"entries (Kafka's startup check fails)")


@contextmanager
def _segment_log(index_path: Path, problems: list[str]) -> Iterator:
    """The mapped `.log` next to an index file, or None (with a problem noted) if absent."""
    log_path = index_path.with_name(index_path.name.split(".")[0] + ".log")
    if not log_path.is_file():
        problems.append(f"cannot check the entries against the log: {log_path} does not exist")
        yield None
        return
    with _mapped(log_path) as log:
        yield log


def _check_offset_entry(log, number: int, offset: int, position: int,
                        result: DumpResult) -> None:
    """Kafka's check: the batch at the entry's position has the entry's offset as its last."""
    if position < 0 or position >= len(log):
        result.index_problems.append(f"entry {number} (offset {offset}): position {position} "
                                     f"is outside the log ({len(log)} bytes)")
        return
    try:
        frame = _read_frame(log, position, len(log))
    except _Unreadable as error:
        result.index_problems.append(f"entry {number} (offset {offset}): no batch can be read "
                                     f"at position {position}: {error}")
        return
    if frame.last_offset != offset:
        result.index_mismatches.append((offset, frame.last_offset))


# ---------------------------------------------------------------------------------------
# .timeindex files


def dump_time_index(path: str | os.PathLike, out: TextIO, *, sanity_check_only: bool = False,
                    verify_only: bool = False) -> DumpResult:
    """Print a `.timeindex` file's entries and check each against the segment's `.log`."""
    path = Path(path)
    result, data, base_offset = _read_index_file(path, "timeindex", out)
    if base_offset is None:
        return result
    entries = [(timestamp, base_offset + relative)
               for timestamp, relative in _read_entries(data, TIME_INDEX_ENTRY)]
    result.entries = len(entries)
    problems = result.index_problems
    _check_index_size(len(data), TIME_INDEX_ENTRY.size, problems)
    whole = len(data) - len(data) % TIME_INDEX_ENTRY.size
    if whole:
        first_timestamp, _ = TIME_INDEX_ENTRY.unpack_from(data, 0)
        last_timestamp, last_relative = TIME_INDEX_ENTRY.unpack_from(
            data, whole - TIME_INDEX_ENTRY.size)
        if last_timestamp < first_timestamp:
            problems.append(f"the last slot's timestamp {last_timestamp} is below the first "
                            f"entry's {first_timestamp} (Kafka's startup check fails; a "
                            f"preallocated index from an unclean stop looks like this)")
        if last_relative < 0:
            problems.append(f"the last slot's offset {base_offset + last_relative} is below "
                            f"the base offset {base_offset} (Kafka's startup check fails)")
    offset_index = _sibling_offset_index(path, base_offset)
    previous_timestamp = records.NO_TIMESTAMP
    with _segment_log(path, problems) as log:
        for number, (timestamp, offset) in enumerate(entries):
            if number > 0 and offset < entries[number - 1][1]:
                problems.append(f"entry {number}: offset {offset} is below the previous "
                                f"entry's {entries[number - 1][1]}")
            if log is not None:
                _check_time_entry(log, offset_index, timestamp, offset, previous_timestamp,
                                  result)
            if not verify_only and not sanity_check_only:
                out.write(f"timestamp: {timestamp} offset: {offset}\n")
            previous_timestamp = timestamp
    if sanity_check_only:
        verdict = "passed" if result.ok else "failed"
        out.write(f"{path} {verdict} sanity check.\n")
    return result


def _sibling_offset_index(path: Path, base_offset: int) -> tuple[list[int], list[int]]:
    """(offsets, positions) of the `.index` next to a time index, for finding batches."""
    index_path = path.with_name(path.name.split(".")[0] + ".index")
    try:
        data = index_path.read_bytes()
    except OSError:
        return [], []
    entries = _read_entries(data, OFFSET_INDEX_ENTRY)
    return ([base_offset + relative for relative, _ in entries],
            [position for _, position in entries])


def _check_time_entry(log, offset_index: tuple[list[int], list[int]], timestamp: int,
                      offset: int, previous_timestamp: int, result: DumpResult) -> None:
    """Kafka's checks of one time index entry against the log."""
    frame = _find_batch(log, offset_index, offset)
    if frame is None:
        result.offsets_not_found.append((offset, -1))
        return
    if frame.last_offset != offset:
        result.offsets_not_found.append((offset, frame.last_offset))
        return
    max_timestamp = _max_record_timestamp(log, frame, result)
    if max_timestamp != timestamp:
        result.timestamp_mismatches.append((timestamp, max_timestamp))
    if previous_timestamp >= timestamp:
        result.out_of_order_timestamps.append((timestamp, previous_timestamp))


def _find_batch(log, offset_index: tuple[list[int], list[int]], offset: int) -> _Frame | None:
    """The first batch whose last offset is >= `offset`, starting from the offset index's
    largest entry at or below it (or the start of the file), as a broker's lookup does."""
    offsets, positions = offset_index
    slot = bisect.bisect_right(offsets, offset) - 1
    position = positions[slot] if slot >= 0 else 0
    size = len(log)
    while True:
        try:
            frame = _read_frame(log, position, size)
        except _Unreadable:
            return None
        if frame is None or frame.last_offset >= offset:
            return frame
        position += frame.size_bytes


def _max_record_timestamp(log, frame: _Frame, result: DumpResult) -> int:
    """The largest record timestamp of the batch, read from its records as Kafka does."""
    if frame.header is None:
        messages = _legacy_records(frame.legacy)
    else:
        messages = records.iter_records(log, frame.position)
    max_timestamp = records.NO_TIMESTAMP
    try:
        for record in messages:
            max_timestamp = max(max_timestamp, record.timestamp)
    except (ProtocolError, ValueError) as error:
        result.index_problems.append(f"the records of the batch at position {frame.position} "
                                     f"cannot be read to check its timestamp: {error}")
    finally:
        messages.close()
    return max_timestamp


# ---------------------------------------------------------------------------------------
# .txnindex files


def dump_transaction_index(path: str | os.PathLike, out: TextIO) -> DumpResult:
    """Print the aborted transactions of a `.txnindex` file, one 34-byte entry a line."""
    path = Path(path)
    result = DumpResult(str(path), "txnindex")
    data = path.read_bytes()
    whole = len(data) - len(data) % ABORTED_TXN_ENTRY.size
    for position in range(0, whole, ABORTED_TXN_ENTRY.size):
        version, producer_id, first_offset, last_offset, last_stable_offset = (
            ABORTED_TXN_ENTRY.unpack_from(data, position))
        result.entries += 1
        out.write(f"version: {version} producerId: {producer_id} firstOffset: {first_offset} "
                  f"lastOffset: {last_offset} lastStableOffset: {last_stable_offset}\n")
    if whole != len(data):
        result.index_problems.append(f"the file has {len(data)} bytes, not a whole number of "
                                     f"{ABORTED_TXN_ENTRY.size}-byte entries")
    return result


def dump_producer_snapshot(path: str | os.PathLike, out: TextIO) -> DumpResult:
    """Print a producer-state `.snapshot` file: one line per idempotent producer, giving
    what the broker needs to check its next batch (epoch, last sequence and offset)."""
    path = Path(path)
    result = DumpResult(str(path), "producer_snapshot")
    try:
        entries = read_snapshot_file(path)
    except CorruptSnapshot as error:
        result.index_problems.append(str(error))
        out.write(f"Cannot decode {path.name}: {error}\n")
        return result
    for entry in entries:
        result.entries += 1
        first_sequence = entry.last_sequence - entry.offset_delta if entry.last_sequence >= 0 else -1
        # Kafka 4 prints the Java OptionalLong of the open transaction's first offset
        txn_first = (f"OptionalLong[{entry.current_txn_first_offset}]" if entry.current_txn_first_offset >= 0
                     else "OptionalLong.empty")
        out.write(f"producerId: {entry.producer_id} producerEpoch: {entry.producer_epoch} "
                  f"coordinatorEpoch: {entry.coordinator_epoch} currentTxnFirstOffset: {txn_first} "
                  f"lastTimestamp: {entry.timestamp_ms} firstSequence: {first_sequence} "
                  f"lastSequence: {entry.last_sequence} lastOffset: {entry.last_offset} "
                  f"offsetDelta: {entry.offset_delta} timestamp: {entry.timestamp_ms}\n")
    return result


if __name__ == "__main__":
    sys.exit(main())
