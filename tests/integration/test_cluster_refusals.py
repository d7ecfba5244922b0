"""What a 3-broker pylog cluster refuses from another node, over real sockets.

- A follower Fetch (replica_id >= 0) from a broker that is not a replica of the partition
  (Kafka's Partition.followerReplicaOrThrow): UNKNOWN_LEADER_EPOCH when the fetch names a
  leader epoch (the leader may not know of a new replica yet: retry), else
  NOT_LEADER_OR_FOLLOWER; no records either way, and the leader's ISR does not take it in.
- A follower Fetch from a real replica naming an older leader epoch: FENCED_LEADER_EPOCH;
  a newer one: UNKNOWN_LEADER_EPOCH (the leader has not heard of it yet).
- A BrokerRegistration at the controller for a node id whose session is alive, from
  another incarnation: DUPLICATE_BROKER_REGISTRATION, and the live broker stays
  registered with the epoch it had. A whole `pylog serve` broker process started with that
  node id against the cluster's controller never joins: it retries for
  `initial.broker.registration.timeout.ms` (here 5 s) and exits with an error naming the refusal, and the
  cluster's Metadata shows the original broker at its own port all along.
"""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest
from kafka import KafkaProducer

from protocol.error_codes import ErrorCode
from protocol.messages import BrokerRegistrationRequest
from pylog.broker_lifecycle import SUPPORTED_FEATURES
from pylog.cluster import READY_PREFIX, Cluster, NodeProcess, _metadata
from pylog.network_client import NodeClient
from protocol.metadata import RegisterBrokerRecord
from tests.integration.cluster_support import create_topic
from tests.integration.cluster_wire import fetch, metadata_records, partition_view
from tests.integration.support import wait_until


IMPOSTOR_TIMEOUT_MS = 5000

def produce(cluster, topic: str, count: int) -> None:
    producer = KafkaProducer(bootstrap_servers=cluster.bootstrap_servers, acks=-1)
    for i in range(count):
        producer.send(topic, value=f"v{i}".encode(), partition=0)
    producer.flush(60)
    producer.close(10)


@pytest.mark.timeout(300)
def test_follower_fetches_from_a_non_replica_and_with_wrong_epochs_are_refused(tmp_path):
    # leadership stays where the controlled shutdown put it: the epochs below are the current ones
    with Cluster(brokers=3, data_dir=tmp_path / "cluster", config={"auto.leader.rebalance.enable": "false"}) as cluster:
        create_topic(cluster, "two", 1, 2)
        produce(cluster, "two", 5)
        view = partition_view(cluster, "two", 0)
        outsider, = set(cluster.brokers) - set(view.replicas)
        leader_port = cluster.brokers[view.leader].port

        with_epoch = fetch(leader_port, "two", 0, 0, replica_id=outsider, current_leader_epoch=view.leader_epoch)
        assert with_epoch.error_code == ErrorCode.UNKNOWN_LEADER_EPOCH
        without_epoch = fetch(leader_port, "two", 0, 0, replica_id=outsider)
        assert without_epoch.error_code == ErrorCode.NOT_LEADER_OR_FOLLOWER
        for answer in (with_epoch, without_epoch):
            assert answer.records in (b"", None)
            assert answer.high_watermark == -1
        assert partition_view(cluster, "two", 0).isr == view.isr   # the outsider was not taken in

        # a leader change moves the epoch on: stop the leader (controlled shutdown), start it again
        old_leader = view.leader
        cluster.stop(old_leader)
        now = wait_until(lambda: (v := partition_view(cluster, "two", 0)) and v.leader not in (-1, old_leader) and v,
                         60, "a new leader")
        assert now.leader_epoch > view.leader_epoch
        cluster.restart(old_leader)
        follower = wait_until(lambda: (v := partition_view(cluster, "two", 0)) and len(v.isr) == 2 and v, 60,
                              "the old leader back in the ISR")
        assert follower.leader_epoch == now.leader_epoch
        follower_id = (set(follower.replicas) - {follower.leader}).pop()
        port = cluster.brokers[follower.leader].port

        stale = fetch(port, "two", 0, 0, replica_id=follower_id, current_leader_epoch=follower.leader_epoch - 1)
        assert stale.error_code == ErrorCode.FENCED_LEADER_EPOCH
        future = fetch(port, "two", 0, 0, replica_id=follower_id, current_leader_epoch=follower.leader_epoch + 1)
        assert future.error_code == ErrorCode.UNKNOWN_LEADER_EPOCH
        for answer in (stale, future):
            assert answer.records in (b"", None)
        # the same fetch with the right epoch is served: the refusals were about the epoch alone
        served = fetch(port, "two", 0, 0, replica_id=follower_id, current_leader_epoch=follower.leader_epoch)
        assert served.error_code == ErrorCode.NONE and served.records

        # consumers get the same epoch checks
        consumer_stale = fetch(port, "two", 0, 0, current_leader_epoch=follower.leader_epoch - 1)
        assert consumer_stale.error_code == ErrorCode.FENCED_LEADER_EPOCH


