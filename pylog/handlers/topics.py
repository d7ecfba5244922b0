"""CreateTopics (key 19), DeleteTopics (key 20), CreatePartitions (key 37).

pylog is a one-node cluster and its own controller, so these follow Kafka's KRaft
controller (`ControllerApis`, `ReplicationControlManager`) with one registered broker.
Everything happens before the response is sent: `timeout_ms` has nothing to wait for.

CreateTopics, per topic, checked in Kafka's order:
  a name given twice in one request: INVALID_REQUEST ("Duplicate topic name.", one result
  for the name, after the others); `__cluster_metadata`: TOPIC_AUTHORIZATION_FAILED (Kafka
  removes it from the request the same way); an illegal name, or one that differs from an
  existing topic's only by '.' versus '_': INVALID_TOPIC_EXCEPTION; an existing topic:
  TOPIC_ALREADY_EXISTS; a null config value, an unknown config name or a bad value:
  INVALID_CONFIG (validated through LogConfig, with Kafka's messages); then the layout:
  - manual `assignments` need num_partitions = replication_factor = -1 (else
    INVALID_REQUEST); each partition at most once, a non-empty list of registered
    brokers (only this node) each named once, the same count for every partition,
    partitions 0..n-1 (else INVALID_REPLICA_ASSIGNMENT);
  - otherwise replication_factor 0 or < -1: INVALID_REPLICATION_FACTOR; num_partitions 0
    or < -1: INVALID_PARTITIONS; -1 means `default.replication.factor` /
    `num.partitions`; a replication factor above 1: INVALID_REPLICATION_FACTOR ("Unable to
    replicate the partition 3 time(s): The target replication factor of 3 cannot be
    reached because only 1 broker(s) are registered.").
  A request whose topics would need more than 10,000 metadata records (one per topic, per
  partition and per config; Kafka's MAX_RECORDS_PER_USER_OP) fails as a whole with
  POLICY_VIOLATION. `validate_only` runs every check and creates nothing (the result still
  carries a fresh topic id, as Kafka's does). v5+ results carry the partition count, the
  replication factor and every topic config with its source; v7 the topic id.

DeleteTopics (v0-5, by name): `delete.topic.enable=false` fails every topic (INVALID_REQUEST
before v3, TOPIC_DELETION_DISABLED from v3), a name given twice: INVALID_REQUEST, unknown:
UNKNOWN_TOPIC_OR_PARTITION. The partition directories are removed at once. Internal
topics are not special: Kafka's controller deletes them too (only its command-line tool
refuses). v6 (topic ids) is not served.

CreatePartitions: a name given twice: INVALID_REQUEST; unknown: UNKNOWN_TOPIC_OR_PARTITION;
a count that does not grow the topic: INVALID_PARTITIONS; `assignments` (when not null)
need one entry per new partition, each a valid replica list as above
(INVALID_REPLICA_ASSIGNMENT); more than 10,000 new partitions in one request:
POLICY_VIOLATION; `validate_only` changes nothing.
"""

from __future__ import annotations

import logging
import uuid

from protocol.error_codes import ErrorCode
from protocol.messages import CreatePartitionsResponse, CreateTopicsResponse, DeleteTopicsResponse

from pylog.dispatch import Api
from pylog.errors import BrokerError, error_code_for
from pylog.handlers.configs import check_topic_configs, effective_topic_configs
from pylog.metadata import topic_name_problem

log = logging.getLogger("pylog.topics")

CREATE_TOPICS_KEY = 19
DELETE_TOPICS_KEY = 20
CREATE_PARTITIONS_KEY = 37

MAX_RECORDS_PER_USER_OP = 10_000
EXCESSIVE_BATCH_MESSAGE = "Unable to perform excessively large batch operation."
CLUSTER_METADATA_TOPIC = "__cluster_metadata"

TopicResult = CreateTopicsResponse.CreatableTopicResult
TopicConfig = CreateTopicsResponse.CreatableTopicConfigs
DeleteResult = DeleteTopicsResponse.DeletableTopicResult
PartitionsResult = CreatePartitionsResponse.CreatePartitionsTopicResult


def apis(broker) -> list[Api]:
    """The topic administration APIs, for `Broker._apis()`."""
    return [
        Api(CREATE_TOPICS_KEY, 0, 7, make_create_topics_handler(broker)),
        Api(DELETE_TOPICS_KEY, 0, 5, make_delete_topics_handler(broker)),
        Api(CREATE_PARTITIONS_KEY, 0, 3, make_create_partitions_handler(broker)),
    ]


def _duplicates(names) -> list:
    seen, repeated = set(), []
    for name in names:
        if name in seen and name not in repeated:
            repeated.append(name)
        seen.add(name)
    return repeated


def _collision_key(name: str) -> str:
    return name.replace(".", "_")


def _apply(what: str, fn, *args):
    """Call a broker method; an unexpected failure (a disk error, say) becomes a per-topic
    error instead of closing the connection."""
    try:
        return fn(*args)
    except BrokerError:
        raise
    except Exception as e:
        log.exception("%s failed", what)
        raise BrokerError(error_code_for(e), f"{what} failed: {e}") from e


