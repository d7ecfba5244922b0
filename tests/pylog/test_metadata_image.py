"""The metadata image: records in, image out, for every record type the image keeps and
for Kafka's epoch rules (`PartitionRegistration.merge`, `ClusterDelta`, `TopicsDelta`,
`ConfigurationsDelta`, `FeaturesDelta`, `MetadataBatchLoader`'s transactions).

`tests/compat/test_cluster_metadata.py` replays a reference Kafka's own log and compares the
image with what that Kafka reports."""

from __future__ import annotations

import uuid

import pytest

from protocol.messages import LeaderChangeMessage
from protocol.metadata import (
    AbortTransactionRecord,
    BeginTransactionRecord,
    BrokerRegistrationChangeRecord,
    ClearElrRecord,
    ConfigRecord,
    EndTransactionRecord,
    FeatureLevelRecord,
    FenceBrokerRecord,
    NoOpRecord,
    PartitionChangeRecord,
    PartitionRecord,
    ProducerIdsRecord,
    RegisterBrokerRecord,
    RegisterControllerRecord,
    RemoveTopicRecord,
    TopicRecord,
    UnfenceBrokerRecord,
    UnregisterBrokerRecord,
)
from protocol.metadata_log import MetadataEntry, build_control_batch, build_metadata_batch, read_metadata_batch
from protocol.records import ControlType
from pylog.metadata_image import (
    BROKER_RESOURCE,
    MIGRATING_DIRECTORY,
    RECOVERED,
    RECOVERING,
    TOPIC_RESOURCE,
    Endpoint,
    MetadataImage,
    MetadataImageError,
    PartitionRegistration,
)

ORDERS = uuid.UUID(int=0xA1)
EVENTS = uuid.UUID(int=0xB2)
DIR_A = uuid.UUID(int=0xD1)
DIR_B = uuid.UUID(int=0xD2)
INCARNATION = uuid.UUID(int=0x1C)


def register(broker_id: int, epoch: int, *, port: int = 9092, **fields) -> RegisterBrokerRecord:
    endpoint = RegisterBrokerRecord.BrokerEndpoint(name="PLAINTEXT", host="127.0.0.1", port=port, security_protocol=0)
    feature = RegisterBrokerRecord.BrokerFeature(name="metadata.version", min_supported_version=7,
                                                 max_supported_version=27)
    return RegisterBrokerRecord(broker_id=broker_id, broker_epoch=epoch, incarnation_id=INCARNATION,
                                end_points=[endpoint], features=[feature], **fields)


def image_of(*records) -> MetadataImage:
    image = MetadataImage()
    for record in records:
        image.replay(record)
    return image


def with_partition(**fields) -> MetadataImage:
    """Topic orders, partition 0 on brokers 1, 2, 3; leader 1; epochs 0."""
    values = dict(partition_id=0, topic_id=ORDERS, replicas=[1, 2, 3], isr=[1, 2, 3], leader=1,
                  leader_epoch=0, partition_epoch=0)
    values.update(fields)
    return image_of(TopicRecord(name="orders", topic_id=ORDERS), PartitionRecord(**values))


def change(image: MetadataImage, **fields) -> PartitionRegistration:
    image.replay(PartitionChangeRecord(partition_id=0, topic_id=ORDERS, **fields))
    return image.topics[ORDERS].partitions[0]


# ---------------------------------------------------------------------------------------
# Brokers and controllers


