"""One partition's next state as the controller decides it: Kafka's
`PartitionChangeBuilder`, without eligible leader replicas (ELR).

    record = build_partition_change(partition, topic_id, partition_id,
                                    is_acceptable_leader=..., election=ONLINE,
                                    target_isr=[...], metadata_version=image.metadata_version)
    # -> a PartitionChangeRecord, or None when nothing would change

The rules, in the order they apply:

1. Reassignment completes: with adding or removing replicas pending, once the target ISR
   (less the removing replicas, at least one left) holds every remaining replica, the
   replicas become those, the ISR drops the removing ones, adding/removing clear.
2. Election, over the target replicas in order:
   PREFERRED  the first replica if it is a valid leader; else the current leader if still
              valid; else the first other valid replica.
   ONLINE     the current leader if still valid; else the first valid replica.
   UNCLEAN    as ONLINE, then the first replica the acceptor takes even outside the ISR:
              the ISR becomes [it] and the recovery state RECOVERING (data may be lost).
   Valid = in the target ISR and accepted by `is_acceptable_leader` (registered, unfenced,
   not in controlled shutdown, its directory online: the caller's predicate). No valid
   replica: leader -1 (NO_LEADER). A result equal to the current leader changes nothing.
3. A reassignment that drops a current replica bumps the leader epoch (Leader is written
   even when it stays the same).
4. The ISR field is written when the target differs from the ISR and is not empty: without
   ELR the ISR never becomes empty, so the last member stays when the caller removes it
   (the partition then has leader -1 with that one ISR member).
5. Replicas/adding/removing/directories are written where they differ; directories (from
   metadata.version 3.7-IV2) keep each remaining replica's and take `default_directory`
   for a new one. Any ELR left in the registration is cleared.
6. LeaderRecoveryState is written when the target differs from the registration's (this
   wins over the RECOVERING of an unclean election, as in Kafka).

The leader epoch and partition epoch are not in the record: the image adds 1 to the
partition epoch for every record and 1 to the leader epoch when Leader is not -2
(`PartitionRegistration.merge`). Pure: no I/O, no state kept between calls, so nothing to
lose in a crash and nothing to lock.
"""

from __future__ import annotations

import uuid
from typing import Callable, Sequence

from protocol.metadata import PartitionChangeRecord
from pylog.controller.results import directory_assignment_supported, partition_change_record_version
from pylog.metadata_image import (
    MIGRATING_DIRECTORY, NO_LEADER, NO_LEADER_CHANGE, NO_RECOVERY_STATE_CHANGE, RECOVERING,
    PartitionRegistration,
)

PREFERRED = "preferred"
ONLINE = "online"
UNCLEAN = "unclean"

# Kafka's reserved directory ids (DirectoryId): 0 migrating, 1 unassigned, 2 lost
UNASSIGNED_DIRECTORY = uuid.UUID(int=1)
LOST_DIRECTORY = uuid.UUID(int=2)


def reassignment_in_progress(partition: PartitionRegistration) -> bool:
    return bool(partition.adding_replicas or partition.removing_replicas)


def completed_reassignment(replicas: Sequence[int], adding: Sequence[int], removing: Sequence[int],
                           isr: Sequence[int]) -> tuple[list[int], list[int]] | None:
    """(replicas, isr) once a pending reassignment can finish (rule 1), else None."""
    if not adding and not removing:
        return None
    new_isr = [r for r in isr if r not in removing]
    new_replicas = [r for r in replicas if r not in removing]
    if not new_isr or not new_replicas:
        return None
    if not set(new_replicas) <= set(new_isr):
        return None
    return new_replicas, new_isr


def replica_directory(partition: PartitionRegistration, broker_id: int) -> uuid.UUID:
    """The directory the registration names for `broker_id`'s replica (UNASSIGNED if it
    is not a replica)."""
    for replica, directory in zip(partition.replicas, partition.directories):
        if replica == broker_id:
            return directory
    return UNASSIGNED_DIRECTORY


def directory_online(directory: uuid.UUID, online_directories: Sequence[uuid.UUID]) -> bool:
    """Kafka's `DirectoryId.isOnline`: unassigned and migrating count as online, lost never;
    a broker that registered no directories has all of them online."""
    if directory in (UNASSIGNED_DIRECTORY, MIGRATING_DIRECTORY):
        return True
    if directory == LOST_DIRECTORY:
        return False
    return not online_directories or directory in online_directories


