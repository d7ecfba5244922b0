"""Partition reassignment: start, progress through AlterPartition, completion, cancel,
listing, and Kafka's errors."""

from protocol.error_codes import ErrorCode
from protocol.messages.alter_partition_reassignments_request import (
    AlterPartitionReassignmentsRequest, ReassignablePartition, ReassignableTopic,
)
from protocol.messages.alter_partition_request import (
    AlterPartitionRequest, BrokerState, PartitionData, TopicData,
)
from protocol.messages.list_partition_reassignments_request import (
    ListPartitionReassignmentsRequest, ListPartitionReassignmentsTopics,
)
from pylog.controller.alter_partition import alter_partition
from pylog.controller.reassignment import (
    alter_partition_reassignments, complete_reassignments, list_partition_reassignments,
)
from tests.pylog.controller.harness import Controller


def cluster():
    c = Controller()
    for broker_id in (1, 2, 3, 4):
        c.start_broker(broker_id)
    c.create_topic("t", [[1, 2], [2, 3]])
    return c


def reassign(c, index, replicas, topic="t", allow_rf_change=True):
    request = AlterPartitionReassignmentsRequest(allow_replication_factor_change=allow_rf_change, topics=[
        ReassignableTopic(name=topic, partitions=[ReassignablePartition(partition_index=index, replicas=replicas)])])
    response = c.commit(alter_partition_reassignments(c.image, request, 1))
    assert response.allow_replication_factor_change == allow_rf_change
    one = response.responses[0].partitions[0]
    return one.error_code, one.error_message


def expand_isr(c, index, isr):
    partition = c.partition("t", index)
    data = PartitionData(partition_index=index, leader_epoch=partition.leader_epoch,
                         partition_epoch=partition.partition_epoch,
                         new_isr_with_epochs=[BrokerState(broker_id=b, broker_epoch=c.image.brokers[b].epoch)
                                              for b in isr])
    request = AlterPartitionRequest(broker_id=partition.leader, broker_epoch=c.image.brokers[partition.leader].epoch,
                                    topics=[TopicData(topic_id=c.image.topics_by_name["t"].topic_id,
                                                      partitions=[data])])
    return c.commit(alter_partition(c.image, request, 3)).topics[0].partitions[0]


def test_a_reassignment_runs_until_the_new_replicas_are_in_sync():
    c = cluster()
    assert reassign(c, 0, [3, 4]) == (ErrorCode.NONE, None)
    partition = c.partition("t")
    assert partition.replicas == (3, 4, 1, 2) and partition.adding_replicas == (3, 4)
    assert partition.removing_replicas == (1, 2) and partition.leader == 1
    listed = list_partition_reassignments(c.image, ListPartitionReassignmentsRequest(topics=None), 0).response
    assert [(t.name, [(p.partition_index, p.replicas, p.adding_replicas, p.removing_replicas) for p in t.partitions])
            for t in listed.topics] == [("t", [(0, [3, 4, 1, 2], [3, 4], [1, 2])])]
    expand_isr(c, 0, [1, 2, 3])
    assert c.partition("t").adding_replicas == (3, 4)
    got = expand_isr(c, 0, [1, 2, 3, 4])
    assert got.error_code == ErrorCode.NEW_LEADER_ELECTED
    partition = c.partition("t")
    assert (partition.replicas, partition.isr, partition.leader) == ((3, 4), (3, 4), 3)
    assert partition.adding_replicas == () and partition.removing_replicas == ()
    assert list_partition_reassignments(c.image, ListPartitionReassignmentsRequest(topics=None), 0).response.topics == []


def test_reordering_in_sync_replicas_completes_at_once():
    c = cluster()
    assert reassign(c, 0, [2, 1]) == (ErrorCode.NONE, None)
    partition = c.partition("t")
    assert partition.replicas == (2, 1) and partition.leader == 1 and partition.adding_replicas == ()


def test_cancel_goes_back_to_the_original_replicas():
    c = cluster()
    reassign(c, 1, [4, 1])
    assert reassign(c, 1, None) == (ErrorCode.NONE, None)
    partition = c.partition("t", 1)
    assert partition.replicas == (2, 3) and partition.isr == (2, 3)
    assert partition.adding_replicas == () and partition.removing_replicas == ()


def test_errors():
    c = cluster()
    # the code's own text: none in the answer, as Kafka's ApiError.fromThrowable leaves it
    assert reassign(c, 0, None) == (ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, None)
    assert reassign(c, 0, [1, 9]) == (ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                                      "The manual partition assignment includes broker 9, but no such broker is registered.")
    assert reassign(c, 0, [1, 1])[0] == ErrorCode.INVALID_REPLICA_ASSIGNMENT
    assert reassign(c, 0, [])[0] == ErrorCode.INVALID_REPLICA_ASSIGNMENT
    assert reassign(c, 7, [1]) == (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "Unable to find partition t:7.")
    assert reassign(c, 0, [1], topic="x") == (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "Unable to find a topic named x.")


def test_list_by_name_skips_unknown_topics_and_idle_partitions():
    c = cluster()
    reassign(c, 1, [4, 3])
    request = ListPartitionReassignmentsRequest(topics=[
        ListPartitionReassignmentsTopics(name="t", partition_indexes=[0, 1, 5]),
        ListPartitionReassignmentsTopics(name="x", partition_indexes=[0])])
    listed = list_partition_reassignments(c.image, request, 0).response
    assert [(t.name, [p.partition_index for p in t.partitions]) for t in listed.topics] == [("t", [1])]


def test_complete_reassignments_sweeps_what_is_ready():
    c = cluster()
    reassign(c, 0, [1, 2, 3])
    assert complete_reassignments(c.image) == []
    expand_isr(c, 0, [1, 2, 3])          # completes inside the ISR change
    assert c.partition("t").adding_replicas == () and c.partition("t").replicas == (1, 2, 3)


def test_a_replication_factor_change_is_refused_unless_allowed():
    c = cluster()
    assert reassign(c, 0, [1, 2, 3], allow_rf_change=False) == (
        ErrorCode.INVALID_REPLICATION_FACTOR, "The replication factor is changed from 2 to 3")
    assert c.partition("t").replicas == (1, 2)
    assert reassign(c, 0, [3, 4], allow_rf_change=False) == (ErrorCode.NONE, None)
    # in progress: replicas (3, 4, 1, 2), of which 1 and 2 are leaving: the factor is still 2
    assert reassign(c, 0, [4], allow_rf_change=False) == (
        ErrorCode.INVALID_REPLICATION_FACTOR, "The replication factor is changed from 2 to 1")
    assert reassign(c, 1, [2, 3, 4]) == (ErrorCode.NONE, None)
