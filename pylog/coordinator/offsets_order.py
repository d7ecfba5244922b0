"""The order in which Kafka lists a group's committed offsets when OffsetFetch asks for all of
them: its group coordinator (`OffsetMetadataManager.Offsets`) keeps them in a
`TimelineHashMap` of topic names per group, each holding a `TimelineHashMap` of partition
numbers, and answers in their iteration order (pylog/timeline_order.py). A partition map goes
when its last offset does, and a topic map when its last topic does, so one made again
starts small.

`OffsetsOrder` follows one group's maps through every offset record the coordinator
applies (commits, tombstones), in the order it applies them: from a write, and from the
replay of `__consumer_offsets` at load, record by record (pylog/coordinator/offsets.py).
"""

from __future__ import annotations

from collections.abc import Iterable

from pylog.timeline_order import TimelineHashOrder

TopicPartition = tuple[str, int]


class OffsetsOrder:
    """One group's maps of committed offsets: topics, and each topic's partitions."""

    __slots__ = ("topics", "partitions")

    def __init__(self) -> None:
        self.topics = TimelineHashOrder()
        self.partitions: dict[str, TimelineHashOrder] = {}

    def put(self, topic: str, partition: int) -> TimelineHashOrder:
        """Commit one offset; returns the topic's map of partitions."""
        partitions = self.partitions.get(topic)
        if partitions is None:   # Kafka's computeIfAbsent: the topic map sees no put otherwise
            self.topics.put(topic)
            partitions = self.partitions[topic] = TimelineHashOrder()
        partitions.put(partition)
        return partitions

    def remove(self, topic: str, partition: int) -> bool:
        """Forget one offset; True once the group has none left (its map goes)."""
        partitions = self.partitions.get(topic)
        if partitions is not None:
            partitions.remove(partition)
            if not partitions:
                del self.partitions[topic]
                self.topics.remove(topic)
        return not self.partitions

    def ordered(self, offsets: Iterable[TopicPartition]) -> list[tuple[str, list[int]]]:
        """`offsets` by topic, topics and partitions in the maps' order."""
        by_topic: dict[str, list[int]] = {}
        for topic, partition in offsets:
            by_topic.setdefault(topic, []).append(partition)
        return [(topic, self.partitions.get(topic, TimelineHashOrder()).ordered(by_topic[topic]))
                for topic in self.topics.ordered(by_topic)]