def build_partition_change(
    partition: PartitionRegistration,
    topic_id: uuid.UUID,
    partition_id: int,
    *,
    is_acceptable_leader: Callable[[int], bool],
    election: str = ONLINE,
    target_isr: Sequence[int] | None = None,
    target_replicas: Sequence[int] | None = None,
    target_adding: Sequence[int] | None = None,
    target_removing: Sequence[int] | None = None,
    target_leader_recovery_state: int | None = None,
    default_directory: Callable[[int], uuid.UUID] = lambda broker_id: MIGRATING_DIRECTORY,
    metadata_version: int | None = None,
) -> tuple[PartitionChangeRecord, int] | None:
    """The (record, version) that moves `partition` to the targets (rules in the module
    docstring), or None if it would change nothing."""
    if election not in (PREFERRED, ONLINE, UNCLEAN):
        raise ValueError(f"unknown election type {election!r}")
    isr = list(partition.isr if target_isr is None else target_isr)
    replicas = list(partition.replicas if target_replicas is None else target_replicas)
    adding = list(partition.adding_replicas if target_adding is None else target_adding)
    removing = list(partition.removing_replicas if target_removing is None else target_removing)
    recovery = partition.leader_recovery_state if target_leader_recovery_state is None \
        else target_leader_recovery_state
    record = PartitionChangeRecord(partition_id=partition_id, topic_id=topic_id)

    completed = completed_reassignment(replicas, adding, removing, isr)
    if completed is not None:
        replicas, isr = completed
        adding, removing = [], []

    leader, unclean = _elect(partition.leader, replicas, isr, is_acceptable_leader, election)
    if leader != partition.leader:
        record.leader = leader
        if unclean:
            record.isr = [leader]
            if partition.leader_recovery_state != RECOVERING:
                record.leader_recovery_state = RECOVERING

    if record.leader == NO_LEADER_CHANGE and not set(partition.replicas) <= set(replicas):
        record.leader = partition.leader

    if partition.elr:
        record.eligible_leader_replicas = []

    if record.isr is None and isr and isr != list(partition.isr):
        record.isr = isr

    if replicas:
        if directory_assignment_supported(metadata_version):
            current = dict(zip(partition.replicas, partition.directories))
            directories = [current[r] if r in current else default_directory(r) for r in replicas]
            if directories != list(partition.directories):
                record.directories = directories
        if replicas != list(partition.replicas):
            record.replicas = replicas
    if removing != list(partition.removing_replicas):
        record.removing_replicas = removing
    if adding != list(partition.adding_replicas):
        record.adding_replicas = adding

    if recovery != partition.leader_recovery_state:
        record.leader_recovery_state = recovery

    if _is_no_op(record):
        return None
    return record, partition_change_record_version(metadata_version)


def _elect(current_leader: int, replicas: list[int], isr: list[int],
           acceptable: Callable[[int], bool], election: str) -> tuple[int, bool]:
    """(leader, unclean) as rule 2 chooses."""
    def valid(replica: int) -> bool:
        return replica in isr and acceptable(replica)

    if election == PREFERRED:
        if replicas and valid(replicas[0]):
            return replicas[0], False
        if valid(current_leader):
            return current_leader, False
        return next((r for r in replicas[1:] if valid(r)), NO_LEADER), False
    if valid(current_leader):
        return current_leader, False
    leader = next((r for r in replicas if valid(r)), None)
    if leader is not None:
        return leader, False
    if election == UNCLEAN:
        leader = next((r for r in replicas if acceptable(r)), None)
        if leader is not None:
            return leader, True
    return NO_LEADER, False


def _is_no_op(record: PartitionChangeRecord) -> bool:
    return (record.isr is None and record.eligible_leader_replicas is None
            and record.last_known_elr is None and record.leader == NO_LEADER_CHANGE
            and record.replicas is None and record.removing_replicas is None
            and record.adding_replicas is None
            and record.leader_recovery_state == NO_RECOVERY_STATE_CHANGE
            and record.directories is None)
