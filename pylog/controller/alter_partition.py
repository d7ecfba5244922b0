"""AlterPartition (API 56, v0-3): a partition leader asks the controller to change its
ISR (and, after recovering from an unclean election, its leader recovery state).

Whole request: the sender's broker epoch must be its registration's, else
STALE_BROKER_EPOCH and no partition is looked at. Topics are named by id from v2 (an
unknown or zero id: UNKNOWN_TOPIC_ID for each of its partitions), by name before (an
unknown name: UNKNOWN_TOPIC_OR_PARTITION). From v3 the new ISR carries each member's
broker epoch (-1 skips that check); before, the epochs count as -1.

Per partition, Kafka's checks in Kafka's order (`validateAlterPartitionData`):

    no such partition                                   UNKNOWN_TOPIC_OR_PARTITION
    leader epoch or partition epoch above the image's   NOT_CONTROLLER (this controller is behind)
    leader epoch below the image's                      FENCED_LEADER_EPOCH
    the sender is not the leader                        INVALID_REQUEST
    partition epoch below the image's                   INVALID_UPDATE_VERSION
    new ISR not a duplicate-free subset of the replicas,
      or without the leader                             INVALID_REQUEST
    RECOVERING with more than one ISR member, or
      RECOVERED -> RECOVERING                           INVALID_REQUEST
    a member not registered, in controlled shutdown,
      fenced, or whose given epoch differs              INELIGIBLE_REPLICA

An accepted partition gets one PartitionChangeRecord (`partition_change`): usually the
ISR only (Leader stays -2, so the leader epoch stays and the partition epoch goes +1);
an ISR that completes a reassignment also moves the replicas, and if that moves the
leader the answer is NEW_LEADER_ELECTED. Otherwise the answer carries the partition as it
will be once the record is applied (leader, leader epoch, ISR, recovery state, partition
epoch); a request that changes nothing gets the current state and no record.
Pure over the image (no state, nothing to lose in a crash); the controller's event loop calls it.
"""

from __future__ import annotations

from protocol.error_codes import ErrorCode
from protocol.messages.alter_partition_response import (
    AlterPartitionResponse, PartitionData, TopicData,
)
from protocol.primitives import ZERO_UUID
from pylog.controller.leadership import (
    default_directory, leader_acceptor, unclean_leader_election_enabled,
)
from pylog.controller.partition_change import ONLINE, UNCLEAN, build_partition_change
from pylog.controller.results import ControllerResult
from pylog.metadata_image import (
    NO_LEADER_CHANGE, RECOVERED, RECOVERING, MetadataImage, PartitionRegistration, TopicImage,
)


def alter_partition(image: MetadataImage, request, version: int, *,
                    unclean_default: bool = False) -> ControllerResult:
    response = AlterPartitionResponse()
    sender = image.brokers.get(request.broker_id)
    if sender is None or sender.epoch != request.broker_epoch:
        response.error_code = ErrorCode.STALE_BROKER_EPOCH
        return ControllerResult(response, [])
    records = []
    for topic_data in request.topics:
        topic_response = TopicData(topic_id=topic_data.topic_id, topic_name=topic_data.topic_name)
        response.topics.append(topic_response)
        topic, missing = _topic(image, topic_data, version)
        if topic is None:
            for partition_data in topic_data.partitions:
                topic_response.partitions.append(PartitionData(
                    partition_index=partition_data.partition_index, error_code=missing))
            continue
        for partition_data in topic_data.partitions:
            topic_response.partitions.append(
                _alter_one(image, request.broker_id, topic, partition_data, version, records,
                           unclean_default))
    return ControllerResult(response, records)


def _topic(image: MetadataImage, topic_data, version: int) -> tuple[TopicImage | None, ErrorCode]:
    if version >= 2:
        topic_id = topic_data.topic_id
        if topic_id is None or topic_id == ZERO_UUID:
            return None, ErrorCode.UNKNOWN_TOPIC_ID
        return image.topics.get(topic_id), ErrorCode.UNKNOWN_TOPIC_ID
    return image.topics_by_name.get(topic_data.topic_name), ErrorCode.UNKNOWN_TOPIC_OR_PARTITION


