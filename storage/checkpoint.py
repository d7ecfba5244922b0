"""Checkpoint files: small text files that Kafka rewrites whole, atomically.

Layout (Kafka's `CheckpointFile`), UTF-8, one item per line, "\\n" line ends:

    0                    version (always 0 for offset checkpoints)
    2                    number of entries that follow
    orders 0 1234        one entry per line: topic, partition, offset
    orders 1 998

Used for `recovery-point-offset-checkpoint` (up to where each partition's log is known to
be on disk) and `log-start-offset-checkpoint` (the first readable offset of each
partition) in every data directory.

Crash behaviour: a checkpoint is written to `<name>.tmp`, fsynced, renamed over `<name>`
(an atomic replace on POSIX), and the directory is fsynced so the rename itself is
durable. A crash at any point leaves either the old file or the new one, never a mix; a
stray `.tmp` is simply overwritten by the next write. `write_file_atomically` does this,
and every file the broker rewrites whole goes through it: these checkpoints, producer
snapshots (storage/producer_snapshot.py), `partition.metadata` and `meta.properties`
(pylog/metadata.py), `quorum-state` and `bootstrap.checkpoint` (pylog/controller/).

Not thread-safe: the broker writes each checkpoint file from one place.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Mapping

from storage import files
from storage.errors import CorruptCheckpoint

OFFSET_CHECKPOINT_VERSION = 0
TEMP_FILE_SUFFIX = ".tmp"


def write_file_atomically(path: Path, data: bytes, *, sync: bool = True) -> None:
    """Replace `path` with `data` whole: written to `<name>.tmp`, fsynced, renamed over
    `path`, then the directory fsynced, so that a crash leaves the old file or the new one.
    Without `sync` nothing is fsynced: the caller fsyncs the file and its directory later,
    and until then a crash may leave the new name with torn contents."""
    temp_path = path.with_name(path.name + TEMP_FILE_SUFFIX)
    fd = os.open(temp_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        written = 0
        while written < len(data):
            written += os.write(fd, data[written:])
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(temp_path, path)
    if sync:
        fsync_dir(path.parent)


def write_checkpoint_file(path: Path, version: int, lines: Iterable[str], *, sync: bool = True) -> None:
    """Write `version`, the number of lines, then the lines; atomically replace `path`."""
    entries = list(lines)
    for entry in entries:
        if "\n" in entry:
            raise ValueError(f"a checkpoint entry cannot span lines: {entry!r}")
    text = "".join(f"{line}\n" for line in [str(version), str(len(entries)), *entries])
    write_file_atomically(path, text.encode("utf-8"), sync=sync)


def read_checkpoint_file(path: Path, version: int, *, create: bool = False) -> list[str]:
    """The entry lines of a checkpoint file; [] when the file is missing or empty. With
    `create`, a missing file is created empty (as Kafka's CheckpointFile does).

    Raises CorruptCheckpoint on an unknown version, a malformed count, or a count that
    does not match the entries (Kafka's checks).
    """
    try:
        fd = os.open(path, (os.O_RDONLY | os.O_CREAT) if create else os.O_RDONLY, 0o644)
    except FileNotFoundError:
        return []
    try:
        text = files.read_to_end(fd).decode("utf-8")
    finally:
        os.close(fd)
    lines = text.splitlines()
    if not lines:
        return []
    try:
        found_version = int(lines[0])
    except ValueError:
        raise CorruptCheckpoint(f"malformed version line in checkpoint file {path}: {lines[0]!r}") from None
    if found_version != version:
        raise CorruptCheckpoint(
            f"unrecognised version {found_version} (expected {version}) in checkpoint file {path}"
        )
    if len(lines) < 2:
        return []
    try:
        expected = int(lines[1])
    except ValueError:
        raise CorruptCheckpoint(f"malformed count line in checkpoint file {path}: {lines[1]!r}") from None
    entries = lines[2:]
    if len(entries) != expected:
        raise CorruptCheckpoint(
            f"expected {expected} entries in checkpoint file {path}, found {len(entries)}"
        )
    return entries


class OffsetCheckpointFile:
    """A `topic partition offset` checkpoint: {(topic, partition): offset}.

    Kafka's topic names never contain whitespace, so a space-separated line is unambiguous.
    Not thread-safe: the broker writes each checkpoint file from one place.
    """

    def __init__(self, path: Path):
        self.path = Path(path)

    def create_if_missing(self) -> None:
        """Create the file empty if there is none, as Kafka's CheckpointFile does when it is
        constructed: nothing written and nothing synced (an empty file reads as no entries)."""
        try:
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
        except FileExistsError:
            pass

    def write(self, offsets: Mapping[tuple[str, int], int], *, sync: bool = True) -> None:
        """Write `offsets`, one line each, in the mapping's order: the caller gives the order
        Kafka writes that file in."""
        lines = [f"{topic} {partition} {offset}" for (topic, partition), offset in offsets.items()]
        write_checkpoint_file(self.path, OFFSET_CHECKPOINT_VERSION, lines, sync=sync)

    def read(self) -> dict[tuple[str, int], int]:
        offsets: dict[tuple[str, int], int] = {}
        for line in read_checkpoint_file(self.path, OFFSET_CHECKPOINT_VERSION):
            parts = line.split()
            if len(parts) != 3 or not parts[1].isdigit() or not parts[2].lstrip("-").isdigit():
                raise CorruptCheckpoint(f"malformed line in checkpoint file {self.path}: {line!r}")
            offsets[(parts[0], int(parts[1]))] = int(parts[2])
        return offsets


def fsync_file(path: Path) -> bool:
    """fsync a file by its path (its data, also what was written through a memory map,
    and its length); False if it does not exist (any more)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    return True


def fsync_dir(path: Path) -> None:
    """fsync a directory, making the creation, rename or removal of its entries durable."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
