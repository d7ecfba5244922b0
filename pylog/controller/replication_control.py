"""The controller's topic rules: CreateTopics (key 19, v0-7), DeleteTopics (key 20, v0-6)
and CreatePartitions (key 37, v0-3) as metadata records (Kafka 4.1's `ControllerApis` and
`ReplicationControlManager`), and the internal topics a broker needs on first use.

Pure functions over a `MetadataImage`, each returning a `ControllerResult`; no I/O, no
state. The QuorumController serializes calls (one event loop owns the image) and commits
the records as one batch, so a request's topics appear together or not at all.

Records:
  a new topic   TopicRecord(name, topic_id) v0, then its ConfigRecords v0 (one per
                override; a ClearElrRecord after a min.insync.replicas one when ELR is
                enabled), then one PartitionRecord per partition: replicas as placed,
                isr = the replicas that are active (registered, unfenced, not in controlled
                shutdown), leader = the first of the isr, leader_epoch 0, partition_epoch 0,
                leader_recovery_state RECOVERED, directories = each replica's default
                directory (`replica_placement.default_directory`). The PartitionRecord
                version follows metadata.version as Kafka's `partitionRecordVersion`:
                2 from level 23 (4.0-IV1), 1 from 17 (3.7-IV2, the first with
                directories), else 0 (and no directories).
  a deletion    RemoveTopicRecord(topic_id) v0 (the image drops the topic's configs too).
  new partitions one PartitionRecord each, as for a new topic, numbered from the current
                count.

CreateTopics, per topic, in Kafka's order:
  a name given twice: INVALID_REQUEST ("Duplicate topic name.", one result, after the
  others, in the order of Kafka's HashSet of such names); `__cluster_metadata`:
  INVALID_REQUEST ("Creation of internal topic __cluster_metadata is prohibited.", last).
  For the rest: more than 10,000 partitions in the request (assignments, or num_partitions
  with -1 as `num.partitions`) fails every topic with POLICY_VIOLATION ("Excessively large
  number of partitions per request."); an illegal name, or one that differs from an
  existing topic's only by '.' versus '_': INVALID_TOPIC_EXCEPTION; an existing topic:
  TOPIC_ALREADY_EXISTS; a null config value, a value above 32767 characters, an unknown
  config name or a bad value: INVALID_CONFIG;
  then the layout:
  - manual `assignments` need num_partitions = replication_factor = -1 (else
    INVALID_REQUEST); each partition at most once, a non-empty list of registered brokers
    each named once, the same count for every partition, some replica active, partitions
    0..n-1 (else INVALID_REPLICA_ASSIGNMENT);
  - otherwise replication_factor 0 or < -1: INVALID_REPLICATION_FACTOR; num_partitions 0
    or < -1: INVALID_PARTITIONS; -1 means `default.replication.factor` /
    `num.partitions`; then placement (`replica_placement`), whose refusal is
    INVALID_REPLICATION_FACTOR "Unable to replicate the partition N time(s): <why>".
  A request whose records would number more than 10,000 (Kafka's MAX_RECORDS_PER_USER_OP)
  fails as a whole with POLICY_VIOLATION ("Unable to perform excessively large batch
  operation."). `validate_only` runs every check and writes nothing (the result still
  carries a fresh topic id, as Kafka's does). v5+ results carry the partition count, the
  replication factor and every topic config with its source; v7 the topic id.

DeleteTopics: `delete.topic.enable=false` fails every topic with no message
(INVALID_REQUEST before v3, TOPIC_DELETION_DISABLED from v3). By name (v0-5 `topic_names`,
v6 `topics` with a name) or by id (v6): an entry with neither: INVALID_REQUEST ("Neither
topic name nor id were specified."), with both: INVALID_REQUEST ("You may not specify both
topic name and topic id."); a name or an id given twice: INVALID_REQUEST ("Duplicate topic
name." / "Duplicate topic id."); an unknown id: UNKNOWN_TOPIC_ID, an unknown name:
UNKNOWN_TOPIC_OR_PARTITION (default messages); a name whose id was also given:
INVALID_REQUEST ("The provided topic name maps to an ID that was already supplied.").
Internal topics are not special: Kafka's controller deletes them too. The results come
shuffled, as Kafka shuffles them so that their places tell nothing of which topics exist.

CreatePartitions: a name given twice: INVALID_REQUEST (first); unknown:
UNKNOWN_TOPIC_OR_PARTITION; a count that does not grow the topic: INVALID_PARTITIONS;
`assignments` (when not null) need one entry per new partition, each a valid replica list
as above with the topic's replication factor (that of partition 0)
(INVALID_REPLICA_ASSIGNMENT); otherwise placement with that replication factor.
`validate_only` writes nothing. A request may write 10,000 records: the topic that passes
that budget gets UNKNOWN_SERVER_ERROR with no message, and yet grows by what was left of
the budget, as Kafka 4.1's ReplicationControlManager does (its bounded record list throws,
and its per-topic catch keeps the records added before).

A deadline: each of the three runs by its `timeout_ms`. One of 0 or less fails the whole
request with REQUEST_TIMED_OUT, no message, for each of its entries, and does nothing --
unless all it names is answered before the controller is reached (names given twice,
`__cluster_metadata`, DeleteTopics entries with neither or both of name and id), which is
then answered as usual (pylog/controller/failed_answers.py).

Internal topics (`__consumer_offsets`, `__transaction_state`) are created by a broker on
first use, through CreateTopics, with a replication factor capped at the brokers
registered (`Broker.create_internal_topic`: a pylog choice, so that a test cluster smaller
than `offsets.topic.replication.factor` still gets its coordinators; Kafka refuses instead).
"""

