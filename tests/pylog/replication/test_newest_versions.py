"""Produce v10-13, Fetch v13-18 and ListOffsets v8-10 on a three-broker cluster (a real
controller and three broker-only nodes, tests/pylog/replication/cluster_support.py), as
Kafka 4.1 answers them: topics named by id (UNKNOWN_TOPIC_ID for an id nobody knows),
the KIP-951 leader hints a refused client gets (`current_leader` and `node_endpoints`),
the follower fetch's replica state, and the special timestamps -4 and -5."""

from __future__ import annotations

import asyncio
import uuid

from protocol.error_codes import ErrorCode
from protocol.messages import FetchRequest, ListOffsetsRequest, ProduceRequest
from protocol.records import iter_batches, iter_records

from tests.pylog.replication.cluster_support import TOPIC, ReplicationCluster, batch, eventually


def run(scenario, timeout_s: float = 60):
    asyncio.run(asyncio.wait_for(scenario, timeout_s))


def produce_request(records: bytes, *, name: str = "", topic_id=None, acks: int = -1) -> ProduceRequest:
    return ProduceRequest(acks=acks, timeout_ms=5000, topic_data=[ProduceRequest.TopicProduceData(
        name=name, topic_id=topic_id or uuid.UUID(int=0),
        partition_data=[ProduceRequest.PartitionProduceData(index=0, records=records)])])


def fetch_request(*, name: str = "", topic_id=None, fetch_offset: int = 0, current_leader_epoch: int = -1,
                  replica_state=None) -> FetchRequest:
    return FetchRequest(max_wait_ms=0, min_bytes=0, max_bytes=1 << 20, isolation_level=0,
                        replica_state=replica_state or FetchRequest.ReplicaState(),
                        topics=[FetchRequest.FetchTopic(topic=name, topic_id=topic_id or uuid.UUID(int=0), partitions=[
                            FetchRequest.FetchPartition(partition=0, fetch_offset=fetch_offset,
                                                        current_leader_epoch=current_leader_epoch,
                                                        partition_max_bytes=1 << 20)])])


def values(records) -> list[bytes]:
    return [record.value for view in iter_batches(records or b"") for record in iter_records(view)]


def test_produce_and_fetch_by_topic_id_and_the_leader_hints_of_a_refusal(tmp_path):
    async def scenario():
        cluster = await ReplicationCluster(tmp_path, 3).start()
        try:
            registration = await cluster.create_topic((1, 2, 3))
            leader, follower = registration.leader, 2
            topic_id = cluster.controller.image.topics_by_name[TOPIC].topic_id
            answer = await cluster.client(leader).send(produce_request(batch(b"by-id"), topic_id=topic_id), 13)
            [topic] = answer.responses
            assert topic.topic_id == topic_id and topic.partition_responses[0].error_code == ErrorCode.NONE
            assert topic.partition_responses[0].base_offset == 0
            await eventually(lambda: cluster.partition(leader).high_watermark == 1, what="the record replicated")

            for version in (13, 16, 18):
                fetched = await cluster.client(leader).send(fetch_request(topic_id=topic_id), version)
                [data] = fetched.responses[0].partitions
                assert fetched.responses[0].topic_id == topic_id
                assert data.error_code == ErrorCode.NONE and values(data.records) == [b"by-id"], version

            # an id nobody knows, and the zero id: UNKNOWN_TOPIC_ID, nothing created
            stranger = uuid.uuid4()
            for unknown in (stranger, uuid.UUID(int=0)):
                answer = await cluster.client(leader).send(produce_request(batch(b"x"), topic_id=unknown), 13)
                assert answer.responses[0].partition_responses[0].error_code == ErrorCode.UNKNOWN_TOPIC_ID
                fetched = await cluster.client(leader).send(fetch_request(topic_id=unknown), 13)
                assert fetched.responses[0].partitions[0].error_code == ErrorCode.UNKNOWN_TOPIC_ID
            assert set(cluster.controller.image.topics_by_name) == {TOPIC}

            # a follower refuses, and says where the leader is (Produce v10+, Fetch v16+)
            epoch = registration.leader_epoch
            leader_broker = cluster.brokers[leader]
            answer = await cluster.client(follower).send(produce_request(batch(b"y"), name=TOPIC), 10)
            refused = answer.responses[0].partition_responses[0]
            assert refused.error_code == ErrorCode.NOT_LEADER_OR_FOLLOWER
            assert (refused.current_leader.leader_id, refused.current_leader.leader_epoch) == (leader, epoch)
            assert [(e.node_id, e.host, e.port) for e in answer.node_endpoints] == [
                (leader, leader_broker.advertised_address()[0], leader_broker.port)]
            fetched = await cluster.client(follower).send(fetch_request(topic_id=topic_id), 16)
            data = fetched.responses[0].partitions[0]
            assert data.error_code == ErrorCode.NOT_LEADER_OR_FOLLOWER
            assert (data.current_leader.leader_id, data.current_leader.leader_epoch) == (leader, epoch)
            assert [e.node_id for e in fetched.node_endpoints] == [leader]
            # a stale epoch at the leader: FENCED_LEADER_EPOCH with the hint too
            bumped = await cluster.bump_leader_epoch()
            assert bumped.leader == leader and bumped.leader_epoch > epoch
            fetched = await cluster.client(leader).send(fetch_request(topic_id=topic_id, current_leader_epoch=epoch), 16)
            data = fetched.responses[0].partitions[0]
            assert data.error_code == ErrorCode.FENCED_LEADER_EPOCH
            assert (data.current_leader.leader_id, data.current_leader.leader_epoch) == (leader, bumped.leader_epoch)
            # before those versions, no hint
            answer = await cluster.client(follower).send(produce_request(batch(b"y"), name=TOPIC), 9)
            assert answer.responses[0].partition_responses[0].error_code == ErrorCode.NOT_LEADER_OR_FOLLOWER
            assert answer.node_endpoints == []
            fetched = await cluster.client(follower).send(fetch_request(name=TOPIC), 15)
            assert fetched.node_endpoints == []
        finally:
            await cluster.stop()
    run(scenario())