def test_a_registered_broker_is_fenced_until_a_change_unfences_it():
    image = image_of(register(1, 11, rack="r1", log_dirs=[DIR_B, DIR_A]))
    broker = image.brokers[1]
    assert (broker.broker_id, broker.epoch, broker.incarnation_id, broker.rack) == (1, 11, INCARNATION, "r1")
    assert broker.endpoints == (Endpoint("PLAINTEXT", "127.0.0.1", 9092, 0),)
    assert broker.endpoint("PLAINTEXT").port == 9092 and broker.endpoint("OTHER") is None
    assert broker.supported_features == (("metadata.version", 7, 27),)
    assert broker.fenced and not broker.in_controlled_shutdown
    assert broker.directories == (DIR_A, DIR_B)  # sorted, as Kafka keeps them
    image.replay(BrokerRegistrationChangeRecord(broker_id=1, broker_epoch=11, fenced=-1))
    assert not image.brokers[1].fenced
    image.replay(BrokerRegistrationChangeRecord(broker_id=1, broker_epoch=11, in_controlled_shutdown=1))
    assert image.brokers[1].in_controlled_shutdown and not image.brokers[1].fenced
    image.replay(BrokerRegistrationChangeRecord(broker_id=1, broker_epoch=11, fenced=1))
    assert image.brokers[1].fenced and image.brokers[1].in_controlled_shutdown
    image.replay(BrokerRegistrationChangeRecord(broker_id=1, broker_epoch=11, log_dirs=[DIR_B]))
    assert image.brokers[1].directories == (DIR_B,) and image.brokers[1].fenced


def test_a_new_registration_replaces_the_old_one_whole():
    image = image_of(register(1, 11), BrokerRegistrationChangeRecord(broker_id=1, broker_epoch=11, fenced=-1),
                     BrokerRegistrationChangeRecord(broker_id=1, broker_epoch=11, in_controlled_shutdown=1))
    image.replay(register(1, 52, port=9093))
    broker = image.brokers[1]
    assert (broker.epoch, broker.fenced, broker.in_controlled_shutdown) == (52, True, False)
    assert broker.endpoint("PLAINTEXT").port == 9093
    with pytest.raises(MetadataImageError, match="epoch 11, registered with 52"):
        image.replay(BrokerRegistrationChangeRecord(broker_id=1, broker_epoch=11, fenced=-1))
    assert image.brokers[1] is broker


def test_fence_and_unfence_records_check_the_broker_epoch():
    image = image_of(register(2, 5, fenced=False))
    image.replay(FenceBrokerRecord(id=2, epoch=5))
    assert image.brokers[2].fenced
    image.replay(UnfenceBrokerRecord(id=2, epoch=5))
    assert not image.brokers[2].fenced
    for record in (FenceBrokerRecord(id=2, epoch=4), UnfenceBrokerRecord(id=2, epoch=6),
                   FenceBrokerRecord(id=9, epoch=5)):
        with pytest.raises(MetadataImageError):
            image.replay(record)
    assert not image.brokers[2].fenced


@pytest.mark.parametrize("fields,why", [({"fenced": 2}, "fencing change 2"),
                                        ({"in_controlled_shutdown": -1}, "controlled shutdown change -1")])
def test_a_change_outside_the_enumerations_is_refused(fields, why):
    image = image_of(register(1, 11))
    with pytest.raises(MetadataImageError, match=why):
        image.replay(BrokerRegistrationChangeRecord(broker_id=1, broker_epoch=11, **fields))
    assert image.brokers[1].fenced


def test_unregistering_removes_the_broker():
    image = image_of(register(1, 11), register(2, 12))
    image.replay(UnregisterBrokerRecord(broker_id=1, broker_epoch=11))
    assert set(image.brokers) == {2}
    image.replay(UnregisterBrokerRecord(broker_id=1, broker_epoch=11))  # already gone: no change
    assert set(image.brokers) == {2}


def test_controllers_register_apart_from_brokers():
    endpoint = RegisterControllerRecord.ControllerEndpoint(name="CONTROLLER", host="h", port=9093, security_protocol=0)
    image = image_of(RegisterControllerRecord(controller_id=1, incarnation_id=INCARNATION, end_points=[endpoint]))
    assert image.brokers == {}
    controller = image.controllers[1]
    assert controller.endpoints == (Endpoint("CONTROLLER", "h", 9093, 0),) and controller.incarnation_id == INCARNATION