from __future__ import annotations

import base64
import logging
import random
import uuid
from dataclasses import dataclass

from protocol.error_codes import ErrorCode
from protocol.java_order import JavaHashMap
from protocol.messages import (
    CreatePartitionsResponse,
    CreateTopicsResponse,
    DeleteTopicsResponse,
)
from protocol.metadata import PartitionRecord, RemoveTopicRecord, TopicRecord
from protocol.primitives import ZERO_UUID
from protocol.schema import Message

from pylog.controller.configuration_control import (
    TopicSettings,
    check_no_null_configs,
    check_topic_configs,
    check_topic_name,
    dynamic_topic_defaults,
    effective_topic_configs,
    topic_config_records,
)
from pylog.controller.failed_answers import (
    REQUEST_TIMED_OUT,
    create_partitions_failed,
    create_topics_failed,
    delete_topics_failed,
    past_deadline,
)
from pylog.controller.replica_placement import (
    PlacementError,
    default_directory,
    is_active,
    place_replicas,
    usable_brokers,
)
from pylog.controller.results import (
    ControllerResult,
    directory_assignment_supported,
    partition_change_record_version,
)
from pylog.errors import BrokerError
from pylog.metadata_image import RECOVERED, MetadataImage

log = logging.getLogger("pylog.controller.topics")

MAX_RECORDS_PER_USER_OP = 10_000
MAX_PARTITIONS_PER_BATCH = 10_000
EXCESSIVE_BATCH_MESSAGE = "Unable to perform excessively large batch operation."
EXCESSIVE_PARTITIONS_MESSAGE = "Excessively large number of partitions per request."
CLUSTER_METADATA_TOPIC = "__cluster_metadata"
METADATA_TOPIC_ID = uuid.UUID(int=1)   # Kafka's Uuid.METADATA_TOPIC_ID, never a topic's

TOPIC_RECORD_VERSION = 0
REMOVE_TOPIC_RECORD_VERSION = 0

TopicResult = CreateTopicsResponse.CreatableTopicResult
TopicConfig = CreateTopicsResponse.CreatableTopicConfigs
DeleteResult = DeleteTopicsResponse.DeletableTopicResult
PartitionsResult = CreatePartitionsResponse.CreatePartitionsTopicResult


def partition_record_version(metadata_version: int | None) -> int:
    """The PartitionRecord version a controller writes at this metadata.version level
    (Kafka's `partitionRecordVersion`: the same levels as PartitionChangeRecord's)."""
    return partition_change_record_version(metadata_version)


def new_topic_id(rng: random.Random, taken=()) -> uuid.UUID:
    """A random topic id as Kafka's `Uuid.randomUuid` makes one: never the zero or the
    metadata topic's id, never one whose base64 text starts with '-'; nor one in `taken`
    (a seeded random source could repeat an id after a restart)."""
    while True:
        topic_id = uuid.UUID(int=rng.getrandbits(128), version=4)
        text = base64.urlsafe_b64encode(topic_id.bytes).decode()
        if (topic_id not in (ZERO_UUID, METADATA_TOPIC_ID) and topic_id not in taken
                and not text.startswith("-")):
            return topic_id