def test_a_follower_fetch_with_replica_state(tmp_path):
    """v15+: the follower names itself in replica_state, with its broker epoch."""
    async def scenario():
        cluster = await ReplicationCluster(tmp_path, 3).start()
        try:
            registration = await cluster.create_topic((1, 2, 3))
            leader = registration.leader
            topic_id = cluster.controller.image.topics_by_name[TOPIC].topic_id
            await cluster.client(leader).send(produce_request(batch(b"a", b"b"), name=TOPIC), 9)
            epoch = cluster.controller.image.brokers[3].epoch
            state = FetchRequest.ReplicaState(replica_id=3, replica_epoch=epoch)
            fetched = await cluster.client(leader).send(
                fetch_request(topic_id=topic_id, replica_state=state, current_leader_epoch=registration.leader_epoch), 15)
            data = fetched.responses[0].partitions[0]
            assert data.error_code == ErrorCode.NONE and values(data.records) == [b"a", b"b"]
            # not a replica of the partition: the leader refuses it as a follower
            stranger = FetchRequest.ReplicaState(replica_id=99, replica_epoch=1)
            fetched = await cluster.client(leader).send(fetch_request(topic_id=topic_id, replica_state=stranger), 15)
            assert fetched.responses[0].partitions[0].error_code != ErrorCode.NONE
        finally:
            await cluster.stop()
    run(scenario())


def list_offsets(timestamp: int) -> ListOffsetsRequest:
    return ListOffsetsRequest(replica_id=-1, timeout_ms=1000, topics=[ListOffsetsRequest.ListOffsetsTopic(
        name=TOPIC, partitions=[ListOffsetsRequest.ListOffsetsPartition(partition_index=0, timestamp=timestamp)])])


def test_list_offsets_earliest_local_and_latest_tiered(tmp_path):
    async def scenario():
        cluster = await ReplicationCluster(tmp_path, 1).start()
        try:
            registration = await cluster.create_topic((1,))
            client = cluster.client(1)
            await client.send(produce_request(batch(b"a", b"b", b"c"), name=TOPIC), 9)

            async def answer(timestamp, version):
                response = await client.send(list_offsets(timestamp), version)
                return response.topics[0].partitions[0]

            for version in (8, 9, 10):
                local = await answer(-4, version)
                earliest = await answer(-2, version)
                assert (local.error_code, local.offset, local.timestamp) == (ErrorCode.NONE, 0, -1)
                assert (local.offset, local.leader_epoch) == (earliest.offset, earliest.leader_epoch)
            tiered = await answer(-5, 9)
            assert (tiered.error_code, tiered.offset, tiered.timestamp, tiered.leader_epoch) == (ErrorCode.NONE, -1, -1, -1)
            # a special timestamp before its version, and one nobody defines: UNSUPPORTED_VERSION
            for timestamp, version in ((-4, 7), (-5, 8), (-3, 6), (-7, 10)):
                assert (await answer(timestamp, version)).error_code == ErrorCode.UNSUPPORTED_VERSION, timestamp
            assert (await answer(-1, 10)).offset == 3 and registration.leader == 1
        finally:
            await cluster.stop()
    run(scenario())
