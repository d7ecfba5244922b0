"""`cleaner-offset-checkpoint`: where each compacted log's dirty section begins.

One file per data directory, beside `recovery-point-offset-checkpoint`, in Kafka's
offset-checkpoint format (storage/checkpoint.py: version 0, a count, then
`topic partition offset` lines). The offset of a partition is its first dirty offset:
everything below it was compacted by an earlier pass. A partition without an entry is
dirty from its log start offset.

Written after each pass (and when `cleanable_range` resets an invalid offset), with
the whole file rewritten atomically; a crash leaves the old file, so the next pass
merely cleans again what the lost one had cleaned.

Not thread-safe: one owner per data directory writes it.
"""

from __future__ import annotations

from pathlib import Path

from storage import files
from storage.checkpoint import OffsetCheckpointFile


class CleanerCheckpoint:
    """The `cleaner-offset-checkpoint` of one data directory."""

    def __init__(self, data_dir: Path):
        self.file = OffsetCheckpointFile(Path(data_dir) / files.CLEANER_OFFSET_CHECKPOINT_FILE_NAME)

    def read(self) -> dict[tuple[str, int], int]:
        return self.file.read()

    def get(self, topic: str, partition: int) -> int | None:
        return self.read().get((topic, partition))

    def update(self, topic: str, partition: int, first_dirty_offset: int | None, *, sync: bool = True) -> None:
        """Set (or, with None, remove) one partition's entry, keeping the others."""
        offsets = self.read()
        if first_dirty_offset is None:
            offsets.pop((topic, partition), None)
        else:
            offsets[(topic, partition)] = first_dirty_offset
        # sorted by partition, where Kafka writes a Scala Map's order (storage/manager.py)
        self.file.write(dict(sorted(offsets.items())), sync=sync)
