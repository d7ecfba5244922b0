"""From the metadata image to the broker's partitions: Kafka's BrokerMetadataPublisher.

After each batch of `__cluster_metadata` the broker applies (from its own controller in a
combined node, from its MetadataFollower otherwise), `publish(image)` compares the image
with what it published last and acts on the differences, in this order:

    1. the topic view the handlers read (BrokerMetadata.topics) is rebuilt;
    2. a topic gone (RemoveTopicRecord), or one whose id changed: its local logs are
       deleted and the group coordinator forgets their committed offsets;
    3. the dynamic broker configs (BROKER resources "" and this node's id) changed: the
       broker's config takes them (`Broker.set_dynamic_broker_configs`: new topic
       defaults for every log, the cleaner's settings); topic configs changed: the logs
       get the new LogConfig;
    4. each partition whose registration (replicas, ISR, leader, epochs) or whose
       brokers changed, and that lists this node as a replica: its log is opened or
       created (with `partition.metadata`) and the broker told
       (`Broker.apply_partition_registration`: leader or follower, fetchers); a log
       that cannot be created (an OSError) is recorded in `Broker.log_dir_failures` and
       the partition left as not acted on, so that the next publication (the broker's
       housekeeping publishes again while there is one) tries it again;
       a partition that no longer lists this node (a reassignment moved it): stopped
       and its log deleted;
    5. the group coordinator: a `__consumer_offsets` partition this broker now leads
       loads its groups, one it stopped leading drops them (`on_elected` / `on_resigned`,
       which ignore an epoch already seen).

What it remembers (`_published`): per topic id the name and the registrations it acted
on, the topic configs, and the broker registrations. Registrations are frozen values, so
"changed" is plain inequality.

Runs on the broker's event loop after each applied batch: synchronously inside the
controller's commit in a combined node (`publish`), or as the follower's awaited callback
(`publish_async`, which lets heartbeats and requests run between partitions; the follower
applies no other batch meanwhile).
"""

from __future__ import annotations

import asyncio
import logging
import uuid

from pylog.coordinator import OFFSETS_TOPIC
from pylog.dynamic_broker_config import dynamic_broker_configs
from pylog.metadata import TopicInfo
from pylog.metadata_image import MetadataImage, PartitionRegistration

log = logging.getLogger("pylog.metadata_publisher")


class MetadataPublisher:
    def __init__(self, broker):
        self.broker = broker
        self._topics: dict[uuid.UUID, tuple[str, dict[int, PartitionRegistration]]] = {}
        self._configs: dict[str, dict[str, str]] = {}
        self._brokers: dict = {}
        self.published_offset = -1
        self._publishing = False   # a publish_async under way (it yields between partitions)

    def publish(self, image: MetadataImage) -> None:
        """Act on everything `image` changed, at once (the combined node: called inside
        its controller's commit)."""
        for _ in self._steps(image):
            pass

    async def publish_async(self, image: MetadataImage) -> None:
        """The same, giving the event loop back after each partition, so that a batch
        of many partitions (a new `__consumer_offsets`: 50 logs created) does not hold
        the heartbeats back for longer than the controller's session timeout."""
        self._publishing = True
        try:
            for _ in self._steps(image):
                await asyncio.sleep(0)
        finally:
            self._publishing = False

    def publish_again(self, image: MetadataImage) -> None:
        """Publish the image once more, for what the last publication left not acted on
        (logs that could not be created); not in the middle of a `publish_async`."""
        if not self._publishing:
            self.publish(image)

    def _steps(self, image: MetadataImage):
        """The work of one publication; yields after each partition acted on."""
        broker = self.broker
        node_id = broker.node_id
        broker.metadata.set_topics(
            TopicInfo(t.name, t.topic_id, len(t.partitions), dict(image.topic_configs(t.name)))
            for t in image.topics.values())
        for topic_id, (name, partitions) in list(self._topics.items()):
            if topic_id not in image.topics:
                broker.log_dir_failures.forget_topic(name)
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
