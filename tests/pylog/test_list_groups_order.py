"""ListGroups lists the groups as Kafka's group coordinator does: shard after shard of
`__consumer_offsets` in the order of its runtime's ConcurrentHashMap of them, each shard's
groups in the order of its TimelineHashMap of them (pylog/coordinator/offsets.py
`groups_in_kafkas_order`). The expected list is Kafka 4.1.1's to the same requests, with
five `__consumer_offsets` partitions (the test brokers' default), so that each holds eight
groups or so; after a restart, which replays `__consumer_offsets`, it is the same."""

from __future__ import annotations

from protocol.messages import CreateTopicsRequest, DeleteGroupsRequest, ListGroupsRequest, OffsetCommitRequest
from pylog.testing import EmbeddedBroker

from tests.integration.support import WireClient

GROUPS = [f"grp-{i}" for i in range(40)]
KAFKAS = ["grp-38", "grp-33", "grp-24", "grp-29", "grp-3", "grp-10", "grp-8", "grp-15", "grp-12", "grp-30", "grp-35",
          "grp-1", "grp-21", "grp-6", "grp-26", "grp-25", "grp-20", "grp-2", "grp-7", "grp-11", "grp-16", "grp-39",
          "grp-34", "grp-14", "grp-4", "grp-37", "grp-32", "grp-19", "grp-9", "grp-28", "grp-22", "grp-27", "grp-13",
          "grp-36", "grp-31", "grp-18", "grp-0"]


def listed(client) -> list[str]:
    return [g.group_id for g in client.request(16, 4, ListGroupsRequest(states_filter=[])).groups]


def test_groups_in_kafkas_order_before_and_after_a_restart():
    with EmbeddedBroker() as broker:
        with WireClient(broker.bootstrap_servers) as client:
            client.request(19, 5, CreateTopicsRequest(timeout_ms=30_000, topics=[
                CreateTopicsRequest.CreatableTopic(name="lgf", num_partitions=1, replication_factor=1)]))
            broker.wait_for_group_coordinator()
            for group in GROUPS:   # simple groups: the first commit makes each
                answer = client.request(8, 8, OffsetCommitRequest(
                    group_id=group, generation_id_or_member_epoch=-1, member_id="", topics=[
                        OffsetCommitRequest.OffsetCommitRequestTopic(name="lgf", partitions=[
                            OffsetCommitRequest.OffsetCommitRequestPartition(partition_index=0, committed_offset=1)])]))
                assert answer.topics[0].partitions[0].error_code == 0
            deleted = client.request(42, 2, DeleteGroupsRequest(groups_names=[GROUPS[5], GROUPS[17], GROUPS[23]]))
            assert [r.error_code for r in deleted.results] == [0, 0, 0]
            assert listed(client) == KAFKAS
        broker.restart()
        broker.wait_for_group_coordinator()
        with WireClient(broker.bootstrap_servers) as client:
            assert listed(client) == KAFKAS
