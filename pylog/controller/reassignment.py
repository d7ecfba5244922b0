"""Moving a partition's replicas: AlterPartitionReassignments v0-1 and
ListPartitionReassignments v0 (Kafka's `ReplicationControlManager` reassignment rules).

A reassignment to target replicas T of a partition with replicas R:

    removing = R - T (sorted), adding = T - R (sorted), replicas = T then removing

written as one PartitionChangeRecord. It completes (`partition_change` rule 1) in the
record that first finds every replica of T in the ISR: replicas = T, the ISR drops the
removing ones, adding/removing clear, and a leader that was removed gives way to the first
ISR member of T. A reassignment that only reorders R, or whose T is already in the ISR,
completes at once. Completion runs inside every partition change (AlterPartition's ISR
expansions above all); `complete_reassignments` runs it over every partition, for a caller
that wants to sweep.

Cancelling (replicas null): the replicas go back to R (those being added leave), the ISR
keeps its members outside `adding`; if none is left the first original replica becomes the
ISR, which is an unclean election and needs `unclean.leader.election.enable`.

Errors (per partition, Kafka's messages): unknown topic or partition
UNKNOWN_TOPIC_OR_PARTITION; cancelling with nothing in progress NO_REASSIGNMENT_IN_PROGRESS;
an empty target, a broker that is not registered, a broker twice, or a cancel that would
need an unclean election it may not have INVALID_REPLICA_ASSIGNMENT; with v1's
`allow_replication_factor_change` false (KIP-860), a target with another number of replicas
than the partition has (or will have, once the reassignment in progress is done)
INVALID_REPLICATION_FACTOR. The answer echoes that flag. Each partition
succeeds or fails on its own; the records of those that succeed commit as one batch.
Pure over the image: the reassignment's state is the registration's adding/removing
replicas, so it survives a controller restart through the log. An AlterPartitionReassignments
with topics and a timeout of 0 or less fails whole (pylog/controller/failed_answers.py);
Kafka runs ListPartitionReassignments with no deadline.
"""

from __future__ import annotations

from protocol.error_codes import ErrorCode
from protocol.messages.alter_partition_reassignments_response import (
    AlterPartitionReassignmentsResponse, ReassignablePartitionResponse, ReassignableTopicResponse,
)
from protocol.messages.list_partition_reassignments_response import (
    ListPartitionReassignmentsResponse, OngoingPartitionReassignment, OngoingTopicReassignment,
)
from pylog.controller.failed_answers import (
    REQUEST_TIMED_OUT,
    alter_reassignments_failed,
    past_deadline,
)
from pylog.controller.leadership import (
    all_partitions, default_directory, leader_acceptor, unclean_leader_election_enabled,
)
from pylog.controller.partition_change import (
    ONLINE, UNCLEAN, build_partition_change, reassignment_in_progress,
)
from pylog.controller.results import ControllerResult
from pylog.errors import BrokerError, api_error_message
from pylog.metadata_image import MetadataImage


class ReassignmentError(Exception):
    def __init__(self, error: ErrorCode, message: str):
        super().__init__(message)
        self.error = error


def alter_partition_reassignments(image: MetadataImage, request, version: int, *,
                                  unclean_default: bool = False) -> ControllerResult:
    if past_deadline(request, bool(request.topics)):
        return ControllerResult(alter_reassignments_failed(request, REQUEST_TIMED_OUT))
    allow_rf_change = request.allow_replication_factor_change
    response = AlterPartitionReassignmentsResponse(error_message=None, allow_replication_factor_change=allow_rf_change)
    records = []
    for topic in request.topics:
        topic_response = ReassignableTopicResponse(name=topic.name)
        response.responses.append(topic_response)
        for target in topic.partitions:
            error, message = ErrorCode.NONE, None
            try:
                change = alter_partition_reassignment(image, topic.name, target.partition_index,
                                                      target.replicas, unclean_default=unclean_default,
                                                      allow_rf_change=allow_rf_change)
                if change is not None:
                    records.append(change)
            except ReassignmentError as e:
                error, message = e.error, api_error_message(e.error, str(e))
            topic_response.partitions.append(ReassignablePartitionResponse(
                partition_index=target.partition_index, error_code=error, error_message=message))
    return ControllerResult(response, records)


