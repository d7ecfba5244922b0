"""Producer ids: each one handed out once in the whole cluster, across restarts and crashes.

An idempotent producer's batches are checked per producer id (storage/producer_state.py):
a second producer given an id that a partition already knows would have its first batch
(sequence 0) refused as out of order, or worse, be taken for the first one. So an id is
never handed out twice, by any broker.

Kafka's way (`RPCProducerIdManager` on the broker, `ProducerIdControlManager` on the
controller), and pylog's: a broker asks the controller for a block of 1000 ids
(AllocateProducerIds, with its broker epoch); the controller commits the first id of the
next block (`ProducerIdsRecord`) to the metadata log before it answers, so no block is
handed out twice. The broker hands out the ids of its block in order and asks for the next
block when it runs out. A restarted broker asks for a new block: the unused rest of the old
one is skipped, never repeated.

Failures: a controller out of reach, or refusing (STALE_BROKER_EPOCH while the broker
re-registers), raises `ProducerIdsUnavailable`; the InitProducerId handler answers a
retriable error and the client asks again.

The single-node era kept the next block's start in a file of the data directory; the
controller's first start converts it (pylog/controller/json_conversion.py):

    <log.dir>/pylog-producer-ids      checkpoint layout (storage/checkpoint.py):
                                        0                version
                                        1                one entry:
                                        2000             first id of the next block

Concurrency: owned by the broker's event loop; one block request at a time (a lock), so
concurrent InitProducerId requests share the block that comes back.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Callable

from protocol.error_codes import ErrorCode
from protocol.messages import AllocateProducerIdsRequest
from storage.checkpoint import read_checkpoint_file
from storage.errors import CorruptCheckpoint

from pylog.network_client import NodeUnavailable

PRODUCER_IDS_FILE = "pylog-producer-ids"
PRODUCER_IDS_FILE_VERSION = 0
PRODUCER_ID_BLOCK_SIZE = 1000   # Kafka's ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE
ALLOCATE_PRODUCER_IDS_VERSION = 0


class ProducerIdsUnavailable(Exception):
    """No block of ids could be had from the controller just now."""


class ProducerIdManager:
    def __init__(self, channel, node_id: int, broker_epoch: Callable[[], int]):
        self.channel = channel
        self.node_id = node_id
        self.broker_epoch = broker_epoch
        self._next_id = 0
        self._block_end = 0   # no block yet: the first id asks for one
        self._asking = asyncio.Lock()

    async def generate(self) -> int:
        """A producer id never handed out before (raises ProducerIdsUnavailable)."""
        if self._next_id >= self._block_end:
            async with self._asking:
                if self._next_id >= self._block_end:
                    await self._next_block()
        producer_id = self._next_id
        self._next_id += 1
        return producer_id

    async def _next_block(self) -> None:
        try:
            response = await self.channel.send(AllocateProducerIdsRequest(
                broker_id=self.node_id, broker_epoch=self.broker_epoch()), ALLOCATE_PRODUCER_IDS_VERSION)
        except NodeUnavailable as e:
            raise ProducerIdsUnavailable(f"the controller could not be reached: {e}") from e
        if response.error_code != ErrorCode.NONE:
            raise ProducerIdsUnavailable(f"the controller refused a block: {ErrorCode(response.error_code).name}")
        self._next_id = response.producer_id_start
        self._block_end = response.producer_id_start + response.producer_id_len


def read_next_block_start(path: Path) -> int:
    """The first id of the next block recorded in a single-node era file; 0 when missing."""
    entries = read_checkpoint_file(path, PRODUCER_IDS_FILE_VERSION)
    if not entries:
        return 0
    if len(entries) != 1 or not entries[0].isdigit():
        raise CorruptCheckpoint(f"malformed producer id block in {path}: {entries!r}")
    return int(entries[0])
