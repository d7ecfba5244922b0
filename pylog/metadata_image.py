"""The cluster's metadata as KRaft keeps it in memory: the image built by replaying the
records of `__cluster_metadata` in log order (Kafka's `MetadataDelta` / `MetadataImage`).

    image = MetadataImage()
    for batch in batches:                      # protocol.metadata_log.read_metadata_batch
        header, entries = read_metadata_batch(batch)
        image.apply_batch(header.partition_leader_epoch, entries)
    image.topics_by_name["orders"].partitions[0].leader

What the image holds, and the record that changes each part:

    brokers       node id -> BrokerRegistration            RegisterBrokerRecord (replaces),
                  UnregisterBrokerRecord (removes), BrokerRegistrationChangeRecord,
                  FenceBrokerRecord / UnfenceBrokerRecord (both check the broker epoch)
    controllers   node id -> ControllerRegistration        RegisterControllerRecord
    topics        topic id -> TopicImage, and by name      TopicRecord, RemoveTopicRecord
      partitions  partition id -> PartitionRegistration    PartitionRecord (replaces),
                                                           PartitionChangeRecord (merges),
                                                           ClearElrRecord
    configs       (resource type, name) -> {key: value}    ConfigRecord (value null deletes;
                  a resource with no key left goes),       RemoveTopicRecord (the topic's)
    features      name -> finalized level                  FeatureLevelRecord (level 0
                  (metadata.version kept apart, kraft.version ignored: Raft owns it)  removes)
    next_producer_id                                       ProducerIdsRecord
    scram         (user, mechanism) -> ScramCredential     UserScramCredentialRecord (replaces),
                                                           RemoveUserScramCredentialRecord

The partition epoch rules (`PartitionRegistration.merge`): a PartitionRecord sets both epochs
as written; every PartitionChangeRecord adds 1 to the partition epoch, and adds 1 to the
leader epoch exactly when its Leader is not -2 ("no change", the tagged default) — a new
leader, the same leader again (an epoch bump), or none (-1). Fields it leaves null keep their
value; LeaderRecoveryState -1 keeps the state. Directories of a partition are the UUID 0
("migrating") for every replica until a record names them.

Metadata transactions: the records between a BeginTransactionRecord and its
EndTransactionRecord are applied together at the end; an AbortTransactionRecord drops them
(Kafka's `MetadataBatchLoader`). A nested Begin, or an End or Abort outside a transaction,
is an error.

A record the current image cannot take (fencing a broker that is not registered or whose
epoch differs, a partition of an unknown topic, removing an unknown topic, a field value
outside its enumeration) raises `MetadataImageError`, and the image is then as it was
before that record. `apply_batch(..., on_record_fault=f)` reports such a record to `f` and
goes on with the next (a broker's metadata loader, which Kafka does not stop for it).
Raft's control records (LeaderChange, snapshot header and footer, KRaft version, voters)
move only `offset` and `epoch`.

The image is a plain in-memory structure, no I/O; one owner mutates it (the metadata
loader), which serializes access. Registrations are frozen: a change replaces the object,
so a reader holding the previous one can compare.
"""

from __future__ import annotations

import uuid
from typing import Callable, Iterable, NamedTuple

from protocol.metadata import PartitionChangeRecord
from protocol.metadata_log import MetadataEntry
from protocol.schema import Message

NO_LEADER = -1
NO_LEADER_CHANGE = -2
MIGRATING_DIRECTORY = uuid.UUID(int=0)
METADATA_VERSION_FEATURE = "metadata.version"
KRAFT_VERSION_FEATURE = "kraft.version"

# LeaderRecoveryState
RECOVERED = 0
RECOVERING = 1
NO_RECOVERY_STATE_CHANGE = -1

# BrokerRegistrationChangeRecord.Fenced and .InControlledShutdown
FENCE = 1
UNFENCE = -1
NO_CHANGE = 0
IN_CONTROLLED_SHUTDOWN = 1

# ConfigRecord.ResourceType (Kafka's ConfigResource.Type ids)
TOPIC_RESOURCE = 2
BROKER_RESOURCE = 4


class MetadataImageError(ValueError):
    """A record that the image cannot apply in its current state."""


