"""The partition change builder: each rule, checked by merging its record into the
registration (PartitionRegistration.merge is what the image does)."""

import uuid

import pytest

from pylog.controller.partition_change import (
    ONLINE, PREFERRED, UNCLEAN, build_partition_change, completed_reassignment,
)
from pylog.metadata_image import NO_LEADER_CHANGE, RECOVERED, RECOVERING, PartitionRegistration

TOPIC_ID = uuid.uuid4()
DIRS = {1: uuid.UUID(int=(1 << 64) | 1), 2: uuid.UUID(int=(2 << 64) | 2),
        3: uuid.UUID(int=(3 << 64) | 3), 4: uuid.UUID(int=(4 << 64) | 4)}


def registration(replicas, isr, leader, **fields):
    return PartitionRegistration(replicas=tuple(replicas), isr=tuple(isr), leader=leader, leader_epoch=5,
                                 partition_epoch=9, directories=tuple(DIRS[r] for r in replicas), **fields)


def change(partition, live=(1, 2, 3, 4), **targets):
    built = build_partition_change(partition, TOPIC_ID, 0, is_acceptable_leader=lambda b: b in live,
                                   default_directory=DIRS.__getitem__, metadata_version=27, **targets)
    return built


def test_nothing_to_change_gives_no_record():
    assert change(registration([1, 2], [1, 2], 1)) is None
    assert change(registration([1, 2], [1, 2], 1), target_isr=[1, 2]) is None


def test_an_isr_shrink_keeps_the_leader_and_its_epoch():
    partition = registration([1, 2, 3], [1, 2, 3], 1)
    record, version = change(partition, target_isr=[1, 3])
    assert version == 2 and record.leader == NO_LEADER_CHANGE and record.isr == [1, 3]
    after = partition.merge(record)
    assert (after.leader, after.leader_epoch, after.partition_epoch, after.isr) == (1, 5, 10, (1, 3))


def test_a_leader_that_leaves_the_isr_gives_way_to_the_first_live_isr_replica_in_replica_order():
    partition = registration([1, 2, 3], [3, 2, 1], 1)
    record, _ = change(partition, live=(2, 3), target_isr=[3, 2])
    after = partition.merge(record)
    assert (after.leader, after.leader_epoch, after.isr) == (2, 6, (3, 2))


def test_no_live_isr_member_means_no_leader_and_the_isr_never_empties():
    partition = registration([1, 2], [1], 1)
    record, _ = change(partition, live=(2,), target_isr=[])
    assert record.isr is None and record.leader == -1
    after = partition.merge(record)
    assert (after.leader, after.isr, after.leader_epoch) == (-1, (1,), 6)


def test_an_unclean_election_picks_a_live_replica_outside_the_isr_and_marks_it_recovering():
    partition = registration([1, 2], [1], -1)
    assert change(partition, live=(2,)) is None
    record, _ = change(partition, live=(2,), election=UNCLEAN)
    after = partition.merge(record)
    assert (after.leader, after.isr, after.leader_recovery_state) == (2, (2,), RECOVERING)


def test_an_unclean_election_prefers_the_isr():
    partition = registration([1, 2, 3], [3], -1)
    record, _ = change(partition, live=(2, 3), election=UNCLEAN)
    assert record.leader == 3 and record.isr is None and record.leader_recovery_state == -1


def test_a_preferred_election_moves_leadership_to_the_first_replica_when_it_is_in_the_isr():
    partition = registration([1, 2], [1, 2], 2)
    record, _ = change(partition, election=PREFERRED)
    assert partition.merge(record).leader == 1
    assert change(registration([1, 2], [2], 2), election=PREFERRED) is None
    assert change(registration([1, 2], [1, 2], 2), live=(2,), election=PREFERRED) is None


def test_an_online_election_keeps_a_valid_leader_that_is_not_preferred():
    assert change(registration([1, 2], [1, 2], 2), election=ONLINE) is None


def test_the_recovery_state_follows_the_target():
    partition = registration([1], [1], 1, leader_recovery_state=RECOVERING)
    record, _ = change(partition, target_leader_recovery_state=RECOVERED)
    assert record.leader_recovery_state == RECOVERED and record.leader == NO_LEADER_CHANGE
    assert partition.merge(record).leader_recovery_state == RECOVERED


def test_starting_a_reassignment_writes_the_union_and_the_moves():
    partition = registration([1, 2], [1, 2], 1)
    record, _ = change(partition, target_replicas=[3, 2, 1], target_adding=[3], target_removing=[1])
    after = partition.merge(record)
    assert after.replicas == (3, 2, 1) and after.adding_replicas == (3,) and after.removing_replicas == (1,)
    assert after.directories == (DIRS[3], DIRS[2], DIRS[1])
    assert after.leader == 1 and after.leader_epoch == 5


def test_a_reassignment_completes_when_the_isr_holds_every_target_replica():
    partition = registration([3, 2, 1], [1, 2], 1, adding_replicas=(3,), removing_replicas=(1,))
    record, _ = change(partition, target_isr=[1, 2, 3])
    after = partition.merge(record)
    assert after.replicas == (3, 2) and after.isr == (2, 3)
    assert after.adding_replicas == () and after.removing_replicas == ()
    assert after.leader == 3 and after.leader_epoch == 6
    assert after.directories == (DIRS[3], DIRS[2])


def test_dropping_a_replica_bumps_the_leader_epoch_even_if_the_leader_stays():
    partition = registration([1, 2, 3], [1, 2, 3], 1, removing_replicas=(3,))
    record, _ = change(partition)
    assert record.leader == 1
    after = partition.merge(record)
    assert after.replicas == (1, 2) and after.leader == 1 and after.leader_epoch == 6


@pytest.mark.parametrize("replicas, adding, removing, isr, expected", [
    ([1, 2], [], [], [1, 2], None),
    ([3, 1], [3], [1], [1], None),
    ([3, 1], [3], [1], [1, 3], ([3], [3])),
    ([1, 2], [], [2], [2], None),
])
def test_completed_reassignment(replicas, adding, removing, isr, expected):
    assert completed_reassignment(replicas, adding, removing, isr) == expected


def test_leftover_elr_is_cleared():
    partition = registration([1, 2], [1, 2], 1, elr=(2,))
    record, _ = change(partition)
    assert record.eligible_leader_replicas == [] and partition.merge(record).elr == ()