# ---------------------------------------------------------------------------------------
# Topics and partitions: the epoch rules


def test_a_new_partition_has_the_epochs_it_was_written_with():
    partition = with_partition().topics[ORDERS].partitions[0]
    assert (partition.replicas, partition.isr, partition.leader) == ((1, 2, 3), (1, 2, 3), 1)
    assert (partition.leader_epoch, partition.partition_epoch) == (0, 0)
    assert partition.leader_recovery_state == RECOVERED
    assert partition.directories == (MIGRATING_DIRECTORY,) * 3  # none named: migrating
    assert partition.removing_replicas == partition.adding_replicas == partition.elr == ()
    image = with_partition(leader_epoch=4, partition_epoch=9, directories=[DIR_A, DIR_B, DIR_A])
    partition = image.topics_by_name["orders"].partitions[0]
    assert (partition.leader_epoch, partition.partition_epoch) == (4, 9)
    assert partition.directories == (DIR_A, DIR_B, DIR_A)


def test_an_isr_change_without_a_leader_keeps_the_leader_epoch_and_bumps_the_partition_epoch():
    image = with_partition()
    partition = change(image, isr=[1, 2])
    assert (partition.isr, partition.leader, partition.leader_epoch, partition.partition_epoch) == ((1, 2), 1, 0, 1)
    partition = change(image, isr=[1, 2, 3])
    assert (partition.isr, partition.leader_epoch, partition.partition_epoch) == ((1, 2, 3), 0, 2)


@pytest.mark.parametrize("leader", [2, -1, 1], ids=["new leader", "no leader", "same leader again"])
def test_a_given_leader_bumps_both_epochs(leader):
    image = with_partition()
    partition = change(image, leader=leader)
    assert (partition.leader, partition.leader_epoch, partition.partition_epoch) == (leader, 1, 1)
    assert partition.isr == (1, 2, 3)  # not given: unchanged


def test_a_change_with_nothing_in_it_still_bumps_the_partition_epoch():
    partition = change(with_partition())
    assert (partition.leader, partition.leader_epoch, partition.partition_epoch) == (1, 0, 1)
    assert partition == PartitionRegistration(replicas=(1, 2, 3), isr=(1, 2, 3), leader=1, leader_epoch=0,
                                              partition_epoch=1, directories=(MIGRATING_DIRECTORY,) * 3)


def test_a_controlled_shutdown_then_restart_moves_the_leader_epoch_from_0_to_2():
    """What a single Kafka node writes for each partition when stopped and started (with
    ELR on: the ISR empties into the ELR, and comes back)."""
    image = with_partition(replicas=[1], isr=[1], leader=1)
    partition = change(image, isr=[], leader=-1, eligible_leader_replicas=[1], last_known_elr=[1])
    assert (partition.isr, partition.leader, partition.elr, partition.last_known_elr) == ((), -1, (1,), (1,))
    partition = change(image, isr=[1], leader=1, eligible_leader_replicas=[], last_known_elr=[])
    assert (partition.isr, partition.leader, partition.elr, partition.last_known_elr) == ((1,), 1, (), ())
    assert (partition.leader_epoch, partition.partition_epoch) == (2, 2)


def test_a_reassignment_changes_replicas_and_the_adding_and_removing_sets():
    image = with_partition(directories=[DIR_A, DIR_A, DIR_A])
    partition = change(image, replicas=[1, 2, 3, 4], adding_replicas=[4], removing_replicas=[3],
                       directories=[DIR_A, DIR_A, DIR_A, DIR_B])
    assert (partition.replicas, partition.adding_replicas, partition.removing_replicas) == ((1, 2, 3, 4), (4,), (3,))
    assert partition.directories == (DIR_A, DIR_A, DIR_A, DIR_B)
    partition = change(image, replicas=[1, 2, 4], isr=[1, 2, 4], adding_replicas=[], removing_replicas=[],
                       directories=[DIR_A, DIR_A, DIR_B], leader=1)
    assert (partition.replicas, partition.isr, partition.adding_replicas, partition.removing_replicas) == (
        (1, 2, 4), (1, 2, 4), (), ())
    assert (partition.leader_epoch, partition.partition_epoch) == (1, 2)


