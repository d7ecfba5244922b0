"""Where a partition's leader is, for a client this broker refused (KIP-951).

Produce v10+ answers NOT_LEADER_OR_FOLLOWER, and Fetch v16+ NOT_LEADER_OR_FOLLOWER and
FENCED_LEADER_EPOCH, with the partition's `current_leader` (leader id and leader epoch, -1
and -1 when the metadata has no such partition) and, once per response, the
`node_endpoints` of those leaders that are alive on the client's listener, so that the
client can send again to the right broker without asking for Metadata first (Kafka's
KafkaApis.getCurrentLeader). The leader and epoch are the metadata image's, which is what
this broker's partitions act on.

`LeaderHints` collects them while a handler builds its answer: `hint(topic, index)` gives
the (leader id, leader epoch) to set, and `endpoints()` the node endpoints at the end.
"""

from __future__ import annotations


class LeaderHints:
    def __init__(self, broker):
        self.broker = broker
        self.image = broker.metadata_image()
        self.leaders: set[int] = set()

    def hint(self, topic: str, index: int) -> tuple[int, int]:
        info = self.broker.metadata.topics.get(topic)
        topic_image = self.image.topics.get(info.topic_id) if info is not None else None
        registration = topic_image.partitions.get(index) if topic_image is not None else None
        if registration is None:
            return -1, -1
        if registration.leader >= 0:
            self.leaders.add(registration.leader)
        return registration.leader, registration.leader_epoch

    def endpoints(self) -> list[tuple[int, str, int, str | None]]:
        """(node id, host, port, rack) of each hinted leader alive on this broker's listener."""
        listener = self.broker.config.listener_endpoint().listener_name
        found = []
        for node_id in sorted(self.leaders):
            registration = self.image.brokers.get(node_id)
            endpoint = registration.endpoint_or_first(listener) if registration is not None else None
            if registration is None or registration.fenced or endpoint is None:
                continue
            found.append((node_id, endpoint.host, endpoint.port, registration.rack))
        return found
