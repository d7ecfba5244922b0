"""DescribeGroups and DeleteGroups of many groups, against the reference Kafka: the groups come
back in the order Kafka's coordinator answers them (partition by partition of
`__consumer_offsets`, in a Java HashMap's order, pylog/coordinator/offsets.py), a group named
twice in a DeleteGroups answered once. A pylog and a Kafka of their own, both with pylog's
five offsets partitions (the order depends on the count)."""

from __future__ import annotations

import time

from protocol.messages import (
    CreateTopicsRequest,
    DeleteGroupsRequest,
    DescribeGroupsRequest,
    FindCoordinatorRequest,
    OffsetCommitRequest,
)
from tests.compat.answers import while_coordinator_loads
from tests.compat.conftest import each_of_a_fresh_pair
from tests.integration.support import WireClient

SETTING = {"offsets.topic.num.partitions": "5"}
GROUPS = [f"order-{i}" for i in range(30)]


def scenario(broker) -> dict:
    found = {}
    with WireClient(broker.bootstrap_servers, timeout_s=30) as client:
        client.request(19, 5, CreateTopicsRequest(timeout_ms=30_000, topics=[CreateTopicsRequest.CreatableTopic(
            name="order-topic", num_partitions=1, replication_factor=1)]))
        while_coordinator_loads(lambda: (None, [client.request(10, 4, FindCoordinatorRequest(
            key_type=0, coordinator_keys=GROUPS)).coordinators[i].error_code for i in range(len(GROUPS))]))
        Topic, Partition = OffsetCommitRequest.OffsetCommitRequestTopic, OffsetCommitRequest.OffsetCommitRequestPartition
        for group in GROUPS[:20]:   # groups that exist, with no members: Empty
            while_coordinator_loads(lambda group=group: (None, [client.request(8, 8, OffsetCommitRequest(
                group_id=group, generation_id_or_member_epoch=-1, member_id="", topics=[Topic(
                    name="order-topic", partitions=[Partition(partition_index=0, committed_offset=1)])]))
                .topics[0].partitions[0].error_code]))
        time.sleep(0.5)   # Kafka's reads see what its coordinators have committed
        described = while_coordinator_loads(lambda: (lambda r: (r, [g.error_code for g in r.groups]))(
            client.request(15, 5, DescribeGroupsRequest(groups=GROUPS))))
        found["described"] = [(g.group_id, g.error_code, g.group_state) for g in described.groups]
        deleted = while_coordinator_loads(lambda: (lambda r: (r, [g.error_code for g in r.results]))(
            client.request(42, 2, DeleteGroupsRequest(groups_names=GROUPS[10:] + GROUPS[10:15]))))
        found["deleted"] = [(g.group_id, g.error_code) for g in deleted.results]
    return found


def test_many_groups_are_answered_in_kafkas_order(tmp_path, compat_table):
    found = each_of_a_fresh_pair(tmp_path, scenario, SETTING)
    compat_table.assert_same("DescribeGroups/DeleteGroups of 30 groups: order", found)
    # what the comparison stands on: not the request's order, groups found and not, each
    # group answered once, some deleted
    assert [g for g, _, _ in found["kafka"]["described"]] != GROUPS
    assert {state for _, _, state in found["kafka"]["described"]} == {"Empty", "Dead"}
    assert sorted(g for g, _ in found["kafka"]["deleted"]) == sorted(GROUPS[10:])
    assert {code for _, code in found["kafka"]["deleted"]} == {0, 69}   # NONE, GROUP_ID_NOT_FOUND