def test_leader_recovery_state_minus_one_keeps_it():
    image = with_partition()
    assert change(image, leader=2, isr=[2], leader_recovery_state=RECOVERING).leader_recovery_state == RECOVERING
    assert change(image, isr=[2, 3]).leader_recovery_state == RECOVERING  # -1: no change
    assert change(image, leader_recovery_state=RECOVERED).leader_recovery_state == RECOVERED
    with pytest.raises(MetadataImageError, match="recovery state 5"):
        change(image, leader_recovery_state=5)


def test_a_partition_record_for_an_existing_partition_replaces_it():
    image = with_partition()
    change(image, leader=2)
    image.replay(PartitionRecord(partition_id=0, topic_id=ORDERS, replicas=[3], isr=[3], leader=3,
                                 leader_epoch=7, partition_epoch=8))
    partition = image.topics[ORDERS].partitions[0]
    assert (partition.replicas, partition.leader, partition.leader_epoch, partition.partition_epoch) == ((3,), 3, 7, 8)


@pytest.mark.parametrize("record,why", [
    (PartitionRecord(partition_id=0, topic_id=EVENTS, replicas=[1]), "no topic with id"),
    (PartitionChangeRecord(partition_id=0, topic_id=EVENTS, leader=1), "no topic with id"),
    (PartitionChangeRecord(partition_id=5, topic_id=ORDERS, leader=1), "no partition 5"),
    (PartitionChangeRecord(partition_id=0, topic_id=ORDERS, replicas=[1, 2], directories=[DIR_A]),
     "1 directories for 2 replicas"),
    (PartitionChangeRecord(partition_id=0, topic_id=ORDERS, directories=[DIR_A]), "1 directories for 3 replicas"),
    (PartitionRecord(partition_id=1, topic_id=ORDERS, replicas=[1, 2], directories=[DIR_A]),
     "1 directories for 2 replicas"),
    (RemoveTopicRecord(topic_id=EVENTS), "no topic with id"),
    (TopicRecord(name="orders", topic_id=EVENTS), "exists with id"),
], ids=lambda v: getattr(v, "schema_name", None) or str(v)[:20])
def test_records_the_image_cannot_take_are_refused_and_change_nothing(record, why):
    image = with_partition()
    before = (dict(image.topics[ORDERS].partitions), set(image.topics), set(image.topics_by_name))
    with pytest.raises(MetadataImageError, match=why):
        image.replay(record)
    assert (dict(image.topics[ORDERS].partitions), set(image.topics), set(image.topics_by_name)) == before


def test_removing_a_topic_drops_its_partitions_and_configs():
    image = with_partition()
    image.replay(ConfigRecord(resource_type=TOPIC_RESOURCE, resource_name="orders", name="cleanup.policy",
                              value="compact"))
    image.replay(ConfigRecord(resource_type=BROKER_RESOURCE, resource_name="1", name="log.cleaner.threads",
                              value="2"))
    assert image.topic_configs("orders") == {"cleanup.policy": "compact"}
    image.replay(RemoveTopicRecord(topic_id=ORDERS))
    assert image.topics == {} and image.topics_by_name == {}
    assert image.topic_configs("orders") == {}
    assert image.configs == {(BROKER_RESOURCE, "1"): {"log.cleaner.threads": "2"}}
    # the name can be taken again, by a new id
    image.replay(TopicRecord(name="orders", topic_id=EVENTS))
    assert image.topics_by_name["orders"].topic_id == EVENTS and image.topics_by_name["orders"].partitions == {}


