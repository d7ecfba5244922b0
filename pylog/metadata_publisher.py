"""From the metadata image to the broker's partitions: Kafka's BrokerMetadataPublisher.

After each batch of `__cluster_metadata` the broker applies (from its own controller in a
combined node, from its MetadataFollower otherwise), `publish(image)` compares the image
with what it published last and acts on the differences, in this order:

    1. the topic view the handlers read (BrokerMetadata.topics) is rebuilt;
    2. a topic gone (RemoveTopicRecord), or one whose id changed: its local logs are
       deleted and the group coordinator forgets their committed offsets; for
       `__consumer_offsets` itself, the coordinator first gives up the groups of each of
       its partitions, whoever led them (`on_deleted`);
    3. the dynamic broker configs (BROKER resources "" and this node's id) changed: the
       broker's config takes them (`Broker.set_dynamic_broker_configs`: new topic
       defaults for every log, the cleaner's settings); topic configs changed: the logs
       get the new LogConfig;
    4. each partition whose registration (replicas, ISR, leader, epochs) or whose
       brokers changed, and that lists this node as a replica: its log is opened (one
       still to be created: see below) and the broker told
       (`Broker.apply_partition_registration`: leader or follower, fetchers); a log
       that cannot be created (an OSError) is recorded in `Broker.log_dir_failures` and
       the partition left as not acted on, so that the broker's housekeeping, which
       publishes again while there is one, tries it again;
       a partition that no longer lists this node (a reassignment moved it): stopped
       and its log deleted;
    5. the group coordinator: a `__consumer_offsets` partition this broker now leads
       loads its groups, one it stopped leading drops them (`on_elected` / `on_resigned`,
       which ignore an epoch already seen).

What it remembers (`_published`): per topic id the name and the registrations it acted
on, the topic configs, and the broker registrations. Registrations are frozen values, so
"changed" is plain inequality.

New logs are created off the event loop. Creating a partition's log is file-system work (a
directory; the segment's three files, the leader-epoch checkpoint and
`partition.metadata`, created and fsynced: 1-8 ms a partition on this project's test
machine, so 0.1-0.4 s for a new `__consumer_offsets` of 50, more on a busy disk), and the
event loop serves every connection. So a partition whose log does not exist yet is left
not acted on by the publication that finds it; its log is created off the loop, on a
thread of the loop's pool that shares the batch among `CREATE_THREADS` threads of its own,
so that their system calls overlap (`_create_logs`: `LogManager.create_log` and
`partition.metadata` for each, then one fsync of the data directory; a new leader's log
has its leader epoch at offset 0 written in its checkpoint, as Kafka's has once the
partition is created, and `Partition.make_leader` finds the entry there; should the
leadership have moved meanwhile, the entry is one that a deposed leader keeps in Kafka
too), adopted by the log manager back on the loop, and the partition is acted on by the
publication after that. Kafka does this work on its metadata publisher's thread, away from
the threads that serve requests. Meanwhile requests for the partition are answered
NOT_LEADER_OR_FOLLOWER (the metadata has it, this broker does not host it yet), as Kafka
answers them before its publisher has run. A log created for a topic deleted (or recreated
with another id) meanwhile is deleted once adopted. A creation that fails (an OSError,
mostly) is recorded in `Broker.log_dir_failures`, and tried again only by the broker's
housekeeping (`publish_again`, every second), not by every publication.

Runs on the broker's event loop after each applied batch:
- in a combined node, inside the controller's commit (`publish_soon`): all at once, and a
  task creates the new logs and then publishes the controller's image again
  (`_create_then_publish`); `settled()` returns once no creation is under way, which
  `Broker.forward` awaits, so an admin request is answered once its partitions exist here;
- as the metadata follower's awaited callback (`publish_async`): it yields between
  partitions, so heartbeats and requests run meanwhile, awaits the creation of the new
  logs, then acts on their partitions; the follower applies no other batch meanwhile;
- at the broker's start (`publish`): all at once, new logs created on the spot (the
  broker serves nobody yet); tests call it too.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from concurrent.futures import ThreadPoolExecutor

from pylog.clock import now_ms
from pylog.coordinator import OFFSETS_TOPIC
from pylog.dynamic_broker_config import dynamic_broker_configs
from pylog.metadata import TopicInfo, write_partition_metadata
from pylog.metadata_image import MetadataImage, PartitionRegistration

log = logging.getLogger("pylog.metadata_publisher")

# Creating a log is mostly system calls (a directory, five files, four fsyncs), which let go
# of the interpreter's lock, so a few threads overlap them: on this project's test machine 50
# new partitions took 278 ms on one thread and 156 ms on four.
CREATE_THREADS = 4


class MetadataPublisher:
    def __init__(self, broker):
        self.broker = broker
        self._topics: dict[uuid.UUID, tuple[str, dict[int, PartitionRegistration]]] = {}
        self._configs: dict[str, dict[str, str]] = {}
        self._brokers: dict = {}
        self.published_offset = -1
        self._publishing = False   # a publish_async under way (it yields between partitions)
        # (topic, index) -> (topic id, leader epoch if this node leads it): logs to create
        self._to_create: dict[tuple[str, int], tuple[uuid.UUID, int | None]] = {}
        self._creating: set[tuple[str, int]] = set()   # handed to the pool, not adopted yet
        self._creator: asyncio.Task | None = None   # the combined node's _create_then_publish
        self._closed = False

    def publish(self, image: MetadataImage) -> None:
        """Act on everything `image` changed, at once, creating new logs on the spot (the
        broker's start, before it serves anyone)."""
        for _ in self._steps(image, defer=False):
            pass

    def publish_soon(self, image: MetadataImage) -> None:
        """The combined node's listener, inside its controller's commit: act on everything
        `image` changed but the partitions whose logs are still to be created, which a task
        creates off the loop and then acts on."""
        self._publish_deferring(image, retry=False)

    async def publish_async(self, image: MetadataImage) -> None:
        """The same, giving the event loop back after each partition, so that a batch
        of many partitions does not hold the heartbeats back for longer than the
        controller's session timeout; new logs are created off the loop meanwhile."""
        self._publishing = True
        try:
            for _ in self._steps(image, defer=True):
                await asyncio.sleep(0)
            if self._to_create and not self._closed:
                await self._create_logs()
                for _ in self._steps(image, defer=True):
                    await asyncio.sleep(0)
        finally:
            self._publishing = False

    def publish_again(self, image: MetadataImage) -> None:
        """Publish the image once more, for what the last publication left not acted on
        (logs that could not be created: tried again here); not in the middle of a
        `publish_async`."""
        if not self._publishing:
            self._publish_deferring(image, retry=True)

    def _publish_deferring(self, image: MetadataImage, *, retry: bool) -> None:
        """Act on `image` at once but for the logs still to create; start the task that
        creates them, unless one runs (it takes them too)."""
        for _ in self._steps(image, defer=True, retry=retry):
            pass
        if self._to_create and self._creator is None and not self._closed:
            self._creator = asyncio.get_running_loop().create_task(self._create_then_publish())

    async def settled(self) -> None:
        """Return once no log creation of a `publish_soon` is under way: the partitions
        the last publications named are hosted here (or recorded as not created)."""
        while self._creator is not None:
            await asyncio.shield(self._creator)

    async def close(self) -> None:
        """Create no more logs; wait for a creation under way (its logs are closed, not adopted)."""
        self._closed = True
        if self._creator is not None:
            await asyncio.gather(asyncio.shield(self._creator), return_exceptions=True)

    async def _create_then_publish(self) -> None:
        try:
            while self._to_create and not self._closed:
                await self._create_logs()
                if not self._closed:
                    for _ in self._steps(self.broker.metadata_image(), defer=True):
                        pass
        except Exception:
            log.exception("creating logs failed")
        finally:
            self._creator = None

    async def _create_logs(self) -> None:
        """Create the logs of `_to_create` off the loop (a thread of the loop's pool sharing
        them among `CREATE_THREADS` threads), then adopt them."""
        batch, self._to_create = self._to_create, {}
        broker = self.broker
        manager = broker.log_manager
        created_ms = now_ms()

        def create_some(keys: list) -> dict:   # on a pool thread: files only, no broker state
            results: dict[tuple[str, int], object] = {}
            for name, index in keys:
                topic_id, leader_epoch = batch[(name, index)]
                partition_log = None
                try:
                    partition_log = manager.create_log(name, index, now_ms=created_ms)
                    write_partition_metadata(partition_log.dir, topic_id)
                    if leader_epoch is not None:
                        partition_log.assign_epoch_start_offset(leader_epoch, partition_log.log_end_offset)
                except Exception as error:   # recorded as not created; the housekeeping tries again
                    if partition_log is not None:
                        partition_log.close()
                    results[(name, index)] = error
                    continue
                results[(name, index)] = partition_log
            return results

        def create_all() -> dict:   # the batch shared among CREATE_THREADS threads, then the directory's fsync
            keys = list(batch)
            shares = [keys[i::CREATE_THREADS] for i in range(min(CREATE_THREADS, len(keys)))]
            created: dict[tuple[str, int], object] = {}
            if len(shares) == 1:
                created = create_some(shares[0])
            else:
                with ThreadPoolExecutor(len(shares), thread_name_prefix="log-create") as pool:
                    for share_results in pool.map(create_some, shares):
                        created.update(share_results)
            results = {key: created[key] for key in keys}   # in the batch's order
            try:
                manager.sync_data_dir()
            except OSError as error:
                log.warning("fsync of %s failed: %s", manager.data_dir, error)
            return results

        def close_all(future) -> None:   # nobody adopts them: the broker is closing
            if not future.cancelled() and future.exception() is None:
                for result in future.result().values():
                    if not isinstance(result, Exception):
                        result.close()

        self._creating.update(batch)
        future = asyncio.get_running_loop().run_in_executor(None, create_all)
        try:
            results = await asyncio.shield(future)
        except asyncio.CancelledError:
            future.add_done_callback(close_all)
            raise
        finally:
            self._creating.difference_update(batch)
        if self._closed or broker.log_manager is not manager:
            close_all(future)
            return
        image = broker.metadata_image()
        for (name, index), result in results.items():
            if isinstance(result, Exception):
                broker.log_dir_failures.create_failed(name, index, result)
                continue
            manager.adopt_log(name, index, result)
            topic = image.topics.get(batch[(name, index)][0])
            registration = topic.partitions.get(index) if topic is not None and topic.name == name else None
            if registration is None or broker.node_id not in registration.replicas:
                manager.delete_log(name, index, remove=broker.remove_soon)   # its topic went meanwhile

    def _steps(self, image: MetadataImage, *, defer: bool, retry: bool = False):
        """The work of one publication; yields after each partition acted on. With `defer`,
        a partition without a log is put in `_to_create` and left not acted on (one whose
        creation failed only when `retry`)."""
        broker = self.broker
        node_id = broker.node_id
        broker.metadata.set_topics(
            TopicInfo(t.name, t.topic_id, len(t.partitions), dict(image.topic_configs(t.name)))
            for t in image.topics.values())
        for topic_id, (name, partitions) in list(self._topics.items()):
            if topic_id not in image.topics:
                broker.log_dir_failures.forget_topic(name)
                if name == OFFSETS_TOPIC:   # its groups go first (Kafka: onResignation without an epoch)
                    broker.on_offsets_topic_deleted(sorted(partitions))
                broker.remove_topic_logs(name, sorted(partitions))
                del self._topics[topic_id]
                self._configs.pop(name, None)
        broker.set_dynamic_broker_configs(*dynamic_broker_configs(image, node_id))
        brokers_changed = image.brokers != self._brokers
        self._brokers = dict(image.brokers)
        for topic in image.topics.values():
            configs = image.topic_configs(topic.name)
            if self._configs.get(topic.name, {}) != configs:
                self._configs[topic.name] = dict(configs)
                broker.set_topic_configs(topic.name, dict(configs))
            _, seen = self._topics.setdefault(topic.topic_id, (topic.name, {}))
            for index, registration in topic.partitions.items():
                previous = seen.get(index)
                if previous == registration and not brokers_changed:
                    continue
                seen[index] = registration
                if node_id in registration.replicas:
                    key = (topic.name, index)
                    if defer and key not in broker.partitions and broker.log_manager.get_log(*key) is None:
                        if key not in self._creating and (retry or key not in broker.log_dir_failures.not_created):
                            leads = registration.leader == node_id
                            self._to_create[key] = (topic.topic_id, registration.leader_epoch if leads else None)
                        if previous is None:   # acted on by the publication after its log exists
                            del seen[index]
                        else:
                            seen[index] = previous
                        continue
                    try:
                        broker.ensure_partition(topic.name, topic.topic_id, index)
                    except OSError as error:
                        # not acted on: the broker's housekeeping publishes again, which retries it
                        broker.log_dir_failures.create_failed(topic.name, index, error)
                        if previous is None:
                            del seen[index]
                        else:
                            seen[index] = previous
                        yield
                        continue
                    broker.log_dir_failures.created(topic.name, index)
                    broker.apply_partition_registration(topic.name, index, registration, image.brokers)
                    if topic.name == OFFSETS_TOPIC:
                        broker.on_offsets_partition_leadership(index, registration.leader == node_id,
                                                               registration.leader_epoch)
                    yield
                elif previous is not None and node_id in previous.replicas:
                    broker.remove_topic_logs(topic.name, [index])
                    yield
                else:
                    broker.log_dir_failures.forget(topic.name, index)
        self.published_offset = image.offset