async def register(port: int, request: BrokerRegistrationRequest):
    client = NodeClient("127.0.0.1", port, client_id="impostor")
    try:
        return await client.send(request, 4, timeout_ms=10_000)
    finally:
        await client.close()


@pytest.mark.timeout(300)
def test_a_second_broker_with_a_live_node_id_is_refused_registration(tmp_path):
    with Cluster(brokers=3, data_dir=tmp_path / "cluster", config={"broker.session.timeout.ms": 6000}) as cluster:
        metadata_dir = tmp_path / "cluster" / "controller" / "__cluster_metadata-0"
        before = [r for r in metadata_records(metadata_dir) if isinstance(r, RegisterBrokerRecord)]
        request = BrokerRegistrationRequest(
            broker_id=1, cluster_id=cluster.cluster_id, incarnation_id=uuid.uuid4(),
            listeners=[BrokerRegistrationRequest.Listener(name="PLAINTEXT", host="127.0.0.1", port=1,
                                                          security_protocol=0)],
            features=[BrokerRegistrationRequest.Feature(name=name, min_supported_version=low,
                                                        max_supported_version=high)
                      for name, low, high in SUPPORTED_FEATURES],
            rack=None, is_migrating_zk_broker=False, log_dirs=[uuid.uuid4()], previous_broker_epoch=-1)
        response = asyncio.run(register(cluster.controller.port, request))
        assert response.error_code == ErrorCode.DUPLICATE_BROKER_REGISTRATION
        assert response.broker_epoch == -1

        # nothing was written for the impostor, and broker 1 still serves at its own port
        after = [r for r in metadata_records(metadata_dir) if isinstance(r, RegisterBrokerRecord)]
        assert after == before
        create_topic(cluster, "after", 3, 3)
        states = partition_view(cluster, "after", 0)
        assert 1 in states.isr

        # a whole broker process with node id 1 never joins
        impostor = NodeProcess(1, tmp_path / "impostor", {
            **cluster.config, "process.roles": "broker", "node.id": "1",
            "controller.quorum.bootstrap.servers": f"127.0.0.1:{cluster.controller.port}",
            "initial.broker.registration.timeout.ms": str(IMPOSTOR_TIMEOUT_MS)}, tmp_path / "impostor.log")
        impostor.spawn()
        deadline = time.monotonic() + IMPOSTOR_TIMEOUT_MS / 1000 + 60
        try:
            while impostor.process.poll() is None and time.monotonic() < deadline:
                brokers = {b.node_id: b.port for b in _metadata(cluster.brokers[2].port, "after").brokers}
                assert brokers[1] == cluster.brokers[1].port, "the impostor took broker 1's place"
                time.sleep(1)
        finally:
            if impostor.process.poll() is None:
                impostor.process.kill()
            impostor.wait()
        assert impostor.process.returncode not in (0, None, -9), "the impostor did not give up by itself"
        assert READY_PREFIX.encode() not in impostor.process.stdout.read()
        assert "DUPLICATE_BROKER_REGISTRATION" in (tmp_path / "impostor.log").read_text(errors="replace")
        assert 1 in partition_view(cluster, "after", 0).isr
