"""The controller: one voter of a KRaft quorum of one, keeping the cluster's metadata log.

    controller = QuorumController(config, metadata_dir, cluster_id)
    await controller.start()
    response = await controller.handle(BrokerHeartbeatRequest(...), version=1)

What it owns:

    metadata_log   `__cluster_metadata-0` (pylog/controller/metadata_log.py): Kafka's record
                   batches of metadata records, in the controller's metadata directory
    image          the MetadataImage of every committed record (pylog/metadata_image.py)
    heartbeats     each broker's last contact (pylog/controller/broker_heartbeats.py)
    observers      the brokers that fetch the log, how far and when
                   (pylog/controller/quorum_observers.py), for DescribeQuorum

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

Timers (`_tick`, every eighth of `broker.session.timeout.ms`): brokers whose session
expired (no heartbeat for `broker.session.timeout.ms`) are fenced and their partitions get
new leaders; every `leader.imbalance.check.interval.seconds`, with
`auto.leader.rebalance.enable`, leadership moves back to preferred replicas; every five
minutes, leaderless partitions of topics with `unclean.leader.election.enable` elect any
live replica. A combined node's own broker is never fenced for a late heartbeat: its
session is renewed at every tick while it runs (both live in one process; a pylog choice).

Start (pylog/controller/bootstrap.py `start_controller`): a new Raft epoch begins with a
LeaderChange control batch; the log is read back into the image; an empty log gets the
bootstrap records (features; and the topics of an older pylog data directory's
`pylog-topics.json`, converted); this controller registers itself. Every broker
registered unfenced gets a fresh session from the start time (Kafka's rule), except a
combined node's own broker, which cannot be alive: it starts in this very process.

Crash behaviour: a batch is committed once fsynced; a crash before leaves a torn tail
that recovery cuts off, and no response was sent for it.
"""

from __future__ import annotations

import asyncio
import logging
import random
import uuid
from pathlib import Path
from typing import Callable

from protocol.metadata_log import MetadataEntry
from protocol.schema import Message

from pylog.clock import now_ms
from pylog.controller import apis, bootstrap
from pylog.controller.broker_heartbeats import BrokerHeartbeats
from pylog.controller.cluster_control import fence_check_interval_ms
from pylog.controller.configuration_control import TopicSettings
from pylog.controller.metadata_log import MetadataLog, partition_dir
from pylog.controller.quorum_observers import QuorumObservers
from pylog.metadata_image import MetadataImage

log = logging.getLogger("pylog.controller")

UNCLEAN_ELECTION_INTERVAL_MS = 5 * 60 * 1000   # Kafka's periodic unclean leader election check


