"""Several in-process brokers on real sockets, for replication tests.

`ReplicationCluster` starts N `Broker`s (node ids 1..N, port 0 on 127.0.0.1, a data
directory each) in the test's event loop, creates one topic on each, and plays the two
parts the controller will play:

  - the metadata publisher: `apply(registration)` hands every broker the partition's
    `PartitionRegistration` and the `BrokerRegistration`s (endpoint PLAINTEXT = the
    broker's bound address) through `Broker.apply_partition_registration`;
  - the AlterPartition answerer (`ControllerStandIn`, each broker's `controller_channel`):
    a request for the current leader and partition epochs is accepted, the partition epoch
    goes up by one with the requested ISR, and the new registration is applied to every
    broker before the answer, as a controller's committed PartitionChangeRecord would be;
    any other request gets FENCED_LEADER_EPOCH / INVALID_UPDATE_VERSION for its partition.

Clients talk to the brokers with `NodeClient` (the wire protocol, nothing of the broker's
memory), and the helpers below build the raw requests.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
import uuid
from pathlib import Path

from protocol.error_codes import ErrorCode
from protocol.messages import AlterPartitionResponse, FetchRequest, ProduceRequest
from protocol.records import build_batch
from pylog.broker import Broker
from pylog.config import BrokerConfig
from pylog.metadata_image import BrokerRegistration, Endpoint, PartitionRegistration
from pylog.network_client import NodeClient

TOPIC = "replicated"
PRODUCE_VERSION = 9
FETCH_VERSION = 12


class ControllerStandIn:
    """Answers AlterPartition for the cluster (see the module docstring)."""

    def __init__(self, cluster: ReplicationCluster):
        self.cluster = cluster
        self.requests = []

    async def send(self, request, version: int, timeout_ms: int | None = None):
        assert request.api_key == 56 and version == 3
        self.requests.append(request)
        topics = []
        for topic in request.topics:
            partitions = []
            for data in topic.partitions:
                current = self.cluster.registration
                if data.leader_epoch != current.leader_epoch:
                    partitions.append(AlterPartitionResponse.PartitionData(
                        partition_index=data.partition_index, error_code=ErrorCode.FENCED_LEADER_EPOCH))
                    continue
                if data.partition_epoch != current.partition_epoch:
                    partitions.append(AlterPartitionResponse.PartitionData(
                        partition_index=data.partition_index, error_code=ErrorCode.INVALID_UPDATE_VERSION))
                    continue
                isr = tuple(member.broker_id for member in data.new_isr_with_epochs)
                changed = dataclasses.replace(current, isr=isr, partition_epoch=current.partition_epoch + 1)
                self.cluster.apply(changed)
                partitions.append(AlterPartitionResponse.PartitionData(
                    partition_index=data.partition_index, error_code=ErrorCode.NONE, leader_id=changed.leader,
                    leader_epoch=changed.leader_epoch, isr=list(isr), partition_epoch=changed.partition_epoch))
            topics.append(AlterPartitionResponse.TopicData(topic_id=topic.topic_id, partitions=partitions))
        return AlterPartitionResponse(error_code=ErrorCode.NONE, topics=topics)

    def isrs(self) -> list[tuple[int, ...]]:
        return [tuple(m.broker_id for m in p.new_isr_with_epochs) for r in self.requests
                for t in r.topics for p in t.partitions]


class ReplicationCluster:
    def __init__(self, tmp_path: Path, size: int, *, topic_configs: dict[str, str] | None = None,
                 broker_configs: dict[str, str] | None = None):
        self.tmp_path = Path(tmp_path)
        self.size = size
        self.topic_configs = dict(topic_configs or {})
        self.broker_configs = {"replica.fetch.backoff.ms": "100", **(broker_configs or {})}
        self.brokers: dict[int, Broker] = {}
        self.registration: PartitionRegistration | None = None
        self.controller = ControllerStandIn(self)
        self.clients: list[NodeClient] = []
        self.paused: set[int] = set()   # followers whose fetching is stopped, whatever is published
        self.incarnations = {node_id: uuid.uuid4() for node_id in range(1, size + 1)}

    async def start(self) -> ReplicationCluster:
        for node_id in range(1, self.size + 1):
            config = BrokerConfig({"log.dirs": str(self.tmp_path / f"broker-{node_id}"), "node.id": str(node_id),
                                   **self.broker_configs})
            broker = Broker(config)
            await broker.start(host="127.0.0.1", port=0)
            broker.controller_channel = self.controller
            broker.create_topic(TOPIC, 1, self.topic_configs)
            self.brokers[node_id] = broker
        return self

    async def stop(self) -> None:
        for client in self.clients:
            await client.close()
        for broker in self.brokers.values():
            await broker.stop()

    # -- the publisher's part ------------------------------------------------------------

    def broker_registrations(self) -> dict[int, BrokerRegistration]:
        return {node_id: BrokerRegistration(
            broker_id=node_id, epoch=100 + node_id, incarnation_id=self.incarnations[node_id],
            endpoints=(Endpoint("PLAINTEXT", broker.host, broker.port, 0),), supported_features=(), rack=None,
            fenced=False, in_controlled_shutdown=False) for node_id, broker in self.brokers.items()}

    def apply(self, registration: PartitionRegistration, to: tuple[int, ...] | None = None) -> None:
        """Publish `registration` to the brokers `to` (default: every one)."""
        self.registration = registration
        brokers = self.broker_registrations()
        for node_id in (self.brokers if to is None else to):
            self.brokers[node_id].apply_partition_registration(TOPIC, 0, registration, brokers)
            if node_id in self.paused:
                self.brokers[node_id].fetcher_manager.remove_partition((TOPIC, 0))

    def lead(self, leader: int, replicas: tuple[int, ...], isr: tuple[int, ...] | None = None, *,
             leader_epoch: int = 1, partition_epoch: int = 1,
             to: tuple[int, ...] | None = None) -> PartitionRegistration:
        registration = PartitionRegistration(replicas=replicas, isr=replicas if isr is None else isr, leader=leader,
                                             leader_epoch=leader_epoch, partition_epoch=partition_epoch)
        self.apply(registration, to)
        return registration

    # -- looking inside ------------------------------------------------------------------

    def partition(self, node_id: int):
        return self.brokers[node_id].partition(TOPIC, 0)

    def pause_fetching(self, node_id: int) -> None:
        """The follower stops fetching (as if its fetcher were stuck), until resumed."""
        self.paused.add(node_id)
        self.brokers[node_id].fetcher_manager.remove_partition((TOPIC, 0))

    def resume_fetching(self, node_id: int) -> None:
        self.paused.discard(node_id)
        self.apply(self.registration, to=(node_id,))

    def client(self, node_id: int) -> NodeClient:
        broker = self.brokers[node_id]
        client = NodeClient(broker.host, broker.port, client_id=f"test-client-{node_id}")
        self.clients.append(client)
        return client


async def eventually(condition, timeout_s: float = 10, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not reached within {timeout_s} s")
        await asyncio.sleep(0.02)


def batch(*values: bytes, timestamp_ms: int = 1_700_000_000_000) -> bytes:
    return build_batch([(b"k", v) for v in values], timestamp_ms=timestamp_ms)


async def produce(client: NodeClient, records: bytes, *, acks: int = -1, timeout_ms: int = 5000):
    request = ProduceRequest(acks=acks, timeout_ms=timeout_ms, topic_data=[ProduceRequest.TopicProduceData(
        name=TOPIC, partition_data=[ProduceRequest.PartitionProduceData(index=0, records=records)])])
    response = await client.send(request, PRODUCE_VERSION)
    return response.responses[0].partition_responses[0]


def fetch_request(fetch_offset: int, *, replica_id: int = -1, current_leader_epoch: int = -1,
                  last_fetched_epoch: int = -1, max_wait_ms: int = 0, min_bytes: int = 0) -> FetchRequest:
    return FetchRequest(replica_id=replica_id, max_wait_ms=max_wait_ms, min_bytes=min_bytes, max_bytes=1 << 20,
                        isolation_level=0, session_id=0, session_epoch=-1, topics=[FetchRequest.FetchTopic(
                            topic=TOPIC, partitions=[FetchRequest.FetchPartition(
                                partition=0, current_leader_epoch=current_leader_epoch, fetch_offset=fetch_offset,
                                last_fetched_epoch=last_fetched_epoch, partition_max_bytes=1 << 20)])])


async def fetch(client: NodeClient, fetch_offset: int, **fields):
    response = await client.send(fetch_request(fetch_offset, **fields), FETCH_VERSION)
    return response.responses[0].partitions[0]


def segment_bytes(broker: Broker) -> dict[str, bytes]:
    """The partition's segment files (.log) by name."""
    directory = broker.partition(TOPIC, 0).log.dir
    return {path.name: path.read_bytes() for path in sorted(directory.glob("*.log"))}