def _duplicates(names) -> list:
    seen, repeated = set(), []
    for name in names:
        if name in seen and name not in repeated:
            repeated.append(name)
        seen.add(name)
    return repeated


def _collision_key(name: str) -> str:
    return name.replace(".", "_")


@dataclass
class _Partition:
    replicas: list[int]
    isr: list[int]


def _partition_records(image: MetadataImage, topic_id: uuid.UUID, first: int,
                       partitions: list[_Partition]) -> list[tuple[Message, int]]:
    version = partition_record_version(image.metadata_version)
    records = []
    for index, partition in enumerate(partitions, start=first):
        record = PartitionRecord(
            partition_id=index, topic_id=topic_id, replicas=list(partition.replicas),
            isr=list(partition.isr), removing_replicas=[], adding_replicas=[],
            leader=partition.isr[0], leader_recovery_state=RECOVERED, leader_epoch=0,
            partition_epoch=0)
        if directory_assignment_supported(image.metadata_version):
            record.directories = [default_directory(image, b) for b in partition.replicas]
        records.append((record, version))
    return records


def check_manual_assignment(image: MetadataImage, broker_ids: list[int],
                            replication_factor: int | None = None) -> None:
    """Kafka's validateManualPartitionAssignment: a non-empty list of registered brokers,
    each once, and (when given) `replication_factor` of them; BrokerError otherwise. The
    rule of CreateTopics and CreatePartitions assignments and of reassignment targets."""
    if not broker_ids:
        raise BrokerError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                          "The manual partition assignment includes an empty replica list.")
    previous = None
    for broker_id in sorted(broker_ids):
        if broker_id not in image.brokers:
            raise BrokerError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                              f"The manual partition assignment includes broker {broker_id}, "
                              "but no such broker is registered.")
        if broker_id == previous:
            raise BrokerError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                              f"The manual partition assignment includes the broker {previous} "
                              "more than once.")
        previous = broker_id
    if replication_factor is not None and len(broker_ids) != replication_factor:
        raise BrokerError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                          f"The manual partition assignment includes a partition with {len(broker_ids)} "
                          "replica(s), but this is not consistent with previous partitions, which have "
                          f"{replication_factor} replica(s).")


def _manual_partition(image: MetadataImage, broker_ids: list[int], replication_factor: int | None,
                      index: int) -> _Partition:
    check_manual_assignment(image, broker_ids, replication_factor)
    isr = [b for b in broker_ids if is_active(image, b)]
    if not isr:
        raise BrokerError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                          "All brokers specified in the manual partition assignment for partition "
                          f"{index} are fenced or in controlled shutdown.")
    return _Partition(list(broker_ids), isr)


def _placed_partitions(image: MetadataImage, count: int, replication_factor: int,
                       rng: random.Random) -> list[_Partition]:
    try:
        placed = place_replicas(usable_brokers(image), count, replication_factor, rng)
    except PlacementError as e:
        raise BrokerError(ErrorCode.INVALID_REPLICATION_FACTOR,
                          f"Unable to replicate the partition {replication_factor} time(s): {e}") from None
    partitions = []
    for replicas in placed:
        isr = [b for b in replicas if is_active(image, b)]
        if not isr:
            raise BrokerError(ErrorCode.INVALID_REPLICATION_FACTOR,
                              f"Unable to replicate the partition {replication_factor} time(s): All "
                              "brokers are currently fenced or in controlled shutdown.")
        partitions.append(_Partition(replicas, isr))
    return partitions


# ---------------------------------------------------------------------------------------
# CreateTopics


