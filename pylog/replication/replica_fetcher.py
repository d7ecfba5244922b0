"""A follower's fetcher: one task per leader broker copying its partitions' batches here
(Kafka's ReplicaFetcherThread, with `num.replica.fetchers` = 1).

Each round sends one Fetch v12 to the leader, for every partition of this fetcher that is
not backing off, through a `NodeClient` of its own (one connection; a long-poll fetch keeps
it busy, so no other request shares it):

    replica_id          this broker's node id (the leader then treats the fetch as a follower's)
    max_wait_ms         replica.fetch.wait.max.ms (500)
    min_bytes           replica.fetch.min.bytes (1)
    max_bytes           replica.fetch.response.max.bytes (10 MiB)
    per partition       fetch_offset = the local LEO, current_leader_epoch = the epoch this
                        broker follows, last_fetched_epoch = the local log's latest epoch (-1:
                        none), log_start_offset = the local log start,
                        partition_max_bytes = replica.fetch.max.bytes (1 MiB)

What each partition's answer does (Kafka's AbstractFetcherThread / ReplicaFetcherThread):

    NONE, diverging_epoch   truncate (below), fetch again at once
    NONE                    append the whole batches as they are (offsets and epochs kept; a
                            partial batch at the end, where the leader cut its read at
                            partition_max_bytes as Kafka's does, is left for the next fetch; the
                            epoch cache learns each batch's epoch; an empty log whose start
                            falls inside the first batch, after the leader's DeleteRecords,
                            starts again at that batch's base), then take the leader's HW
                            capped at the new LEO and its log start capped at that HW; the
                            HW moving wakes parked fetches here
    OFFSET_OUT_OF_RANGE     ask the leader's LEO (ListOffsets latest, as a replica): below
                            ours, truncate to it; else ask its log start (earliest): above
                            our LEO, empty the log and start there (truncate fully); else
                            back off
    FENCED_LEADER_EPOCH     this broker's metadata is behind: the partition leaves the fetcher
                            until new metadata points it here again
    any other error         the partition backs off replica.fetch.backoff.ms (1 s), and so
                            does one whose answer cannot be applied (a batch the log refuses)

Truncation on a diverging epoch (Kafka's getOffsetTruncationState), with (E, end) the
leader's answer and the local epoch cache's entry for the largest epoch <= E: none ->
min(end, LEO); an epoch other than E -> min(its end, LEO) (the next fetch asks again);
E itself -> min(its end, end, LEO). Truncation goes through `Broker.truncate_log` (or
`truncate_fully_and_start_at`), which pause the log cleaner.

A partition's answer is dropped when the partition left the fetcher, was re-added, or its
LEO is not the fetch offset any more while the fetch was in flight (the next round asks
again). A connection failure (`NodeUnavailable`) backs the whole fetcher off. Runs on the
broker's event loop, which serializes it with everything else touching the logs.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass

from protocol.error_codes import ErrorCode
from protocol.messages import FetchRequest, ListOffsetsRequest
from protocol.records import iter_batch_headers

from storage.errors import UnexpectedAppendOffset

from pylog.clock import now_ms
from pylog.network_client import NodeClient, NodeUnavailable

log = logging.getLogger("pylog.replica_fetcher")

FETCH_VERSION = 12
LIST_OFFSETS_VERSION = 7
EARLIEST, LATEST = -2, -1


@dataclass(frozen=True)
class FetcherConfig:
    """The follower's fetch settings (Kafka's names and defaults)."""

    fetch_max_bytes: int = 1024 * 1024            # replica.fetch.max.bytes
    response_max_bytes: int = 10 * 1024 * 1024    # replica.fetch.response.max.bytes
    wait_max_ms: int = 500                        # replica.fetch.wait.max.ms
    min_bytes: int = 1                            # replica.fetch.min.bytes
    backoff_ms: int = 1000                        # replica.fetch.backoff.ms
    socket_timeout_ms: int = 30_000               # replica.socket.timeout.ms
    receive_buffer_bytes: int = 64 * 1024         # replica.socket.receive.buffer.bytes

    @classmethod
    def from_broker_config(cls, config) -> FetcherConfig:
        def read(name: str, default: int) -> int:
            return int(config.get(name, default))
        return cls(read("replica.fetch.max.bytes", cls.fetch_max_bytes),
                   read("replica.fetch.response.max.bytes", cls.response_max_bytes),
                   read("replica.fetch.wait.max.ms", cls.wait_max_ms),
                   read("replica.fetch.min.bytes", cls.min_bytes),
                   read("replica.fetch.backoff.ms", cls.backoff_ms),
                   read("replica.socket.timeout.ms", cls.socket_timeout_ms),
                   read("replica.socket.receive.buffer.bytes", cls.receive_buffer_bytes))


class FetchTarget:
    """One partition this fetcher copies; `delayed_until` is a monotonic time."""

    def __init__(self, partition):
        self.partition = partition
        self.delayed_until = 0.0


def truncation_offset(partition, leader_epoch: int, leader_end_offset: int) -> int:
    """Where a follower cuts its log after the leader answered (epoch, end offset) for its
    last fetched epoch (the module docstring's rule)."""
    log_end_offset = partition.log_end_offset
    local_epoch, local_end = partition.end_offset_for_epoch(leader_epoch)
    if local_epoch == -1 or local_end == -1:
        return min(leader_end_offset, log_end_offset)
    if local_epoch != leader_epoch:
        return min(local_end, log_end_offset)
    return min(local_end, leader_end_offset, log_end_offset)


class ReplicaFetcher:
    def __init__(self, broker, leader_id: int, host: str, port: int, config: FetcherConfig):
        self.broker = broker
        self.leader_id = leader_id
        self.config = config
        self.client = NodeClient(host, port, client_id=f"broker-{broker.node_id}-fetcher-{leader_id}",
                                 request_timeout_ms=config.wait_max_ms + config.socket_timeout_ms,
                                 receive_buffer_bytes=config.receive_buffer_bytes)
        self.targets: dict[tuple[str, int], FetchTarget] = {}
        self._wake = asyncio.Event()
        self._task: asyncio.Task | None = None
        self._stopping = False

    # -- membership ----------------------------------------------------------------------

    def add(self, partition) -> None:
        """Fetch `partition` from now on (again from its LEO, at once)."""
        self.targets[partition.key] = FetchTarget(partition)
        self._wake.set()
        if self._task is None and not self._stopping:
            self._task = asyncio.get_running_loop().create_task(self._run())

    def remove(self, key) -> None:
        self.targets.pop(key, None)

    def retarget(self, host: str, port: int) -> None:
        self.client.retarget(host, port)

    async def stop(self) -> None:
        # The connection first: a fetch in flight fails with NodeUnavailable, which the
        # loop takes (a cancelled send would leave its answer's failure unread).
        # The loop also checks `_stopping`: asyncio.wait_for (3.11) can swallow a cancel
        # that meets a completed wait, and the loop must end anyway.
        self._stopping = True
        self._wake.set()
        task, self._task = self._task, None
        await self.client.close()
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    # -- the loop ------------------------------------------------------------------------

    async def _run(self) -> None:
        while not self._stopping:
            try:
                await self._round()
            except asyncio.CancelledError:
                raise
            except NodeUnavailable as e:
                log.info("fetcher of broker %d: %s", self.leader_id, e)
                await asyncio.sleep(self.config.backoff_ms / 1000)
            except Exception:
                log.exception("fetcher of broker %d failed a round", self.leader_id)
                await asyncio.sleep(self.config.backoff_ms / 1000)

    async def _round(self) -> None:
        now = time.monotonic()
        ready = [t for t in self.targets.values() if t.delayed_until <= now]
        if not ready:
            self._wake.clear()
            delays = [t.delayed_until - now for t in self.targets.values()]
            try:
                async with asyncio.timeout(min(delays) if delays else None):
                    await self._wake.wait()
            except asyncio.TimeoutError:
                pass
            return
        sent = {t.partition.key: (t, t.partition.log_end_offset) for t in ready}
        response = await self.client.send(self._request(ready), FETCH_VERSION)
        for topic_response in response.responses:
            for data in topic_response.partitions:
                entry = sent.get((topic_response.topic, data.partition_index))
                if entry is None:
                    continue
                target, fetch_offset = entry
                if self.targets.get(target.partition.key) is not target \
                        or target.partition.log_end_offset != fetch_offset:
                    continue   # left, re-added or moved while the fetch was in flight
                try:
                    await self._handle(target, data)
                except NodeUnavailable:
                    raise
                except Exception:
                    log.exception("%s-%d: the answer of leader %d could not be applied", target.partition.topic,
                                  target.partition.index, self.leader_id)
                    target.delayed_until = time.monotonic() + self.config.backoff_ms / 1000

    def _request(self, targets: list[FetchTarget]) -> FetchRequest:
        by_topic: dict[str, list] = {}
        for target in targets:
            p = target.partition
            latest_epoch = p.log.latest_epoch
            by_topic.setdefault(p.topic, []).append(FetchRequest.FetchPartition(
                partition=p.index, current_leader_epoch=p.leader_epoch, fetch_offset=p.log_end_offset,
                last_fetched_epoch=-1 if latest_epoch is None else latest_epoch,
                log_start_offset=p.log_start_offset, partition_max_bytes=self.config.fetch_max_bytes))
        return FetchRequest(replica_id=self.broker.node_id, max_wait_ms=self.config.wait_max_ms,
                            min_bytes=self.config.min_bytes, max_bytes=self.config.response_max_bytes,
                            isolation_level=0, session_id=0, session_epoch=-1,
                            topics=[FetchRequest.FetchTopic(topic=topic, partitions=partitions)
                                    for topic, partitions in by_topic.items()])

    async def _handle(self, target: FetchTarget, data) -> None:
        partition = target.partition
        code = data.error_code
        if code == ErrorCode.NONE:
            diverging = data.diverging_epoch
            if diverging.epoch >= 0 or diverging.end_offset >= 0:
                offset = truncation_offset(partition, diverging.epoch, diverging.end_offset)
                log.info("%s-%d: diverging from leader %d at epoch %d (end %d): truncating to %d",
                         partition.topic, partition.index, self.leader_id, diverging.epoch,
                         diverging.end_offset, offset)
                self._truncate(partition, offset)
                return
            if data.records:
                self._append(partition, data.records)
            partition.update_follower_offsets(data.high_watermark, data.log_start_offset)
        elif code == ErrorCode.OFFSET_OUT_OF_RANGE:
            await self._handle_out_of_range(target)
        elif code == ErrorCode.FENCED_LEADER_EPOCH:
            log.info("%s-%d: leader %d says epoch %d is fenced; waiting for new metadata",
                     partition.topic, partition.index, self.leader_id, partition.leader_epoch)
            self.remove(partition.key)
        else:
            log.debug("%s-%d: leader %d answered %s; backing off", partition.topic, partition.index,
                      self.leader_id, ErrorCode(code).name)
            target.delayed_until = time.monotonic() + self.config.backoff_ms / 1000

    def _append(self, partition, records) -> None:
        records = whole_batches(records)
        if not records:
            return
        try:
            partition.append_as_follower(records, now_ms())
        except UnexpectedAppendOffset as e:
            # An empty log whose start the leader set inside a batch (DeleteRecords): the
            # log starts again at that batch's base offset (Kafka's Partition does this too).
            log_end_offset = partition.log_end_offset
            if not (log_end_offset == partition.log_start_offset
                    and e.first_offset < log_end_offset <= e.last_offset):
                raise
            self.broker.truncate_fully_and_start_at(partition.topic, partition.index, e.first_offset)
            partition.append_as_follower(records, now_ms())

    async def _handle_out_of_range(self, target: FetchTarget) -> None:
        """Kafka's fetchOffsetAndTruncate."""
        partition = target.partition
        log_end_offset = partition.log_end_offset
        leader_end = await self._leader_offset(partition, LATEST)
        if leader_end is None:
            target.delayed_until = time.monotonic() + self.config.backoff_ms / 1000
            return
        if leader_end < log_end_offset:
            self._truncate(partition, leader_end)
            return
        leader_start = await self._leader_offset(partition, EARLIEST)
        if leader_start is None:
            target.delayed_until = time.monotonic() + self.config.backoff_ms / 1000
            return
        if leader_start > log_end_offset:
            log.info("%s-%d: below leader %d's log start %d; starting the log there",
                     partition.topic, partition.index, self.leader_id, leader_start)
            self.broker.truncate_fully_and_start_at(partition.topic, partition.index, leader_start)
        else:   # our LEO is inside the leader's log: nothing to cut, ask again later
            target.delayed_until = time.monotonic() + self.config.backoff_ms / 1000

    async def _leader_offset(self, partition, timestamp: int) -> int | None:
        request = ListOffsetsRequest(replica_id=self.broker.node_id, isolation_level=0, topics=[
            ListOffsetsRequest.ListOffsetsTopic(name=partition.topic, partitions=[
                ListOffsetsRequest.ListOffsetsPartition(partition_index=partition.index,
                                                        current_leader_epoch=partition.leader_epoch,
                                                        timestamp=timestamp)])])
        response = await self.client.send(request, LIST_OFFSETS_VERSION)
        answer = response.topics[0].partitions[0]
        if answer.error_code != ErrorCode.NONE:
            return None
        return answer.offset

    def _truncate(self, partition, offset: int) -> None:
        self.broker.truncate_log(partition.topic, partition.index, offset)


def whole_batches(records) -> memoryview:
    """The complete batches at the start of a fetched `records` (a leader's read ends where its
    byte limit fell, possibly inside a batch; Kafka's follower leaves that tail too)."""
    view = memoryview(records)
    end = 0
    for position, header in iter_batch_headers(view):
        end = position + header.size_bytes
    return view[:end]
