"""A pylog cluster in the test's event loop, for replication tests.

`ReplicationCluster(tmp_path, n)` starts, as pylog/cluster.py lays a cluster out but as
`Broker` objects in this process rather than child processes:

  - one controller-only node (`process.roles=controller`, node id 3000), which keeps
    `__cluster_metadata` and answers the brokers' controller requests;
  - N broker-only nodes (`process.roles=broker`, node ids 1..N), each finding the
    controller through `controller.quorum.bootstrap.servers`, following the metadata log
    and replicating from each other;

all on real sockets at 127.0.0.1 port 0, one shared `cluster.id`, a data directory each.
Nothing of the metadata is set by hand: the test's topic is created with CreateTopics sent
to a broker (manual `assignments`, so the test fixes the replicas and their order, the
first being the leader), and leadership moves only through the controller:
`elect(new_leader)` is an AlterPartitionReassignments putting it first in the replicas
(same set: it completes at once) and then a preferred ElectLeaders; `reassign(replicas)`
moves the replicas. Every helper that asks the controller for a change returns once every
running broker has published the metadata it committed (`settled`).

`auto.leader.rebalance.enable` is off, so leadership moves only when the test moves it.

Test hooks, on the brokers' real objects:
  - `pause_fetching(node)` / `resume_fetching(node)`: the follower stops fetching the
    partition as if its fetcher were stuck. The harness wraps that broker's
    `apply_partition_registration` so that whatever the publisher applies, a paused
    follower's partition is taken out of its FetcherManager again; resuming applies the
    broker's current registration once more, which adds the fetch back.
  - `alter_partition_requests`: every AlterPartition request the brokers sent, seen by a
    pass-through wrapper around each broker's controller channel (the real controller
    answers); `isrs()` lists their proposed ISRs.
  - `pause_metadata(node)` / `resume_metadata(node)`: stops and restarts that broker's
    MetadataFollower, so it acts on old metadata meanwhile.

Clients talk to the brokers with `NodeClient` (the wire protocol, nothing of the broker's
memory), and the helpers below build the raw requests. Everything runs on the test's one
event loop; stop() stops the brokers (controlled shutdown) and then the controller.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from protocol.error_codes import ErrorCode
from protocol.messages import (
    AlterPartitionReassignmentsRequest, CreateTopicsRequest, ElectLeadersRequest, FetchRequest, ProduceRequest,
)
from protocol.records import build_batch
from pylog.broker import Broker
from pylog.config import BrokerConfig
from pylog.metadata import random_kafka_uuid
from pylog.metadata_image import PartitionRegistration
from pylog.network_client import NodeClient

TOPIC = "replicated"
CONTROLLER_NODE_ID = 3000   # pylog/cluster.py's convention
PRODUCE_VERSION = 9
FETCH_VERSION = 12
CREATE_TOPICS_VERSION = 7
ELECT_LEADERS_VERSION = 2
REASSIGNMENTS_VERSION = 0
PREFERRED_ELECTION = 0
ALTER_PARTITION_KEY = 56


class RecordingChannel:
    """A broker's controller channel, passed through; AlterPartition requests recorded."""

    def __init__(self, inner, record: list):
        self.inner = inner
        self.record = record

    async def send(self, request, version: int, timeout_ms: int | None = None):
        if request.api_key == ALTER_PARTITION_KEY:
            self.record.append(request)
        return await self.inner.send(request, version, timeout_ms)

    async def close(self) -> None:
        await self.inner.close()