def create_topics(image: MetadataImage, request, settings: TopicSettings,
                  rng: random.Random) -> ControllerResult:
    """CreateTopics (v0-7): the response and the records of the topics it creates."""
    duplicates = JavaHashMap()   # Kafka's HashSet of them, and its order
    for name in _duplicates(t.name for t in request.topics):
        duplicates[name] = True
    topics = [t for t in request.topics if t.name not in duplicates]
    requested = [t for t in topics if t.name != CLUSTER_METADATA_TOPIC]
    if past_deadline(request, bool(requested)):
        return ControllerResult(create_topics_failed(request, REQUEST_TIMED_OUT))

    total_partitions = sum(len(t.assignments) if t.assignments else
                           settings.num_partitions if t.num_partitions == -1 else max(t.num_partitions, 0)
                           for t in requested)
    if total_partitions > MAX_PARTITIONS_PER_BATCH:
        return ControllerResult(create_topics_failed(request, BrokerError(ErrorCode.POLICY_VIOLATION,
                                                                          EXCESSIVE_PARTITIONS_MESSAGE)))

    existing = {_collision_key(name): name for name in image.topics_by_name}
    taken = set(image.topics)
    results: list[TopicResult] = []
    records: list[tuple[Message, int]] = []
    for topic in requested:
        try:
            result, topic_records = _create_topic(image, topic, existing, taken, settings, rng)
        except BrokerError as e:
            results.append(TopicResult(name=topic.name, error_code=e.code, error_message=str(e)))
            continue
        results.append(result)
        records.extend(topic_records)
    if len(records) > MAX_RECORDS_PER_USER_OP:
        return ControllerResult(create_topics_failed(request, BrokerError(ErrorCode.POLICY_VIOLATION,
                                                                          EXCESSIVE_BATCH_MESSAGE)))
    results.extend(TopicResult(name=name, error_code=ErrorCode.INVALID_REQUEST,
                               error_message="Duplicate topic name.") for name in duplicates)
    if any(t.name == CLUSTER_METADATA_TOPIC for t in topics):
        results.append(TopicResult(
            name=CLUSTER_METADATA_TOPIC, error_code=ErrorCode.INVALID_REQUEST,
            error_message=f"Creation of internal topic {CLUSTER_METADATA_TOPIC} is prohibited."))
    if request.validate_only:
        records = []
    for result in results:
        log.info("CreateTopics%s %s: %s", " (validate only)" if request.validate_only else "",
                 result.name, ErrorCode(result.error_code).name)
    return ControllerResult(CreateTopicsResponse(topics=results), records)


def _create_topic(image: MetadataImage, topic, existing: dict[str, str], taken: set[uuid.UUID],
                  settings: TopicSettings, rng: random.Random) -> tuple[TopicResult, list[tuple[Message, int]]]:
    """One topic's result and records, or BrokerError with Kafka's code and message."""
    name = topic.name
    error = None
    try:
        check_topic_name(name)
    except BrokerError as e:
        error = e
    if ("." in name or "_" in name) and _collision_key(name) in existing:
        error = BrokerError(ErrorCode.INVALID_TOPIC_EXCEPTION,
                            f"Topic '{name}' collides with existing topic: {existing[_collision_key(name)]}")
    if name in image.topics_by_name:
        error = BrokerError(ErrorCode.TOPIC_ALREADY_EXISTS, f"Topic '{name}' already exists.")
    if error is not None:
        raise error
    configs = {c.name: c.value for c in topic.configs}
    check_no_null_configs(configs)
    config_records = topic_config_records(image, name, {}, configs)   # refuses over-long values
    check_topic_configs(settings.default_log_config, configs, settings.remote_log_storage_system_enable)

    if topic.assignments:
        if topic.replication_factor != -1:
            raise BrokerError(ErrorCode.INVALID_REQUEST, "A manual partition assignment was specified, "
                                                         "but replication factor was not set to -1.")
        if topic.num_partitions != -1:
            raise BrokerError(ErrorCode.INVALID_REQUEST, "A manual partition assignment was specified, "
                                                         "but numPartitions was not set to -1.")
        by_index: dict[int, _Partition] = {}
        replication_factor = None
        for assignment in topic.assignments:
            if assignment.partition_index in by_index:
                raise BrokerError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                                  "Found multiple manual partition assignments for partition "
                                  f"{assignment.partition_index}")
            by_index[assignment.partition_index] = _manual_partition(
                image, assignment.broker_ids, replication_factor, assignment.partition_index)
            replication_factor = len(assignment.broker_ids)
        if set(by_index) != set(range(len(by_index))):
            raise BrokerError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                              "partitions should be a consecutive 0-based integer sequence")
        partitions = [by_index[i] for i in range(len(by_index))]
    elif topic.replication_factor < -1 or topic.replication_factor == 0:
        raise BrokerError(ErrorCode.INVALID_REPLICATION_FACTOR,
                          "Replication factor must be larger than 0, or -1 to use the default value.")
    elif topic.num_partitions < -1 or topic.num_partitions == 0:
        raise BrokerError(ErrorCode.INVALID_PARTITIONS,
                          "Number of partitions was set to an invalid non-positive value.")
    else:
        num_partitions = settings.num_partitions if topic.num_partitions == -1 else topic.num_partitions
        replication_factor = (settings.default_replication_factor if topic.replication_factor == -1
                              else topic.replication_factor)
        partitions = _placed_partitions(image, num_partitions, replication_factor, rng)

    topic_id = new_topic_id(rng, taken)
    taken.add(topic_id)
    result = TopicResult(
        name=name, topic_id=topic_id, error_code=ErrorCode.NONE, error_message=None,
        topic_config_error_code=ErrorCode.NONE, num_partitions=len(partitions),
        replication_factor=len(partitions[0].replicas),
        configs=[TopicConfig(name=n, value=v, read_only=False, config_source=int(s), is_sensitive=False)
                 for n, v, s in effective_topic_configs(settings.default_log_config,
                                                        settings.static_broker_configs, configs,
                                                        dynamic_topic_defaults(image, settings.node_id))])
    records: list[tuple[Message, int]] = [(TopicRecord(name=name, topic_id=topic_id), TOPIC_RECORD_VERSION)]
    records.extend(config_records)
    records.extend(_partition_records(image, topic_id, 0, partitions))
    return result, records


