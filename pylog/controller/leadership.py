"""Who leads each partition, as the controller decides it when brokers come and go and when
asked: Kafka's `ReplicationControlManager` rules for fencing, unfencing, controlled
shutdown, ElectLeaders, leader rebalancing and unclean elections (no ELR).

Acceptable leader (`leader_acceptor`): a registered broker, unfenced, not in controlled
shutdown, whose directory for the partition is online; `exclude` never is, `include` is
even while the image still shows it fenced (the broker being unfenced by the same batch).

`leader_and_isr_updates(image, partitions, broker_to_remove=, broker_to_add=)` is the one
loop every path uses (Kafka's `generateLeaderAndIsrUpdates`): for each partition the target
ISR is its ISR less `broker_to_remove`, the election ONLINE (UNCLEAN when the topic's
`unclean.leader.election.enable` is true), and `partition_change.build_partition_change`
writes what changes. Without ELR the last ISR member stays in the ISR, so a partition whose
only in-sync replica goes away has leader -1 and that ISR until the replica comes back.

    fence_broker_records        ISR/leader changes for every partition with the broker in
                                its ISR, then BrokerRegistrationChangeRecord(fenced=1) v0
    unfence_broker_records      BrokerRegistrationChangeRecord(fenced=-1) v0, then every
                                leaderless partition elects (the broker counts as live)
    controlled_shutdown_records BrokerRegistrationChangeRecord(in_controlled_shutdown=1) v1
                                (once), then as fencing for the ISRs it is in
    elect_leaders               ElectLeaders v0-2: PREFERRED (0) needs the first replica as
                                leader, UNCLEAN (1) a partition without one
    auto_leader_rebalance       PREFERRED elections for every partition not led by its
                                first replica, up to MAX_ELECTIONS_PER_IMBALANCE (Kafka's
                                KRaft controller has no per-broker imbalance ratio: any
                                partition off its preferred leader counts)
    unclean_elections           UNCLEAN elections for leaderless partitions of topics that
                                enable unclean leader election

`unclean.leader.election.enable` is read from the topic's config, else the cluster's
dynamic broker default (broker resource ""), else `unclean_default` (the static config).
Pure over the image: nothing is applied here; records come back in the order to commit.
Nothing is kept, so a crash loses nothing; the controller's event loop is the only caller.
"""

from __future__ import annotations

from typing import Callable, Iterable, Iterator

from protocol.error_codes import ErrorCode
from protocol.messages.elect_leaders_response import (
    ElectLeadersResponse, PartitionResult, ReplicaElectionResult,
)
from protocol.metadata import BrokerRegistrationChangeRecord
from pylog.controller.failed_answers import REQUEST_TIMED_OUT, elect_leaders_failed, past_deadline
from pylog.controller.partition_change import (
    ONLINE, PREFERRED, UNASSIGNED_DIRECTORY, UNCLEAN, build_partition_change, directory_online,
    replica_directory,
)
from pylog.controller.results import (
    CONTROLLED_SHUTDOWN_CHANGE_VERSION, FENCING_CHANGE_VERSION, ControllerResult,
)
from pylog.errors import BrokerError
from pylog.metadata_image import (
    BROKER_RESOURCE, FENCE, IN_CONTROLLED_SHUTDOWN, MIGRATING_DIRECTORY, NO_LEADER, UNFENCE,
    MetadataImage, PartitionRegistration, TopicImage,
)

UNCLEAN_LEADER_ELECTION_ENABLE = "unclean.leader.election.enable"
MAX_ELECTIONS_PER_IMBALANCE = 1000

# ElectLeadersRequest.ElectionType
PREFERRED_ELECTION = 0
UNCLEAN_ELECTION = 1

Records = list  # of (record, version)


def is_active(image: MetadataImage, broker_id: int) -> bool:
    """Registered, unfenced and not in controlled shutdown (Kafka's `isActive`)."""
    broker = image.brokers.get(broker_id)
    return broker is not None and not broker.fenced and not broker.in_controlled_shutdown


def leader_acceptor(image: MetadataImage, partition: PartitionRegistration, *,
                    exclude: int = NO_LEADER, include: int = NO_LEADER) -> Callable[[int], bool]:
    def acceptable(broker_id: int) -> bool:
        if broker_id == exclude or broker_id == NO_LEADER:
            return False
        if broker_id != include and not is_active(image, broker_id):
            return False
        broker = image.brokers.get(broker_id)
        return broker is not None and directory_online(replica_directory(partition, broker_id),
                                                       broker.directories)
    return acceptable


def default_directory(image: MetadataImage) -> Callable[[int], object]:
    """Kafka's `defaultDir`: a broker's only directory; migrating if it named none;
    unassigned if several (or it is not registered)."""
    def directory(broker_id: int):
        broker = image.brokers.get(broker_id)
        if broker is None:
            return UNASSIGNED_DIRECTORY
        if not broker.directories:
            return MIGRATING_DIRECTORY
        return broker.directories[0] if len(broker.directories) == 1 else UNASSIGNED_DIRECTORY
    return directory