def alter_partition_reassignment(image: MetadataImage, topic_name: str, partition_id: int,
                                 target_replicas: list[int] | None, *, unclean_default: bool = False,
                                 allow_rf_change: bool = True):
    """The (record, version) that starts, changes or cancels (target None) one partition's
    reassignment, None if nothing changes; raises ReassignmentError."""
    topic = image.topics_by_name.get(topic_name)
    if topic is None:
        raise ReassignmentError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"Unable to find a topic named {topic_name}.")
    partition = topic.partitions.get(partition_id)
    if partition is None:
        raise ReassignmentError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                                f"Unable to find partition {topic_name}:{partition_id}.")
    unclean = unclean_leader_election_enabled(image, topic_name, unclean_default)
    common = dict(is_acceptable_leader=leader_acceptor(image, partition),
                  default_directory=default_directory(image), metadata_version=image.metadata_version)
    if target_replicas is None:
        if not reassignment_in_progress(partition):
            raise ReassignmentError(ErrorCode.NO_REASSIGNMENT_IN_PROGRESS,
                                    ErrorCode.NO_REASSIGNMENT_IN_PROGRESS.message)
        replicas = [r for r in partition.replicas if r not in partition.adding_replicas]
        isr = [r for r in partition.isr if r not in partition.adding_replicas]
        if not isr:
            if not replicas:
                raise ReassignmentError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                                        "Invalid replica assignment: addingReplicas contains all replicas.")
            isr = [replicas[0]]
            if not unclean:
                raise ReassignmentError(
                    ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                    f"Unable to revert partition assignment for {topic_name}:{partition_id} because "
                    "it would require an unclean leader election.")
        return build_partition_change(partition, topic.topic_id, partition_id,
                                      election=UNCLEAN if unclean else ONLINE, target_isr=isr,
                                      target_replicas=replicas, target_adding=[], target_removing=[],
                                      **common)
    validate_assignment(image, list(target_replicas))
    if not allow_rf_change:
        check_replication_factor_unchanged(partition, target_replicas)
    target = list(target_replicas)
    removing = sorted(set(partition.replicas) - set(target))
    adding = sorted(set(target) - set(partition.replicas))
    replicas = target + removing
    return build_partition_change(
        partition, topic.topic_id, partition_id,
        target_replicas=replicas if replicas != list(partition.replicas) else None,
        target_removing=removing or None, target_adding=adding or None, **common)


def check_replication_factor_unchanged(partition, target_replicas: list[int]) -> None:
    """KIP-860: with `allow_replication_factor_change` false, the target must have as many
    replicas as the partition will have once its reassignment in progress, if any, is done."""
    if reassignment_in_progress(partition):
        current = len((set(partition.replicas) | set(partition.adding_replicas)) - set(partition.removing_replicas))
    else:
        current = len(partition.replicas)
    if current != len(target_replicas):
        raise ReassignmentError(ErrorCode.INVALID_REPLICATION_FACTOR,
                                f"The replication factor is changed from {current} to {len(target_replicas)}")


def validate_assignment(image: MetadataImage, replicas: list[int]) -> None:
    """Kafka's `validateManualPartitionAssignment` (no replication factor to match), as
    CreateTopics checks its assignments."""
    from pylog.controller.replication_control import check_manual_assignment   # with the first reassignment
    try:
        check_manual_assignment(image, replicas)
    except BrokerError as e:
        raise ReassignmentError(e.code, str(e)) from None


def complete_reassignments(image: MetadataImage) -> list:
    """Records finishing every reassignment whose target replicas are all in the ISR."""
    records = []
    for topic, partition_id, partition in all_partitions(image):
        if reassignment_in_progress(partition):
            change = build_partition_change(
                partition, topic.topic_id, partition_id,
                is_acceptable_leader=leader_acceptor(image, partition),
                default_directory=default_directory(image), metadata_version=image.metadata_version)
            if change is not None:
                records.append(change)
    return records


def list_partition_reassignments(image: MetadataImage, request, version: int) -> ControllerResult:
    """ListPartitionReassignments v0: the partitions being reassigned, of every topic
    (topics null) or of the named ones (unknown names and partitions are left out)."""
    response = ListPartitionReassignmentsResponse(error_message=None)
    if request.topics is None:
        wanted = [(t, sorted(t.partitions)) for t in sorted(image.topics.values(), key=lambda t: t.name)]
    else:
        wanted = [(image.topics_by_name[t.name], list(t.partition_indexes))
                  for t in request.topics if t.name in image.topics_by_name]
    for topic, partition_ids in wanted:
        ongoing = OngoingTopicReassignment(name=topic.name)
        for partition_id in partition_ids:
            partition = topic.partitions.get(partition_id)
            if partition is None or not reassignment_in_progress(partition):
                continue
            ongoing.partitions.append(OngoingPartitionReassignment(
                partition_index=partition_id, replicas=list(partition.replicas),
                adding_replicas=list(partition.adding_replicas),
                removing_replicas=list(partition.removing_replicas)))
        if ongoing.partitions:
            response.topics.append(ongoing)
    return ControllerResult(response, [])