# ---------------------------------------------------------------------------------------
# CreateTopics


def make_create_topics_handler(broker):
    async def handle(request, context) -> CreateTopicsResponse:
        duplicates = _duplicates(t.name for t in request.topics)
        topics = [t for t in request.topics if t.name not in duplicates]
        requested = [t for t in topics if t.name != CLUSTER_METADATA_TOPIC]
        existing = {_collision_key(name): name for name in broker.metadata.topics}

        plans: dict[str, tuple[int, dict[str, str]] | BrokerError] = {}
        for topic in requested:
            try:
                plans[topic.name] = _plan_topic(broker, topic, existing)
            except BrokerError as e:
                plans[topic.name] = e

        records = sum(1 + plan[0] + len(plan[1]) for plan in plans.values()
                      if not isinstance(plan, BrokerError))
        if records > MAX_RECORDS_PER_USER_OP:
            failure = BrokerError(ErrorCode.POLICY_VIOLATION, EXCESSIVE_BATCH_MESSAGE)
            return CreateTopicsResponse(topics=[_failed(t.name, failure) for t in request.topics])

        results = []
        for topic in requested:
            plan = plans[topic.name]
            if isinstance(plan, BrokerError):
                results.append(_failed(topic.name, plan))
                continue
            num_partitions, configs = plan
            if request.validate_only:
                topic_id = uuid.uuid4()
            else:
                try:
                    topic_id = _apply(f"creating topic {topic.name}", broker.create_topic, topic.name,
                                      num_partitions, configs).topic_id
                except BrokerError as e:
                    results.append(_failed(topic.name, e))
                    continue
            results.append(_created(broker, topic.name, topic_id, num_partitions, configs))
        results.extend(_failed(name, BrokerError(ErrorCode.INVALID_REQUEST, "Duplicate topic name."))
                       for name in duplicates)
        if any(t.name == CLUSTER_METADATA_TOPIC for t in topics):
            log.info("refusing to create internal topic %s", CLUSTER_METADATA_TOPIC)
            results.append(_failed(CLUSTER_METADATA_TOPIC, BrokerError(
                ErrorCode.TOPIC_AUTHORIZATION_FAILED, "Authorization failed.")))
        return CreateTopicsResponse(topics=results)

    return handle


def _plan_topic(broker, topic, existing: dict[str, str]) -> tuple[int, dict[str, str]]:
    """(partition count, config overrides) of a topic CreateTopics may create, or
    BrokerError with Kafka's code and message."""
    name = topic.name
    problem = topic_name_problem(name)
    if problem:
        raise BrokerError(ErrorCode.INVALID_TOPIC_EXCEPTION, problem)
    if name in broker.metadata.topics:
        raise BrokerError(ErrorCode.TOPIC_ALREADY_EXISTS, f"Topic '{name}' already exists.")
    if ("." in name or "_" in name) and _collision_key(name) in existing:
        raise BrokerError(ErrorCode.INVALID_TOPIC_EXCEPTION,
                          f"Topic '{name}' collides with existing topic: {existing[_collision_key(name)]}")
    configs = {c.name: c.value for c in topic.configs}
    check_topic_configs(broker, configs)
    if topic.assignments:
        if topic.replication_factor != -1:
            raise BrokerError(ErrorCode.INVALID_REQUEST, "A manual partition assignment was specified, "
                                                         "but replication factor was not set to -1.")
        if topic.num_partitions != -1:
            raise BrokerError(ErrorCode.INVALID_REQUEST, "A manual partition assignment was specified, "
                                                         "but numPartitions was not set to -1.")
        partitions: set[int] = set()
        replication_factor = None
        for assignment in topic.assignments:
            if assignment.partition_index in partitions:
                raise BrokerError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                                  "Found multiple manual partition assignments for partition "
                                  f"{assignment.partition_index}")
            _check_replicas(broker, assignment.broker_ids, replication_factor)
            replication_factor = len(assignment.broker_ids)
            partitions.add(assignment.partition_index)
        if partitions != set(range(len(partitions))):
            raise BrokerError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                              "partitions should be a consecutive 0-based integer sequence")
        return len(partitions), configs
    if topic.replication_factor < -1 or topic.replication_factor == 0:
        raise BrokerError(ErrorCode.INVALID_REPLICATION_FACTOR,
                          "Replication factor must be larger than 0, or -1 to use the default value.")
    if topic.num_partitions < -1 or topic.num_partitions == 0:
        raise BrokerError(ErrorCode.INVALID_PARTITIONS,
                          "Number of partitions was set to an invalid non-positive value.")
    num_partitions = broker.config.num_partitions if topic.num_partitions == -1 else topic.num_partitions
    replication_factor = (broker.config.default_replication_factor if topic.replication_factor == -1
                          else topic.replication_factor)
    if replication_factor > 1:
        raise BrokerError(ErrorCode.INVALID_REPLICATION_FACTOR,
                          f"Unable to replicate the partition {replication_factor} time(s): The target "
                          f"replication factor of {replication_factor} cannot be reached because only "
                          "1 broker(s) are registered.")
    return num_partitions, configs


