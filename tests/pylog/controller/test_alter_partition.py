"""AlterPartition: Kafka's validations and the state it answers with, checked against
the image after the record is applied."""

import uuid

import pytest

from protocol.error_codes import ErrorCode
from protocol.messages.alter_partition_request import (
    AlterPartitionRequest, BrokerState, PartitionData, TopicData,
)
from protocol.metadata import PartitionChangeRecord
from pylog.controller.alter_partition import alter_partition
from pylog.metadata_image import RECOVERED, RECOVERING
from tests.pylog.controller.harness import Controller


@pytest.fixture
def c():
    controller = Controller()
    for broker_id in (1, 2, 3):
        controller.start_broker(broker_id)
    controller.create_topic("t", [[1, 2, 3]])
    return controller


def request(c, isr, *, sender=1, version=3, leader_epoch=None, partition_epoch=None, index=0,
            topic_id=None, recovery=RECOVERED, epochs=None):
    partition = c.image.topics_by_name["t"].partitions.get(index) or c.partition("t")
    data = PartitionData(
        partition_index=index,
        leader_epoch=partition.leader_epoch if leader_epoch is None else leader_epoch,
        partition_epoch=partition.partition_epoch if partition_epoch is None else partition_epoch,
        leader_recovery_state=recovery)
    if version >= 3:
        data.new_isr_with_epochs = [BrokerState(broker_id=b, broker_epoch=(epochs or {}).get(b, c.image.brokers[b].epoch
                                                                                             if b in c.image.brokers else -1))
                                    for b in isr]
    else:
        data.new_isr = list(isr)
    topic = TopicData(topic_id=c.image.topics_by_name["t"].topic_id if topic_id is None else topic_id,
                      topic_name="t", partitions=[data])
    return AlterPartitionRequest(broker_id=sender, broker_epoch=c.image.brokers[sender].epoch, topics=[topic])


def answer(c, req, version=3):
    response = c.commit(alter_partition(c.image, req, version))
    assert response.error_code == 0
    return response.topics[0].partitions[0]


def test_a_shrink_is_applied_and_answered_with_the_new_state(c):
    got = answer(c, request(c, [1, 3]))
    partition = c.partition("t")
    assert partition.isr == (1, 3) and partition.leader == 1 and partition.leader_epoch == 0
    assert partition.partition_epoch == 1
    assert (got.error_code, got.leader_id, got.leader_epoch, got.isr, got.partition_epoch) == (0, 1, 0, [1, 3], 1)


def test_an_expansion_then_a_stale_partition_epoch(c):
    answer(c, request(c, [1]))
    stale = request(c, [1, 2])
    answer(c, request(c, [1, 3]))
    assert answer(c, stale).error_code == ErrorCode.INVALID_UPDATE_VERSION
    assert c.partition("t").isr == (1, 3)


@pytest.mark.parametrize("version", [0, 1, 2])
def test_older_versions_take_a_plain_isr(c, version):
    req = request(c, [1, 2], version=version)
    if version < 2:
        req.topics[0].topic_id = uuid.UUID(int=0)
    assert answer(c, req, version).error_code == 0
    assert c.partition("t").isr == (1, 2)


def test_validation_errors(c):
    partition = c.partition("t")
    assert answer(c, request(c, [1, 2], leader_epoch=partition.leader_epoch + 1)).error_code == ErrorCode.NOT_CONTROLLER
    assert answer(c, request(c, [1, 2], partition_epoch=partition.partition_epoch + 1)).error_code == ErrorCode.NOT_CONTROLLER
    assert answer(c, request(c, [1, 2], sender=2)).error_code == ErrorCode.INVALID_REQUEST
    assert answer(c, request(c, [2, 3])).error_code == ErrorCode.INVALID_REQUEST          # without the leader
    assert answer(c, request(c, [1, 1])).error_code == ErrorCode.INVALID_REQUEST
    assert answer(c, request(c, [1, 4])).error_code == ErrorCode.INVALID_REQUEST          # not a replica
    assert answer(c, request(c, [1], recovery=RECOVERING)).error_code == ErrorCode.INVALID_REQUEST
    assert answer(c, request(c, [1, 2], index=5)).error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    assert answer(c, request(c, [1, 2], topic_id=uuid.uuid4())).error_code == ErrorCode.UNKNOWN_TOPIC_ID
    assert c.partition("t") == partition


def test_a_fenced_leader_epoch(c):
    c.heartbeat(1, want_fence=True)
    c.heartbeat(1)
    assert c.partition("t").leader == 2
    req = request(c, [2, 3], sender=2, leader_epoch=0)
    assert answer(c, req).error_code == ErrorCode.FENCED_LEADER_EPOCH


def test_ineligible_replicas(c):
    answer(c, request(c, [1, 2]))
    assert answer(c, request(c, [1, 2, 3], epochs={3: 12345})).error_code == ErrorCode.INELIGIBLE_REPLICA
    c.heartbeat(3, want_fence=True)
    assert answer(c, request(c, [1, 2, 3])).error_code == ErrorCode.INELIGIBLE_REPLICA
    c.heartbeat(3)
    c.heartbeat(3, want_shut_down=True)
    assert c.image.brokers[3].fenced or c.image.brokers[3].in_controlled_shutdown
    assert answer(c, request(c, [1, 2, 3])).error_code == ErrorCode.INELIGIBLE_REPLICA
    assert c.partition("t").isr == (1, 2)


def test_a_stale_sender_epoch_fails_the_whole_request(c):
    req = request(c, [1, 2])
    req.broker_epoch += 1
    result = alter_partition(c.image, req, 3)
    assert result.response.error_code == ErrorCode.STALE_BROKER_EPOCH and result.records == []


def test_recovered_after_an_unclean_election(c):
    topic_id = c.image.topics_by_name["t"].topic_id
    c.commit_records([(PartitionChangeRecord(topic_id=topic_id, partition_id=0, isr=[1], leader=1,
                                             leader_recovery_state=RECOVERING), 2)])
    assert answer(c, request(c, [1, 2], recovery=RECOVERING)).error_code == ErrorCode.INVALID_REQUEST
    got = answer(c, request(c, [1], recovery=RECOVERED))
    assert got.error_code == 0 and got.leader_recovery_state == RECOVERED
    assert c.partition("t").leader_recovery_state == RECOVERED


def test_an_isr_that_completes_a_reassignment_moving_the_leader_answers_new_leader_elected(c):
    c.start_broker(4)
    topic_id = c.image.topics_by_name["t"].topic_id
    c.commit_records([(PartitionChangeRecord(topic_id=topic_id, partition_id=0, replicas=[4, 2, 3, 1],
                                             adding_replicas=[4], removing_replicas=[1],
                                             directories=[uuid.UUID(int=0)] * 4), 2)])
    got = answer(c, request(c, [1, 2, 3, 4]))
    assert got.error_code == ErrorCode.NEW_LEADER_ELECTED
    partition = c.partition("t")
    assert partition.replicas == (4, 2, 3) and partition.isr == (2, 3, 4) and partition.leader == 4
    assert partition.adding_replicas == () and partition.removing_replicas == ()