def test_clear_elr_clears_the_named_topic_or_every_topic():
    image = with_partition(replicas=[1], isr=[], leader=-1, eligible_leader_replicas=[1], last_known_elr=[1])
    image.replay(TopicRecord(name="events", topic_id=EVENTS))
    image.replay(PartitionRecord(partition_id=0, topic_id=EVENTS, replicas=[1], isr=[1], leader=1, partition_epoch=0,
                                 eligible_leader_replicas=[], last_known_elr=[1]))
    image.replay(PartitionRecord(partition_id=1, topic_id=EVENTS, replicas=[1], isr=[1], leader=1, partition_epoch=0))
    image.replay(ClearElrRecord(topic_name="orders"))
    orders = image.topics[ORDERS].partitions[0]
    assert (orders.elr, orders.last_known_elr, orders.leader_epoch, orders.partition_epoch) == ((), (), 0, 1)
    assert image.topics[EVENTS].partitions[0].last_known_elr == (1,)
    image.replay(ClearElrRecord())
    events = image.topics[EVENTS].partitions
    assert events[0].last_known_elr == () and events[0].partition_epoch == 1
    assert events[1].partition_epoch == 0  # nothing to clear: untouched
    assert image.topics[ORDERS].partitions[0].partition_epoch == 1
    with pytest.raises(MetadataImageError, match="no such topic"):
        image.replay(ClearElrRecord(topic_name="missing"))


# ---------------------------------------------------------------------------------------
# Configs, features, producer ids


def test_config_records_set_overwrite_and_delete_keys():
    image = image_of(ConfigRecord(resource_type=TOPIC_RESOURCE, resource_name="t", name="retention.ms", value="1"),
                     ConfigRecord(resource_type=TOPIC_RESOURCE, resource_name="t", name="retention.ms", value="2"),
                     ConfigRecord(resource_type=TOPIC_RESOURCE, resource_name="t", name="segment.ms", value="3"),
                     ConfigRecord(resource_type=BROKER_RESOURCE, resource_name="", name="min.insync.replicas",
                                  value="1"))
    assert image.topic_configs("t") == {"retention.ms": "2", "segment.ms": "3"}
    assert image.configs[(BROKER_RESOURCE, "")] == {"min.insync.replicas": "1"}
    image.replay(ConfigRecord(resource_type=TOPIC_RESOURCE, resource_name="t", name="retention.ms", value=None))
    assert image.topic_configs("t") == {"segment.ms": "3"}
    image.replay(ConfigRecord(resource_type=TOPIC_RESOURCE, resource_name="t", name="segment.ms", value=None))
    assert (TOPIC_RESOURCE, "t") not in image.configs  # a resource with no key left goes
    image.replay(ConfigRecord(resource_type=TOPIC_RESOURCE, resource_name="u", name="x", value=None))
    assert (TOPIC_RESOURCE, "u") not in image.configs


def test_feature_levels_metadata_version_apart_kraft_version_ignored_zero_removes():
    image = image_of(FeatureLevelRecord(name="metadata.version", feature_level=27),
                     FeatureLevelRecord(name="group.version", feature_level=1),
                     FeatureLevelRecord(name="transaction.version", feature_level=2),
                     FeatureLevelRecord(name="kraft.version", feature_level=1))
    assert image.metadata_version == 27
    assert image.features == {"group.version": 1, "transaction.version": 2}
    image.replay(FeatureLevelRecord(name="transaction.version", feature_level=0))
    image.replay(FeatureLevelRecord(name="metadata.version", feature_level=28))
    assert image.features == {"group.version": 1} and image.metadata_version == 28


def test_producer_ids_records_set_the_next_producer_id():
    image = image_of(ProducerIdsRecord(broker_id=1, broker_epoch=11, next_producer_id=1000))
    assert image.next_producer_id == 1000
    image.replay(ProducerIdsRecord(broker_id=1, broker_epoch=11, next_producer_id=2000))
    assert image.next_producer_id == 2000


