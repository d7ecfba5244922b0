"""Requests at versions Kafka 4 no longer serves (KIP-896), or that only old clients send, over a
real socket to a running broker: pylog keeps answering them as Kafka 3.9 did.

One topic's life in the old shapes: CreateTopics v0, Produce v3 (the first version of the v2
record batch), ListOffsets v0 (a list of offsets), OffsetForLeaderEpoch v0, DescribeConfigs v0
(`is_default`), a group through JoinGroup v0 / SyncGroup v0, OffsetCommit v0 (a group without
members) and v1 (a member's, with a commit timestamp), OffsetFetch v0, and DeleteTopics v0. Each answer is checked field by field."""

from __future__ import annotations

from protocol.error_codes import ErrorCode
from protocol.messages import (
    CreateTopicsRequest,
    DeleteTopicsRequest,
    DescribeConfigsRequest,
    FetchRequest,
    JoinGroupRequest,
    ListOffsetsRequest,
    OffsetCommitRequest,
    OffsetFetchRequest,
    OffsetForLeaderEpochRequest,
    ProduceRequest,
    SyncGroupRequest,
)
from protocol.records import build_batch, iter_batches, iter_records

from tests.pylog.wire import RawClient

TOPIC = "old-shapes"


def test_one_topic_through_the_old_request_versions(kafka_broker):
    kafka_broker.wait_for_group_coordinator()
    client = RawClient(kafka_broker.bootstrap_servers)
    try:
        created = client.request(19, 0, CreateTopicsRequest(timeout_ms=10_000, topics=[
            CreateTopicsRequest.CreatableTopic(name=TOPIC, num_partitions=1, replication_factor=1)]))
        assert [(t.name, t.error_code) for t in created.topics] == [(TOPIC, ErrorCode.NONE)]

        produced = client.request(0, 3, ProduceRequest(acks=-1, timeout_ms=5000, topic_data=[
            ProduceRequest.TopicProduceData(name=TOPIC, partition_data=[ProduceRequest.PartitionProduceData(
                index=0, records=build_batch([(b"k%d" % i, b"v%d" % i) for i in range(3)],
                                             timestamp_ms=1_700_000_000_000))])]))
        [partition] = produced.responses[0].partition_responses
        assert (partition.error_code, partition.base_offset) == (ErrorCode.NONE, 0)

        fetched = client.request(1, 4, FetchRequest(max_wait_ms=0, min_bytes=1, max_bytes=1 << 20, topics=[
            FetchRequest.FetchTopic(topic=TOPIC, partitions=[FetchRequest.FetchPartition(
                partition=0, fetch_offset=1, partition_max_bytes=1 << 20)])]))
        [data] = fetched.responses[0].partitions
        assert data.error_code == ErrorCode.NONE and data.high_watermark == 3
        values = [record.value for view in iter_batches(data.records) for record in iter_records(view)]
        assert values == [b"v0", b"v1", b"v2"]   # the whole batch, as it was written

        listed = client.request(2, 0, ListOffsetsRequest(replica_id=-1, topics=[ListOffsetsRequest.ListOffsetsTopic(
            name=TOPIC, partitions=[ListOffsetsRequest.ListOffsetsPartition(partition_index=0, timestamp=-1,
                                                                           max_num_offsets=1)])]))
        [offsets] = listed.topics[0].partitions
        assert (offsets.error_code, offsets.old_style_offsets) == (ErrorCode.NONE, [3])

        epochs = client.request(23, 0, OffsetForLeaderEpochRequest(topics=[
            OffsetForLeaderEpochRequest.OffsetForLeaderTopic(topic=TOPIC, partitions=[
                OffsetForLeaderEpochRequest.OffsetForLeaderPartition(partition=0, leader_epoch=0)])]))
        [end] = epochs.topics[0].partitions
        assert (end.error_code, end.end_offset) == (ErrorCode.NONE, 3)

        described = client.request(32, 0, DescribeConfigsRequest(resources=[
            DescribeConfigsRequest.DescribeConfigsResource(resource_type=2, resource_name=TOPIC,
                                                           configuration_keys=["retention.ms"])]))
        [result] = described.results
        assert result.error_code == ErrorCode.NONE
        assert [(c.name, c.value, c.is_default) for c in result.configs] == [("retention.ms", "604800000", True)]

        joined = client.request(11, 0, JoinGroupRequest(
            group_id="old-group", session_timeout_ms=10_000, member_id="", protocol_type="consumer",
            protocols=[JoinGroupRequest.JoinGroupRequestProtocol(name="range", metadata=b"m")]))
        assert joined.error_code == ErrorCode.NONE and joined.generation_id == 1   # v0: no MEMBER_ID_REQUIRED
        assert joined.leader == joined.member_id and joined.protocol_name == "range"
        synced = client.request(14, 0, SyncGroupRequest(
            group_id="old-group", generation_id=1, member_id=joined.member_id,
            assignments=[SyncGroupRequest.SyncGroupRequestAssignment(member_id=joined.member_id, assignment=b"a")]))
        assert synced.error_code == ErrorCode.NONE and bytes(synced.assignment) == b"a"

        # v0 carries no member: only a group without members takes it (Kafka's rule); v1 is
        # the member's, with a commit timestamp
        for version, group, offset in ((0, "old-offsets-only", 1), (1, "old-group", 2)):
            committed = client.request(8, version, OffsetCommitRequest(
                group_id=group, generation_id_or_member_epoch=1, member_id=joined.member_id,
                topics=[OffsetCommitRequest.OffsetCommitRequestTopic(name=TOPIC, partitions=[
                    OffsetCommitRequest.OffsetCommitRequestPartition(
                        partition_index=0, committed_offset=offset, committed_metadata=f"v{version}",
                        commit_timestamp=1_700_000_000_000)])]))
            assert [p.error_code for p in committed.topics[0].partitions] == [ErrorCode.NONE], version
            fetched_offsets = client.request(9, 0, OffsetFetchRequest(group_id=group, topics=[
                OffsetFetchRequest.OffsetFetchRequestTopic(name=TOPIC, partition_indexes=[0])]))
            [committed_partition] = fetched_offsets.topics[0].partitions
            assert (committed_partition.error_code, committed_partition.committed_offset,
                    committed_partition.metadata) == (ErrorCode.NONE, offset, f"v{version}")

        deleted = client.request(20, 0, DeleteTopicsRequest(topic_names=[TOPIC], timeout_ms=10_000))
        assert [(r.name, r.error_code) for r in deleted.responses] == [(TOPIC, ErrorCode.NONE)]
    finally:
        client.close()