def unclean_leader_election_enabled(image: MetadataImage, topic: str, unclean_default: bool = False) -> bool:
    value = image.topic_configs(topic).get(UNCLEAN_LEADER_ELECTION_ENABLE)
    if value is None:
        value = image.configs.get((BROKER_RESOURCE, ""), {}).get(UNCLEAN_LEADER_ELECTION_ENABLE)
    if value is None:
        return unclean_default
    return value.strip().lower() == "true"


# -- which partitions ------------------------------------------------------------------

Partitions = Iterator[tuple[TopicImage, int, PartitionRegistration]]


def all_partitions(image: MetadataImage) -> Partitions:
    for topic in list(image.topics.values()):
        for partition_id in sorted(topic.partitions):
            yield topic, partition_id, topic.partitions[partition_id]


def partitions_with_broker_in_isr(image: MetadataImage, broker_id: int) -> Partitions:
    return ((t, i, p) for t, i, p in all_partitions(image) if broker_id in p.isr)


def partitions_without_leader(image: MetadataImage) -> Partitions:
    return ((t, i, p) for t, i, p in all_partitions(image) if p.leader == NO_LEADER)


def leads_any(image: MetadataImage, broker_id: int) -> bool:
    return any(p.leader == broker_id for _, _, p in all_partitions(image))


# -- the shared loop -------------------------------------------------------------------

def leader_and_isr_updates(image: MetadataImage, partitions: Iterable, *,
                           broker_to_remove: int = NO_LEADER, broker_to_add: int = NO_LEADER,
                           unclean_default: bool = False) -> Records:
    records = []
    for topic, partition_id, partition in list(partitions):
        election = UNCLEAN if unclean_leader_election_enabled(image, topic.name, unclean_default) else ONLINE
        change = build_partition_change(
            partition, topic.topic_id, partition_id,
            is_acceptable_leader=leader_acceptor(image, partition, exclude=broker_to_remove,
                                                 include=broker_to_add),
            election=election,
            target_isr=[r for r in partition.isr if r != broker_to_remove],
            default_directory=default_directory(image),
            metadata_version=image.metadata_version)
        if change is not None:
            records.append(change)
    return records


def fence_broker_records(image: MetadataImage, broker_id: int, *, unclean_default: bool = False) -> Records:
    broker = image.brokers[broker_id]
    records = leader_and_isr_updates(image, partitions_with_broker_in_isr(image, broker_id),
                                     broker_to_remove=broker_id, unclean_default=unclean_default)
    records.append((BrokerRegistrationChangeRecord(broker_id=broker_id, broker_epoch=broker.epoch,
                                                   fenced=FENCE), FENCING_CHANGE_VERSION))
    return records


def unfence_broker_records(image: MetadataImage, broker_id: int, broker_epoch: int, *,
                           unclean_default: bool = False) -> Records:
    records = [(BrokerRegistrationChangeRecord(broker_id=broker_id, broker_epoch=broker_epoch,
                                               fenced=UNFENCE), FENCING_CHANGE_VERSION)]
    records += leader_and_isr_updates(image, partitions_without_leader(image),
                                      broker_to_add=broker_id, unclean_default=unclean_default)
    return records


def controlled_shutdown_records(image: MetadataImage, broker_id: int, broker_epoch: int, *,
                                unclean_default: bool = False) -> Records:
    records = []
    if not image.brokers[broker_id].in_controlled_shutdown:
        records.append((BrokerRegistrationChangeRecord(broker_id=broker_id, broker_epoch=broker_epoch,
                                                       in_controlled_shutdown=IN_CONTROLLED_SHUTDOWN),
                        CONTROLLED_SHUTDOWN_CHANGE_VERSION))
    records += leader_and_isr_updates(image, partitions_with_broker_in_isr(image, broker_id),
                                      broker_to_remove=broker_id, unclean_default=unclean_default)
    return records


def shutdown_cleanup_records(image: MetadataImage, broker_id: int, *, unclean_default: bool = False) -> Records:
    """A new incarnation registers: without ELR, clean or not, the old one leaves every ISR
    and leadership as if fenced (Kafka's `handleBrokerShutdown`)."""
    return leader_and_isr_updates(image, partitions_with_broker_in_isr(image, broker_id),
                                  broker_to_remove=broker_id, unclean_default=unclean_default)


# -- elections on request and on schedule ----------------------------------------------