# ---------------------------------------------------------------------------------------
# DeleteTopics


def delete_topics(image: MetadataImage, request, version: int, settings: TopicSettings,
                  rng: random.Random) -> ControllerResult:
    """DeleteTopics (v0-6) at request version `version`."""
    if not settings.delete_topic_enable:
        code = ErrorCode.INVALID_REQUEST if version < 3 else ErrorCode.TOPIC_DELETION_DISABLED
        return ControllerResult(delete_topics_failed(request, BrokerError(code, None)))

    results: list[DeleteResult] = []

    def answer(name, topic_id, code, message=None):
        results.append(DeleteResult(name=name, topic_id=topic_id, error_code=code, error_message=message))

    names: list[str] = []          # in order, each once
    duplicate_names: list[str] = []
    ids: list[uuid.UUID] = []
    duplicate_ids: list[uuid.UUID] = []

    def add_name(name):
        if name in duplicate_names:
            return
        if name in names:
            names.remove(name)
            duplicate_names.append(name)
        else:
            names.append(name)

    for name in request.topic_names:
        add_name(name)
    for topic in request.topics:
        if topic.name is None:
            if topic.topic_id == ZERO_UUID:
                answer(None, ZERO_UUID, ErrorCode.INVALID_REQUEST, "Neither topic name nor id were specified.")
            elif topic.topic_id in duplicate_ids:
                pass
            elif topic.topic_id in ids:
                ids.remove(topic.topic_id)
                duplicate_ids.append(topic.topic_id)
            else:
                ids.append(topic.topic_id)
        elif topic.topic_id == ZERO_UUID:
            add_name(topic.name)
        else:
            answer(topic.name, topic.topic_id, ErrorCode.INVALID_REQUEST,
                   "You may not specify both topic name and topic id.")
    for name in duplicate_names:
        answer(name, ZERO_UUID, ErrorCode.INVALID_REQUEST, "Duplicate topic name.")
    for topic_id in duplicate_ids:
        answer(None, topic_id, ErrorCode.INVALID_REQUEST, "Duplicate topic id.")
    if past_deadline(request, bool(names or ids)):
        return ControllerResult(delete_topics_failed(request, REQUEST_TIMED_OUT))

    to_delete: dict[uuid.UUID, str] = {}
    for topic_id in ids:
        topic = image.topics.get(topic_id)
        if topic is None:
            answer(None, topic_id, ErrorCode.UNKNOWN_TOPIC_ID, ErrorCode.UNKNOWN_TOPIC_ID.message)
        else:
            to_delete[topic_id] = topic.name
    for name in names:
        topic = image.topics_by_name.get(name)
        if topic is None:
            answer(name, ZERO_UUID, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                   ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.message)
        elif topic.topic_id in duplicate_ids or topic.topic_id in to_delete:
            duplicate_ids.append(topic.topic_id)
            to_delete.pop(topic.topic_id, None)
            answer(name, topic.topic_id, ErrorCode.INVALID_REQUEST,
                   "The provided topic name maps to an ID that was already supplied.")
        else:
            to_delete[topic.topic_id] = name

    records: list[tuple[Message, int]] = []
    for topic_id, name in to_delete.items():
        records.append((RemoveTopicRecord(topic_id=topic_id), REMOVE_TOPIC_RECORD_VERSION))
        answer(name, topic_id, ErrorCode.NONE)
        log.info("DeleteTopics %s (%s)", name, topic_id)
    rng.shuffle(results)
    return ControllerResult(DeleteTopicsResponse(responses=results), records)