class ReplicationCluster:
    def __init__(self, tmp_path: Path, size: int, *, topic_configs: dict[str, str] | None = None,
                 broker_configs: dict[str, str] | None = None):
        self.tmp_path = Path(tmp_path)
        self.size = size
        self.topic_configs = dict(topic_configs or {})
        self.cluster_id = random_kafka_uuid()
        self.common_configs = {"cluster.id": self.cluster_id, "auto.leader.rebalance.enable": "false",
                               "replica.fetch.backoff.ms": "100", **(broker_configs or {})}
        self.controller_node: Broker | None = None
        self.brokers: dict[int, Broker] = {}
        self.running: set[int] = set()
        self.clients: list[NodeClient] = []
        self.paused: set[int] = set()   # followers whose fetching is stopped, whatever is published
        self.alter_partition_requests: list = []

    # -- lifecycle -------------------------------------------------------------------------

    async def start(self) -> ReplicationCluster:
        self.controller_node = Broker(BrokerConfig({
            "log.dirs": str(self.tmp_path / "controller"), "node.id": str(CONTROLLER_NODE_ID),
            "process.roles": "controller", **self.common_configs}))
        await self.controller_node.start(host="127.0.0.1", port=0)
        await asyncio.gather(*(self.start_broker(node_id) for node_id in range(1, self.size + 1)))
        return self

    def broker_config(self, node_id: int) -> BrokerConfig:
        return BrokerConfig({
            "log.dirs": str(self.tmp_path / f"broker-{node_id}"), "node.id": str(node_id),
            "process.roles": "broker",
            "controller.quorum.bootstrap.servers": f"127.0.0.1:{self.controller_node.port}",
            **self.common_configs})

    async def start_broker(self, node_id: int) -> Broker:
        broker = Broker(self.broker_config(node_id))
        self.brokers[node_id] = broker
        self._hook(broker)
        await broker.start(host="127.0.0.1", port=0)
        broker.controller_channel = RecordingChannel(broker.controller_channel, self.alter_partition_requests)
        self.running.add(node_id)
        return broker

    async def stop_broker(self, node_id: int) -> None:
        self.running.discard(node_id)
        await self.brokers[node_id].stop()

    async def stop(self) -> None:
        for client in self.clients:
            await client.close()
        for node_id in sorted(self.running):
            await self.stop_broker(node_id)
        if self.controller_node is not None:
            await self.controller_node.stop()

    def _hook(self, broker: Broker) -> None:
        apply = broker.apply_partition_registration

        def apply_unless_paused(topic, index, registration, brokers):
            apply(topic, index, registration, brokers)
            if broker.node_id in self.paused:
                broker.fetcher_manager.remove_partition((topic, index))

        broker.apply_partition_registration = apply_unless_paused

    # -- the controller's view -------------------------------------------------------------

    @property
    def controller(self):
        return self.controller_node.controller

    @property
    def registration(self) -> PartitionRegistration:
        return self.controller.image.topics_by_name[TOPIC].partitions[0]

    def isrs(self) -> list[tuple[int, ...]]:
        """The ISRs the leaders proposed, in order."""
        return [tuple(m.broker_id for m in p.new_isr_with_epochs) for r in self.alter_partition_requests
                for t in r.topics for p in t.partitions]

    async def settled(self, timeout_s: float = 10, nodes=None) -> None:
        """Every running broker (or those of `nodes`) has published what the controller
        has committed so far."""
        offset = self.controller.image.offset
        nodes = self.running if nodes is None else nodes
        await eventually(lambda: all(self.brokers[n].publisher.published_offset >= offset for n in nodes),
                         timeout_s, what=f"brokers {sorted(nodes)} at metadata offset {offset}")

    # -- changes, through the controller ---------------------------------------------------

    async def create_topic(self, replicas: tuple[int, ...], via: int | None = None) -> PartitionRegistration:
        """The test's topic, one partition on `replicas` (the first leads), created with
        CreateTopics sent to a broker."""
        request = self.create_topic_request(replicas)
        response = await self.client(via or min(self.running)).send(request, CREATE_TOPICS_VERSION)
        result = response.topics[0]
        assert result.error_code == ErrorCode.NONE, (result.error_code, result.error_message)
        await self.settled()
        return self.registration

    def create_topic_request(self, replicas: tuple[int, ...]) -> CreateTopicsRequest:
        """The CreateTopics of `create_topic`."""
        return CreateTopicsRequest(timeout_ms=30_000, validate_only=False, topics=[
            CreateTopicsRequest.CreatableTopic(
                name=TOPIC, num_partitions=-1, replication_factor=-1,
                assignments=[CreateTopicsRequest.CreatableReplicaAssignment(partition_index=0,
                                                                            broker_ids=list(replicas))],
                configs=[CreateTopicsRequest.CreatableTopicConfig(name=k, value=v)
                         for k, v in self.topic_configs.items()])])

    async def reassign(self, replicas: tuple[int, ...], settled_nodes=None) -> PartitionRegistration:
        request = AlterPartitionReassignmentsRequest(timeout_ms=30_000, topics=[
            AlterPartitionReassignmentsRequest.ReassignableTopic(name=TOPIC, partitions=[
                AlterPartitionReassignmentsRequest.ReassignablePartition(partition_index=0,
                                                                         replicas=list(replicas))])])
        response = await self.client(min(self.running)).send(request, REASSIGNMENTS_VERSION)
        assert response.error_code == ErrorCode.NONE, response
        result = response.responses[0].partitions[0]
        assert result.error_code == ErrorCode.NONE, (result.error_code, result.error_message)
        await self.settled(nodes=settled_nodes)
        return self.registration

    async def elect(self, new_leader: int, *, may_refuse: bool = False) -> PartitionRegistration | None:
        """A clean election of `new_leader` (an ISR member): it becomes the preferred
        replica, then a preferred ElectLeaders gives it the leadership at the next
        leader epoch. With `may_refuse`, a controller refusal (the ISR shrank meanwhile)
        returns None."""
        current = self.registration
        assert new_leader in current.isr and new_leader != current.leader, (new_leader, current)
        await self.reassign((new_leader, *[r for r in current.replicas if r != new_leader]))
        request = ElectLeadersRequest(election_type=PREFERRED_ELECTION, timeout_ms=30_000, topic_partitions=[
            ElectLeadersRequest.TopicPartitions(topic=TOPIC, partitions=[0])])
        response = await self.client(min(self.running)).send(request, ELECT_LEADERS_VERSION)
        result = response.replica_election_results[0].partition_result[0]
        if may_refuse and result.error_code != ErrorCode.NONE:
            await self.settled()
            return None
        assert result.error_code == ErrorCode.NONE, (result.error_code, result.error_message)
        await self.settled()
        elected = self.registration
        assert (elected.leader, elected.leader_epoch) == (new_leader, current.leader_epoch + 1), elected
        return elected

    async def bump_leader_epoch(self) -> PartitionRegistration:
        """The same leader at a higher leader epoch: the leadership goes to another ISR
        member and back."""
        current = self.registration
        other = next(r for r in current.isr if r != current.leader)
        await self.elect(other)
        return await self.elect(current.leader)

    # -- looking inside --------------------------------------------------------------------

    def partition(self, node_id: int):
        return self.brokers[node_id].partition(TOPIC, 0)

    def pause_fetching(self, node_id: int) -> None:
        """The follower stops fetching (as if its fetcher were stuck), until resumed."""
        self.paused.add(node_id)
        self.brokers[node_id].fetcher_manager.remove_partition((TOPIC, 0))

    def resume_fetching(self, node_id: int) -> None:
        self.paused.discard(node_id)
        broker = self.brokers[node_id]
        image = broker.metadata_image()
        registration = image.topics_by_name[TOPIC].partitions[0]
        broker.apply_partition_registration(TOPIC, 0, registration, image.brokers)

    async def pause_metadata(self, node_id: int) -> None:
        await self.brokers[node_id].metadata_follower.stop()

    def resume_metadata(self, node_id: int) -> None:
        self.brokers[node_id].metadata_follower.start_fetching()

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
