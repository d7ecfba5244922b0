"""A broker's life as the controller sees it: registered, fenced, unfenced, shutting down.

Kafka's BrokerLifecycleManager, over the controller channel (pylog/controller_channel.py):

    start ──BrokerRegistration──> registered, fenced      broker epoch = the offset of the
                                                          RegisterBrokerRecord
          ──BrokerHeartbeat (every broker.heartbeat.interval.ms, with the offset of the
            metadata this broker has applied)──> unfenced once caught up: the controller
            makes it leader of its partitions again. Until the controller first answers
            it caught up, a starting broker heartbeats every 10 ms instead (Kafka's
            BrokerLifecycleManager does so while STARTING), so that a start waits for
            the metadata to arrive, not for the next interval
    stop  ──BrokerHeartbeat(want_shut_down)──> in controlled shutdown: the controller
            moves every leadership it holds to another in-sync replica
          ──BrokerHeartbeat at once after the first answer that says "not yet", again
            50 ms later (Kafka's BrokerLifecycleManager sends its next one that much
            sooner than an interval, since a controlled shutdown often completes as
            fast), then every interval
          <──should_shut_down── nothing left to move, and every broker has read that far
            in the metadata: the broker stops

Why at once: the controller decides on a heartbeat before writing the records that heartbeat
calls for, and answers once they are committed. The first asking heartbeat finds the broker
still leading its partitions, so its answer is "not yet" even when those records are all the
shutdown needs; by the time it arrives they are written, and a broker alone in the cluster
(or whose peers have read that far) is told to stop by the next heartbeat. Asked at once,
that is the time of one round trip; Kafka waits its 50 ms for it. A controller with more to
wait for answers "not yet" again, and the 50 ms retry and the interval follow as in Kafka.

A registration refused (DUPLICATE_BROKER_REGISTRATION: the node id is alive elsewhere, or
its previous session has not expired yet) or a controller out of reach is retried every
heartbeat interval until `initial.broker.registration.timeout.ms`; then the start fails. A heartbeat that fails
(NodeUnavailable, STALE_BROKER_EPOCH...) is retried on the next tick; a fenced broker
stays registered and unfences itself again once the controller answers it caught up.

The incarnation id is new at every start: it tells the controller a restart from a
duplicate. The supported feature ranges are those of Kafka 4.1.1's broker (but share.version,
0-0: pylog has no share groups), so the finalized levels of pylog's bootstrap (or of a Kafka
cluster's) are in range. ApiVersions reports the same ranges (pylog/handlers/api_versions.py).

Runs on the broker's event loop (one task); not thread-safe.
"""

from __future__ import annotations

import asyncio
import logging
import uuid

from protocol.error_codes import ErrorCode
from protocol.messages import BrokerHeartbeatRequest, BrokerRegistrationRequest

from pylog.clock import now_ms
from pylog.handlers.api_versions import supported_in_kafkas_order
from pylog.network_client import NodeUnavailable

log = logging.getLogger("pylog.broker_lifecycle")

BROKER_REGISTRATION_VERSION = 4
BROKER_HEARTBEAT_VERSION = 1
SECURITY_PROTOCOL_IDS = {"PLAINTEXT": 0, "SSL": 1, "SASL_PLAINTEXT": 2, "SASL_SSL": 3}
SUPPORTED_FEATURES = (   # (name, min, max): a Kafka 4.1.1 broker's
    ("metadata.version", 7, 27),
    ("kraft.version", 0, 1),
    ("group.version", 0, 1),
    ("transaction.version", 0, 2),
    ("eligible.leader.replicas.version", 0, 1),
    ("share.version", 0, 0),   # Kafka's broker supports 0-1; pylog has no share groups
)
INITIAL_REGISTRATION_TIMEOUT_MS = 60_000
STARTING_HEARTBEAT_INTERVAL_MS = 10   # until the controller first answers caught up
PENDING_SHUTDOWN_RETRY_MS = 50   # the heartbeat after the first "not yet" of a controlled shutdown


def registration_features() -> list[BrokerRegistrationRequest.Feature]:
    """SUPPORTED_FEATURES as a Kafka broker's registration lists them: in the order of its
    HashMap of them (BrokerFeatures.createDefaultFeatureMap), which the controller keeps in
    the RegisterBrokerRecord it writes."""
    return [BrokerRegistrationRequest.Feature(name=name, min_supported_version=low, max_supported_version=high)
            for name, low, high in supported_in_kafkas_order(SUPPORTED_FEATURES)]


class RegistrationFailed(RuntimeError):
    """The controller did not take this broker's registration in time."""


