"""OffsetFetch of all of a group's offsets lists them in the order of Kafka's coordinator maps
(pylog/coordinator/offsets_order.py), after commits and OffsetDeletes, and again after a
restart, when the order is rebuilt by replaying `__consumer_offsets` record by record. The
expected answers are Kafka 4.1.1's to the same requests (topic names with negative Java
hashes among them)."""

from __future__ import annotations

from protocol.messages import CreateTopicsRequest, OffsetCommitRequest, OffsetDeleteRequest, OffsetFetchRequest
from pylog.testing import EmbeddedBroker

from tests.integration.support import WireClient

NAMES = ["orders-x2", "payments-x2", "audit-log-x2", "clicks-x2", "Zebra_9.events-x2"]
GROUP = "fixed-order-x2"
Commit, Delete = OffsetCommitRequest, OffsetDeleteRequest


def commit(client, *entries) -> None:
    answer = client.request(8, 8, Commit(group_id=GROUP, generation_id_or_member_epoch=-1, member_id="", topics=[
        Commit.OffsetCommitRequestTopic(name=NAMES[topic], partitions=[
            Commit.OffsetCommitRequestPartition(partition_index=p, committed_offset=7) for p in partitions])
        for topic, partitions in entries]))
    assert all(p.error_code == 0 for t in answer.topics for p in t.partitions), answer


def delete(client, *entries) -> None:
    answer = client.request(47, 0, Delete(group_id=GROUP, topics=[
        Delete.OffsetDeleteRequestTopic(name=NAMES[topic], partitions=[
            Delete.OffsetDeleteRequestPartition(partition_index=p) for p in partitions])
        for topic, partitions in entries]))
    assert answer.error_code == 0, answer


def listed(client, version: int = 5) -> list:
    if version >= 8:
        (group,) = client.request(9, version, OffsetFetchRequest(groups=[
            OffsetFetchRequest.OffsetFetchRequestGroup(group_id=GROUP, topics=None)])).groups
        topics = group.topics
    else:
        topics = client.request(9, version, OffsetFetchRequest(group_id=GROUP, topics=None)).topics
    return [(t.name.removesuffix("-x2"), [p.partition_index for p in t.partitions]) for t in topics]


def test_all_offsets_in_kafkas_order_before_and_after_a_restart():
    with EmbeddedBroker() as broker:
        with WireClient(broker.bootstrap_servers) as client:
            answer = client.request(19, 5, CreateTopicsRequest(timeout_ms=30_000, topics=[
                CreateTopicsRequest.CreatableTopic(name=name, num_partitions=8, replication_factor=1)
                for name in NAMES]))
            assert all(t.error_code == 0 for t in answer.topics)
            broker.wait_for_group_coordinator()
            commit(client, (0, [0, 1, 2]), (1, [5, 3]))
            assert listed(client) == [("payments", [5, 3]), ("orders", [2, 0, 1])]
            commit(client, (2, [7, 6, 5, 4]), (3, [0]), (4, [1, 2]))
            assert listed(client) == [("clicks", [0]), ("orders", [2, 0, 1]), ("payments", [5, 3]),
                                      ("Zebra_9.events", [2, 1]), ("audit-log", [5, 4, 7, 6])]
            delete(client, (1, [5, 3]), (0, [1]))
            assert listed(client) == [("clicks", [0]), ("orders", [2, 0]), ("Zebra_9.events", [2, 1]),
                                      ("audit-log", [5, 4, 7, 6])]
            commit(client, (1, [2]), (0, [1, 0]))
            last = [("clicks", [0]), ("orders", [2, 0, 1]), ("payments", [2]), ("Zebra_9.events", [2, 1]),
                    ("audit-log", [5, 4, 7, 6])]
            assert listed(client) == last
            assert listed(client, 8) == last
        broker.restart()
        broker.wait_for_group_coordinator()
        with WireClient(broker.bootstrap_servers) as client:
            assert listed(client) == last


def test_a_partition_committed_twice_in_one_request_is_written_twice():
    """Kafka's coordinator writes a record per entry of the request: partitions 1, 3, 3 are
    three records, and the third, a replacing put, grows the map (Kafka answered [1, 3];
    with one record for partition 3 the map would still be small and answer [3, 1])."""
    with EmbeddedBroker() as broker:
        with WireClient(broker.bootstrap_servers) as client:
            client.request(19, 5, CreateTopicsRequest(timeout_ms=30_000, topics=[
                CreateTopicsRequest.CreatableTopic(name=NAMES[0], num_partitions=8, replication_factor=1)]))
            broker.wait_for_group_coordinator()
            store = broker.broker.offset_store
            log_partition = broker.broker.partition("__consumer_offsets", store.partition_for(GROUP))
            before = log_partition.log_end_offset
            answer = client.request(8, 8, Commit(group_id=GROUP, generation_id_or_member_epoch=-1, member_id="",
                                                 topics=[Commit.OffsetCommitRequestTopic(name=NAMES[0], partitions=[
                                                     Commit.OffsetCommitRequestPartition(partition_index=p,
                                                                                         committed_offset=offset)
                                                     for p, offset in ((1, 10), (3, 30), (3, 31))])]))
            assert [p.error_code for p in answer.topics[0].partitions] == [0, 0, 0]
            assert log_partition.log_end_offset - before == 3
            topics = client.request(9, 5, OffsetFetchRequest(group_id=GROUP, topics=None)).topics
            assert [(p.partition_index, p.committed_offset) for p in topics[0].partitions] == [(1, 10), (3, 31)]
