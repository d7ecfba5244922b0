"""The broker: configuration, metadata, partitions, the served APIs, the listening socket.

    Broker(config)
      ├── ClusterMetadata   cluster id, topics (id, partition count, config overrides)
      ├── LogManager        storage: every partition log of log.dirs
      ├── LogFlusher        the fsyncs segment rolls leave pending, run on a thread
      ├── retention         a pass every log.retention.check.interval.ms (pylog/log_retention.py)
      ├── partitions        (topic, index) -> Partition (HW, LSO, leader epoch around a Log)
      ├── DataWaiters       long-poll fetches and acks=-1 produces parked until an append or a HW rise
      ├── FetcherManager    follower partitions' fetchers, one per leader (pylog/replication/)
      ├── AlterPartitionManager  the leaders' ISR changes to the controller, the ISR-shrink timer
      ├── ProducerIdManager producer ids, never handed out twice (pylog/producer_ids.py)
      ├── GroupCoordinator  classic consumer groups (pylog/coordinator/)
      ├── OffsetStore       committed offsets and group metadata in __consumer_offsets
      └── Dispatcher        API key -> handler, with the advertised version ranges

Lifecycle: `await start()` opens the data directory (recovering logs after an unclean
stop, moving stray logs aside: directories of topics or topic ids the metadata does not
have, see pylog/metadata.py), loads the committed offsets and groups, finishes a topic
deletion a crash interrupted (after the offsets are loaded, so that its offsets go too),
binds the listener (port 0 picks a free port) and starts housekeeping; `await stop()`
stops accepting, lets answered requests finish, flushes and checkpoints every log and
writes the clean-shutdown marker with this start's broker epoch.

Replication (`apply_partition_registration`, called by the metadata publisher for every
partition this broker is or was a replica of when its registration or the brokers
changed): leader -> `Partition.make_leader`; follower -> `Partition.make_follower` and the
partition's fetcher pointed at the leader's endpoint (listener PLAINTEXT, else the first
one); no replica any more -> fetching stops, the log stays (deleting it is the
publisher's call). `controller_channel` (set by whoever wires the broker to its
controller) carries the AlterPartition requests.

Topic deletion (`delete_topic`): marked in the metadata, the logs removed, the group
coordinator told (every group's committed offsets of the partitions are removed, as
Kafka's broker does when the controller deletes a topic), then the metadata entry.

Housekeeping (once a second): `flush.ms` flushes and removal of `.deleted` files; the
recovery-point checkpoints every `log.flush.offset.checkpoint.interval.ms` (60 s).
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

from protocol.error_codes import ErrorCode
from storage.config import LogConfig
from storage.manager import LogManager

from pylog.clock import now_ms
from pylog.config import BrokerConfig
from pylog.coordinator.coordinator import GroupCoordinator
from pylog.coordinator.offsets import OFFSETS_TOPIC, OffsetStore
from pylog.delayed import DataWaiters
from pylog.dispatch import Api, Dispatcher
from pylog.errors import BrokerError
from pylog.handlers import (
    api_versions,
    configs as config_handlers,
    delete_records,
    fetch,
    find_coordinator,
    groups as group_handlers,
    init_producer_id,
    list_offsets,
    log_dirs,
    metadata as metadata_handler,
    offset_for_leader_epoch,
    offsets as offset_handlers,
    produce,
    topics as topic_handlers,
)
from pylog.high_watermarks import HighWatermarkCheckpoint
from pylog.log_cleaner import LogCleaner
from pylog.log_flusher import LogFlusher
from pylog.log_retention import run_retention
from pylog.metadata import ClusterMetadata, TopicInfo, topic_name_problem, write_partition_metadata
from pylog.partition import Partition
from pylog.replication.alter_partition_manager import AlterPartitionManager
from pylog.replication.fetcher_manager import FetcherManager
from pylog.replication.partition_state import NO_LEADER
from pylog.replication.replica_fetcher import FetcherConfig
from pylog.producer_ids import ProducerIdManager
from pylog.server import Server, start_server

log = logging.getLogger("pylog.broker")

TRANSACTION_STATE_TOPIC = "__transaction_state"

CHECKPOINT_INTERVAL_MS = 60_000                    # log.flush.offset.checkpoint.interval.ms
PRODUCER_EXPIRATION_CHECK_INTERVAL_MS = 600_000    # producer.id.expiration.check.interval.ms


class Broker:
    """One pylog broker inside an asyncio event loop."""

    def __init__(self, config: BrokerConfig):
        self.config = config
        self.node_id = config.node_id
        self.waiters = DataWaiters()
        self.partitions: dict[tuple[str, int], Partition] = {}
        self.metadata: ClusterMetadata | None = None
        self.log_manager: LogManager | None = None
        self.producer_ids: ProducerIdManager | None = None
        self.server: Server | None = None
        self.host = ""
        self.port = 0
        self._housekeeping: asyncio.Task | None = None
        self._retention: asyncio.Task | None = None
        self.log_flusher = LogFlusher()
        self.log_cleaner = LogCleaner(self)
        self.high_watermarks: HighWatermarkCheckpoint | None = None
        self._checkpointed_high_watermarks: dict[tuple[str, int], int] = {}
        self.controller_channel = None   # async send(request, version, timeout_ms=None) to the controller
        self.fetcher_manager = FetcherManager(self, FetcherConfig.from_broker_config(config))
        self.alter_partition_manager = AlterPartitionManager(self, config.replica_lag_time_max_ms)
        self.offset_store = OffsetStore(self)
        self.group_coordinator = GroupCoordinator.for_broker(
            config, store=self.offset_store,
            # the coordinator writes the group's own tombstone; the store drops its offsets
            on_group_deleted=lambda group_id: self.offset_store.delete_group_offsets(group_id, group_tombstone=False))
        self.dispatcher = Dispatcher([])
        for api in self._apis():
            self.dispatcher.apis[api.key] = api

    def _apis(self) -> list[Api]:
        """The served APIs and the versions advertised for each."""
        return [
            Api(18, 0, 3, api_versions.make_handler(self.dispatcher)),
            Api(3, 0, 12, metadata_handler.make_handler(self)),
            Api(0, 3, 9, produce.make_handler(self)),
            Api(1, 4, 12, fetch.make_handler(self)),
            Api(2, 0, 7, list_offsets.make_handler(self)),
            Api(23, 0, 4, offset_for_leader_epoch.make_handler(self)),
            Api(22, 0, 4, init_producer_id.make_handler(self)),
            Api(10, 0, 4, find_coordinator.make_handler(self)),
            *topic_handlers.apis(self),
            *config_handlers.apis(self),
            *group_handlers.apis(self),
            *offset_handlers.apis(self),
            *delete_records.apis(self),
            *log_dirs.apis(self),
        ]

    # -- lifecycle ---------------------------------------------------------------------

    @property
    def log_dir(self) -> Path:
        return Path(self.config.log_dirs[0])

    @property
    def cluster_id(self) -> str:
        return self.metadata.cluster_id

    async def start(self, host: str | None = None, port: int | None = None) -> None:
        started_ms = now_ms()
        self.metadata = ClusterMetadata.load(self.log_dir, self.node_id, self.config.get("cluster.id"))
        self.default_log_config = LogConfig.from_properties(self.config.topic_defaults())
        topic_configs = {t.name: self.default_log_config.with_overrides(t.configs)
                         for t in self.metadata.topics.values() if t.configs}
        self.log_manager = LogManager.open(self.log_dir, self.default_log_config, now_ms=started_ms,
                                           topic_configs=topic_configs,
                                           producer_id_expiration_ms=self.config.producer_id_expiration_ms,
                                           flush_listener=self.log_flusher.schedule,
                                           is_stray=lambda tp, path: self.metadata.stray_reason(*tp, path))
        self.producer_ids = ProducerIdManager.load(self.log_dir, self._largest_producer_id())
        self.high_watermarks = HighWatermarkCheckpoint(self.log_dir)
        self.high_watermarks.create_if_missing()
        self._checkpointed_high_watermarks = self.high_watermarks.read()
        interrupted = []
        for topic in list(self.metadata.topics.values()):
            if topic.deleting:
                interrupted.append(topic.name)
            else:
                self._open_partitions(topic, 0, started_ms)
        self.offset_store.load(started_ms)   # committed offsets and groups from __consumer_offsets
        for name in interrupted:
            self.delete_topic(name)   # a delete interrupted by a crash: its offsets may be left too
        self.group_coordinator.load()
        bind_host, bind_port = self.config.listener_address()
        self.server = await start_server(self.dispatcher, bind_host if host is None else host,
                                         bind_port if port is None else port,
                                         self.config.socket_request_max_bytes)
        self.host, self.port = self.server.address
        self._housekeeping = asyncio.get_running_loop().create_task(self._housekeep())
        self._retention = asyncio.get_running_loop().create_task(
            run_retention(self.partitions.values, self.config.log_retention_check_interval_ms,
                          skip=self.log_cleaner.in_progress))
        self.log_cleaner.start()
        self.alter_partition_manager.start()

    def _largest_producer_id(self) -> int:
        """The largest producer id any loaded partition remembers (-1: none)."""
        return max((producer_id for partition_log in self.log_manager.logs.values()
                    for producer_id in partition_log.producer_state), default=-1)

    async def stop(self) -> None:
        # First answer parked JoinGroup/SyncGroup requests (NOT_COORDINATOR), so that no
        # connection is kept busy while the server waits for in-flight requests.
        self.group_coordinator.shutdown()
        if self.server is not None:
            await self.server.stop()
            self.server = None
        if self._housekeeping is not None:
            self._housekeeping.cancel()
            self._housekeeping = None
        await self.fetcher_manager.stop()
        await self.alter_partition_manager.stop()
        await self.log_cleaner.stop()
        if self._retention is not None:
            self._retention.cancel()
            self._retention = None
        await self.log_flusher.stop()
        if self.log_manager is not None:
            if self.high_watermarks is not None:
                self.high_watermarks.write(self.partitions.values())
            self.log_manager.close(broker_epoch=self.metadata.broker_epoch)
            self.log_manager = None

    async def _housekeep(self) -> None:
        last_checkpoint_ms = last_expiry_ms = last_offsets_expiry_ms = last_high_watermarks_ms = now_ms()
        while True:
            await asyncio.sleep(1.0)
            current = now_ms()
            try:
                self.log_manager.flush_dirty_logs(current)
                self.log_manager.delete_expired_files(current)
                if current - last_checkpoint_ms >= CHECKPOINT_INTERVAL_MS:
                    self.log_manager.write_checkpoints()
                    last_checkpoint_ms = current
                if current - last_high_watermarks_ms >= self.config.replica_high_watermark_checkpoint_interval_ms:
                    self.high_watermarks.write(self.partitions.values())
                    last_high_watermarks_ms = current
                if current - last_offsets_expiry_ms >= self.config.offsets_retention_check_interval_ms:
                    self.offset_store.expire(current)   # hands the groups it empties to the coordinator
                    last_offsets_expiry_ms = current
                if current - last_expiry_ms >= PRODUCER_EXPIRATION_CHECK_INTERVAL_MS:
                    self.log_manager.remove_expired_producers(current)
                    last_expiry_ms = current
            except Exception:
                log.exception("housekeeping failed")

    # -- advertised address ------------------------------------------------------------

    def advertised_address(self) -> tuple[str, int]:
        """What Metadata tells clients: `advertised.listeners` if set, else the bound address."""
        if self.config.is_set("advertised.listeners"):
            return self.config.advertised_address(bound_port=self.port)
        if self.host in ("0.0.0.0", "::", ""):
            return self.config.advertised_address(bound_port=self.port)
        return self.host, self.port

    # -- topics ------------------------------------------------------------------------

    def partition(self, topic: str, index: int) -> Partition | None:
        return self.partitions.get((topic, index))

    def topic_log_config(self, configs: dict[str, str]) -> LogConfig:
        """The storage config for a topic with these overrides (raises InvalidConfig)."""
        return self.default_log_config.with_overrides(configs)

    def create_topic(self, name: str, num_partitions: int, configs: dict[str, str] | None = None) -> TopicInfo:
        configs = dict(configs or {})
        problem = topic_name_problem(name)
        if problem:
            raise BrokerError(ErrorCode.INVALID_TOPIC_EXCEPTION, problem)
        if name in self.metadata.topics:
            raise BrokerError(ErrorCode.TOPIC_ALREADY_EXISTS, f"topic {name!r} already exists")
        if num_partitions < 1:
            raise BrokerError(ErrorCode.INVALID_PARTITIONS, "number of partitions must be at least 1")
        log_config = self.topic_log_config(configs)
        topic = self.metadata.add_topic(name, num_partitions, configs)
        if configs:
            self.log_manager.set_topic_config(name, log_config)
        self._open_partitions(topic, 0, now_ms())
        log.info("created topic %s with %d partition(s)", name, num_partitions)
        return topic

    def _open_partitions(self, topic: TopicInfo, first: int, at_ms: int) -> None:
        for index in range(first, topic.num_partitions):
            partition_log = self.log_manager.get_or_create_log(topic.name, index, now_ms=at_ms)
            if not (partition_log.dir / "partition.metadata").exists():
                write_partition_metadata(partition_log.dir, topic.topic_id)
            self.partitions[(topic.name, index)] = Partition(
                topic.name, index, partition_log, self.node_id, self.waiters, leader_epoch=topic.leader_epochs[index],
                high_watermark=self._checkpointed_high_watermarks.get((topic.name, index), 0),
                replica_lag_time_max_ms=self.config.replica_lag_time_max_ms)

    def delete_topic(self, name: str) -> None:
        topic = self.metadata.topics.get(name)
        if topic is None:
            raise BrokerError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"topic {name!r} does not exist")
        self.metadata.mark_deleting(name)
        for index in range(topic.num_partitions):
            self.fetcher_manager.remove_partition((name, index))
            self.partitions.pop((name, index), None)
            self.log_cleaner.abort_cleaning(name, index)   # waits until no copy reads the log
            self.log_manager.delete_log(name, index)
            self.log_cleaner.forget(name, index)
            self.waiters.notify((name, index))  # parked fetches answer now: the partition is gone
        self.log_manager.set_topic_config(name, None)
        # Before the topic is gone from the metadata: a crash before this point leaves the
        # topic marked, and the restart deletes it again, tombstones included.
        self.group_coordinator.on_partitions_deleted((name, index) for index in range(topic.num_partitions))
        self.metadata.remove_topic(name)
        log.info("deleted topic %s", name)

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
            endpoint = leader.endpoint("PLAINTEXT") or (leader.endpoints[0] if leader.endpoints else None)
        if endpoint is None:
            self.fetcher_manager.remove_partition(key)
            return
        self.fetcher_manager.add_partition(partition, registration.leader, endpoint.host, endpoint.port,
                                           restart=restart)

    def create_partitions(self, name: str, total: int) -> None:
        topic = self.metadata.topics.get(name)
        if topic is None:
            raise BrokerError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"topic {name!r} does not exist")
        if total <= topic.num_partitions:
            raise BrokerError(ErrorCode.INVALID_PARTITIONS,
                              f"topic {name!r} has {topic.num_partitions} partitions; {total} would not add any")
        first = topic.num_partitions
        self.metadata.set_partition_count(name, total)
        self._open_partitions(topic, first, now_ms())

    def maybe_auto_create(self, name: str) -> TopicInfo | None:
        """Create `name` if `auto.create.topics.enable`; None otherwise.

        An ordinary topic gets `num.partitions`; the internal topics are created as their
        coordinators create them (Kafka's AutoTopicCreationManager does the same), never
        as ordinary topics, whichever request comes first."""
        if not self.config.auto_create_topics_enable or topic_name_problem(name):
            return None
        if name == OFFSETS_TOPIC:
            self.offset_store.ensure_topic()
            return self.metadata.topics[name]
        if name == TRANSACTION_STATE_TOPIC:
            return self.create_topic(name, self.config.transaction_state_log_num_partitions,
                                     self.transaction_topic_configs())
        return self.create_topic(name, self.config.num_partitions)

    def transaction_topic_configs(self) -> dict[str, str]:
        """`__transaction_state`'s topic configs, Kafka's TransactionStateManager's."""
        return {"cleanup.policy": "compact", "compression.type": "uncompressed",
                "min.insync.replicas": str(self.config.transaction_state_log_min_isr),
                "segment.bytes": str(self.config.transaction_state_log_segment_bytes),
                "unclean.leader.election.enable": "false"}