class Endpoint(NamedTuple):
    name: str
    host: str
    port: int
    security_protocol: int


class BrokerRegistration(NamedTuple):
    broker_id: int
    epoch: int
    incarnation_id: uuid.UUID
    endpoints: tuple[Endpoint, ...]
    supported_features: tuple[tuple[str, int, int], ...]   # (name, min, max)
    rack: str | None
    fenced: bool
    in_controlled_shutdown: bool
    is_migrating_zk_broker: bool = False
    directories: tuple[uuid.UUID, ...] = ()                # sorted, as Kafka keeps them

    def endpoint(self, listener: str) -> Endpoint | None:
        return next((e for e in self.endpoints if e.name == listener), None)

    def endpoint_or_first(self, listener: str) -> Endpoint | None:
        """Where to reach this broker from `listener`'s side: that listener's endpoint,
        else the first one it registered (None: it registered none)."""
        return self.endpoint(listener) or (self.endpoints[0] if self.endpoints else None)


class ControllerRegistration(NamedTuple):
    controller_id: int
    incarnation_id: uuid.UUID
    zk_migration_ready: bool
    endpoints: tuple[Endpoint, ...]
    supported_features: tuple[tuple[str, int, int], ...]


class ScramCredential(NamedTuple):
    """A user's SCRAM credential for one mechanism (1 SCRAM-SHA-256, 2 SCRAM-SHA-512): what
    a SCRAM server keeps, never the password."""
    salt: bytes
    stored_key: bytes
    server_key: bytes
    iterations: int


class PartitionRegistration(NamedTuple):
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    leader: int
    leader_epoch: int
    partition_epoch: int
    removing_replicas: tuple[int, ...] = ()
    adding_replicas: tuple[int, ...] = ()
    leader_recovery_state: int = RECOVERED
    directories: tuple[uuid.UUID, ...] = ()
    elr: tuple[int, ...] = ()
    last_known_elr: tuple[int, ...] = ()

    @classmethod
    def from_record(cls, record) -> PartitionRegistration:
        """A partition as a PartitionRecord states it."""
        replicas = tuple(record.replicas)
        return cls(
            replicas=replicas,
            isr=tuple(record.isr),
            leader=record.leader,
            leader_epoch=record.leader_epoch,
            partition_epoch=record.partition_epoch,
            removing_replicas=tuple(record.removing_replicas),
            adding_replicas=tuple(record.adding_replicas),
            leader_recovery_state=_recovery_state(record.leader_recovery_state),
            directories=_directories(record.directories, len(replicas)),
            elr=tuple(record.eligible_leader_replicas or ()),
            last_known_elr=tuple(record.last_known_elr or ()),
        )

    def merge(self, change) -> PartitionRegistration:
        """This partition after a PartitionChangeRecord (the epoch rules of the docstring)."""
        replicas = self.replicas if change.replicas is None else tuple(change.replicas)
        directories = self.directories if change.directories is None else change.directories
        if change.leader == NO_LEADER_CHANGE:
            leader, leader_epoch = self.leader, self.leader_epoch
        else:
            leader, leader_epoch = change.leader, self.leader_epoch + 1
        recovery = self.leader_recovery_state
        if change.leader_recovery_state != NO_RECOVERY_STATE_CHANGE:
            recovery = _recovery_state(change.leader_recovery_state)
        return PartitionRegistration(
            replicas=replicas,
            isr=self.isr if change.isr is None else tuple(change.isr),
            leader=leader,
            leader_epoch=leader_epoch,
            partition_epoch=self.partition_epoch + 1,
            removing_replicas=_keep(self.removing_replicas, change.removing_replicas),
            adding_replicas=_keep(self.adding_replicas, change.adding_replicas),
            leader_recovery_state=recovery,
            directories=_directories(directories, len(replicas)),
            elr=_keep(self.elr, change.eligible_leader_replicas),
            last_known_elr=_keep(self.last_known_elr, change.last_known_elr),
        )


class TopicImage:
    __slots__ = ("name", "topic_id", "partitions")

    def __init__(self, name: str, topic_id: uuid.UUID, partitions: dict[int, PartitionRegistration] | None = None):
        self.name = name
        self.topic_id = topic_id
        self.partitions = {} if partitions is None else partitions


