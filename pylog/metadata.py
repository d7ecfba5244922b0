"""The cluster's metadata on one node: cluster id, topics, topic ids.

In Kafka (KRaft) this is a replicated log of records (`TopicRecord`, `PartitionRecord`,
`ConfigRecord`, ...) applied to an in-memory image. A single pylog node keeps the same
facts in small files, written atomically (temp file, fsync, rename), and the producer-id
blocks (Kafka's `ProducerIdsRecord`) in another (pylog/producer_ids.py):

    <log.dir>/meta.properties          Kafka's format: version, cluster.id, node.id,
                                       directory.id
    <log.dir>/pylog-topics.json        pylog's: per topic its id, partition count, config
                                       overrides and each partition's leader epoch; plus
                                       the last broker epoch
    <log.dir>/<topic>-<p>/partition.metadata
                                       Kafka's format: "version: 0" / "topic_id: <base64>",
                                       no newline after the last line

Invariants: a topic's id never changes while it exists (clients cache it); a partition
count only grows. The broker epoch grows at every start, crashes included: in Kafka
(KRaft) it is the offset of the broker's registration record in the metadata log, new at
every start, and what a clean shutdown writes into `.kafka_cleanshutdown`; here `load`
takes the saved one plus one and saves it.

Leader epochs. A partition starts at leader epoch 0 and, in Kafka, its epoch grows by one
at every leadership change the controller records (REPLICATION.md, "Leader election and
epochs"). On a single KRaft node every start makes two: the controller fences the
broker's previous registration (a clean shutdown's controlled shutdown does it first; after
a kill -9 the new registration does), leaving each partition without a leader, then
unfences the new one, which leads again. Measured on Kafka 4.1.1: a partition created at
epoch 0 is at 2 after a clean restart, at 4 after a kill -9 and another start, and the
batches written meanwhile carry those epochs. So `load` adds 2 to every partition's epoch,
saved per partition in `pylog-topics.json`; a partition created while the broker runs
starts at 0.

Which partition directories the broker hosts (`stray_reason`): those of a known topic,
below its partition count, whose `partition.metadata` names the topic's id. Any other
is a stray log, which the log manager moves aside (Kafka 4's `isStrayKraftReplica`: a
log without a topic id, or whose topic id and partition the metadata does not have).
So a directory of a topic deleted while its files could not be removed, or left by an
earlier topic of the same name, never becomes the new topic's log.

Crash behaviour: the JSON file is replaced whole by rename, so a crash leaves the old or
the new version. A topic is saved before its partition directories are created, so a
crash during creation leaves no directory without an entry. A topic being deleted is
marked `deleting` before its logs go and removed after: a crash in between leaves the
mark, and the broker finishes the delete at its next start.

Concurrency: owned by the broker's event loop; not thread-safe.
"""

from __future__ import annotations

import base64
import json
import os
import re
import uuid
from dataclasses import dataclass, field
from pathlib import Path

TOPICS_FILE = "pylog-topics.json"
LEADER_EPOCH_BUMPS_PER_START = 2
META_PROPERTIES = "meta.properties"
PARTITION_METADATA = "partition.metadata"

_LEGAL_TOPIC = re.compile(r"^[a-zA-Z0-9._-]+$")
MAX_TOPIC_NAME_LENGTH = 249
INTERNAL_TOPICS = frozenset({"__consumer_offsets", "__transaction_state"})


def topic_name_problem(name: str) -> str | None:
    """Why `name` is not a legal Kafka topic name (Kafka's message), or None if it is."""
    if not name:
        reason = "the empty string is not allowed"
    elif name in (".", ".."):
        reason = f"'{name}' is not allowed"
    elif len(name) > MAX_TOPIC_NAME_LENGTH:
        reason = f"the length of '{name}' is longer than the max allowed length {MAX_TOPIC_NAME_LENGTH}"
    elif not _LEGAL_TOPIC.match(name):
        reason = f"'{name}' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"
    else:
        return None
    return f"Topic name is invalid: {reason}"


@dataclass
class TopicInfo:
    name: str
    topic_id: uuid.UUID
    num_partitions: int
    configs: dict[str, str] = field(default_factory=dict)  # overrides only, Kafka names
    deleting: bool = False  # saved before the logs are removed; a restart finishes the delete
    leader_epochs: list[int] = field(default_factory=list)  # per partition, see "Leader epochs"

    def __post_init__(self) -> None:
        self.leader_epochs = (list(self.leader_epochs) + [0] * self.num_partitions)[:self.num_partitions]

    @property
    def is_internal(self) -> bool:
        return self.name in INTERNAL_TOPICS


def random_kafka_uuid() -> str:
    """A Kafka Uuid as Kafka prints it: 22 characters of base64url, like `kafka-storage random-uuid`."""
    return kafka_uuid_text(uuid.uuid4())


