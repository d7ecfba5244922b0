"""File and directory names of Kafka's on-disk layout.

A data directory (`log.dirs`) holds one directory per partition and a few checkpoint files:

    <data dir>/
        .kafka_cleanshutdown                  present only after a clean shutdown
        recovery-point-offset-checkpoint      "topic partition offset" per partition
        log-start-offset-checkpoint
        cleaner-offset-checkpoint             first dirty offset of compacted partitions
        replication-offset-checkpoint         high watermark per partition (the broker's)
        <topic>-<partition>/                   one partition log (e.g. orders-3)
            00000000000000000000.log           record batches, exactly as produced
            00000000000000000000.index         offset index: 8-byte entries
            00000000000000000000.timeindex     time index: 12-byte entries
            00000000000000001234.log           the next segment: base offset 1234
            00000000000000001234.snapshot      producer state before offset 1234
            leader-epoch-checkpoint            "epoch start_offset" per leader epoch
            ...

A segment's files are named after its base offset, zero-padded to 20 digits (the width
of the largest int64), so that a plain sort of the names is a sort by offset. A producer
snapshot is named the same way after the offset it was taken at (the state of every
offset below it; see storage/producer_snapshot.py); it usually matches a segment's base
offset, except the one a clean shutdown writes at the log end offset.

Suffixes appended after the normal extension mark files in transit:

| suffix     | written by                           | found at startup means                   |
| ---------- | ------------------------------------ | ---------------------------------------- |
| `.cleaned` | the cleaner, while it copies         | the copy never finished: delete it       |
| `.swap`    | the cleaner, once the copy is whole  | the swap was interrupted: finish it      |
| `.deleted` | segment deletion (retention, ...)    | deletion was pending: delete it          |

A partition directory whose name ends in `-delete` is a deleted partition waiting to be
removed; one ending in `-stray` is a log the broker found but does not host (a topic it
does not know, another topic id), moved aside and kept, as Kafka 4 does; `-future`
directories belong to a feature pylog does not have (moving a log between data
directories).
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Iterable

LOG_FILE_SUFFIX = ".log"
INDEX_FILE_SUFFIX = ".index"
TIME_INDEX_FILE_SUFFIX = ".timeindex"
TXN_INDEX_FILE_SUFFIX = ".txnindex"
PRODUCER_SNAPSHOT_FILE_SUFFIX = ".snapshot"

CLEANED_FILE_SUFFIX = ".cleaned"
SWAP_FILE_SUFFIX = ".swap"
DELETED_FILE_SUFFIX = ".deleted"

DELETE_DIR_SUFFIX = "-delete"
FUTURE_DIR_SUFFIX = "-future"
STRAY_DIR_SUFFIX = "-stray"
# The KRaft metadata log's directory: a log of the cluster's metadata, owned by the
# controller (and its copy by each broker), never one of the broker's partitions.
METADATA_LOG_DIR_NAME = "__cluster_metadata-0"

CLEAN_SHUTDOWN_FILE_NAME = ".kafka_cleanshutdown"
RECOVERY_POINT_CHECKPOINT_FILE_NAME = "recovery-point-offset-checkpoint"
LOG_START_OFFSET_CHECKPOINT_FILE_NAME = "log-start-offset-checkpoint"
CLEANER_OFFSET_CHECKPOINT_FILE_NAME = "cleaner-offset-checkpoint"
REPLICATION_OFFSET_CHECKPOINT_FILE_NAME = "replication-offset-checkpoint"
LEADER_EPOCH_CHECKPOINT_FILE_NAME = "leader-epoch-checkpoint"  # in each partition directory

# The per-segment files, in the order Kafka deletes them: indexes first, the .log last.
# A crash in between leaves a .log without indexes, which the next start rebuilds.
SEGMENT_FILE_SUFFIXES = (INDEX_FILE_SUFFIX, TIME_INDEX_FILE_SUFFIX, TXN_INDEX_FILE_SUFFIX, LOG_FILE_SUFFIX)
INDEX_FILE_SUFFIXES = (INDEX_FILE_SUFFIX, TIME_INDEX_FILE_SUFFIX, TXN_INDEX_FILE_SUFFIX)


def file_name_prefix(base_offset: int) -> str:
    """`42` -> `"00000000000000000042"`: the 20-digit stem of a segment's file names."""
    if base_offset < 0:
        raise ValueError(f"a base offset cannot be negative: {base_offset}")
    return f"{base_offset:020d}"


def segment_file_name(base_offset: int, suffix: str, extra_suffix: str = "") -> str:
    """The name of one of a segment's files, e.g. `(42, ".index", ".swap")` ->
    `"00000000000000000042.index.swap"`."""
    return f"{file_name_prefix(base_offset)}{suffix}{extra_suffix}"


