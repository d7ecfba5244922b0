"""From the metadata image to the broker's partitions: Kafka's BrokerMetadataPublisher.

After each batch of `__cluster_metadata` the broker applies (from its own controller in a
combined node, from its MetadataFollower otherwise), `publish(image)` compares the image
with what it published last and acts on the differences, in this order:

    1. the topic view the handlers read (BrokerMetadata.topics) is rebuilt;
    2. a topic gone (RemoveTopicRecord), or one whose id changed: its local logs are
       deleted and the group coordinator forgets their committed offsets;
    3. topic configs changed: the logs get the new LogConfig;
    4. each partition whose registration (replicas, ISR, leader, epochs) or whose
       brokers changed, and that lists this node as a replica: its log is opened or
       created (with `partition.metadata`) and the broker told
       (`Broker.apply_partition_registration`: leader or follower, fetchers);
       a partition that no longer lists this node (a reassignment moved it): stopped
       and its log deleted;
    5. the group coordinator: a `__consumer_offsets` partition this broker now leads
       loads its groups, one it stopped leading drops them (`on_elected` / `on_resigned`,
       which ignore an epoch already seen).

What it remembers (`_published`): per topic id the name and the registrations it acted
on, the topic configs, and the broker registrations. Registrations are frozen values, so
"changed" is plain inequality.

Runs on the broker's event loop, called synchronously after each applied batch; the
broker's handlers see the new state when it returns.
"""

from __future__ import annotations

import logging
import uuid

from pylog.coordinator.offsets import OFFSETS_TOPIC
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

    def publish(self, image: MetadataImage) -> None:
        broker = self.broker
        node_id = broker.node_id
        broker.metadata.set_topics(
            TopicInfo(t.name, t.topic_id, len(t.partitions), dict(image.topic_configs(t.name)))
            for t in image.topics.values())
        for topic_id, (name, partitions) in list(self._topics.items()):
            if topic_id not in image.topics:
                broker.remove_topic_logs(name, sorted(partitions))
                del self._topics[topic_id]
                self._configs.pop(name, None)
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
                    broker.ensure_partition(topic.name, topic.topic_id, index)
                    broker.apply_partition_registration(topic.name, index, registration, image.brokers)
                    if topic.name == OFFSETS_TOPIC:
                        broker.on_offsets_partition_leadership(index, registration.leader == node_id,
                                                               registration.leader_epoch)
                elif previous is not None and node_id in previous.replicas:
                    broker.remove_topic_logs(topic.name, [index])
        self.published_offset = image.offset