def _keep(current: tuple[int, ...], given) -> tuple[int, ...]:
    return current if given is None else tuple(given)


def _recovery_state(value: int) -> int:
    if value not in (RECOVERED, RECOVERING):
        raise MetadataImageError(f"unknown leader recovery state {value}")
    return value


def _directories(directories, replica_count: int) -> tuple[uuid.UUID, ...]:
    """Kafka's `defaultToMigrating`: none named (or all "migrating") -> migrating for each
    replica; otherwise one per replica."""
    directories = tuple(directories or ())
    if all(d == MIGRATING_DIRECTORY for d in directories):
        return (MIGRATING_DIRECTORY,) * replica_count
    if len(directories) != replica_count:
        raise MetadataImageError(f"{len(directories)} directories for {replica_count} replicas")
    return directories


def _endpoints(records) -> tuple[Endpoint, ...]:
    return tuple(Endpoint(e.name, e.host, e.port, e.security_protocol) for e in records)


def _features(records) -> tuple[tuple[str, int, int], ...]:
    return tuple((f.name, f.min_supported_version, f.max_supported_version) for f in records)


class MetadataImage:
    """Everything the metadata log says, as of `offset` (the last record read, -1 before
    any; the records of a transaction still open are read but held back) written in Raft
    epoch `epoch`."""

    def __init__(self):
        self.brokers: dict[int, BrokerRegistration] = {}
        self.controllers: dict[int, ControllerRegistration] = {}
        self.topics: dict[uuid.UUID, TopicImage] = {}
        self.topics_by_name: dict[str, TopicImage] = {}
        self.configs: dict[tuple[int, str], dict[str, str]] = {}
        self.features: dict[str, int] = {}
        self.metadata_version: int | None = None
        self.next_producer_id = 0
        self.scram: dict[tuple[str, int], ScramCredential] = {}
        self.offset = -1
        self.epoch = -1
        self._transaction: list[Message] | None = None

    @property
    def in_transaction(self) -> bool:
        return self._transaction is not None

    def topic_configs(self, name: str) -> dict[str, str]:
        return self.configs.get((TOPIC_RESOURCE, name), {})

    # -- applying the log --------------------------------------------------------------

    def apply_batch(self, epoch: int, entries: Iterable[MetadataEntry],
                    on_record_fault: Callable[[int, MetadataImageError], None] | None = None) -> None:
        """Apply one batch's entries (`protocol.metadata_log.read_metadata_batch`), written
        in Raft epoch `epoch` (the batch's PartitionLeaderEpoch). A record the image cannot
        apply raises MetadataImageError, the image keeping the batch's records before it;
        with `on_record_fault`, the record's offset and the error go to it instead, the
        record is skipped (each record is applied whole or not at all) and the batch goes on."""
        for entry in entries:
            if entry.offset <= self.offset:
                raise MetadataImageError(f"offset {entry.offset} is not after {self.offset}")
            if entry.control_type is None:
                try:
                    self.replay(entry.record)
                except MetadataImageError as error:
                    if on_record_fault is None:
                        raise
                    on_record_fault(entry.offset, error)
            self.offset = entry.offset
            self.epoch = epoch

    def replay(self, record: Message) -> None:
        """Apply one metadata record (a class of `protocol.metadata`)."""
        name = record.schema_name
        if name == "BeginTransactionRecord":
            if self._transaction is not None:
                raise MetadataImageError("BeginTransactionRecord inside a transaction")
            self._transaction = []
        elif name == "EndTransactionRecord":
            pending = self._end_transaction(name)
            self._apply_all(pending)
        elif name == "AbortTransactionRecord":
            self._end_transaction(name)
        elif self._transaction is not None:
            self._transaction.append(record)
        else:
            self._apply_all([record])

    def _end_transaction(self, name: str) -> list[Message]:
        if self._transaction is None:
            raise MetadataImageError(f"{name} outside a transaction")
        pending, self._transaction = self._transaction, None
        return pending

    def _apply_all(self, records: list[Message]) -> None:
        """Apply `records`, all or none."""
        if len(records) > 1:
            saved = self._snapshot()
            try:
                for record in records:
                    self._apply(record)
            except MetadataImageError:
                self._restore(saved)
                raise
        elif records:
            self._apply(records[0])

    def _snapshot(self) -> tuple:
        topics = {topic_id: TopicImage(t.name, t.topic_id, dict(t.partitions)) for topic_id, t in self.topics.items()}
        return (dict(self.brokers), dict(self.controllers), topics,
                {key: dict(values) for key, values in self.configs.items()}, dict(self.features),
                self.metadata_version, self.next_producer_id, dict(self.scram))

    def _restore(self, saved: tuple) -> None:
        (self.brokers, self.controllers, self.topics, self.configs, self.features,
         self.metadata_version, self.next_producer_id, self.scram) = saved
        self.topics_by_name = {t.name: t for t in self.topics.values()}

    def _apply(self, record: Message) -> None:
        handler = _HANDLERS.get(record.schema_name)
        if handler is not None:
            handler(self, record)
        # every other record type (ACLs, quotas, delegation tokens, NoOp, ZK migration
        # state) changes nothing this image keeps

    # -- brokers and controllers -------------------------------------------------------

    def _register_broker(self, r) -> None:
        self.brokers[r.broker_id] = BrokerRegistration(
            broker_id=r.broker_id, epoch=r.broker_epoch, incarnation_id=r.incarnation_id,
            endpoints=_endpoints(r.end_points), supported_features=_features(r.features),
            rack=r.rack, fenced=r.fenced, in_controlled_shutdown=r.in_controlled_shutdown,
            is_migrating_zk_broker=r.is_migrating_zk_broker, directories=tuple(sorted(r.log_dirs)))

    def _unregister_broker(self, r) -> None:
        self.brokers.pop(r.broker_id, None)

    def _registered(self, broker_id: int, epoch: int, action: str) -> BrokerRegistration:
        broker = self.brokers.get(broker_id)
        if broker is None:
            raise MetadataImageError(f"cannot {action} broker {broker_id}: not registered")
        if broker.epoch != epoch:
            raise MetadataImageError(f"cannot {action} broker {broker_id}: epoch {epoch}, "
                                     f"registered with {broker.epoch}")
        return broker

    def _fence_broker(self, r) -> None:
        self.brokers[r.id] = self._registered(r.id, r.epoch, "fence")._replace(fenced=True)

    def _unfence_broker(self, r) -> None:
        self.brokers[r.id] = self._registered(r.id, r.epoch, "unfence")._replace(fenced=False)

    def _change_broker(self, r) -> None:
        broker = self._registered(r.broker_id, r.broker_epoch, "change")
        if r.fenced not in (FENCE, NO_CHANGE, UNFENCE):
            raise MetadataImageError(f"unknown fencing change {r.fenced}")
        if r.in_controlled_shutdown not in (NO_CHANGE, IN_CONTROLLED_SHUTDOWN):
            raise MetadataImageError(f"unknown controlled shutdown change {r.in_controlled_shutdown}")
        changes = {}
        if r.fenced != NO_CHANGE:
            changes["fenced"] = r.fenced == FENCE
        if r.in_controlled_shutdown == IN_CONTROLLED_SHUTDOWN:
            changes["in_controlled_shutdown"] = True
        if r.log_dirs:
            changes["directories"] = tuple(sorted(r.log_dirs))
        self.brokers[r.broker_id] = broker._replace(**changes)

    def _register_controller(self, r) -> None:
        self.controllers[r.controller_id] = ControllerRegistration(
            controller_id=r.controller_id, incarnation_id=r.incarnation_id,
            zk_migration_ready=r.zk_migration_ready, endpoints=_endpoints(r.end_points),
            supported_features=_features(r.features))

    # -- topics and partitions ---------------------------------------------------------

    def _topic(self, topic_id: uuid.UUID) -> TopicImage:
        topic = self.topics.get(topic_id)
        if topic is None:
            raise MetadataImageError(f"no topic with id {topic_id}")
        return topic

    def _add_topic(self, r) -> None:
        previous = self.topics_by_name.get(r.name)
        if previous is not None and previous.topic_id != r.topic_id:
            raise MetadataImageError(f"topic {r.name} exists with id {previous.topic_id}")
        topic = TopicImage(r.name, r.topic_id)
        self.topics[r.topic_id] = topic
        self.topics_by_name[r.name] = topic

    def _remove_topic(self, r) -> None:
        topic = self._topic(r.topic_id)
        del self.topics[r.topic_id]
        del self.topics_by_name[topic.name]
        self.configs.pop((TOPIC_RESOURCE, topic.name), None)

    def _set_partition(self, r) -> None:
        topic = self._topic(r.topic_id)
        topic.partitions[r.partition_id] = PartitionRegistration.from_record(r)

    def _change_partition(self, r) -> None:
        topic = self._topic(r.topic_id)
        partition = topic.partitions.get(r.partition_id)
        if partition is None:
            raise MetadataImageError(f"no partition {r.partition_id} in topic {topic.name}")
        if r.replicas is not None and r.directories and len(r.directories) != len(r.replicas):
            raise MetadataImageError(f"{len(r.directories)} directories for {len(r.replicas)} replicas")
        topic.partitions[r.partition_id] = partition.merge(r)

    def _clear_elr(self, r) -> None:
        if r.topic_name:
            topic = self.topics_by_name.get(r.topic_name)
            if topic is None:
                raise MetadataImageError(f"cannot clear the ELR of topic {r.topic_name}: no such topic")
            topics = [topic]
        else:
            topics = list(self.topics.values())
        for topic in topics:
            for partition_id, partition in list(topic.partitions.items()):
                if partition.elr or partition.last_known_elr:
                    clear = PartitionChangeRecord(partition_id=partition_id, topic_id=topic.topic_id,
                                                  eligible_leader_replicas=[], last_known_elr=[])
                    topic.partitions[partition_id] = partition.merge(clear)

    # -- configs, features, producer ids -----------------------------------------------

    def _set_config(self, r) -> None:
        key = (r.resource_type, r.resource_name)
        values = self.configs.setdefault(key, {})
        if r.value is None:
            values.pop(r.name, None)
        else:
            values[r.name] = r.value
        if not values:
            del self.configs[key]

    def _set_feature(self, r) -> None:
        if r.name == METADATA_VERSION_FEATURE:
            self.metadata_version = r.feature_level
        elif r.name == KRAFT_VERSION_FEATURE:
            pass
        elif r.feature_level == 0:
            self.features.pop(r.name, None)
        else:
            self.features[r.name] = r.feature_level

    def _set_producer_ids(self, r) -> None:
        self.next_producer_id = r.next_producer_id

    def _set_scram_credential(self, r) -> None:
        self.scram[(r.name, r.mechanism)] = ScramCredential(bytes(r.salt), bytes(r.stored_key), bytes(r.server_key),
                                                            r.iterations)

    def _remove_scram_credential(self, r) -> None:
        if self.scram.pop((r.name, r.mechanism), None) is None:
            raise MetadataImageError(f"no SCRAM credential of mechanism {r.mechanism} for user {r.name!r} to remove")


_HANDLERS = {
    "RegisterBrokerRecord": MetadataImage._register_broker,
    "UnregisterBrokerRecord": MetadataImage._unregister_broker,
    "FenceBrokerRecord": MetadataImage._fence_broker,
    "UnfenceBrokerRecord": MetadataImage._unfence_broker,
    "BrokerRegistrationChangeRecord": MetadataImage._change_broker,
    "RegisterControllerRecord": MetadataImage._register_controller,
    "TopicRecord": MetadataImage._add_topic,
    "RemoveTopicRecord": MetadataImage._remove_topic,
    "PartitionRecord": MetadataImage._set_partition,
    "PartitionChangeRecord": MetadataImage._change_partition,
    "ClearElrRecord": MetadataImage._clear_elr,
    "ConfigRecord": MetadataImage._set_config,
    "FeatureLevelRecord": MetadataImage._set_feature,
    "ProducerIdsRecord": MetadataImage._set_producer_ids,
    "UserScramCredentialRecord": MetadataImage._set_scram_credential,
    "RemoveUserScramCredentialRecord": MetadataImage._remove_scram_credential,
}
