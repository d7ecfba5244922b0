"""Converting a data directory of pylog's single-node era into metadata records, on the
controller's first start: `pylog-topics.json` (JSON: {"topics": {name: {"topic_id",
"partitions", "configs", "leader_epochs", "deleting"?}}, "broker_epoch"}) and
`pylog-producer-ids` (pylog/producer_ids.py).

What each saved fact becomes (records in this order, per topic sorted by name):

    topic (not marked deleting)   TopicRecord v0          name, the SAME topic id
    each config override          ConfigRecord v0         resource type 2 (topic), name, value
    each partition p              PartitionRecord v2      replicas = isr = [node id],
                                                          leader = node id, leader epoch =
                                                          partition epoch = the saved epoch,
                                                          directories = [the log dir's
                                                          directory.id] (meta.properties)
    the producer-id file          ProducerIdsRecord v0    broker id = node id, broker epoch =
                                                          the saved broker epoch,
                                                          next producer id = the next block

The saved leader epoch is the one the last run used (that era's start added its bumps
before it saved), so the partition logs' epoch caches hold nothing above it.

A topic marked `deleting` (its delete had begun when the node stopped) is left out: no record
names it, so the image has no such topic, and its partition directories -- whose
`partition.metadata` names the deleted topic's id -- are strays the broker must delete.
`Conversion.deleted_topics` lists them (name, topic id) for that.

Crash safety (the caller's sequence, pylog/controller/bootstrap.py): the records are
committed to the metadata log (fsynced) before `finish_conversion` renames the file to
`pylog-topics.json.converted` (kept, nothing lost). A crash in between leaves both; the next
start finds the metadata log non-empty, so it only renames the file: nothing is converted
twice. `pylog-producer-ids` is left where it is.

Pure reading plus one rename; the controller's start serializes it.
"""

from __future__ import annotations

import base64
import json
import os
import uuid
from pathlib import Path

from protocol.metadata import ConfigRecord, PartitionRecord, ProducerIdsRecord, TopicRecord
from protocol.schema import Message
from pylog.metadata import META_PROPERTIES
from pylog.metadata_image import TOPIC_RESOURCE
from pylog.producer_ids import PRODUCER_IDS_FILE, read_next_block_start
from storage.checkpoint import fsync_dir

TOPICS_FILE = "pylog-topics.json"   # the single-node era's metadata file
CONVERTED_SUFFIX = ".converted"
PARTITION_RECORD_VERSION = 2


class Conversion:
    __slots__ = ("records", "deleted_topics")

    def __init__(self):
        self.records: list[tuple[Message, int]] = []
        self.deleted_topics: list[tuple[str, uuid.UUID]] = []


def has_json_metadata(log_dir: Path) -> bool:
    return (Path(log_dir) / TOPICS_FILE).is_file()


def conversion_records(log_dir: Path, node_id: int) -> Conversion | None:
    """The records of `log_dir`'s `pylog-topics.json` (and producer-id file); None when
    there is no JSON file."""
    log_dir = Path(log_dir)
    path = log_dir / TOPICS_FILE
    if not path.is_file():
        return None
    state = json.loads(path.read_text(encoding="utf-8"))
    directory = _directory_id(log_dir)
    conversion = Conversion()
    records = conversion.records
    for name, entry in sorted(state.get("topics", {}).items()):
        topic_id = uuid.UUID(entry["topic_id"])
        if entry.get("deleting", False):
            conversion.deleted_topics.append((name, topic_id))
            continue
        records.append((TopicRecord(name=name, topic_id=topic_id), 0))
        for key, value in sorted(entry.get("configs", {}).items()):
            records.append((ConfigRecord(resource_type=TOPIC_RESOURCE, resource_name=name, name=key,
                                         value=str(value)), 0))
        count = entry["partitions"]
        epochs = (list(entry.get("leader_epochs", [])) + [0] * count)[:count]
        for index, epoch in enumerate(epochs):
            records.append((PartitionRecord(
                partition_id=index, topic_id=topic_id, replicas=[node_id], isr=[node_id], leader=node_id,
                leader_epoch=epoch, partition_epoch=epoch,
                directories=[directory] if directory is not None else []), PARTITION_RECORD_VERSION))
    next_producer_id = read_next_block_start(log_dir / PRODUCER_IDS_FILE)
    if next_producer_id > 0:
        records.append((ProducerIdsRecord(broker_id=node_id, broker_epoch=state.get("broker_epoch", 0),
                                          next_producer_id=next_producer_id), 0))
    return conversion


def finish_conversion(log_dir: Path) -> None:
    """Rename `pylog-topics.json` to `pylog-topics.json.converted` (after the records are
    committed); no-op if it is gone."""
    path = Path(log_dir) / TOPICS_FILE
    if not path.exists():
        return
    os.replace(path, path.with_name(path.name + CONVERTED_SUFFIX))
    fsync_dir(path.parent)


def _directory_id(log_dir: Path) -> uuid.UUID | None:
    """The log dir's directory.id from meta.properties (Kafka's base64 Uuid), if any."""
    try:
        text = (log_dir / META_PROPERTIES).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    for line in text.splitlines():
        if line.startswith("directory.id="):
            encoded = line.split("=", 1)[1].strip()
            return uuid.UUID(bytes=base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))
    return None
