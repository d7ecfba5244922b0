"""Producer ids: each one handed out once, across restarts and crashes too.

An idempotent producer's batches are checked per producer id (storage/producer_state.py):
a second producer given an id that a partition already knows would have its first batch
(sequence 0) refused as out of order, or worse, be taken for the first one. So an id is
never handed out twice.

Kafka's controller hands out ids in blocks of 1000 (`ProducerIdControlManager`) and
writes the first id of the next block (`ProducerIdsRecord`) to the metadata log before
any id of the block is used; a restarted broker takes a new block, so the unused rest of
the old one is skipped, never repeated. pylog's one node keeps the same fact in a file:

    <log.dir>/pylog-producer-ids      checkpoint layout (storage/checkpoint.py):
                                        0                version
                                        1                one entry:
                                        2000             first id of the next block

Invariants: every id handed out is below the recorded next-block start. On start the
allocator begins at the recorded start, or at one past the largest producer id found in
any loaded partition's producer state if that is higher: a data directory whose file is
missing or behind (partitions written by another broker, a copied directory) still never
gets an id its partitions know.

Crash behaviour: the file is replaced whole (temp file, fsync, rename, directory fsync)
BEFORE the first id of a new block is returned, so a crash at any point leaves a record
at or above every id already handed out; a restart starts at the next block.

Concurrency: owned by the broker's event loop; not thread-safe.
"""

from __future__ import annotations

from pathlib import Path

from storage.checkpoint import read_checkpoint_file, write_checkpoint_file
from storage.config import LONG_MAX
from storage.errors import CorruptCheckpoint

PRODUCER_IDS_FILE = "pylog-producer-ids"
PRODUCER_IDS_FILE_VERSION = 0
PRODUCER_ID_BLOCK_SIZE = 1000   # Kafka's ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE


class ProducerIdsExhausted(Exception):
    """No block of ids is left below the largest int64."""


class ProducerIdManager:
    def __init__(self, path: Path, first_id: int):
        self.path = Path(path)
        self._next_id = first_id
        self._block_end = first_id  # no block claimed yet: the first id claims one

    @classmethod
    def load(cls, log_dir: Path, largest_in_use: int = -1) -> ProducerIdManager:
        """The allocator of `log_dir`; `largest_in_use` is the largest producer id the
        loaded partitions know (-1: none)."""
        path = Path(log_dir) / PRODUCER_IDS_FILE
        return cls(path, max(read_next_block_start(path), largest_in_use + 1))

    def generate(self) -> int:
        """A producer id never handed out before (raises ProducerIdsExhausted)."""
        if self._next_id >= self._block_end:
            if self._next_id > LONG_MAX - PRODUCER_ID_BLOCK_SIZE:
                raise ProducerIdsExhausted(f"no block of {PRODUCER_ID_BLOCK_SIZE} producer ids is left "
                                           f"after {self._next_id}")
            block_end = self._next_id + PRODUCER_ID_BLOCK_SIZE
            write_checkpoint_file(self.path, PRODUCER_IDS_FILE_VERSION, [str(block_end)])
            self._block_end = block_end
        producer_id = self._next_id
        self._next_id += 1
        return producer_id


def read_next_block_start(path: Path) -> int:
    """The recorded first id of the next block; 0 when the file is missing."""
    entries = read_checkpoint_file(path, PRODUCER_IDS_FILE_VERSION)
    if not entries:
        return 0
    if len(entries) != 1 or not entries[0].isdigit():
        raise CorruptCheckpoint(f"malformed producer id block in {path}: {entries!r}")
    return int(entries[0])
