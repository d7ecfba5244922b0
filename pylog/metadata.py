"""What a broker knows of the cluster's metadata, and the small files of its data directory.

The cluster's metadata is the controller's log, `__cluster_metadata` (pylog/controller/),
which every broker follows into a `MetadataImage` (pylog/metadata_image.py). The broker's
handlers read the part they need through `BrokerMetadata`, a view rebuilt by the metadata
publisher (pylog/metadata_publisher.py) after each batch it applies:

    topics        name -> TopicInfo (id, partition count, config overrides)
    topic_by_id   id -> TopicInfo
    cluster_id    from meta.properties
    broker_epoch  this start's registration (the offset of its RegisterBrokerRecord)

Files of the data directory written here, in Kafka's formats:

    <log.dir>/meta.properties          version, cluster.id, node.id, directory.id
    <log.dir>/<topic>-<p>/partition.metadata
                                       "version: 0" / "topic_id: <base64>", no newline
                                       after the last line

Which partition directories the broker hosts (`stray_reason`): those of a known topic,
below its partition count, whose `partition.metadata` names the topic's id. Any other
is a stray log, which the log manager moves aside (Kafka 4's `isStrayKraftReplica`: a
log without a topic id, or whose topic id and partition the metadata does not have).
So a directory of a topic deleted while its files could not be removed, or left by an
earlier topic of the same name, never becomes the new topic's log.

Crash behaviour: files are replaced whole (temp file, fsync, rename, fsync of the
directory), so a crash leaves the old or the new version.

A new partition's `partition.metadata` is written with its log, before the partition is
hosted, on the thread that creates the log (pylog/metadata_publisher.py), so no record is
ever on disk in a directory that does not name its topic. (Kafka writes it soon after, on
a scheduler thread, and at the latest before the partition's first append.) A crash before
it is written leaves an empty log without the file, which the next start finds stray and
moves aside; the metadata then creates the partition again.

Concurrency: owned by the broker's event loop; not thread-safe. The functions that write a
partition's files (`write_partition_metadata`) touch nothing else and run on the thread
that creates the partition's log.
"""

from __future__ import annotations

import base64
import re
import uuid
from pathlib import Path
from typing import Iterable

from storage.checkpoint import write_file_atomically

META_PROPERTIES = "meta.properties"
PARTITION_METADATA = "partition.metadata"

_LEGAL_TOPIC = re.compile(r"[a-zA-Z0-9._-]+")   # the whole name (fullmatch): "$" would pass a last newline
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
    elif not _LEGAL_TOPIC.fullmatch(name):
        reason = f"'{name}' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"
    else:
        return None
    return f"Topic name is invalid: {reason}"


class TopicInfo:
    __slots__ = ("name", "topic_id", "num_partitions", "configs")

    def __init__(self, name: str, topic_id: uuid.UUID, num_partitions: int, configs: dict[str, str] | None = None):
        self.name = name
        self.topic_id = topic_id
        self.num_partitions = num_partitions
        self.configs = {} if configs is None else configs   # overrides only, Kafka names

    @property
    def is_internal(self) -> bool:
        return self.name in INTERNAL_TOPICS


def random_kafka_uuid() -> str:
    """A Kafka Uuid as Kafka prints it: 22 characters of base64url, like `kafka-storage random-uuid`."""
    return kafka_uuid_text(uuid.uuid4())


class BrokerMetadata:
    """The broker's view of the topics (see the module docstring)."""

    def __init__(self, log_dir: Path, node_id: int, cluster_id: str):
        self.log_dir = Path(log_dir)
        self.node_id = node_id
        self.cluster_id = cluster_id
        self.topics: dict[str, TopicInfo] = {}
        self._by_id: dict[uuid.UUID, TopicInfo] = {}
        self.broker_epoch = -1

    def set_topics(self, topics: Iterable[TopicInfo]) -> None:
        self.topics = {topic.name: topic for topic in topics}
        self._by_id = {topic.topic_id: topic for topic in self.topics.values()}

    def topic_by_id(self, topic_id: uuid.UUID) -> TopicInfo | None:
        return self._by_id.get(topic_id)

    def topic_name_by_id(self, topic_id: uuid.UUID) -> str | None:
        """The name of the topic with this id; None for an id no topic has (the zero id
        included), which requests naming topics by id answer UNKNOWN_TOPIC_ID."""
        info = self._by_id.get(topic_id)
        return info.name if info is not None else None

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


def load_cluster_id(log_dir: Path, node_id: int, cluster_id: str | None = None) -> str:
    """The cluster id of `meta.properties`, written first (with `cluster_id`, or a new
    random one) when the directory has none."""
    log_dir = Path(log_dir)
    log_dir.mkdir(parents=True, exist_ok=True)
    path = log_dir / META_PROPERTIES
    found = ""
    if path.exists():
        props = dict(line.split("=", 1) for line in path.read_text(encoding="utf-8").splitlines()
                     if "=" in line and not line.startswith("#"))
        found = props.get("cluster.id", "")
    if found:
        return found
    found = cluster_id or random_kafka_uuid()
    # directory.id: the log directory's own id, which Kafka 4's storage tool also writes
    text = (f"#\n#Written by pylog\ncluster.id={found}\nnode.id={node_id}\n"
            f"directory.id={random_kafka_uuid()}\nversion=1\n")
    write_file_atomically(path, text.encode("utf-8"))
    return found


def read_directory_id(log_dir: Path) -> uuid.UUID | None:
    """The `directory.id` of `meta.properties`, or None."""
    try:
        for line in (Path(log_dir) / META_PROPERTIES).read_text(encoding="utf-8").splitlines():
            if line.startswith("directory.id="):
                encoded = line.split("=", 1)[1].strip()
                return parse_kafka_uuid(encoded)
    except (OSError, ValueError):
        return None
    return None


def parse_kafka_uuid(text: str) -> uuid.UUID:
    """A Uuid from Kafka's text (base64url, unpadded); ValueError when it is not one."""
    return uuid.UUID(bytes=base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))


def kafka_uuid_text(value: uuid.UUID) -> str:
    """A Uuid as Kafka prints it: 22 characters of base64url."""
    return base64.urlsafe_b64encode(value.bytes).decode().rstrip("=")


def write_partition_metadata(partition_dir: Path, topic_id: uuid.UUID) -> None:
    write_file_atomically(Path(partition_dir) / PARTITION_METADATA,
                          f"version: 0\ntopic_id: {kafka_uuid_text(topic_id)}".encode("utf-8"))


def read_partition_metadata(partition_dir: Path) -> uuid.UUID | None:
    path = Path(partition_dir) / PARTITION_METADATA
    try:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("topic_id:"):
                encoded = line.split(":", 1)[1].strip()
                return parse_kafka_uuid(encoded)
    except (OSError, ValueError):
        return None
    return None