class QuorumController:
    def __init__(self, config, metadata_dir: Path, cluster_id: str):
        self.config = config
        self.node_id = config.node_id
        self.metadata_dir = Path(metadata_dir)
        self.cluster_id = cluster_id
        self.image = MetadataImage()
        self.metadata_log: MetadataLog | None = None
        self.heartbeats: BrokerHeartbeats | None = None
        self.observers = QuorumObservers()
        self.topic_settings = TopicSettings.from_config(config)
        self.rng = random.Random()
        self.listeners: list[Callable[[MetadataImage], None]] = []
        self.active = False
        self.local_broker_alive = False   # a combined node's broker: registered, not stopping
        self._tick_task: asyncio.Task | None = None
        self._last_rebalance_ms = self._last_unclean_ms = 0

    # -- lifecycle ---------------------------------------------------------------------

    async def start(self, endpoints: list[tuple[str, str, int, int]]) -> None:
        """Take over the metadata log (bootstrap.start_controller: new Raft epoch, replay,
        bootstrap or conversion on a first start), then register this controller with
        `endpoints` (listener name, host, port, security protocol id)."""
        started_ms = now_ms()
        self.metadata_log = MetadataLog.open(partition_dir(self.metadata_dir), now_ms=started_ms)
        self.heartbeats = BrokerHeartbeats(self.config.broker_session_timeout_ms)
        start = bootstrap.start_controller(self.metadata_log, node_id=self.node_id, voters=[self.node_id],
                                           log_dir=self.metadata_dir, now_ms=started_ms,
                                           min_insync_replicas=self.config.min_insync_replicas,
                                           on_record=self.heartbeats.replay)
        self.image = start.image
        self.heartbeats.activate(self.image, started_ms)
        if "broker" in self.config.process_roles:
            # This process's own broker is starting with it: whatever registration it had
            # belongs to a process that is gone, so it gets no session to wait out.
            self.heartbeats.forget_session(self.node_id)
        self.active = True
        self.commit([bootstrap.controller_registration(self.node_id, uuid.uuid4(), endpoints)], started_ms)
        now = now_ms()
        self._last_rebalance_ms = self._last_unclean_ms = now
        self._tick_task = asyncio.get_running_loop().create_task(self._tick())
        log.info("controller %d active at Raft epoch %d, metadata offset %d%s", self.node_id, start.epoch,
                 self.image.offset, " (first start)" if start.first_start else "")

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
        return self.metadata_log.log_end_offset

    def commit(self, records: list[tuple[Message, int]], at_ms: int | None = None) -> int:
        """Append `records` as one batch, durably, apply them to the image and the
        heartbeat tracker, then tell the listeners; the last offset."""
        if not records:
            return self.image.offset
        at_ms = now_ms() if at_ms is None else at_ms
        base_offset = self.metadata_log.log_end_offset
        last_offset = self.metadata_log.append(records, now_ms=at_ms)
        entries = [MetadataEntry(base_offset + i, record, version, None)
                   for i, (record, version) in enumerate(records)]
        self.image.apply_batch(self.metadata_log.epoch, entries)
        for entry in entries:
            self.heartbeats.replay(entry.record, entry.offset)
        for listener in list(self.listeners):
            try:
                listener(self.image)
            except Exception:
                log.exception("a metadata listener failed")
        return last_offset

    def commit_result(self, result, at_ms: int | None = None) -> None:
        """Commit a rule's records, run its after-commit step, then finish any
        reassignment the change completed."""
        last_offset = self.commit(list(result.records), at_ms)
        if result.after_commit is not None:
            result.after_commit(last_offset if result.records else self.metadata_log.log_end_offset - 1)
        finishing = apis.completed_reassignments(self)
        if finishing:
            self.commit(finishing, at_ms)

    # -- requests ----------------------------------------------------------------------

    async def handle(self, request: Message, version: int) -> Message:
        """Answer one controller request (the rule, then a commit of its records)."""
        at_ms = now_ms()
        result = apis.apply(self, request, version, at_ms)
        self.commit_result(result, at_ms)
        return result.response

    # -- timers ------------------------------------------------------------------------

    async def _tick(self) -> None:
        fence_every_s = fence_check_interval_ms(self.config.broker_session_timeout_ms) / 1000
        while True:
            await asyncio.sleep(fence_every_s)
            try:
                current = now_ms()
                if self.local_broker_alive:
                    # This process's broker lives as long as this code runs: its session
                    # is kept, whatever delays the loop had (a long fsync, a busy machine).
                    registration = self.image.brokers.get(self.node_id)
                    if registration is not None:
                        self.heartbeats.update_contact(self.node_id, registration.epoch, current)
                self.commit(apis.expire_sessions(self, current), current)
                rebalance_ms = self.config.leader_imbalance_check_interval_seconds * 1000
                if self.config.auto_leader_rebalance_enable and current - self._last_rebalance_ms >= rebalance_ms:
                    self._last_rebalance_ms = current
                    self.commit(apis.rebalance_leaders(self, current), current)
                if current - self._last_unclean_ms >= UNCLEAN_ELECTION_INTERVAL_MS:
                    self._last_unclean_ms = current
                    self.commit(apis.elect_unclean_leaders(self, current), current)
            except Exception:
                log.exception("controller timer failed")
