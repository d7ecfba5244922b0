"""MetadataFollower: a broker's copy of `__cluster_metadata-0`, kept in step with the
controller's, and the image it builds (Kafka's broker-side `KafkaRaftClient` as an
observer, feeding the `MetadataLoader`).

Loop (one task):

    send   Fetch v12 through the channel: topic `__cluster_metadata`, partition 0,
           fetch offset = the copy's log end offset, last fetched epoch = the epoch of its
           last batch (-1 when empty), replica id = this broker's node id (an observer,
           as Kafka's brokers send it: DescribeQuorum lists it), max_wait_ms (500:
           the controller long-polls; 0 while a `catch_up` waits, which wants an answer
           sent after it, not new data), partition max bytes `fetch_max_bytes`
    answer records        appended to the copy, keeping the controller's offsets (fsynced)
           diverging epoch    the copy truncates (Raft's rule below) and fetches again
           an error / the controller unreachable: wait `retry_backoff_ms`, fetch again
    apply  every batch of the copy below the high watermark the answer gave, in order, to
           the image; `on_batch(image, entries)` after each one

Raft's truncation for a diverging epoch (epoch E, end offset O): at E = 0, cut at
min(O, the copy's end); otherwise at min(O, where E ends in the copy) if the copy knows E,
else where the copy's largest epoch below E ends. The image already holds the records cut
off, so it is rebuilt: a new MetadataImage replays the copy from its start, and
`on_batch(image, [])` says so (an empty entry list: the image object is a new one; compare
it whole).

Combined mode (`process.roles=broker,controller`): broker and controller share the log dir,
so there is one `__cluster_metadata-0`, the controller's. The follower is then given that
MetadataLog and no channel: it keeps no copy, fetches nothing, and applies the controller's
batches as they are committed (it waits on `MetadataLog.wait_for_append`).

On `start`, the image is first rebuilt from the local copy (all of it: in a quorum of one
everything the controller sent was committed) and `on_batch(image, [])` is called once
for it, before any fetch.

Faults. A record the image cannot apply (`MetadataImageError`: a partition of an unknown
topic, fencing a broker at another epoch, ...) is skipped with one ERROR line naming its
offset, and the follower goes on with the next record; `record_faults` counts them. That is
Kafka's rule for a broker (SharedServer's metadata-loading fault handler: fatal only in a
process that is also a controller). In combined mode there is no such skipping: the records
are the controller's own, which it has applied to its image already. A fetched batch the copy
cannot take (storage's errors: a bad CRC, offsets that do not continue the copy) and an
exception from `on_batch` stop the follower: `run` raises it (Kafka's raft client treats a
fault of its own as fatal); the owner watches `task`. `on_batch` may be a plain function
or a coroutine function. The follower owns its MetadataLog and image; all of it runs on
the broker's event loop.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from typing import Awaitable, Callable, Protocol

from protocol.error_codes import ErrorCode
from protocol.messages import FetchRequest, FetchResponse
from protocol.metadata_log import METADATA_PARTITION, METADATA_TOPIC, MetadataEntry
from protocol.schema import Message
from pylog.controller.metadata_log import MetadataLog
from pylog.metadata_image import MetadataImage
from pylog.network_client import NodeUnavailable

log = logging.getLogger("pylog.metadata_follower")

FETCH_VERSION = 12
FETCH_KEY = 1
NO_REPLICA_ID = -1   # a fetch that names no replica
NO_EPOCH = -1


class Channel(Protocol):
    async def send(self, request: Message, version: int, timeout_ms: int | None = None) -> Message: ...


OnBatch = Callable[[MetadataImage, list[MetadataEntry]], "Awaitable[None] | None"]


class MetadataFollower:
    def __init__(self, metadata_log: MetadataLog, channel: Channel | None, on_batch: OnBatch | None = None, *,
                 now_ms: Callable[[], int], replica_id: int = NO_REPLICA_ID, max_wait_ms: int = 500,
                 fetch_max_bytes: int = 8 * 1024 * 1024, retry_backoff_ms: int = 100, request_timeout_ms: int = 30_000):
        self.metadata_log = metadata_log
        self.replica_id = replica_id
        self.channel = channel
        self.on_batch = on_batch
        self.now_ms = now_ms
        self.max_wait_ms = max_wait_ms
        self.fetch_max_bytes = fetch_max_bytes
        self.retry_backoff_ms = retry_backoff_ms
        self.request_timeout_ms = request_timeout_ms
        self.image = MetadataImage()
        self.high_watermark = 0
        self._task: asyncio.Task | None = None
        self._fetches_sent = 0       # numbered in send order; `catch_up` waits on them
        self._fetches_applied = 0
        self._catch_up_waiters = 0   # while > 0, fetches do not long-poll
        self._progress = asyncio.Event()
        self._stopping = False       # ends `run` even if a cancel was swallowed (asyncio.wait_for)
        self.record_faults = 0       # records skipped because the image could not apply them

    # -- lifecycle --

    async def start(self) -> None:
        """Replay the local copy into the image, then start fetching."""
        await self.rebuild_image()
        self.start_fetching()

    def start_fetching(self) -> None:
        """Start the fetch loop over the image as it is (`rebuild_image` already ran)."""
        self._stopping = False
        self._task = asyncio.get_running_loop().create_task(self.run(), name="metadata-follower")

    async def catch_up(self, timeout_s: float = 10.0) -> bool:
        """Wait until a Fetch sent after this call has been answered and applied: the image
        then holds everything the controller had committed when the call was made. The
        fetches sent meanwhile ask for no wait; the one in flight at the call answers at once
        if the controller has more. False if `timeout_s` passed first."""
        target = self._fetches_sent + 1
        deadline = asyncio.get_running_loop().time() + timeout_s
        self._catch_up_waiters += 1
        try:
            while self._fetches_applied < target:
                remaining = deadline - asyncio.get_running_loop().time()
                if remaining <= 0 or self._task is None or self._task.done():
                    return False
                self._progress.clear()
                try:
                    async with asyncio.timeout(remaining):
                        await self._progress.wait()
                except asyncio.TimeoutError:
                    return False
            return True
        finally:
            self._catch_up_waiters -= 1

    async def stop(self) -> None:
        self._stopping = True
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            # (gather: the task's own end is swallowed, a cancellation of this caller is not)
            await asyncio.gather(task, return_exceptions=True)

    @property
    def task(self) -> asyncio.Task | None:
        return self._task

    async def run(self) -> None:
        """Fetch and apply until stopped (`stop`) (see the module docstring); with no channel,
        follow the log in place (combined mode)."""
        while not self._stopping:
            if self.channel is None:
                await self.follow_local_once()
            elif not await self.fetch_once():
                await asyncio.sleep(self.retry_backoff_ms / 1000)

    async def follow_local_once(self) -> None:
        """Combined mode: wait (up to max_wait_ms) for the controller's log, which is this
        follower's log, to grow past what the image holds; apply what it committed."""
        await self.metadata_log.wait_for_append(self.image.offset + 1, self.max_wait_ms / 1000)
        self.high_watermark = self.metadata_log.high_watermark
        await self.apply_committed()

    # -- one round --

    def fetch_request(self) -> FetchRequest:
        copy = self.metadata_log
        last_epoch = copy.log.latest_epoch if copy.log_end_offset > 0 else None
        partition = FetchRequest.FetchPartition(
            partition=METADATA_PARTITION, fetch_offset=copy.log_end_offset,
            last_fetched_epoch=last_epoch if last_epoch is not None else NO_EPOCH,
            log_start_offset=copy.log_start_offset, partition_max_bytes=self.fetch_max_bytes)
        max_wait_ms = 0 if self._catch_up_waiters else self.max_wait_ms
        return FetchRequest(replica_id=self.replica_id, max_wait_ms=max_wait_ms, min_bytes=1,
                            max_bytes=self.fetch_max_bytes, isolation_level=0, session_id=0, session_epoch=-1,
                            topics=[FetchRequest.FetchTopic(topic=METADATA_TOPIC, partitions=[partition])],
                            forgotten_topics_data=[], rack_id="")

    async def fetch_once(self) -> bool:
        """One Fetch and what follows from it; False when it failed (back off, retry)."""
        request = self.fetch_request()
        self._fetches_sent += 1
        number = self._fetches_sent
        try:
            response = await self.channel.send(request, FETCH_VERSION,
                                               timeout_ms=self.request_timeout_ms + request.max_wait_ms)
        except (NodeUnavailable, ConnectionError, asyncio.TimeoutError) as error:
            log.debug("metadata fetch failed: %s", error)
            return False
        try:
            return await self._apply_answer(response)
        finally:
            self._fetches_applied = number
            self._progress.set()

    async def _apply_answer(self, response) -> bool:
        partition = _metadata_partition(response)
        if partition is None or response.error_code != ErrorCode.NONE or partition.error_code != ErrorCode.NONE:
            log.warning("metadata fetch answered with error %s",
                        partition.error_code if partition is not None else response.error_code)
            return False
        now_ms = self.now_ms()
        if partition.diverging_epoch.epoch >= 0:
            self.truncate_to_diverging(partition.diverging_epoch.epoch, partition.diverging_epoch.end_offset, now_ms)
            await self.rebuild_image()
            return True
        if partition.records:
            self.metadata_log.append_fetched(partition.records, now_ms=now_ms)
        self.high_watermark = min(partition.high_watermark, self.metadata_log.log_end_offset)
        await self.apply_committed()
        return True

    def truncate_to_diverging(self, epoch: int, end_offset: int, now_ms: int) -> int:
        """Cut the copy by Raft's rule for a diverging epoch; returns the new log end."""
        copy = self.metadata_log
        if epoch == 0:
            cut = min(end_offset, copy.log_end_offset)
        else:
            local_epoch, local_end = copy.end_offset_for_epoch(epoch)
            if local_epoch < 0:
                cut = 0
            elif local_epoch == epoch:
                cut = min(local_end, end_offset)
            else:
                cut = local_end
        log.info("metadata log copy diverges from the controller's at epoch %d offset %d: truncating to %d",
                 epoch, end_offset, cut)
        copy.truncate_to(cut, now_ms=now_ms)
        self.high_watermark = min(self.high_watermark, copy.log_end_offset)
        return copy.log_end_offset

    async def apply_committed(self) -> None:
        """Apply the copy's batches after the image's offset and below the high watermark."""
        for header, entries in self.metadata_log.batches(self.image.offset + 1):
            if header.base_offset + header.last_offset_delta >= self.high_watermark:
                break
            self.image.apply_batch(header.partition_leader_epoch, entries, self._fault_handler())
            await self._notify(entries)

    async def rebuild_image(self) -> None:
        """A new image from the whole local copy (taken as committed), then on_batch(image, [])."""
        self.image = MetadataImage()
        self.high_watermark = self.metadata_log.log_end_offset
        for header, entries in self.metadata_log.batches(0):
            self.image.apply_batch(header.partition_leader_epoch, entries, self._fault_handler())
        await self._notify([])

    def _fault_handler(self) -> Callable[[int, Exception], None] | None:
        """What a record the image cannot apply goes to (see "Faults" in the module
        docstring): skipped and logged on a broker-only node; None in combined mode."""
        return self._record_fault if self.channel is not None else None

    def _record_fault(self, offset: int, error: Exception) -> None:
        self.record_faults += 1
        log.error("metadata loading fault: the record at offset %d cannot be applied, skipped: %s", offset, error)

    async def _notify(self, entries: list[MetadataEntry]) -> None:
        if self.on_batch is None:
            return
        result = self.on_batch(self.image, entries)
        if inspect.isawaitable(result):
            await result


def _metadata_partition(response: FetchResponse):
    for topic in response.responses:
        for partition in topic.partitions:
            if partition.partition_index == METADATA_PARTITION:
                return partition
    return None


__all__ = ["MetadataFollower", "Channel", "FETCH_VERSION", "FETCH_KEY"]
