"""A stand-in for the QuorumController in tests: an image, the heartbeat state, and a
commit that gives each record the next offset, applies it to the image (the truth for
what a record means) and tells the heartbeat state, as the real controller does."""

from __future__ import annotations

import uuid

from protocol.messages.broker_heartbeat_request import BrokerHeartbeatRequest
from protocol.messages.broker_registration_request import (
    BrokerRegistrationRequest, Feature, Listener,
)
from protocol.metadata import FeatureLevelRecord, PartitionRecord, TopicRecord
from protocol.metadata_log import MetadataEntry
from pylog.controller.broker_heartbeats import BrokerHeartbeats
from pylog.controller.cluster_control import fence_stale_brokers, process_heartbeat, register_broker
from pylog.controller.results import ControllerResult
from pylog.metadata_image import MetadataImage

CLUSTER_ID = "MkU3OEVBNTcwNTJENDM2Qg"
METADATA_VERSION = 27
SESSION_TIMEOUT_MS = 2000


def directory_of(broker_id: int) -> uuid.UUID:
    return uuid.UUID(int=(broker_id << 64) | 1000 + broker_id)


class Controller:
    def __init__(self, session_timeout_ms: int = SESSION_TIMEOUT_MS):
        self.image = MetadataImage()
        self.heartbeats = BrokerHeartbeats(session_timeout_ms)
        self.now_ms = 1_000_000
        self.incarnations: dict[int, uuid.UUID] = {}
        self.commit_records([(FeatureLevelRecord(name="metadata.version", feature_level=METADATA_VERSION), 0)])
        self.heartbeats.activate(self.image, self.now_ms)

    @property
    def next_offset(self) -> int:
        return self.image.offset + 1

    def commit_records(self, records) -> int:
        entries = []
        for record, version in records:
            entries.append(MetadataEntry(self.next_offset + len(entries), record, version))
        self.image.apply_batch(1, entries)
        for entry in entries:
            self.heartbeats.replay(entry.record, entry.offset)
        return self.image.offset

    def commit(self, result: ControllerResult):
        last = self.commit_records(result.records)
        if result.after_commit is not None:
            result.after_commit(last)
        return result.response

    # -- requests ------------------------------------------------------------------------

    def register(self, broker_id: int, *, new_incarnation: bool = True, version: int = 4, **fields):
        if new_incarnation or broker_id not in self.incarnations:
            self.incarnations[broker_id] = uuid.uuid4()
        request = BrokerRegistrationRequest(
            broker_id=broker_id, cluster_id=CLUSTER_ID, incarnation_id=self.incarnations[broker_id],
            listeners=[Listener(name="PLAINTEXT", host="localhost", port=9000 + broker_id, security_protocol=0)],
            features=[Feature(name="metadata.version", min_supported_version=1, max_supported_version=27)],
            rack=None, log_dirs=[directory_of(broker_id)])
        for key, value in fields.items():
            setattr(request, key, value)
        result = register_broker(self.image, self.heartbeats, request, version, next_offset=self.next_offset,
                                 now_ms=self.now_ms, cluster_id=CLUSTER_ID)
        return self.commit(result)

    def heartbeat(self, broker_id: int, *, epoch: int | None = None, offset: int | None = None,
                  want_fence: bool = False, want_shut_down: bool = False):
        broker = self.image.brokers.get(broker_id)
        request = BrokerHeartbeatRequest(
            broker_id=broker_id, broker_epoch=broker.epoch if epoch is None and broker else (epoch or 0),
            current_metadata_offset=self.image.offset if offset is None else offset,
            want_fence=want_fence, want_shut_down=want_shut_down)
        return self.commit(process_heartbeat(self.image, self.heartbeats, request, 1, now_ms=self.now_ms))

    def start_broker(self, broker_id: int) -> None:
        """Register, then heartbeat until unfenced."""
        self.register(broker_id)
        response = self.heartbeat(broker_id)
        assert not response.is_fenced, response

    def fence_stale(self):
        return self.commit(fence_stale_brokers(self.image, self.heartbeats, self.now_ms))

    def create_topic(self, name: str, assignments: list[list[int]]) -> uuid.UUID:
        topic_id = uuid.uuid4()
        records = [(TopicRecord(name=name, topic_id=topic_id), 0)]
        for index, replicas in enumerate(assignments):
            isr = [r for r in replicas if r in self.image.brokers and not self.image.brokers[r].fenced]
            records.append((PartitionRecord(
                partition_id=index, topic_id=topic_id, replicas=replicas, isr=isr,
                leader=isr[0] if isr else -1, leader_epoch=0, partition_epoch=0,
                directories=[directory_of(r) for r in replicas]), 2))
        self.commit_records(records)
        return topic_id

    def partition(self, name: str, index: int = 0):
        return self.image.topics_by_name[name].partitions[index]
