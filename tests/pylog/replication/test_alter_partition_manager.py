"""The leader's AlterPartition requests: what they carry, and retries when the controller
cannot be reached or refuses (pylog/replication/alter_partition_manager.py), between real
brokers with a controller stand-in (cluster_support.py)."""

from __future__ import annotations

import asyncio

from protocol.error_codes import ErrorCode
from protocol.messages import AlterPartitionResponse
from pylog.network_client import NodeUnavailable

from tests.pylog.replication.cluster_support import ReplicationCluster, batch, eventually, produce


def run(scenario, timeout_s: float = 60):
    asyncio.run(asyncio.wait_for(scenario, timeout_s))


class FlakyController:
    """Fails the first sends as scripted, then lets the stand-in answer."""

    def __init__(self, stand_in, script):
        self.stand_in = stand_in
        self.script = list(script)
        self.attempts = []

    async def send(self, request, version, timeout_ms=None):
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
        return await self.stand_in.send(request, version, timeout_ms)


def test_an_isr_expansion_carries_the_broker_epochs_and_survives_controller_failures(tmp_path):
    async def scenario():
        cluster = await ReplicationCluster(tmp_path, 2).start()
        try:
            flaky = FlakyController(cluster.controller, ["unreachable", "stale broker epoch", "not attempted"])
            cluster.brokers[1].controller_channel = flaky
            cluster.lead(1, (1, 2), isr=(1,))
            assert (await produce(cluster.client(1), batch(b"a"), acks=1)).error_code == ErrorCode.NONE
            await eventually(lambda: cluster.registration.isr == (1, 2), what="ISR expanded to (1, 2)")
            # unreachable and STALE_BROKER_EPOCH: the same request again; OPERATION_NOT_ATTEMPTED:
            # back to the committed ISR, and the next fetch proposes the expansion anew
            assert len(flaky.attempts) == 4
            first = flaky.attempts[0]
            topic_id = cluster.brokers[1].metadata.topics["replicated"].topic_id
            assert (first.broker_id, first.broker_epoch) == (1, 101)
            assert [t.topic_id for t in first.topics] == [topic_id]
            sent = first.topics[0].partitions[0]
            assert (sent.partition_index, sent.leader_epoch, sent.partition_epoch) == (0, 1, 1)
            assert [(m.broker_id, m.broker_epoch) for m in sent.new_isr_with_epochs] == [(1, 101), (2, -1)]
            assert all(a.topics[0].partitions[0].partition_epoch == 1 for a in flaky.attempts)
            assert cluster.registration.partition_epoch == 2
            assert cluster.partition(1).state.isr == (1, 2) and not cluster.partition(1).state.in_flight
        finally:
            await cluster.stop()
    run(scenario())


def test_a_refused_expansion_waits_for_new_metadata(tmp_path):
    async def scenario():
        cluster = await ReplicationCluster(tmp_path, 2).start()
        try:
            cluster.lead(1, (1, 2), isr=(1,), to=(1,))
            # the controller moved on (partition epoch 2) without telling broker 1
            cluster.lead(1, (1, 2), isr=(1,), partition_epoch=2, to=())
            cluster.apply(cluster.registration, to=(2,))
            await eventually(lambda: len(cluster.controller.requests) == 1, what="an AlterPartition sent")
            await asyncio.sleep(0.5)
            # INVALID_UPDATE_VERSION: nothing more is sent while the metadata is old
            assert len(cluster.controller.requests) == 1
            assert cluster.partition(1).state.in_flight
            cluster.apply(cluster.registration, to=(1,))   # the new metadata arrives
            await eventually(lambda: cluster.registration.isr == (1, 2), what="ISR expanded to (1, 2)")
            assert cluster.registration.partition_epoch == 3
        finally:
            await cluster.stop()
    run(scenario())
