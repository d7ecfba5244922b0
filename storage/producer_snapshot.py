"""Producer snapshot files: `<offset>.snapshot`, the producer state of a partition below
an offset, in Kafka's byte layout (ProducerStateManager's version-1 snapshot).

    <topic>-<partition>/00000000000000001234.snapshot    state of offsets [.., 1234)

Layout, big-endian, no padding:

| bytes    | field           | type   | meaning                                       |
| -------- | --------------- | ------ | --------------------------------------------- |
| 0-1      | version         | int16  | always 1                                      |
| 2-5      | crc             | uint32 | CRC-32C of every byte from 6 to the end       |
| 6-9      | entry count     | int32  | N (the length of a classic protocol array)    |
| 10-      | N entries       | 46 B   | one per producer id, laid end to end:         |

| entry bytes | field                    | type  | meaning                                  |
| ----------- | ------------------------ | ----- | ---------------------------------------- |
| 0-7         | producer_id              | int64 |                                          |
| 8-9         | epoch                    | int16 | the producer's current epoch             |
| 10-13       | last_sequence            | int32 | of its last batch (-1: no batch)         |
| 14-21       | last_offset              | int64 | of its last batch (-1: no batch)         |
| 22-25       | offset_delta             | int32 | last offset - first offset of that batch |
| 26-33       | timestamp                | int64 | max timestamp of its last append         |
| 34-37       | coordinator_epoch        | int32 | of the last transaction marker (-1)      |
| 38-45       | current_txn_first_offset | int64 | first offset of its open transaction (-1)|

Only the LAST batch of each producer is kept (Kafka's format has room for one), so after
a restart from a snapshot the broker recognises a retry of that batch only; the batches
replayed from the log after the snapshot add to it.

Crash behaviour: a snapshot is written to `<name>.tmp`, fsynced, renamed over its final
name and the directory fsynced, so a snapshot file is either whole or absent. A file that
fails its checks anyway (bit rot, a copy cut short) raises CorruptSnapshot; the producer
state deletes it and falls back to an older snapshot. A leftover `.snapshot.tmp` is
deleted by `list_snapshot_files`.

Pure functions over bytes and single files; no state, nothing to serialize.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import Iterable, NamedTuple

from sortedcontainers import SortedList

from protocol.crc32c import crc32c
from storage import files
from storage.checkpoint import TEMP_FILE_SUFFIX, write_file_atomically
from storage.errors import CorruptSnapshot

PRODUCER_SNAPSHOT_VERSION = 1
_SNAPSHOT_NAME_ENDINGS = (files.PRODUCER_SNAPSHOT_FILE_SUFFIX, files.PRODUCER_SNAPSHOT_FILE_SUFFIX + TEMP_FILE_SUFFIX)

_HEADER = struct.Struct(">hIi")          # version, crc, entry count
_ENTRY = struct.Struct(">qhiqiqiq")      # the eight fields of one producer
CRC_POSITION = 2
ENTRIES_POSITION = 6                     # the CRC covers from here (the count included)
assert _HEADER.size == 10 and _ENTRY.size == 46


class SnapshotEntry(NamedTuple):
    """One producer's row in a snapshot file, field for field."""

    producer_id: int
    producer_epoch: int
    last_sequence: int
    last_offset: int
    offset_delta: int
    timestamp_ms: int
    coordinator_epoch: int
    current_txn_first_offset: int


def encode_snapshot(entries: Iterable[SnapshotEntry]) -> bytes:
    """The bytes of a snapshot file holding `entries`, in the order given."""
    rows = list(entries)
    out = bytearray(_HEADER.size + _ENTRY.size * len(rows))
    _HEADER.pack_into(out, 0, PRODUCER_SNAPSHOT_VERSION, 0, len(rows))
    position = _HEADER.size
    for row in rows:
        _ENTRY.pack_into(out, position, *row)
        position += _ENTRY.size
    struct.pack_into(">I", out, CRC_POSITION, crc32c(memoryview(out)[ENTRIES_POSITION:]))
    return bytes(out)


def decode_snapshot(data) -> list[SnapshotEntry]:
    """The entries of a snapshot file's bytes. Raises CorruptSnapshot on a short file, an
    unknown version, a CRC mismatch, or a count that does not match the length."""
    view = memoryview(data)
    if view.nbytes < _HEADER.size:
        raise CorruptSnapshot(f"snapshot of {view.nbytes} bytes is shorter than its {_HEADER.size}-byte header")
    version, stored_crc, count = _HEADER.unpack_from(view, 0)
    if version != PRODUCER_SNAPSHOT_VERSION:
        raise CorruptSnapshot(f"snapshot has unknown version {version} (expected {PRODUCER_SNAPSHOT_VERSION})")
    computed_crc = crc32c(view[ENTRIES_POSITION:])
    if computed_crc != stored_crc:
        raise CorruptSnapshot(
            f"snapshot fails its CRC-32C check (stored 0x{stored_crc:08x}, computed 0x{computed_crc:08x})"
        )
    if count < 0 or view.nbytes != _HEADER.size + count * _ENTRY.size:
        raise CorruptSnapshot(f"snapshot of {view.nbytes} bytes cannot hold the {count} entries it announces")
    return [SnapshotEntry._make(row) for row in _ENTRY.iter_unpack(view[_HEADER.size :])]


def write_snapshot_file(path: Path, entries: Iterable[SnapshotEntry], *, sync: bool = True) -> None:
    """Write a snapshot file atomically (temp file, fsync, rename, fsync the directory).

    Without `sync` nothing is fsynced: the caller fsyncs the file and its directory
    later (a roll leaves that to its pending flush, see storage/log.py). A crash before
    then may leave the file torn, which its checks catch on the next load."""
    write_file_atomically(path, encode_snapshot(entries), sync=sync)


def read_snapshot_file(path: Path) -> list[SnapshotEntry]:
    """The entries of a snapshot file (CorruptSnapshot if it fails its checks)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        data = files.read_to_end(fd)
    finally:
        os.close(fd)
    try:
        return decode_snapshot(data)
    except CorruptSnapshot as exc:
        raise CorruptSnapshot(f"{os.path.basename(path)}: {exc}") from None


def list_snapshot_files(dir: Path, file_names: Iterable[str] | None = None) -> SortedList:
    """The offsets of every `<offset>.snapshot` in `dir` (`files.producer_snapshot_file_path`
    names the file), ascending. Deletes leftover `.snapshot.tmp` files (a write a crash
    interrupted). `file_names`: the names of the files in `dir`, when the caller has just
    listed it (a start lists each partition directory once), else it is listed here."""
    if file_names is None:
        file_names = files.regular_file_names(dir)
    found = []
    for name in file_names:
        # (one suffix test per name first: a partition directory holds three files per
        # segment and a broker start reads thousands of directories)
        if not name.endswith(_SNAPSHOT_NAME_ENDINGS):
            continue
        if name.endswith(TEMP_FILE_SUFFIX):
            try:
                os.unlink(os.path.join(dir, name))
            except FileNotFoundError:
                pass
        elif files.is_producer_snapshot_file(name):
            found.append(files.base_offset_from_file_name(name))
    return SortedList(found)
