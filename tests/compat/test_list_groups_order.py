"""ListGroups against the reference Kafka: its group coordinator lists the groups shard after
shard of `__consumer_offsets` (the order of its runtime's ConcurrentHashMap of them), each
shard's groups in the order of its own hash map of them, which grows as groups are made and
as their metadata is written (pylog/coordinator/offsets.py `groups_in_kafkas_order`). On a
fresh pylog and a fresh Kafka with five `__consumer_offsets` partitions, so that groups share
them: simple groups made by commits, groups that kafka-python consumers join and leave (their
metadata written), some deleted; the list is compared, then again after each broker
restarts and replays `__consumer_offsets`."""

from __future__ import annotations

import time

from kafka import KafkaConsumer

from protocol.messages import (
    CreateTopicsRequest,
    DeleteGroupsRequest,
    FindCoordinatorRequest,
    ListGroupsRequest,
    OffsetCommitRequest,
    OffsetFetchRequest,
)
from tests.compat.answers import while_coordinator_loads
from tests.compat.conftest import each_of_a_fresh_pair
from tests.integration.support import WireClient

SETTING = {"offsets.topic.num.partitions": "5"}
SIMPLE = [f"simple-{i}" for i in range(40)]
JOINED = [f"joined-{i}" for i in range(3)]
DELETED = [SIMPLE[5], SIMPLE[17], SIMPLE[23], JOINED[1]]
TOPIC = "listed"


def listed(client) -> list[tuple[str, str, str]]:
    answer = while_coordinator_loads(lambda: (lambda r: (r, r.error_code))(
        client.request(16, 4, ListGroupsRequest(states_filter=[]))))
    return [(g.group_id, g.protocol_type, g.group_state) for g in answer.groups]


def scenario(broker) -> dict:
    found = {}
    with WireClient(broker.bootstrap_servers, timeout_s=30) as client:
        answer = client.request(19, 5, CreateTopicsRequest(timeout_ms=30_000, topics=[
            CreateTopicsRequest.CreatableTopic(name=TOPIC, num_partitions=1, replication_factor=1)]))
        assert answer.topics[0].error_code == 0, answer
        for group in SIMPLE:
            while_coordinator_loads(lambda group=group: (None, client.request(10, 3, FindCoordinatorRequest(
                key=group, key_type=0)).error_code))
            while_coordinator_loads(lambda group=group: (None, client.request(8, 8, OffsetCommitRequest(
                group_id=group, generation_id_or_member_epoch=-1, member_id="", topics=[
                    OffsetCommitRequest.OffsetCommitRequestTopic(name=TOPIC, partitions=[
                        OffsetCommitRequest.OffsetCommitRequestPartition(partition_index=0, committed_offset=1)])]))
                .topics[0].partitions[0].error_code))
        for group in JOINED:
            consumer = KafkaConsumer(TOPIC, bootstrap_servers=broker.bootstrap_servers, group_id=group,
                                     auto_offset_reset="earliest", consumer_timeout_ms=2000)
            try:
                for _ in consumer:
                    pass
            finally:
                consumer.close()
        deleted = client.request(42, 2, DeleteGroupsRequest(groups_names=DELETED))
        assert [r.error_code for r in deleted.results] == [0] * len(DELETED), deleted
        time.sleep(0.5)   # Kafka's reads see what its coordinators have committed
        found["before restart"] = listed(client)
    broker.stop()
    broker.start()
    with WireClient(broker.bootstrap_servers, timeout_s=30) as client:
        for group in SIMPLE + JOINED:   # every shard loaded again: ListGroups leaves out one that is not
            while_coordinator_loads(lambda group=group: (None, client.request(9, 5, OffsetFetchRequest(
                group_id=group, topics=None)).error_code))
        found["after restart"] = listed(client)
    return found


def test_groups_in_kafkas_order(tmp_path, compat_table):
    found = each_of_a_fresh_pair(tmp_path, scenario, SETTING)
    compat_table.assert_same("ListGroups of 39 groups in 5 shards: order", found)
    # what the comparison stands on: every group but the deleted, joined ones among them,
    # and neither the order they were made in nor sorted
    before = [g for g, _, _ in found["kafka"]["before restart"]]
    assert sorted(before) == sorted(set(SIMPLE + JOINED) - set(DELETED))
    assert {t for _, t, _ in found["kafka"]["before restart"]} == {"", "consumer"}
    assert before != [g for g in SIMPLE + JOINED if g not in DELETED] and before != sorted(before)