def test_records_the_image_does_not_keep_change_nothing():
    image = with_partition()
    image.replay(NoOpRecord())
    assert set(image.topics) == {ORDERS} and image.brokers == {} and image.configs == {}


# ---------------------------------------------------------------------------------------
# Transactions and batches


def test_a_metadata_transaction_applies_at_its_end_and_an_aborted_one_not_at_all():
    image = MetadataImage()
    image.replay(BeginTransactionRecord(name="Bootstrap records"))
    image.replay(FeatureLevelRecord(name="metadata.version", feature_level=27))
    image.replay(TopicRecord(name="orders", topic_id=ORDERS))
    assert image.in_transaction and image.metadata_version is None and image.topics == {}
    image.replay(EndTransactionRecord())
    assert not image.in_transaction and image.metadata_version == 27 and set(image.topics) == {ORDERS}
    image.replay(BeginTransactionRecord())
    image.replay(RemoveTopicRecord(topic_id=ORDERS))
    image.replay(AbortTransactionRecord(reason="test"))
    assert set(image.topics) == {ORDERS} and not image.in_transaction


def test_a_transaction_that_fails_part_way_leaves_nothing_of_itself():
    image = with_partition()
    for record in (BeginTransactionRecord(), TopicRecord(name="events", topic_id=EVENTS),
                   ConfigRecord(resource_type=TOPIC_RESOURCE, resource_name="events", name="a", value="b"),
                   PartitionChangeRecord(partition_id=0, topic_id=ORDERS, leader=2),
                   RemoveTopicRecord(topic_id=uuid.UUID(int=99))):
        image.replay(record)
    with pytest.raises(MetadataImageError):
        image.replay(EndTransactionRecord())
    assert set(image.topics_by_name) == {"orders"} and image.configs == {}
    assert image.topics[ORDERS].partitions[0].leader == 1 and not image.in_transaction


@pytest.mark.parametrize("records,why", [
    ([BeginTransactionRecord(), BeginTransactionRecord()], "inside a transaction"),
    ([EndTransactionRecord()], "outside a transaction"),
    ([AbortTransactionRecord()], "outside a transaction"),
])
def test_transaction_records_out_of_order_are_refused(records, why):
    image = MetadataImage()
    with pytest.raises(MetadataImageError, match=why):
        for record in records:
            image.replay(record)


def test_batches_move_the_offset_and_epoch_and_control_records_change_nothing_else():
    image = MetadataImage()
    voter = LeaderChangeMessage.Voter(voter_id=1)
    control = build_control_batch([LeaderChangeMessage(leader_id=1, voters=[voter], granting_voters=[voter])],
                                  base_offset=0, leader_epoch=1, append_time_ms=10)
    data = build_metadata_batch([(register(1, 1), 3), (TopicRecord(name="orders", topic_id=ORDERS), 0)],
                                base_offset=1, leader_epoch=1, append_time_ms=11)
    header, entries = read_metadata_batch(control)
    image.apply_batch(header.partition_leader_epoch, entries)
    assert (image.offset, image.epoch, image.brokers, image.topics) == (0, 1, {}, {})
    header, entries = read_metadata_batch(data)
    image.apply_batch(header.partition_leader_epoch, entries)
    assert (image.offset, image.epoch) == (2, 1) and set(image.brokers) == {1} and set(image.topics) == {ORDERS}
    with pytest.raises(MetadataImageError, match="offset 2 is not after 2"):
        image.apply_batch(2, [MetadataEntry(2, NoOpRecord(), 0)])
    image.apply_batch(2, [MetadataEntry(3, LeaderChangeMessage(leader_id=1), 0, ControlType.LEADER_CHANGE)])
    assert (image.offset, image.epoch) == (3, 2)