def _check_replicas(broker, broker_ids: list[int], replication_factor: int | None) -> None:
    """Kafka's validateManualPartitionAssignment, with this node the only broker."""
    if not broker_ids:
        raise BrokerError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                          "The manual partition assignment includes an empty replica list.")
    previous = None
    for broker_id in sorted(broker_ids):
        if broker_id != broker.node_id:
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


def _failed(name: str, error: BrokerError) -> TopicResult:
    return TopicResult(name=name, error_code=error.code, error_message=str(error))


def _created(broker, name: str, topic_id: uuid.UUID, num_partitions: int,
             configs: dict[str, str]) -> TopicResult:
    return TopicResult(
        name=name, topic_id=topic_id, error_code=ErrorCode.NONE, error_message=None,
        num_partitions=num_partitions, replication_factor=1,
        configs=[TopicConfig(name=n, value=v, read_only=False, config_source=int(s), is_sensitive=False)
                 for n, v, s in effective_topic_configs(broker, configs)])


# ---------------------------------------------------------------------------------------
# DeleteTopics


def make_delete_topics_handler(broker):
    async def handle(request, context) -> DeleteTopicsResponse:
        version = context.api_version
        names = list(request.topic_names)
        if not broker.config.delete_topic_enable:
            if version < 3:
                error = BrokerError(ErrorCode.INVALID_REQUEST, "Topic deletion is disabled.")
            else:
                error = BrokerError(ErrorCode.TOPIC_DELETION_DISABLED, "Topic deletion is disabled.")
            return DeleteTopicsResponse(responses=[
                DeleteResult(name=name, error_code=error.code, error_message=str(error)) for name in names])
        duplicates = _duplicates(names)
        results = []
        for name in names:
            if name in duplicates:
                continue
            topic = broker.metadata.topics.get(name)
            if topic is None:  # Kafka's controller: ApiError(UNKNOWN_TOPIC_OR_PARTITION), the default text
                results.append(DeleteResult(name=name, error_code=ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                                            error_message=ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.message))
                continue
            try:
                _apply(f"deleting topic {name}", broker.delete_topic, name)
            except BrokerError as e:
                results.append(DeleteResult(name=name, error_code=e.code, error_message=str(e)))
                continue
            results.append(DeleteResult(name=name, topic_id=topic.topic_id, error_code=ErrorCode.NONE))
        results.extend(DeleteResult(name=name, error_code=ErrorCode.INVALID_REQUEST,
                                    error_message="Duplicate topic name.") for name in duplicates)
        return DeleteTopicsResponse(responses=results)

    return handle


# ---------------------------------------------------------------------------------------
# CreatePartitions


def make_create_partitions_handler(broker):
    async def handle(request, context) -> CreatePartitionsResponse:
        duplicates = _duplicates(t.name for t in request.topics)
        results = [PartitionsResult(name=name, error_code=ErrorCode.INVALID_REQUEST,
                                    error_message="Duplicate topic name.") for name in duplicates]
        budget = MAX_RECORDS_PER_USER_OP
        for topic in request.topics:
            if topic.name in duplicates:
                continue
            try:
                additional = _check_new_partitions(broker, topic)
                if additional > budget:
                    raise BrokerError(ErrorCode.POLICY_VIOLATION, EXCESSIVE_BATCH_MESSAGE)
                budget -= additional
                if not request.validate_only:
                    _apply(f"adding partitions to {topic.name}", broker.create_partitions, topic.name,
                           topic.count)
                    log.info("topic %s now has %d partitions", topic.name, topic.count)
            except BrokerError as e:
                results.append(PartitionsResult(name=topic.name, error_code=e.code, error_message=str(e)))
            else:
                results.append(PartitionsResult(name=topic.name, error_code=ErrorCode.NONE))
        return CreatePartitionsResponse(results=results)

    return handle


def _check_new_partitions(broker, topic) -> int:
    """How many partitions the request adds to `topic`, or BrokerError."""
    info = broker.metadata.topics.get(topic.name)
    if info is None:  # the code's default text: what Kafka's clients show for Kafka's answer
        raise BrokerError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
    current = info.num_partitions
    if topic.count == current:
        raise BrokerError(ErrorCode.INVALID_PARTITIONS, f"Topic already has {current} partition(s).")
    if topic.count < current:
        raise BrokerError(ErrorCode.INVALID_PARTITIONS,
                          f"The topic {topic.name} currently has {current} partition(s); {topic.count} "
                          "would not be an increase.")
    additional = topic.count - current
    if topic.assignments is not None:
        if len(topic.assignments) != additional:
            raise BrokerError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                              f"Attempted to add {additional} additional partition(s), but only "
                              f"{len(topic.assignments)} assignment(s) were specified.")
        for assignment in topic.assignments:
            _check_replicas(broker, assignment.broker_ids, 1)
    return additional