class ClusterMetadata:
    def __init__(self, log_dir: Path, node_id: int):
        self.log_dir = Path(log_dir)
        self.node_id = node_id
        self.cluster_id = ""
        self.topics: dict[str, TopicInfo] = {}
        self.broker_epoch = 0

    # -- loading and saving ----------------------------------------------------------

    @classmethod
    def load(cls, log_dir: Path, node_id: int, cluster_id: str | None = None) -> ClusterMetadata:
        metadata = cls(log_dir, node_id)
        metadata.log_dir.mkdir(parents=True, exist_ok=True)
        metadata._load_meta_properties(cluster_id)
        path = metadata.log_dir / TOPICS_FILE
        if path.exists():
            state = json.loads(path.read_text(encoding="utf-8"))
            for name, entry in state.get("topics", {}).items():
                metadata.topics[name] = TopicInfo(name, uuid.UUID(entry["topic_id"]), entry["partitions"],
                                                  dict(entry.get("configs", {})), entry.get("deleting", False),
                                                  list(entry.get("leader_epochs", [])))
            metadata.broker_epoch = state.get("broker_epoch", 0)
        metadata.broker_epoch += 1  # this start's registration
        for topic in metadata.topics.values():
            # the previous registration fenced (leader none), this one unfenced (leader again)
            topic.leader_epochs = [epoch + LEADER_EPOCH_BUMPS_PER_START for epoch in topic.leader_epochs]
        metadata.save()
        return metadata

    def _load_meta_properties(self, cluster_id: str | None) -> None:
        path = self.log_dir / META_PROPERTIES
        if path.exists():
            props = dict(line.split("=", 1) for line in path.read_text(encoding="utf-8").splitlines()
                         if "=" in line and not line.startswith("#"))
            self.cluster_id = props.get("cluster.id", "")
        if not self.cluster_id:
            self.cluster_id = cluster_id or random_kafka_uuid()
            # directory.id: the log directory's own id, which Kafka 4's storage tool also writes
            text = (f"#\n#Written by pylog\ncluster.id={self.cluster_id}\nnode.id={self.node_id}\n"
                    f"directory.id={random_kafka_uuid()}\nversion=1\n")
            _write_atomically(path, text)

    def save(self) -> None:
        state = {
            "topics": {t.name: {"topic_id": str(t.topic_id), "partitions": t.num_partitions, "configs": t.configs,
                                "leader_epochs": t.leader_epochs, **({"deleting": True} if t.deleting else {})}
                       for t in sorted(self.topics.values(), key=lambda t: t.name)},
            "broker_epoch": self.broker_epoch,
        }
        _write_atomically(self.log_dir / TOPICS_FILE, json.dumps(state, indent=1, sort_keys=True) + "\n")

    # -- topics ----------------------------------------------------------------------

    def topic_by_id(self, topic_id: uuid.UUID) -> TopicInfo | None:
        return next((topic for topic in self.topics.values() if topic.topic_id == topic_id), None)

    def stray_reason(self, topic: str, partition: int, partition_dir: Path) -> str | None:
        """Why `partition_dir` (of `topic`-`partition`) is not a log this broker hosts,
        or None when it is (see the module docstring)."""
        info = self.topics.get(topic)
        if info is None:
            return f"topic {topic!r} is not in this broker's metadata"
        if partition >= info.num_partitions:
            return f"topic {topic!r} has {info.num_partitions} partition(s)"
        topic_id = read_partition_metadata(partition_dir)
        if topic_id is None:
            return f"no readable topic id in its {PARTITION_METADATA}"
        if topic_id != info.topic_id:
            return (f"its {PARTITION_METADATA} names topic id {kafka_uuid_text(topic_id)}, "
                    f"topic {topic!r} has id {kafka_uuid_text(info.topic_id)}")
        return None

    def add_topic(self, name: str, num_partitions: int, configs: dict[str, str]) -> TopicInfo:
        topic = TopicInfo(name, uuid.uuid4(), num_partitions, dict(configs))
        self.topics[name] = topic
        self.save()
        return topic

    def mark_deleting(self, name: str) -> None:
        self.topics[name].deleting = True
        self.save()

    def remove_topic(self, name: str) -> TopicInfo:
        topic = self.topics.pop(name)
        self.save()
        return topic

    def set_partition_count(self, name: str, num_partitions: int) -> None:
        topic = self.topics[name]
        topic.leader_epochs += [0] * (num_partitions - topic.num_partitions)   # new partitions start at 0
        topic.num_partitions = num_partitions
        self.save()

    def set_topic_configs(self, name: str, configs: dict[str, str]) -> None:
        self.topics[name].configs = dict(configs)
        self.save()


def kafka_uuid_text(value: uuid.UUID) -> str:
    """A Uuid as Kafka prints it: 22 characters of base64url."""
    return base64.urlsafe_b64encode(value.bytes).decode().rstrip("=")


def write_partition_metadata(partition_dir: Path, topic_id: uuid.UUID) -> None:
    _write_atomically(Path(partition_dir) / PARTITION_METADATA, f"version: 0\ntopic_id: {kafka_uuid_text(topic_id)}")


def read_partition_metadata(partition_dir: Path) -> uuid.UUID | None:
    path = Path(partition_dir) / PARTITION_METADATA
    try:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("topic_id:"):
                encoded = line.split(":", 1)[1].strip()
                return uuid.UUID(bytes=base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))
    except (OSError, ValueError):
        return None
    return None


def _write_atomically(path: Path, text: str) -> None:
    temp = path.with_name(path.name + ".tmp")
    with open(temp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temp, path)
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