# ---------------------------------------------------------------------------------------
# CreatePartitions


def create_partitions(image: MetadataImage, request, rng: random.Random) -> ControllerResult:
    """CreatePartitions (v0-3). Kafka's ControllerApis collects the names in HashSets (each
    name, the duplicated ones) and answers in their order: the duplicated names first, then
    each other topic (the first entry of its name)."""
    names, duplicates = JavaHashMap(), JavaHashMap()
    for topic in request.topics:
        if topic.name in names:
            duplicates[topic.name] = True
        else:
            names[topic.name] = topic
    if past_deadline(request, any(name not in duplicates for name in names)):
        return ControllerResult(create_partitions_failed(request, REQUEST_TIMED_OUT))
    results = [PartitionsResult(name=name, error_code=ErrorCode.INVALID_REQUEST,
                                error_message="Duplicate topic name.") for name in duplicates]
    records: list[tuple[Message, int]] = []
    budget = MAX_RECORDS_PER_USER_OP
    for topic in names.values():
        if topic.name in duplicates:
            continue
        try:
            topic_records = _new_partitions(image, topic, rng, budget)
        except BrokerError as e:
            results.append(PartitionsResult(name=topic.name, error_code=e.code, error_message=e.message))
            continue
        if len(topic_records) > budget:
            # Kafka adds the records to a list bounded by the budget; the add past it throws
            # an exception its per-topic catch takes as unexpected, and the records added
            # before stay in the batch, which commits: the topic grows by what was left.
            records.extend(topic_records[:budget])
            results.append(PartitionsResult(name=topic.name, error_code=ErrorCode.UNKNOWN_SERVER_ERROR,
                                            error_message=None))
            log.warning("CreatePartitions %s: more than the %d records one request may write; %d new "
                        "partition(s) kept%s, as Kafka keeps them", topic.name, MAX_RECORDS_PER_USER_OP,
                        budget, " (validate only: none)" if request.validate_only else "")
            budget = 0
            continue
        budget -= len(topic_records)
        records.extend(topic_records)
        results.append(PartitionsResult(name=topic.name, error_code=ErrorCode.NONE, error_message=None))
        log.info("CreatePartitions %s: now %d partition(s)%s", topic.name, topic.count,
                 " (validate only)" if request.validate_only else "")
    return ControllerResult(CreatePartitionsResponse(results=results),
                            [] if request.validate_only else records)


def _new_partitions(image: MetadataImage, topic, rng: random.Random, budget: int) -> list[tuple[Message, int]]:
    """The PartitionRecords of the partitions `topic` asks for, or BrokerError. At most
    `budget` + 1 partitions are placed: one more than the request may still add is enough
    for the caller to refuse it, and a count of 2^31 - 1 costs no more than that."""
    info = image.topics_by_name.get(topic.name)
    if info is None:   # Kafka's answer carries no message
        raise BrokerError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, None)
    current = len(info.partitions)
    if topic.count == current:
        raise BrokerError(ErrorCode.INVALID_PARTITIONS, f"Topic already has {current} partition(s).")
    if topic.count < current:
        raise BrokerError(ErrorCode.INVALID_PARTITIONS,
                          f"The topic {topic.name} currently has {current} partition(s); {topic.count} "
                          "would not be an increase.")
    additional = topic.count - current
    if topic.assignments is not None and len(topic.assignments) != additional:
        raise BrokerError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                          f"Attempted to add {additional} additional partition(s), but only "
                          f"{len(topic.assignments)} assignment(s) were specified.")
    if not info.partitions:
        raise BrokerError(ErrorCode.UNKNOWN_SERVER_ERROR,
                          f"Invalid state: topic {topic.name} appears to have no partitions.")
    replication_factor = len(info.partitions[min(info.partitions)].replicas)
    if topic.assignments is not None:
        partitions = [_manual_partition(image, a.broker_ids, replication_factor, current + i)
                      for i, a in enumerate(topic.assignments)]
    else:
        partitions = _placed_partitions(image, min(additional, budget + 1), replication_factor, rng)
    return _partition_records(image, info.topic_id, current, partitions)
