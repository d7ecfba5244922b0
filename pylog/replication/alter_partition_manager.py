"""Sends the leader's ISR changes to the controller (Kafka's AlterPartitionManager) and
runs the ISR-shrink timer.

    submit(partition, request)   queue one partition's AlterPartitionRequest (pure value,
                                 pylog/replication/isr_state.py), as an Outcome carried it
    start() / stop()             the sender and the isr-expiration task

Rules (Kafka's):
  - at most one queued item per partition: a second one while the first is queued or in
    flight is refused at once with OPERATION_NOT_ATTEMPTED (the partition then falls back
    to its committed ISR and proposes again later);
  - one AlterPartition request in flight at a time; it carries every queued item, grouped
    by topic id, v3 (`new_isr_with_epochs`: each member's broker epoch), this broker's id
    and epoch at the top;
  - the answer for each partition goes back to it: NONE with the controller's leader
    epoch, partition epoch and ISR -> `alter_partition_accepted`; an error ->
    `alter_partition_refused`, which may ask for the same request again (re-queued);
    a partition missing from the answer stays queued and is sent again;
  - a top-level error (STALE_BROKER_EPOCH, NOT_CONTROLLER, ...) keeps every item and
    retries after 50 ms; a failed channel (controller unreachable) after 500 ms. A request
    is never abandoned: new metadata for the partition makes its answer stale instead
    (the state ignores it).

The ISR-shrink timer calls `Partition.maybe_shrink_isr` on every partition this broker
leads every replica.lag.time.max.ms / 2 and queues what it proposes.

The channel is `broker.controller_channel`: any object with
`async send(request, version, timeout_ms=None)` (pylog/controller_channel.py; None: no
controller known yet, items wait). Runs on the broker's event loop.
"""

from __future__ import annotations

import asyncio
import logging

from protocol.error_codes import ErrorCode
from protocol.messages import AlterPartitionRequest

from pylog.clock import now_ms
from pylog.network_client import NodeUnavailable

log = logging.getLogger("pylog.alter_partition")

ALTER_PARTITION_VERSION = 3
RETRY_AFTER_ERROR_MS = 50
RETRY_AFTER_CHANNEL_FAILURE_MS = 500


def isr_expiration_interval_ms(replica_lag_time_max_ms: int) -> int:
    """How often the broker calls `maybe_shrink_isr` (Kafka's "isr-expiration" task)."""
    return replica_lag_time_max_ms // 2


class AlterPartitionManager:
    def __init__(self, broker, replica_lag_time_max_ms: int):
        self.broker = broker
        self.replica_lag_time_max_ms = replica_lag_time_max_ms
        self.queued: dict[tuple[str, int], tuple[object, object]] = {}   # key -> (partition, request)
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task] = []
        self._stopping = False

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._send_loop()), loop.create_task(self._isr_expiration())]

    async def stop(self) -> None:
        # `_stopping` ends the sender even if a channel's asyncio.wait_for swallowed the cancel
        self._stopping = True
        self._wake.set()
        tasks, self._tasks = self._tasks, []
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def submit(self, partition, request) -> None:
        key = partition.key
        if key in self.queued:
            log.debug("%s-%d: an AlterPartition is already queued", *key)
            self._after(partition, partition.alter_partition_refused(request, ErrorCode.OPERATION_NOT_ATTEMPTED))
            return
        self.queued[key] = (partition, request)
        self._wake.set()

    def _after(self, partition, outcome) -> None:
        if outcome.alter_partition is not None:
            self.submit(partition, outcome.alter_partition)

    # -- the ISR-shrink timer ------------------------------------------------------------

    async def _isr_expiration(self) -> None:
        interval_s = isr_expiration_interval_ms(self.replica_lag_time_max_ms) / 1000
        while True:
            await asyncio.sleep(interval_s)
            self.shrink_isrs(now_ms())

    def shrink_isrs(self, now: int) -> None:
        for partition in list(self.broker.partitions.values()):
            if partition.is_leader:
                self._after(partition, partition.maybe_shrink_isr(now))

    # -- the sender ------------------------------------------------------------------------

    async def _send_loop(self) -> None:
        while not self._stopping:
            await self._wake.wait()
            self._wake.clear()
            if self._stopping:
                return
            if not self.queued:
                continue
            channel = getattr(self.broker, "controller_channel", None)
            if channel is None:
                await asyncio.sleep(RETRY_AFTER_CHANNEL_FAILURE_MS / 1000)
                self._wake.set()
                continue
            try:
                retry_ms = await self._send_once(channel)
            except (NodeUnavailable, ConnectionError, asyncio.TimeoutError) as e:
                log.info("AlterPartition not delivered: %s", e)
                retry_ms = RETRY_AFTER_CHANNEL_FAILURE_MS
            except Exception:
                log.exception("AlterPartition failed")
                retry_ms = RETRY_AFTER_CHANNEL_FAILURE_MS
            if retry_ms:
                await asyncio.sleep(retry_ms / 1000)
            if self.queued:
                self._wake.set()

    async def _send_once(self, channel) -> int:
        """One request with every queued item; the retry delay (0: none) it leaves."""
        in_flight = dict(self.queued)
        by_topic_id: dict[object, list] = {}
        sent: dict[tuple[object, int], tuple] = {}
        broker_epoch = -1
        for key, (partition, request) in in_flight.items():
            topic = self.broker.metadata.topics.get(partition.topic)
            if topic is None:
                del self.queued[key]   # deleted meanwhile: nobody waits for the answer
                continue
            broker_epoch = request.broker_epoch
            by_topic_id.setdefault(topic.topic_id, []).append(AlterPartitionRequest.PartitionData(
                partition_index=partition.index, leader_epoch=request.leader_epoch,
                new_isr_with_epochs=[AlterPartitionRequest.BrokerState(broker_id=b, broker_epoch=e)
                                     for b, e in request.new_isr_with_epochs],
                leader_recovery_state=request.leader_recovery_state, partition_epoch=request.partition_epoch))
            sent[(topic.topic_id, partition.index)] = (key, partition, request)
        if not sent:
            return 0
        message = AlterPartitionRequest(broker_id=self.broker.node_id, broker_epoch=broker_epoch, topics=[
            AlterPartitionRequest.TopicData(topic_id=topic_id, partitions=partitions)
            for topic_id, partitions in by_topic_id.items()])
        response = await channel.send(message, ALTER_PARTITION_VERSION)
        if response.error_code != ErrorCode.NONE:
            log.warning("AlterPartition answered %s; retrying", ErrorCode(response.error_code).name)
            return RETRY_AFTER_ERROR_MS
        now = now_ms()
        for topic in response.topics:
            for answer in topic.partitions:
                entry = sent.pop((topic.topic_id, answer.partition_index), None)
                if entry is None:
                    continue
                key, partition, request = entry
                if self.queued.get(key) == (partition, request):
                    del self.queued[key]
                if answer.error_code == ErrorCode.NONE:
                    partition.alter_partition_accepted(request, leader_epoch=answer.leader_epoch,
                                                       partition_epoch=answer.partition_epoch,
                                                       isr=tuple(answer.isr), now_ms=now)
                else:
                    log.info("%s-%d: AlterPartition refused with %s", partition.topic, partition.index,
                             ErrorCode(answer.error_code).name)
                    self._after(partition, partition.alter_partition_refused(request, ErrorCode(answer.error_code)))
        return RETRY_AFTER_ERROR_MS if self.queued else 0   # re-queued or left out: not in a tight loop