def new_isr_with_epochs(partition_data, version: int) -> list[tuple[int, int]]:
    """(broker id, broker epoch) of each proposed ISR member; -1 where the version has no
    epochs."""
    if version >= 3:
        return [(s.broker_id, s.broker_epoch) for s in partition_data.new_isr_with_epochs]
    return [(broker_id, -1) for broker_id in partition_data.new_isr]


def _alter_one(image: MetadataImage, sender: int, topic: TopicImage, partition_data, version: int,
               records: list, unclean_default: bool) -> PartitionData:
    index = partition_data.partition_index
    partition = topic.partitions.get(index)
    new_isr = new_isr_with_epochs(partition_data, version)
    recovery = partition_data.leader_recovery_state if version >= 1 else RECOVERED
    error = validate(image, sender, partition, partition_data, new_isr, recovery)
    if error:
        return PartitionData(partition_index=index, error_code=error)
    change = build_partition_change(
        partition, topic.topic_id, index,
        is_acceptable_leader=leader_acceptor(image, partition),
        election=UNCLEAN if unclean_leader_election_enabled(image, topic.name, unclean_default) else ONLINE,
        target_isr=[broker_id for broker_id, _ in new_isr],
        target_leader_recovery_state=recovery,
        default_directory=default_directory(image), metadata_version=image.metadata_version)
    if change is not None:
        records.append(change)
        record = change[0]
        partition = partition.merge(record)
        if record.leader != sender and record.leader != NO_LEADER_CHANGE:
            return PartitionData(partition_index=index, error_code=ErrorCode.NEW_LEADER_ELECTED)
    return PartitionData(partition_index=index, error_code=ErrorCode.NONE, leader_id=partition.leader,
                         leader_epoch=partition.leader_epoch, isr=list(partition.isr),
                         leader_recovery_state=partition.leader_recovery_state,
                         partition_epoch=partition.partition_epoch)


def validate(image: MetadataImage, sender: int, partition: PartitionRegistration | None, partition_data,
             new_isr: list[tuple[int, int]], recovery: int) -> ErrorCode:
    """The error for one partition of the request, NONE if it may go ahead."""
    if partition is None:
        return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    if partition_data.leader_epoch > partition.leader_epoch:
        return ErrorCode.NOT_CONTROLLER
    if partition_data.partition_epoch > partition.partition_epoch:
        return ErrorCode.NOT_CONTROLLER
    if partition_data.leader_epoch < partition.leader_epoch:
        return ErrorCode.FENCED_LEADER_EPOCH
    if sender != partition.leader:
        return ErrorCode.INVALID_REQUEST
    if partition_data.partition_epoch < partition.partition_epoch:
        return ErrorCode.INVALID_UPDATE_VERSION
    members = [broker_id for broker_id, _ in new_isr]
    if len(set(members)) != len(members) or not set(members) <= set(partition.replicas):
        return ErrorCode.INVALID_REQUEST
    if partition.leader not in members:
        return ErrorCode.INVALID_REQUEST
    if recovery not in (RECOVERED, RECOVERING):
        return ErrorCode.INVALID_REQUEST
    if recovery == RECOVERING and len(members) > 1:
        return ErrorCode.INVALID_REQUEST
    if partition.leader_recovery_state == RECOVERED and recovery == RECOVERING:
        return ErrorCode.INVALID_REQUEST
    if ineligible_replicas(image, new_isr):
        return ErrorCode.INELIGIBLE_REPLICA
    return ErrorCode.NONE


def ineligible_replicas(image: MetadataImage, new_isr: list[tuple[int, int]]) -> list[tuple[int, str]]:
    """(broker id, why) of each proposed member that may not be in an ISR."""
    ineligible = []
    for broker_id, broker_epoch in new_isr:
        broker = image.brokers.get(broker_id)
        if broker is None:
            ineligible.append((broker_id, "not registered"))
        elif broker.in_controlled_shutdown:
            ineligible.append((broker_id, "shutting down"))
        elif broker.fenced:
            ineligible.append((broker_id, "fenced"))
        elif broker_epoch != -1 and broker.epoch != broker_epoch:
            ineligible.append((broker_id, f"broker epoch mismatch: requested={broker_epoch} "
                                          f"VS expected={broker.epoch}"))
    return ineligible


__all__ = ["alter_partition", "validate", "ineligible_replicas", "new_isr_with_epochs"]