class BrokerLifecycle:
    def __init__(self, *, node_id: int, cluster_id: str, channel, listeners, rack: str | None,
                 directory_ids, heartbeat_interval_ms: int, metadata_offset, previous_broker_epoch: int = -1):
        self.node_id = node_id
        self.cluster_id = cluster_id
        self.channel = channel
        self.listeners = listeners          # [(name, host, port, security protocol name)]
        self.rack = rack
        self.directory_ids = list(directory_ids)
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.metadata_offset = metadata_offset   # () -> offset of the metadata applied
        self.previous_broker_epoch = previous_broker_epoch
        self.incarnation_id = uuid.uuid4()
        self.broker_epoch = -1
        self.fenced = True
        self.starting = True   # no heartbeat answered caught up yet (Kafka's STARTING)
        self.want_shut_down = False
        self.unfenced = asyncio.Event()
        self.shut_down_allowed = asyncio.Event()
        self._task: asyncio.Task | None = None

    async def register(self, timeout_ms: int = INITIAL_REGISTRATION_TIMEOUT_MS) -> int:
        """Register with the controller and return the broker epoch."""
        deadline_ms = now_ms() + timeout_ms
        request = BrokerRegistrationRequest(
            broker_id=self.node_id, cluster_id=self.cluster_id, incarnation_id=self.incarnation_id,
            listeners=[BrokerRegistrationRequest.Listener(name=name, host=host, port=port,
                                                          security_protocol=SECURITY_PROTOCOL_IDS.get(protocol, 0))
                       for name, host, port, protocol in self.listeners],
            features=registration_features(),
            rack=self.rack, is_migrating_zk_broker=False, log_dirs=self.directory_ids,
            previous_broker_epoch=self.previous_broker_epoch)
        last_problem = ""
        while True:
            try:
                response = await self.channel.send(request, BROKER_REGISTRATION_VERSION)
                if response.error_code == ErrorCode.NONE:
                    self.broker_epoch = response.broker_epoch
                    log.info("broker %d registered with broker epoch %d", self.node_id, self.broker_epoch)
                    return self.broker_epoch
                last_problem = ErrorCode(response.error_code).name
            except NodeUnavailable as e:
                last_problem = str(e)
            if now_ms() >= deadline_ms:
                raise RegistrationFailed(f"broker {self.node_id} could not register: {last_problem}")
            await asyncio.sleep(self.heartbeat_interval_ms / 1000)

    def start_heartbeats(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._heartbeat_loop())

    async def _heartbeat_loop(self) -> None:
        while True:
            try:
                await self.heartbeat()
            except asyncio.CancelledError:
                raise
            except NodeUnavailable as e:
                log.debug("heartbeat of broker %d failed: %s", self.node_id, e)
            except Exception:
                log.exception("heartbeat of broker %d failed", self.node_id)
            interval_ms = STARTING_HEARTBEAT_INTERVAL_MS if self.starting else self.heartbeat_interval_ms
            await asyncio.sleep(interval_ms / 1000)

    async def heartbeat(self) -> None:
        response = await self.channel.send(BrokerHeartbeatRequest(
            broker_id=self.node_id, broker_epoch=self.broker_epoch,
            current_metadata_offset=self.metadata_offset(), want_fence=False,
            want_shut_down=self.want_shut_down), BROKER_HEARTBEAT_VERSION)
        if response.error_code != ErrorCode.NONE:
            log.warning("heartbeat of broker %d refused: %s", self.node_id, ErrorCode(response.error_code).name)
            return
        if response.is_caught_up:
            self.starting = False
        self.fenced = response.is_fenced
        if not response.is_fenced:
            self.unfenced.set()
        if response.should_shut_down:
            self.shut_down_allowed.set()

    async def controlled_shutdown(self, timeout_ms: int) -> bool:
        """Ask the controller to move this broker's leaderships away; True once it says
        the broker may stop, False if `timeout_ms` passed first (the heartbeat that asks
        counts: one to a controller that does not answer waits out its request timeout)."""
        self.want_shut_down = True

        async def approved() -> None:
            try:
                await self.heartbeat()
                if not self.shut_down_allowed.is_set():
                    await self.heartbeat()   # the shutdown's records are committed by now
                if not self.shut_down_allowed.is_set():
                    await asyncio.sleep(PENDING_SHUTDOWN_RETRY_MS / 1000)
                    await self.heartbeat()
            except NodeUnavailable:
                pass
            await self.shut_down_allowed.wait()   # else a heartbeat of the loop brings it

        try:
            async with asyncio.timeout(timeout_ms / 1000):
                await approved()
            return True
        except asyncio.TimeoutError:
            return False

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
