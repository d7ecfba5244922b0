"""`replication-offset-checkpoint`: each partition's high watermark, saved (Kafka's
ReplicaManager.checkpointHighWatermarks).

One file per data directory, beside `recovery-point-offset-checkpoint`, in Kafka's
offset-checkpoint format (storage/checkpoint.py: version 0, a count, then
`topic partition high_watermark` lines), rewritten whole (temp file, fsync, rename), so a
crash leaves the previous version. The broker writes it every
`replica.high.watermark.checkpoint.interval.ms` (5 s) and at a clean shutdown; a start
that finds none creates it empty (0 bytes), as Kafka's checkpoint files are created.

What it is for: a replica that restarts knows up to where its log was committed before it
hears from the leader. The broker reads it once at start and each partition opens at its
saved value, clamped to [log start, log end] (pylog/partition.py), as Kafka's does; a
partition that leads alone moves it to its log end offset at once.

Concurrency: owned by the broker's event loop.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from storage import files
from storage.checkpoint import OffsetCheckpointFile


class HighWatermarkCheckpoint:
    def __init__(self, data_dir: Path):
        self.file = OffsetCheckpointFile(Path(data_dir) / files.REPLICATION_OFFSET_CHECKPOINT_FILE_NAME)

    def create_if_missing(self) -> None:
        self.file.create_if_missing()

    def write(self, partitions: Iterable) -> None:
        """Save the high watermark of each of `partitions` (pylog.partition.Partition)."""
        # sorted by partition, where Kafka writes a Scala AnyRefMap's order (storage/manager.py)
        self.file.write(dict(sorted(((p.topic, p.index), p.high_watermark) for p in partitions)))

    def read(self) -> dict[tuple[str, int], int]:
        return self.file.read()