def segment_file_path(dir: Path, base_offset: int, suffix: str, extra_suffix: str = "") -> Path:
    """The path of one of a segment's files, e.g. `(dir, 42, ".index", ".swap")`."""
    return dir / segment_file_name(base_offset, suffix, extra_suffix)


def log_file_path(dir: Path, base_offset: int, extra_suffix: str = "") -> Path:
    return segment_file_path(dir, base_offset, LOG_FILE_SUFFIX, extra_suffix)


def offset_index_file_path(dir: Path, base_offset: int, extra_suffix: str = "") -> Path:
    return segment_file_path(dir, base_offset, INDEX_FILE_SUFFIX, extra_suffix)


def time_index_file_path(dir: Path, base_offset: int, extra_suffix: str = "") -> Path:
    return segment_file_path(dir, base_offset, TIME_INDEX_FILE_SUFFIX, extra_suffix)


def txn_index_file_path(dir: Path, base_offset: int, extra_suffix: str = "") -> Path:
    return segment_file_path(dir, base_offset, TXN_INDEX_FILE_SUFFIX, extra_suffix)


def producer_snapshot_file_path(dir: Path, offset: int, extra_suffix: str = "") -> Path:
    """`(dir, 1234)` -> `dir/00000000000000001234.snapshot`."""
    return segment_file_path(dir, offset, PRODUCER_SNAPSHOT_FILE_SUFFIX, extra_suffix)


def is_producer_snapshot_file(name: str) -> bool:
    return name.endswith(PRODUCER_SNAPSHOT_FILE_SUFFIX) and _has_offset_stem(name)


def base_offset_from_file_name(name: str) -> int:
    """The base offset a segment file is named after: everything before the first dot.

    Raises ValueError for names that do not start with digits and a dot.
    """
    stem, dot, _ = name.partition(".")
    if not dot or not stem.isdigit():
        raise ValueError(f"{name!r} is not named after a base offset")
    return int(stem)


def is_log_file(name: str) -> bool:
    return name.endswith(LOG_FILE_SUFFIX) and _has_offset_stem(name)


def is_index_file(name: str) -> bool:
    return name.endswith(INDEX_FILE_SUFFIXES) and _has_offset_stem(name)


def _has_offset_stem(name: str) -> bool:
    stem, dot, _ = name.partition(".")
    return bool(dot) and stem.isdigit()


def strip_suffix(name: str, suffix: str) -> str:
    """`"0042.log.swap"` minus `".swap"` -> `"0042.log"`."""
    if not name.endswith(suffix):
        raise ValueError(f"{name!r} does not end with {suffix!r}")
    return name[: len(name) - len(suffix)]


def log_dir_name(topic: str, partition: int) -> str:
    """The directory of one partition: `<topic>-<partition>`, e.g. `orders-3`."""
    if partition < 0:
        raise ValueError(f"a partition number cannot be negative: {partition}")
    return f"{topic}-{partition}"


def log_stray_dir_name(topic: str, partition: int) -> str:
    """Where a stray log is moved: `<topic>-<partition>.<32 hex digits>-stray`, the topic
    cut so that the name fits 255 bytes (Kafka's LocalLog.logStrayDirName)."""
    suffix = f"-{partition}.{uuid.uuid4().hex}{STRAY_DIR_SUFFIX}"
    return topic[: 255 - len(suffix)] + suffix


def parse_log_dir_name(name: str) -> tuple[str, int]:
    """`"orders-3"` -> `("orders", 3)`. The partition follows the LAST dash (topic names
    may contain dashes). Raises ValueError for names that are not partition directories."""
    topic, dash, partition = name.rpartition("-")
    if not dash or not topic or not partition.isdigit():
        raise ValueError(f"{name!r} is not a partition directory name (<topic>-<partition>)")
    return topic, int(partition)


def regular_file_names(dir: Path) -> list[str]:
    """The names of the files in `dir` (not its directories)."""
    with os.scandir(dir) as entries:
        return [entry.name for entry in entries if entry.is_file()]


def read_to_end(fd: int) -> bytes:
    """The rest of an open file, with os-level reads: a start reads a few small files per
    partition (checkpoints, a producer snapshot), and a Python file object costs several
    system calls more than the read itself."""
    return b"".join(iter(lambda: os.read(fd, 65536), b""))


def unlink_paths(paths: Iterable[Path]) -> None:
    """Remove these files, in order; those already gone are no error."""
    for path in paths:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass


def remove_dir(dir: Path) -> None:
    """Remove `dir` and everything in it; what is already gone is no error."""
    import shutil   # at the first directory removed: a start usually removes none
    shutil.rmtree(dir, ignore_errors=True)
