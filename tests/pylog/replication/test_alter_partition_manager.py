"""The leader's AlterPartition requests: what they carry, and retries when the controller
cannot be reached or refuses (pylog/replication/alter_partition_manager.py), between real
brokers and a real controller (cluster_support.py).

The first test injects failures a healthy controller does not produce on demand: its
`FlakyController` sits between broker 1 and the real controller and, for AlterPartition
only, fails the first sends as scripted (the controller unreachable, a top-level
STALE_BROKER_EPOCH, a per-partition OPERATION_NOT_ATTEMPTED) before passing requests on;
the manager's retries are what is tested. INVALID_UPDATE_VERSION in the second test is the
real controller's answer to a leader whose metadata is behind.
"""

from __future__ import annotations

import asyncio

from protocol.error_codes import ErrorCode
from protocol.messages import AlterPartitionResponse
from pylog.network_client import NodeUnavailable

from tests.pylog.replication.cluster_support import ReplicationCluster, batch, eventually, produce

ALTER_PARTITION_KEY = 56


def run(scenario, timeout_s: float = 60):
    asyncio.run(asyncio.wait_for(scenario, timeout_s))


class FlakyController:
    """Fails the first AlterPartition sends as scripted, then passes them to the controller;
    every other request goes straight through."""

    def __init__(self, channel, script):
        self.channel = channel
        self.script = list(script)
        self.attempts = []

    async def send(self, request, version, timeout_ms=None):
        if request.api_key != ALTER_PARTITION_KEY:
            return await self.channel.send(request, version, timeout_ms)
        self.attempts.append(request)
        if self.script:
            step = self.script.pop(0)
            if step == "unreachable":
                raise NodeUnavailable("controller unreachable")
            if step == "stale broker epoch":
                return AlterPartitionResponse(error_code=ErrorCode.STALE_BROKER_EPOCH)
            if step == "not attempted":
                return AlterPartitionResponse(error_code=ErrorCode.NONE, topics=[
                    AlterPartitionResponse.TopicData(topic_id=t.topic_id, partitions=[
                        AlterPartitionResponse.PartitionData(partition_index=p.partition_index,
                                                             error_code=ErrorCode.OPERATION_NOT_ATTEMPTED)
                        for p in t.partitions]) for t in request.topics])
        return await self.channel.send(request, version, timeout_ms)

    async def close(self) -> None:
        await self.channel.close()


async def with_follower_being_added(cluster: ReplicationCluster):
    """Broker 1 leads alone; broker 2 is being added (a reassignment onto (1, 2)) and does
    not fetch until resumed: the ISR is (1,)."""
    await cluster.create_topic((1,))
    cluster.pause_fetching(2)
    registration = await cluster.reassign((1, 2))
    assert (registration.leader, registration.isr, registration.adding_replicas) == (1, (1,), (2,))
    return registration


def test_an_isr_expansion_carries_the_broker_epochs_and_survives_controller_failures(tmp_path):
    async def scenario():
        cluster = await ReplicationCluster(tmp_path, 2).start()
        try:
            before = await with_follower_being_added(cluster)
            flaky = FlakyController(cluster.brokers[1].controller_channel,
                                    ["unreachable", "stale broker epoch", "not attempted"])
            cluster.brokers[1].controller_channel = flaky
            assert (await produce(cluster.client(1), batch(b"a"), acks=1)).error_code == ErrorCode.NONE
            cluster.resume_fetching(2)
            await eventually(lambda: cluster.registration.isr == (1, 2), what="ISR expanded to (1, 2)")
            # unreachable and STALE_BROKER_EPOCH: the same request again; OPERATION_NOT_ATTEMPTED:
            # back to the committed ISR, and the next fetch proposes the expansion anew
            assert len(flaky.attempts) == 4
            first = flaky.attempts[0]
            topic_id = cluster.brokers[1].metadata.topics["replicated"].topic_id
            broker_epoch = cluster.brokers[1].metadata.broker_epoch
            assert broker_epoch == cluster.controller.image.brokers[1].epoch
            assert (first.broker_id, first.broker_epoch) == (1, broker_epoch)
            assert [t.topic_id for t in first.topics] == [topic_id]
            sent = first.topics[0].partitions[0]
            assert (sent.partition_index, sent.leader_epoch, sent.partition_epoch) == \
                (0, before.leader_epoch, before.partition_epoch)
            # the follower's broker epoch is unknown to the leader (Fetch v12 does not carry it)
            assert [(m.broker_id, m.broker_epoch) for m in sent.new_isr_with_epochs] == [(1, broker_epoch), (2, -1)]
            assert all(a.topics[0].partitions[0].partition_epoch == before.partition_epoch for a in flaky.attempts)
            # the accepted expansion also completed the reassignment, in the same record
            after = cluster.registration
            assert after.partition_epoch == before.partition_epoch + 1
            assert (after.replicas, after.adding_replicas) == ((1, 2), ())
            await cluster.settled()
            assert cluster.partition(1).state.isr == (1, 2) and not cluster.partition(1).state.in_flight
        finally:
            await cluster.stop()
    run(scenario())


def test_a_refused_expansion_waits_for_new_metadata(tmp_path):
    async def scenario():
        cluster = await ReplicationCluster(tmp_path, 2).start()
        try:
            await with_follower_being_added(cluster)
            # the controller moves on (a new partition epoch: the replicas reordered, the
            # leader kept) without broker 1 hearing of it
            await cluster.pause_metadata(1)
            moved = await cluster.reassign((2, 1), settled_nodes={2})
            assert (moved.leader, moved.isr) == (1, (1,))
            sent_before = len(cluster.alter_partition_requests)
            cluster.resume_fetching(2)
            await eventually(lambda: len(cluster.alter_partition_requests) == sent_before + 1,
                             what="an AlterPartition sent")
            await asyncio.sleep(0.5)
            # INVALID_UPDATE_VERSION: nothing more is sent while the metadata is old
            assert len(cluster.alter_partition_requests) == sent_before + 1
            assert cluster.alter_partition_requests[-1].topics[0].partitions[0].partition_epoch < moved.partition_epoch
            assert cluster.registration == moved
            assert cluster.partition(1).state.in_flight
            cluster.resume_metadata(1)   # the new metadata arrives
            await eventually(lambda: cluster.registration.isr == (1, 2), what="ISR expanded to (1, 2)")
            assert cluster.registration.partition_epoch == moved.partition_epoch + 1
        finally:
            await cluster.stop()
    run(scenario())
