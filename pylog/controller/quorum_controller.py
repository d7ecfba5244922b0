"""The controller: one voter of a KRaft quorum of one, keeping the cluster's metadata log.

    controller = QuorumController(config, metadata_dir, cluster_id)
    await controller.start()
    response = await controller.handle(BrokerHeartbeatRequest(...), version=1)

What it owns:

    metadata_log   `__cluster_metadata-0` (pylog/controller/metadata_log.py): Kafka's record
                   batches of metadata records, in the controller's metadata directory
    image          the MetadataImage of every committed record (pylog/metadata_image.py)
    heartbeats     each broker's last contact (pylog/controller/broker_heartbeats.py)

How a request becomes metadata (Kafka's QuorumController event loop, with one voter):

    request ──> rules over the image (cluster_control, replication_control, leadership,
                configuration_control, producer_id_control): a response and records
            ──> commit: the records appended as one batch, fsynced (a quorum of one has
                committed what its own disk holds), applied to the image
            ──> listeners told (the in-process broker's publisher; Fetches of brokers
                following the log wake up), then the response is sent

Everything runs on the node's event loop and a request's rules and commit run with no
await between them, so requests are handled one at a time in arrival order, as Kafka's
single event-queue thread does: each sees the image the previous one left. A request
whose rules refuse it commits nothing.

Timers (`_tick`, every 100 ms): brokers whose session expired (`broker.session.timeout.ms`
without a heartbeat) are fenced and their partitions get new leaders; every
`leader.imbalance.check.interval.seconds`, with `auto.leader.rebalance.enable`, leadership
moves back to preferred replicas.

Start: the log is read back into the image; an empty log gets the bootstrap records
(features; and the topics of an older pylog data directory's `pylog-topics.json`,
converted); then a new Raft epoch begins with a LeaderChange control batch, and this
controller registers itself. Every broker registered when it stops gets a fresh session
from the start time.

Crash behaviour: a batch is committed once fsynced; a crash before leaves a torn tail
that recovery cuts off, and no response was sent for it.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Callable

from protocol.schema import Message

from pylog.clock import now_ms
from pylog.delayed import DataWaiters
from pylog.metadata_image import MetadataImage

log = logging.getLogger("pylog.controller")

TICK_INTERVAL_S = 0.1
METADATA_COMMITTED = "metadata-committed"   # the DataWaiters key a metadata Fetch parks on


class QuorumController:
    def __init__(self, config, metadata_dir: Path, cluster_id: str):
        self.config = config
        self.node_id = config.node_id
        self.metadata_dir = Path(metadata_dir)
        self.cluster_id = cluster_id
        self.image = MetadataImage()
        self.metadata_log = None
        self.heartbeats = None
        self.waiters = DataWaiters()
        self.listeners: list[Callable[[MetadataImage], None]] = []
        self.active = False
        self._tick_task: asyncio.Task | None = None
        self._last_rebalance_ms = 0

    # -- lifecycle ---------------------------------------------------------------------

    async def start(self) -> None:
        from pylog.controller import bootstrap
        from pylog.controller.broker_heartbeats import BrokerHeartbeats
        from pylog.controller.metadata_log import MetadataLog

        started_ms = now_ms()
        self.metadata_log = MetadataLog.open(self.metadata_dir, node_id=self.node_id, now_ms=started_ms)
        for epoch, entries in self.metadata_log.replay():
            self.image.apply_batch(epoch, entries)
        if self.image.offset < 0:
            self.commit(bootstrap.bootstrap_records(self.config, self.metadata_dir), started_ms)
        self.metadata_log.begin_epoch(started_ms)
        self.commit(bootstrap.controller_registration_records(self.config), started_ms)
        self.heartbeats = BrokerHeartbeats(started_ms, self.image.brokers)
        self._last_rebalance_ms = started_ms
        self.active = True
        self._tick_task = asyncio.get_running_loop().create_task(self._tick())
        log.info("controller %d active at Raft epoch %d, metadata offset %d",
                 self.node_id, self.metadata_log.epoch, self.image.offset)

    async def stop(self) -> None:
        self.active = False
        if self._tick_task is not None:
            self._tick_task.cancel()
            await asyncio.gather(self._tick_task, return_exceptions=True)
            self._tick_task = None
        if self.metadata_log is not None:
            self.metadata_log.close()
            self.metadata_log = None

    # -- committing --------------------------------------------------------------------

    @property
    def next_offset(self) -> int:
        """The offset the next committed record gets."""
        return self.metadata_log.end_offset

    def commit(self, records: list[tuple[Message, int]], at_ms: int | None = None) -> int:
        """Append `records` as one batch, durably, and apply them; the last offset."""
        if not records:
            return self.image.offset
        at_ms = now_ms() if at_ms is None else at_ms
        base_offset = self.metadata_log.end_offset
        batch_entries = self.metadata_log.append(records, at_ms)
        self.image.apply_batch(self.metadata_log.epoch, batch_entries)
        assert self.image.offset == base_offset + len(records) - 1
        for listener in list(self.listeners):
            try:
                listener(self.image)
            except Exception:
                log.exception("a metadata listener failed")
        self.waiters.notify(METADATA_COMMITTED)
        return self.image.offset

    # -- requests ----------------------------------------------------------------------

    async def handle(self, request: Message, version: int) -> Message:
        """Answer one controller request (the rules, then a commit of their records)."""
        from pylog.controller import apis
        result = apis.apply(self, request, version, now_ms())
        self.commit(list(result.records))
        return result.response

    # -- timers ------------------------------------------------------------------------

    async def _tick(self) -> None:
        from pylog.controller import apis
        while True:
            await asyncio.sleep(TICK_INTERVAL_S)
            try:
                current = now_ms()
                self.commit(apis.expire_sessions(self, current), current)
                interval_ms = self.config.leader_imbalance_check_interval_seconds * 1000
                if self.config.auto_leader_rebalance_enable and current - self._last_rebalance_ms >= interval_ms:
                    self._last_rebalance_ms = current
                    self.commit(apis.rebalance_leaders(self, current), current)
            except Exception:
                log.exception("controller timer failed")