def elect_leader(image: MetadataImage, topic_name: str, partition_id: int, election_type: int,
                 records: Records) -> tuple[ErrorCode, str | None]:
    """One partition of ElectLeaders: (error, message), appending its record if any."""
    topic = image.topics_by_name.get(topic_name)
    if topic is None:
        return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"No such topic as {topic_name}"
    partition = topic.partitions.get(partition_id)
    if partition is None:
        return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"No such partition as {topic_name}-{partition_id}"
    preferred = partition.replicas[0] if partition.replicas else NO_LEADER
    if (election_type == PREFERRED_ELECTION and partition.leader == preferred) or \
            (election_type == UNCLEAN_ELECTION and partition.leader != NO_LEADER):
        return ErrorCode.ELECTION_NOT_NEEDED, ErrorCode.ELECTION_NOT_NEEDED.message
    change = build_partition_change(
        partition, topic.topic_id, partition_id,
        is_acceptable_leader=leader_acceptor(image, partition),
        election=PREFERRED if election_type == PREFERRED_ELECTION else UNCLEAN,
        default_directory=default_directory(image), metadata_version=image.metadata_version)
    if change is None:
        error = ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE if election_type == PREFERRED_ELECTION \
            else ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE
        return error, error.message
    records.append(change)
    return ErrorCode.NONE, None


def elect_leaders(image: MetadataImage, request, version: int) -> ControllerResult:
    """ElectLeaders v0-2 (v0 has no election type: preferred). A null topic list means every
    partition, and then partitions that need no election are left out of the results. A
    timeout of 0 or less fails it whole (pylog/controller/failed_answers.py), and an unknown
    election type too; an empty topic list is answered at once, whatever either."""
    if request.topic_partitions is not None and not request.topic_partitions:
        return ControllerResult(ElectLeadersResponse())   # nothing to do: Kafka answers at once
    if past_deadline(request, True):
        return ControllerResult(elect_leaders_failed(request, REQUEST_TIMED_OUT))
    election_type = request.election_type if version >= 1 else PREFERRED_ELECTION
    response = ElectLeadersResponse()
    if election_type not in (PREFERRED_ELECTION, UNCLEAN_ELECTION):   # Kafka's fails the request whole
        return ControllerResult(elect_leaders_failed(
            request, BrokerError(ErrorCode.INVALID_REQUEST, f"Unknown election type {election_type}")))
    records: Records = []
    if request.topic_partitions is None:
        for topic in sorted(image.topics_by_name.values(), key=lambda t: t.name):
            results = ReplicaElectionResult(topic=topic.name)
            response.replica_election_results.append(results)
            for partition_id in sorted(topic.partitions):
                error, message = elect_leader(image, topic.name, partition_id, election_type, records)
                if error != ErrorCode.ELECTION_NOT_NEEDED:
                    results.partition_result.append(PartitionResult(
                        partition_id=partition_id, error_code=error, error_message=message))
    else:
        for wanted in request.topic_partitions:
            results = ReplicaElectionResult(topic=wanted.topic)
            response.replica_election_results.append(results)
            for partition_id in wanted.partitions:
                error, message = elect_leader(image, wanted.topic, partition_id, election_type, records)
                results.partition_result.append(PartitionResult(
                    partition_id=partition_id, error_code=error, error_message=message))
    return ControllerResult(response, records)


def imbalanced_partitions(image: MetadataImage) -> Partitions:
    """Partitions not led by their preferred (first) replica."""
    return ((t, i, p) for t, i, p in all_partitions(image)
            if p.leader != (p.replicas[0] if p.replicas else NO_LEADER))


def auto_leader_rebalance(image: MetadataImage, *, max_elections: int = MAX_ELECTIONS_PER_IMBALANCE) -> ControllerResult:
    """Preferred elections where the preferred replica is in the ISR and acceptable.
    The response is True when it stopped at `max_elections` (run again at once)."""
    records: Records = []
    for topic, partition_id, partition in imbalanced_partitions(image):
        if len(records) >= max_elections:
            break
        change = build_partition_change(
            partition, topic.topic_id, partition_id,
            is_acceptable_leader=leader_acceptor(image, partition), election=PREFERRED,
            default_directory=default_directory(image), metadata_version=image.metadata_version)
        if change is not None:
            records.append(change)
    return ControllerResult(len(records) >= max_elections, records)


def unclean_elections(image: MetadataImage, *, unclean_default: bool = False,
                      max_elections: int = MAX_ELECTIONS_PER_IMBALANCE) -> ControllerResult:
    """Kafka's periodic `maybeElectUncleanLeaders`: leaderless partitions of topics that
    allow it elect any live replica. The response is True when it stopped at the limit."""
    records: Records = []
    for topic, partition_id, _ in list(partitions_without_leader(image)):
        if len(records) >= max_elections:
            break
        if unclean_leader_election_enabled(image, topic.name, unclean_default):
            elect_leader(image, topic.name, partition_id, UNCLEAN_ELECTION, records)
    return ControllerResult(len(records) >= max_elections, records)
