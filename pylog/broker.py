"""The broker: configuration, metadata, partitions, the served APIs, the listening socket.

    Broker(config)
      ├── QuorumController  with process.roles=...controller: the metadata log (pylog/controller/)
      ├── controller_channel  to the controller: in-process, or over the wire (controller_channel.py)
      ├── MetadataFollower  a broker-only node's copy of __cluster_metadata (metadata_follower.py)
      ├── MetadataPublisher the image's changes applied here: partitions, configs, coordinators
      ├── BrokerLifecycle   registration, heartbeats, controlled shutdown (broker_lifecycle.py)
      ├── BrokerMetadata    the topics as the handlers see them (pylog/metadata.py)
      ├── LogManager        storage: every partition log of log.dirs
      ├── LogFlusher        the fsyncs segment rolls leave pending, run on a thread
      ├── retention         a pass every log.retention.check.interval.ms (pylog/log_retention.py)
      ├── partitions        (topic, index) -> Partition (HW, ISR, leader epoch around a Log)
      ├── DataWaiters       long-poll fetches and acks=-1 produces parked until an append or a HW rise
      ├── FetcherManager    follower partitions' fetchers, one per leader (pylog/replication/)
      ├── AlterPartitionManager  the leaders' ISR changes to the controller, the ISR-shrink timer
      ├── ProducerIdManager producer ids in blocks from the controller (pylog/producer_ids.py)
      ├── GroupCoordinator  classic consumer groups of the __consumer_offsets partitions led here
      ├── OffsetStore       committed offsets and group metadata in __consumer_offsets
      └── Dispatcher        API key -> handler, with the advertised version ranges

Start (`await start()`), as Kafka's BrokerServer / ControllerServer:
  1. meta.properties (the cluster id); the listener is bound (port 0 picks a free port);
  2. with the controller role: the controller takes over the metadata log (new Raft
     epoch; bootstrap or conversion on a first start; pylog/controller/quorum_controller.py).
     A controller-only node serves the controller's APIs and is done;
  3. the metadata as this node last knew it: the controller's image, or the follower's
     replay of its local copy; the data directory opened with it (logs recovered after an
     unclean stop; directories of topics, topic ids or replicas the metadata does not
     have moved aside as strays);
  4. the publisher applies that image (partitions opened, roles taken), then follows the
     log: each committed batch (combined) or fetched batch (broker-only) is published;
  5. BrokerRegistration (the broker epoch), heartbeats, and start() returns once the
     controller has unfenced this broker (it then leads its partitions again, at a new
     leader epoch), then housekeeping starts.

Stop (`await stop()`): a controlled shutdown first (heartbeats asking to shut down until
the controller has moved every leadership away), then the replica fetchers stop, the
listener stops, the requests in hand finish, logs are flushed and checkpointed and the
clean-shutdown marker is written with this start's broker epoch.

Topics are created, deleted and reconfigured by the controller: the broker forwards the
requests (`forward`: pylog/handlers/topics.py, configs.py) and acts on the records that
come back (`ensure_partition`, `remove_topic_logs`, `set_topic_configs`). New logs are
created on a thread of the loop's pool (pylog/metadata_publisher.py), and `forward` answers
once they exist. A topic's logs go when its RemoveTopicRecord is published: each directory
is renamed `-delete` on the loop (durable: the deletion is done) and its files removed on a
thread (`remove_soon`); a crash before the rename leaves them as strays for the next start,
one after it has the next start remove them.

Replication (`apply_partition_registration`, called by the metadata publisher for every
partition this broker is or was a replica of when its registration or the brokers
changed): leader -> `Partition.make_leader`; follower -> `Partition.make_follower` and the
partition's fetcher pointed at the leader's endpoint (this broker's listener name, else the first
one); no replica any more -> fetching stops. `controller_channel` carries the
AlterPartition requests.

Housekeeping (once a second): `flush.ms` flushes and removal of `.deleted` files; the
recovery-point checkpoints every `log.flush.offset.checkpoint.interval.ms` (60 s); while
some partition's log could not be created, the metadata published again to retry it
(pylog/log_dir_failures.py).
Retention runs in its own task, a pass every `log.retention.check.interval.ms`
(pylog/log_retention.py).

Everything runs on one asyncio event loop: handlers call into partitions and storage
directly, so the loop serializes access to each log (storage is not thread-safe). The
one thing done on other threads is the fsync of the segments a roll closed
(pylog/log_flusher.py), which touches files by path only, not the Log.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from protocol.error_codes import ErrorCode
from protocol import messages
from storage import files
from storage.config import LogConfig
from storage.manager import LogManager

from pylog.clock import now_ms
from pylog.config import BrokerConfig
from pylog.connection_quotas import ConnectionQuotas
from pylog.coordinator import OFFSETS_TOPIC
from pylog.delayed import DataWaiters
from pylog.dispatch import API_VERSIONS_KEY, Api, Dispatcher, OnFirstRequest
from pylog.errors import BrokerError
from pylog.handlers import SERVED, api_versions
from pylog.high_watermarks import HighWatermarkCheckpoint
from pylog.dynamic_broker_config import DynamicBrokerConfig, dynamic_broker_configs
from pylog.log_cleaner import LogCleaner
from pylog.log_flusher import LogFlusher
from pylog.log_dir_failures import LogDirFailures
from pylog.log_retention import run_retention
from pylog.metadata import (
    PARTITION_METADATA, BrokerMetadata, TopicInfo, load_cluster_id, read_directory_id,
    topic_name_problem, write_partition_metadata,
)
from pylog.broker_lifecycle import SECURITY_PROTOCOL_IDS, SUPPORTED_FEATURES, BrokerLifecycle, RegistrationFailed
from pylog.controller.metadata_log import MetadataLog, partition_dir
from pylog.controller.quorum_controller import QuorumController
from pylog.controller_channel import LocalControllerChannel, RemoteControllerChannel, controller_address
from pylog.metadata_image import NO_LEADER, MetadataImage
from pylog.metadata_publisher import MetadataPublisher
from pylog.network_client import NodeUnavailable
from pylog.replication.alter_partition_manager import AlterPartitionManager
from pylog.replication.fetcher_manager import FetcherManager
from pylog.producer_ids import ProducerIdManager
from pylog.server import Server, start_server

if TYPE_CHECKING:
    from pylog.coordinator.coordinator import GroupCoordinator
    from pylog.coordinator.offsets import OffsetStore
    from pylog.metadata_follower import MetadataFollower
    from pylog.partition import Partition

log = logging.getLogger("pylog.broker")

TRANSACTION_STATE_TOPIC = "__transaction_state"

CHECKPOINT_INTERVAL_MS = 60_000                    # log.flush.offset.checkpoint.interval.ms
PRODUCER_EXPIRATION_CHECK_INTERVAL_MS = 600_000    # producer.id.expiration.check.interval.ms
CONTROLLED_SHUTDOWN_TIMEOUT_MS = 30_000
UNFENCE_TIMEOUT_MS = 30_000
CREATE_TOPICS_VERSION, DELETE_TOPICS_VERSION, CREATE_PARTITIONS_VERSION = 7, 5, 3


class Broker:
    """One pylog broker inside an asyncio event loop."""

    def __init__(self, config: BrokerConfig):
        self.config = config          # the effective config: static, then the dynamic configs
        self.dynamic_config = DynamicBrokerConfig(config)
        self.node_id = config.node_id
        self.waiters = DataWaiters()
        self.partitions: dict[tuple[str, int], Partition] = {}
        self.metadata: BrokerMetadata | None = None
        self.controller: QuorumController | None = None          # process.roles has "controller"
        self.controller_channel = None                            # to the controller, local or remote
        self.metadata_follower: MetadataFollower | None = None    # a broker-only node's copy of the log
        self.lifecycle: BrokerLifecycle | None = None
        self.publisher = MetadataPublisher(self)
        self.log_manager: LogManager | None = None
        self.producer_ids: ProducerIdManager | None = None
        self.server: Server | None = None
        self.host = ""
        self.port = 0
        self._housekeeping: asyncio.Task | None = None
        self._retention: asyncio.Task | None = None
        self.log_flusher = LogFlusher()
        self._removals: set = set()   # removals of deleted files under way on the pool (remove_soon, remove_files_soon)
        self.log_cleaner = LogCleaner(self)
        self.log_dir_failures = LogDirFailures(config.log_dirs[0])
        self.high_watermarks: HighWatermarkCheckpoint | None = None
        self._checkpointed_high_watermarks: dict[tuple[str, int], int] = {}
        self.fetcher_manager = FetcherManager(self)
        self.alter_partition_manager = AlterPartitionManager(self, config.replica_lag_time_max_ms)
        self._offset_store: OffsetStore | None = None              # with the group coordinator, on first use
        self._group_coordinator: GroupCoordinator | None = None
        self.dispatcher = Dispatcher([])
        for api in self._apis():
            self.dispatcher.apis[api.key] = api

    def _apis(self) -> list[Api]:
        """The served APIs and the versions advertised for each (`pylog/handlers/__init__.py`).
        Each handler but ApiVersions' is made, its module imported, at the first request
        for its API."""
        return [Api(API_VERSIONS_KEY, *api_versions.SERVED_VERSIONS,
                    api_versions.make_handler(self.dispatcher, self.node_features))] + [
            Api(key, low, high, OnFirstRequest(f"pylog.handlers.{module}", factory, self))
            for key, low, high, module, factory in SERVED]

    # -- lifecycle ---------------------------------------------------------------------

    @property
    def log_dir(self) -> Path:
        return Path(self.config.log_dirs[0])

    @property
    def cluster_id(self) -> str:
        return self.metadata.cluster_id

    async def start(self, host: str | None = None, port: int | None = None) -> None:
        started_ms = now_ms()
        roles = set(self.config.process_roles)
        cluster_id = load_cluster_id(self.log_dir, self.node_id, self.config.get("cluster.id"))
        self.metadata = BrokerMetadata(self.log_dir, self.node_id, cluster_id)
        if "controller" in roles:
            self.controller = QuorumController(self.config, self.metadata_log_dir, cluster_id)
        if "broker" not in roles:   # a controller-only node: the controller's APIs on its listener
            from pylog.controller.apis import controller_apis
            self.dispatcher.apis = {api.key: api for api in controller_apis(
                self.controller, self.dispatcher, self.config.listener_endpoint().listener_name)}
        # Bound first: the registrations carry the port. Until start() returns, what comes
        # in finds no partition led here yet, and gets the errors that make clients retry.
        await self._listen(host, port)
        if self.controller is not None:
            name, host_name, bound_port, protocol = self.advertised_listener()
            await self.controller.start([(name, host_name, bound_port, SECURITY_PROTOCOL_IDS.get(protocol, 0))])
        if "broker" not in roles:
            return
        if self.controller is not None:
            image = self.controller.image
            self.controller_channel = LocalControllerChannel(self.controller)
        else:
            address = controller_address(self.config)
            if address is None:
                raise ValueError("a broker-only node needs controller.quorum.bootstrap.servers "
                                 "or controller.quorum.voters")
            self.controller_channel = RemoteControllerChannel(address, client_id=f"broker-{self.node_id}")
            # The metadata fetches have a connection of their own (Kafka's raft client has its
            # own network client): a controller answers a connection's requests in order, so
            # a registration, heartbeat or forwarded request behind a long-polling Fetch
            # would wait out its max_wait_ms. Its receive buffer is `socket.receive.buffer.bytes`,
            # as Kafka's RaftManager gives its network client.
            from pylog.metadata_follower import MetadataFollower   # a broker-only node's
            self.metadata_follower = MetadataFollower(
                MetadataLog.open(partition_dir(self.log_dir), now_ms=started_ms),
                RemoteControllerChannel(address, client_id=f"raft-client-{self.node_id}",
                                        receive_buffer_bytes=self.config.socket_receive_buffer_bytes),
                now_ms=now_ms, replica_id=self.node_id)
            await self.metadata_follower.rebuild_image()   # the local copy, as the last run left it
            image = self.metadata_follower.image
        self.set_dynamic_broker_configs(*dynamic_broker_configs(image, self.node_id))
        self.default_log_config = LogConfig.from_properties(self.config.topic_defaults())
        self.default_log_config.check_compaction_lags()   # Kafka's LogManager refuses them at start too
        self.metadata.set_topics(TopicInfo(t.name, t.topic_id, len(t.partitions), dict(image.topic_configs(t.name)))
                                 for t in image.topics.values())
        topic_configs = {t.name: self.default_log_config.with_overrides(t.configs)
                         for t in self.metadata.topics.values() if t.configs}
        self.log_manager = LogManager.open(self.log_dir, self.default_log_config, now_ms=started_ms,
                                           topic_configs=topic_configs,
                                           producer_id_expiration_ms=self.config.producer_id_expiration_ms,
                                           flush_listener=self.log_flusher.schedule,
                                           file_remover=self.remove_files_soon,
                                           is_stray=lambda tp, path: self._stray_reason(image, *tp, path))
        self.high_watermarks = HighWatermarkCheckpoint(self.log_dir)
        self.high_watermarks.create_if_missing()
        # The partitions of this node, as the metadata last said; the group coordinator
        # loads the __consumer_offsets partitions this node leads as it is elected.
        self._checkpointed_high_watermarks = self.high_watermarks.read()
        self.publisher.publish(image)
        if self.controller is not None:
            self.controller.listeners.append(self.publisher.publish_soon)
        else:
            self.metadata_follower.on_batch = lambda image, _entries: self.publisher.publish_async(image)
            self.metadata_follower.start_fetching()
            self.metadata_follower.task.add_done_callback(self._metadata_follower_ended)
            await self.metadata_follower.catch_up()
        self.producer_ids = ProducerIdManager(self.controller_channel, self.node_id,
                                              lambda: self.metadata.broker_epoch)
        self.lifecycle = BrokerLifecycle(
            node_id=self.node_id, cluster_id=cluster_id, channel=self.controller_channel,
            listeners=[self.advertised_listener()], rack=self.config.get("broker.rack"),
            directory_ids=[d for d in [read_directory_id(self.log_dir)] if d is not None],
            heartbeat_interval_ms=self.config.broker_heartbeat_interval_ms,
            metadata_offset=lambda: self.publisher.published_offset)
        try:
            self.metadata.broker_epoch = await self.lifecycle.register(
                self.config.initial_broker_registration_timeout_ms)
        except RegistrationFailed:
            # nothing of this start may keep the process alive: its tasks end here
            self.lifecycle = None
            await self.stop()
            raise
        if self.controller is not None:
            self.controller.local_broker_alive = True
        self.lifecycle.start_heartbeats()
        await self.lifecycle.heartbeat()
        try:
            async with asyncio.timeout(UNFENCE_TIMEOUT_MS / 1000):
                await self.lifecycle.unfenced.wait()
        except asyncio.TimeoutError:
            log.warning("broker %d not unfenced after %d ms; serving anyway", self.node_id, UNFENCE_TIMEOUT_MS)
        self._housekeeping = asyncio.get_running_loop().create_task(self._housekeep())
        self._retention = asyncio.get_running_loop().create_task(
            run_retention(self.partitions.values, self.config.log_retention_check_interval_ms,
                          skip=self.log_cleaner.in_progress))
        self.log_cleaner.start()
        self.alter_partition_manager.start()

    async def _listen(self, host: str | None, port: int | None) -> None:
        bind_host, bind_port = self.config.listener_address()
        self.server = await start_server(self.dispatcher, bind_host if host is None else host,
                                         bind_port if port is None else port,
                                         self.config.socket_request_max_bytes,
                                         max_idle_ms=self.config.connections_max_idle_ms,
                                         queued_max_request_bytes=self.config.queued_max_request_bytes,
                                         send_buffer_bytes=self.config.socket_send_buffer_bytes,
                                         receive_buffer_bytes=self.config.socket_receive_buffer_bytes,
                                         listen_backlog=self.config.socket_listen_backlog_size,
                                         quotas=ConnectionQuotas(*self._connection_limits()))
        self.host, self.port = self.server.address
        self.dynamic_config.rebase(self.dynamic_config.static.served_at(bind_host if host is None else host, self.port))
        self.config = self.dynamic_config.current

    @property
    def metadata_log_dir(self) -> Path:
        configured = self.config.get("metadata.log.dir")
        return Path(configured) if configured else self.log_dir

    def _metadata_follower_ended(self, task: asyncio.Task) -> None:
        """The follower's task ends only when it is stopped or on a fault it does not
        survive (see pylog/metadata_follower.py): say the second, once, with its cause."""
        if task.cancelled() or task.exception() is None:
            return
        log.error("broker %d stopped following the cluster metadata after offset %d: %s",
                  self.node_id, self.metadata_follower.image.offset, task.exception(), exc_info=task.exception())

    def _stray_reason(self, image: MetadataImage, topic: str, index: int, path: Path) -> str | None:
        """Why a partition directory found at start is not a log this node hosts, or None."""
        reason = self.metadata.stray_reason(topic, index, path)
        if reason is not None:
            return reason
        registration = image.topics_by_name[topic].partitions.get(index)
        if registration is not None and self.node_id not in registration.replicas:
            return f"node {self.node_id} is not a replica of {topic}-{index}"
        return None

    async def stop(self) -> None:
        # Controlled shutdown first, while requests are still served: the controller moves
        # this broker's leaderships to other in-sync replicas, so clients move with them.
        if self.controller is not None:
            self.controller.local_broker_alive = False
        if self.lifecycle is not None:
            if not await self.lifecycle.controlled_shutdown(CONTROLLED_SHUTDOWN_TIMEOUT_MS):
                log.warning("controlled shutdown of broker %d did not finish; stopping anyway", self.node_id)
            await self.lifecycle.stop()
            self.lifecycle = None
        if self.controller is not None and self.publisher.publish_soon in self.controller.listeners:
            # the controller goes on until the end of stop(): what it commits meanwhile (its
            # own broker fenced) is not applied to a broker that is closing
            self.controller.listeners.remove(self.publisher.publish_soon)
        if self.metadata_follower is not None:
            await self.metadata_follower.stop()
            await self.metadata_follower.channel.close()
            self.metadata_follower.metadata_log.close()
        await self.publisher.close()
        # Then answer parked JoinGroup/SyncGroup requests (NOT_COORDINATOR), so that no
        # connection is kept busy while the server waits for in-flight requests.
        if self._group_coordinator is not None:
            self._group_coordinator.shutdown()
        # The replica fetchers before the server: their fetches parked at other brokers end
        # with their connections, so brokers that stop together do not wait on each other's
        # parked fetches (each server waits for the requests in hand) until those time out.
        await self.fetcher_manager.stop()
        if self.server is not None:
            await self.server.stop()
            self.server = None
        if self._housekeeping is not None:
            self._housekeeping.cancel()
            self._housekeeping = None
        await self.alter_partition_manager.stop()
        await self.log_cleaner.stop()
        if self._retention is not None:
            self._retention.cancel()
            self._retention = None
        await self.log_flusher.stop()
        if self._removals:
            await asyncio.gather(*self._removals, return_exceptions=True)
        if self.log_manager is not None:
            if self.high_watermarks is not None:
                self.high_watermarks.write(self.partitions.values())
            self.log_manager.close(broker_epoch=self.metadata.broker_epoch,
                                   threads=self.config.get("num.recovery.threads.per.data.dir"))
            self.log_manager = None
        if self.controller_channel is not None:
            await self.controller_channel.close()
            self.controller_channel = None
        if self.controller is not None:
            await self.controller.stop()

    async def _housekeep(self) -> None:
        last_checkpoint_ms = last_expiry_ms = last_offsets_expiry_ms = last_high_watermarks_ms = now_ms()
        while True:
            await asyncio.sleep(1.0)
            current = now_ms()
            try:
                if self.log_dir_failures.not_created:
                    self.publisher.publish_again(self.metadata_image())   # tries their logs again
                self.log_manager.flush_dirty_logs(current)
                self.log_manager.delete_expired_files(current)
                if current - last_checkpoint_ms >= CHECKPOINT_INTERVAL_MS:
                    self.log_manager.write_checkpoints()
                    last_checkpoint_ms = current
                if current - last_high_watermarks_ms >= self.config.replica_high_watermark_checkpoint_interval_ms:
                    self.high_watermarks.write(self.partitions.values())
                    last_high_watermarks_ms = current
                if current - last_offsets_expiry_ms >= self.config.offsets_retention_check_interval_ms:
                    if self._offset_store is not None:
                        self._offset_store.expire(current)   # hands the groups it empties to the coordinator
                    last_offsets_expiry_ms = current
                if current - last_expiry_ms >= PRODUCER_EXPIRATION_CHECK_INTERVAL_MS:
                    self.log_manager.remove_expired_producers(current)
                    last_expiry_ms = current
            except Exception:
                log.exception("housekeeping failed")

    # -- group coordinator ---------------------------------------------------------------

    @property
    def group_coordinator(self) -> GroupCoordinator:
        """The group coordinator, created with the first group request or the first
        `__consumer_offsets` partition this broker leads: a broker that serves no group
        does not import it."""
        if self._group_coordinator is None:
            from pylog.coordinator.coordinator import GroupCoordinator
            from pylog.coordinator.offsets import OffsetStore
            store = OffsetStore(self)
            self._group_coordinator = GroupCoordinator.for_broker(
                self.config, store=store,
                # the coordinator writes the group's own tombstone; the store drops its offsets
                on_group_deleted=lambda group_id: store.delete_group_offsets(group_id, group_tombstone=False),
                leads_every_partition=False)   # the metadata publisher names the partitions it leads
            self._offset_store = store
        return self._group_coordinator

    @property
    def offset_store(self) -> OffsetStore:
        """The committed offsets (`__consumer_offsets`), created with the group coordinator."""
        if self._offset_store is None:
            _ = self.group_coordinator   # creates the store with it
        return self._offset_store

    def offsets_partitions_led(self) -> list[int]:
        """The `__consumer_offsets` partitions this broker leads."""
        return [index for (topic, index), partition in self.partitions.items()
                if topic == OFFSETS_TOPIC and partition.is_leader]

    def on_offsets_partition_leadership(self, index: int, is_leader: bool, leader_epoch: int) -> None:
        """This broker became (`is_leader`) or stopped being the leader of `__consumer_offsets`
        partition `index` at `leader_epoch`: the group coordinator loads or gives up the
        groups of that partition (a stale or repeated epoch changes nothing)."""
        if is_leader:
            self.group_coordinator.on_elected(index, leader_epoch)
        else:
            self.group_coordinator.on_resigned(index, leader_epoch)

    def on_offsets_topic_deleted(self, indexes: list[int]) -> None:
        """`__consumer_offsets` was deleted: the group coordinator, if there is one, gives
        up the groups of each of its partitions and forgets their epochs."""
        if self._group_coordinator is not None:
            for index in indexes:
                self._group_coordinator.on_deleted(index)

    # -- advertised address ------------------------------------------------------------

    def advertised_address(self) -> tuple[str, int]:
        """What Metadata tells clients: `advertised.listeners` if set, else the bound address."""
        if self.config.is_set("advertised.listeners"):
            return self.config.advertised_address(bound_port=self.port)
        if self.host in ("0.0.0.0", "::", ""):
            return self.config.advertised_address(bound_port=self.port)
        return self.host, self.port

    def advertised_listener(self) -> tuple[str, str, int, str]:
        """(listener name, host, port, security protocol) registered with the controller."""
        host, port = self.advertised_address()
        endpoint = self.config.listener_endpoint()
        return endpoint.listener_name, host, port, endpoint.security_protocol

    # -- topics ------------------------------------------------------------------------

    def partition(self, topic: str, index: int) -> Partition | None:
        return self.partitions.get((topic, index))

    def no_partition_error(self, topic: str, index: int) -> ErrorCode:
        """The error for a request naming a partition not hosted here (Kafka's
        ReplicaManager.getPartitionOrError): KAFKA_STORAGE_ERROR when it is this broker's
        but its log could not be created (Kafka's offline partition); NOT_LEADER_OR_FOLLOWER
        when the metadata has it (another broker holds it: the client refreshes its
        metadata), else UNKNOWN_TOPIC_OR_PARTITION."""
        if (topic, index) in self.log_dir_failures.not_created:
            return ErrorCode.KAFKA_STORAGE_ERROR   # this broker's, its log not created (log_dir_failures.py)
        if self.in_metadata(topic, index):
            return ErrorCode.NOT_LEADER_OR_FOLLOWER
        return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION

    def in_metadata(self, topic: str, index: int) -> bool:
        """Whether the metadata this broker follows has the partition (Kafka's
        `metadataCache.contains`), hosted here or not."""
        info = self.metadata.topics.get(topic)
        return info is not None and 0 <= index < info.num_partitions

    def topic_log_config(self, configs: dict[str, str]) -> LogConfig:
        """The storage config for a topic with these overrides (raises InvalidConfig)."""
        return self.default_log_config.with_overrides(configs)

    # Topic changes go to the controller as Kafka's requests; the broker acts on them when
    # the metadata they commit comes back (pylog/metadata_publisher.py).

    async def create_topic(self, name: str, num_partitions: int, configs: dict[str, str] | None = None,
                           replication_factor: int = -1) -> TopicInfo:
        """Create a topic through the controller (CreateTopics) and return it once this
        broker's metadata has it; BrokerError with the controller's answer otherwise."""
        request = messages.CreateTopicsRequest   # (message classes load at their first use)
        topic = request.CreatableTopic(
            name=name, num_partitions=num_partitions, replication_factor=replication_factor,
            configs=[request.CreatableTopicConfig(name=k, value=v) for k, v in (configs or {}).items()])
        response = await self.forward(request(topics=[topic], timeout_ms=30_000), CREATE_TOPICS_VERSION)
        result = response.topics[0]
        if result.error_code not in (ErrorCode.NONE, ErrorCode.TOPIC_ALREADY_EXISTS) or name not in self.metadata.topics:
            raise BrokerError(result.error_code or ErrorCode.UNKNOWN_SERVER_ERROR,
                              result.error_message or f"topic {name!r} was not created")
        if result.error_code == ErrorCode.TOPIC_ALREADY_EXISTS:
            raise BrokerError(result.error_code, result.error_message or f"topic {name!r} already exists")
        log.info("created topic %s with %d partition(s)", name, num_partitions)
        return self.metadata.topics[name]

    async def delete_topic(self, name: str) -> None:
        response = await self.forward(messages.DeleteTopicsRequest(topic_names=[name], timeout_ms=30_000),
                                      DELETE_TOPICS_VERSION)
        result = response.responses[0]
        if result.error_code != ErrorCode.NONE:
            raise BrokerError(result.error_code, result.error_message or f"topic {name!r} was not deleted")

    async def create_partitions(self, name: str, total: int) -> None:
        request = messages.CreatePartitionsRequest
        response = await self.forward(request(
            topics=[request.CreatePartitionsTopic(name=name, count=total, assignments=None)],
            timeout_ms=30_000, validate_only=False), CREATE_PARTITIONS_VERSION)
        result = response.results[0]
        if result.error_code != ErrorCode.NONE:
            raise BrokerError(result.error_code, result.error_message or f"partitions of {name!r} not created")

    async def forward(self, request, version: int):
        """Send an admin request to the controller; return its answer once this broker's
        metadata holds what it committed (so the next request here sees the change)."""
        try:
            response = await self.controller_channel.send(request, version)
        except NodeUnavailable as e:
            raise BrokerError(ErrorCode.REQUEST_TIMED_OUT, f"the controller could not be reached: {e}") from e
        if self.metadata_follower is not None:
            await self.metadata_follower.catch_up()
        await self.publisher.settled()   # the new partitions' logs exist here
        return response

    # -- what the metadata says, applied here (called by the publisher) ----------------

    def ensure_partition(self, topic: str, topic_id, index: int) -> Partition:
        """The local partition `topic`-`index`, its log opened or created, and its
        `partition.metadata` written if it has none (OSError if that fails: the partition
        is then not hosted). The metadata publisher creates new logs off the event loop
        first (pylog/metadata_publisher.py); a log is created here only by a publication
        that runs all at once (`MetadataPublisher.publish`, at the broker's start)."""
        partition = self.partitions.get((topic, index))
        if partition is None:
            partition_log = self.log_manager.get_or_create_log(topic, index, now_ms=now_ms())
            if not (partition_log.dir / PARTITION_METADATA).exists():
                write_partition_metadata(partition_log.dir, topic_id)
            from pylog.partition import Partition   # imported with the first partition
            partition = Partition(
                topic, index, partition_log, self.node_id, self.waiters, leader_epoch=None,
                high_watermark=self._checkpointed_high_watermarks.get((topic, index), 0),
                replica_lag_time_max_ms=self.config.replica_lag_time_max_ms)
            self.partitions[(topic, index)] = partition
        return partition

    def remove_soon(self, deleted_dir: Path) -> None:
        """Remove a deleted log's renamed directory on a thread of the loop's pool (Kafka
        removes it `file.delete.delay.ms` later, on its scheduler): a large log's files take
        long to remove (a quarter of a second for 1 GiB on ext4), and the deletion is
        already durable. `stop()` waits for it."""
        self._remove_on_pool(files.remove_dir, deleted_dir)

    def remove_files_soon(self, paths: list[Path]) -> None:
        """Remove the files of deleted segments whose `file.delete.delay.ms` has passed, on a
        thread of the loop's pool (every log's `file_remover`; storage/log.py "Deletion")."""
        self._remove_on_pool(files.unlink_paths, paths)

    def _remove_on_pool(self, remove, what) -> None:
        future = asyncio.get_running_loop().run_in_executor(None, remove, what)
        self._removals.add(future)
        future.add_done_callback(self._removals.discard)

    def set_topic_configs(self, name: str, configs: dict[str, str]) -> None:
        """A topic's overrides changed in the metadata: its logs take the new config."""
        try:
            log_config = self.topic_log_config(configs)
        except Exception:
            log.exception("topic %s: the controller's configs %r are not valid here", name, configs)
            return
        self.log_manager.set_topic_config(name, log_config if configs else None)

    def set_dynamic_broker_configs(self, cluster_default: dict[str, str], per_broker: dict[str, str]) -> None:
        """The BROKER config resources "" and this node's id changed in the metadata: the
        broker's config takes them, every log its new defaults, the cleaner its settings."""
        before = self.config
        if not self.dynamic_config.update(cluster_default, per_broker):
            return
        self.config = self.dynamic_config.current
        log.info("dynamic broker configs: cluster default %s, this broker %s", cluster_default, per_broker)
        if self.server is not None:
            self.server.quotas.update(*self._connection_limits())
        if self.log_manager is None:
            return
        defaults = LogConfig.from_properties(self.config.topic_defaults())
        if defaults != self.default_log_config:
            self.default_log_config = defaults
            self.log_manager.set_default_config(defaults)
            for topic in self.metadata.topics.values():
                if topic.configs:
                    self.set_topic_configs(topic.name, topic.configs)
        if before.log_cleaner_threads != self.config.log_cleaner_threads:
            self.log_cleaner.restart()

    def _connection_limits(self) -> tuple[int, str]:
        """`max.connections.per.ip` and its overrides, as the config now says."""
        return self.config.max_connections_per_ip, self.config.max_connections_per_ip_overrides

    def remove_topic_logs(self, name: str, indexes) -> None:
        """The metadata no longer lists these partitions here (topic deleted, replica
        moved): their logs go, and the group coordinator forgets their offsets."""
        indexes = list(indexes)
        for index in indexes:
            self.fetcher_manager.remove_partition((name, index))
            partition = self.partitions.pop((name, index), None)
            if partition is None:
                continue
            self.log_cleaner.abort_cleaning(name, index)   # waits until no copy reads the log
            self.log_manager.delete_log(name, index, remove=self.remove_soon)
            self.log_cleaner.forget(name, index)
            self.waiters.notify((name, index))  # parked fetches answer now: the partition is gone
        if name not in self.metadata.topics:
            self.log_manager.set_topic_config(name, None)
        if self._group_coordinator is not None:
            self._group_coordinator.on_partitions_deleted((name, index) for index in indexes)
        log.info("removed %d partition(s) of topic %s", len(indexes), name)

    def truncate_log(self, topic: str, index: int, offset: int) -> bool:
        """Cut a partition's log back to `offset` (Kafka's LogManager.truncateTo, what a
        follower does to match its leader); False if there was nothing to remove. A cut
        below the active segment pauses the log cleaner around it, aborting a pass under
        way, and brings the cleaner's checkpoint back to the new active segment. The
        partition's HW follows the new LEO down."""
        partition = self.partitions[(topic, index)]
        partition_log = partition.log
        if offset >= partition_log.active_segment.base_offset:
            truncated = partition_log.truncate_to(offset)
        else:
            with self.log_cleaner.paused(topic, index):
                truncated = partition_log.truncate_to(offset)
                self.log_cleaner.truncated(topic, index, partition_log.active_segment.base_offset)
        partition.truncated()
        return truncated

    def truncate_fully_and_start_at(self, topic: str, index: int, offset: int) -> None:
        """Empty a partition's log and start it at `offset` (a follower that fell below
        its leader's log start), with the log cleaner paused around it."""
        partition = self.partitions[(topic, index)]
        with self.log_cleaner.paused(topic, index):
            partition.log.truncate_fully_and_start_at(offset)
            self.log_cleaner.truncated(topic, index, offset)
        partition.truncated()

    # -- replication -------------------------------------------------------------------

    def apply_partition_registration(self, topic: str, index: int, registration, brokers) -> None:
        """Take the role `registration` (pylog.metadata_image.PartitionRegistration) gives
        this broker for partition `index` of `topic`; `brokers` are the registered brokers
        (BrokerRegistration by id). A partition not open here is left alone (the publisher
        opens it first)."""
        key = (topic, index)
        partition = self.partitions.get(key)
        if partition is None:
            return
        if self.node_id not in registration.replicas:
            self.fetcher_manager.remove_partition(key)
            partition.stop_replica()
            return
        if registration.leader == self.node_id:
            self.fetcher_manager.remove_partition(key)
            partition.make_leader(registration, brokers, now_ms())
            return
        restart = partition.make_follower(registration, brokers)
        leader = brokers.get(registration.leader) if registration.leader != NO_LEADER else None
        endpoint = None
        if leader is not None:
            endpoint = leader.endpoint_or_first(self.config.listener_endpoint().listener_name)
        if endpoint is None:
            self.fetcher_manager.remove_partition(key)
            return
        self.fetcher_manager.add_partition(partition, registration.leader, endpoint.host, endpoint.port,
                                           restart=restart)

    async def maybe_auto_create(self, name: str) -> TopicInfo | None:
        """Create `name` if `auto.create.topics.enable`; None otherwise.

        An ordinary topic gets `num.partitions`; the internal topics are created as their
        coordinators create them (Kafka's AutoTopicCreationManager does the same), never
        as ordinary topics, whichever request comes first. (Kafka answers the request that
        triggers the creation with an error and creates the topic meanwhile; pylog waits
        for the controller and answers with the topic.)"""
        if not self.config.auto_create_topics_enable or topic_name_problem(name):
            return None
        try:
            if name == OFFSETS_TOPIC:
                await self.offset_store.ensure_topic()
            elif name == TRANSACTION_STATE_TOPIC:
                await self.create_internal_topic(name, self.config.transaction_state_log_num_partitions,
                                                 self.config.transaction_state_log_replication_factor,
                                                 self.transaction_topic_configs())
            else:
                await self.create_topic(name, self.config.num_partitions)
        except BrokerError as e:
            if e.code != ErrorCode.TOPIC_ALREADY_EXISTS:
                log.warning("auto-creating topic %s failed: %s", name, e)
        return self.metadata.topics.get(name)

    async def create_internal_topic(self, name: str, num_partitions: int, replication_factor: int,
                                    configs: dict[str, str]) -> None:
        """An internal topic, its replication factor capped at the brokers registered (a
        pylog choice, so a test cluster of one or two brokers has its coordinators)."""
        if name in self.metadata.topics:
            await self.publisher.settled()   # another request created it: its logs may be on their way
            return
        registered = max(1, sum(1 for b in self.metadata_image().brokers.values() if not b.fenced))
        try:
            await self.create_topic(name, num_partitions, configs, min(replication_factor, registered))
        except BrokerError as e:
            if e.code != ErrorCode.TOPIC_ALREADY_EXISTS:
                raise

    def node_features(self) -> api_versions.NodeFeatures:
        """What ApiVersions tells of features: the ranges this broker registers with, and the
        levels of the metadata it acts on (none before it has any)."""
        if self.metadata_follower is None and self.controller is None:
            return api_versions.NodeFeatures(SUPPORTED_FEATURES, {}, -1)
        return api_versions.image_features(SUPPORTED_FEATURES, self.metadata_image())

    def metadata_image(self) -> MetadataImage:
        """The metadata this broker acts on: its controller's image in a combined node,
        its follower's otherwise."""
        return self.metadata_follower.image if self.metadata_follower is not None else self.controller.image

    def transaction_topic_configs(self) -> dict[str, str]:
        """`__transaction_state`'s topic configs, Kafka's TransactionStateManager's."""
        return {"cleanup.policy": "compact", "compression.type": "uncompressed",
                "min.insync.replicas": str(self.config.transaction_state_log_min_isr),
                "segment.bytes": str(self.config.transaction_state_log_segment_bytes),
                "unclean.leader.election.enable": "false"}
