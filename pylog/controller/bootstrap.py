"""What a controller writes when it takes over the metadata log: the bootstrap records of a
first start, the controller's own registration, and the start sequence that ties them to
the Raft epoch (Kafka's `ActivationRecordsGenerator` and `BootstrapMetadata`).

The bootstrap records, as Kafka 4.1.1 writes them on an empty log (one batch, one metadata
transaction):

    BeginTransactionRecord   name "Bootstrap records"
    FeatureLevelRecord       metadata.version 27 (first, always)
    FeatureLevelRecord       every other feature whose level is above 0, sorted by name:
                             group.version 1, transaction.version 2
    ConfigRecord             resource BROKER "" (the cluster default), min.insync.replicas =
                             the controller's static min.insync.replicas
    EndTransactionRecord

pylog finalizes `eligible.leader.replicas.version` at 0, not Kafka's 1: ELR (KIP-966) is
not implemented, so its PartitionChangeRecords never carry ELR fields. A feature at level 0
gets no record (Kafka's rule, as for share.version). Kafka writes the cluster-default
`min.insync.replicas` ConfigRecord when ELR is enabled, as it is in Kafka 4.1's default
release; pylog writes it whatever the ELR level, so that a pylog cluster holds the same
dynamic cluster default as a Kafka 4.1 one and describes its configs alike.
kraft.version never gets a FeatureLevelRecord (Raft owns it; static voters are version 0).

The same features go to `bootstrap.checkpoint` in the log dir (what Kafka's storage format
writes): a SnapshotHeader control batch, one data batch of the FeatureLevelRecords, a
SnapshotFooter control batch, all at Raft epoch 0, offsets from 0.

The controller's registration (RegisterControllerRecord v0, one batch, every start with a
new incarnation id): its controller listener's endpoints and the features it supports, in
Kafka's order. pylog's ranges differ from Kafka's where pylog implements less:
eligible.leader.replicas.version 0-0, kraft.version 0-0 (static voters only) and
share.version 0-0 (no share groups).

`start_controller` is the start sequence: bump the Raft epoch and append the LeaderChange
(pylog/controller/metadata_log.py `start_epoch`); replay the log into an image; if a
metadata transaction is left open at the end of the log, append AbortTransactionRecord
("Controller failover"); if the log holds no metadata record yet, append the bootstrap
records -- and, in the SAME batch as a second transaction, the conversion of an old
`pylog-topics.json` (pylog/controller/json_conversion.py) -- then write bootstrap.checkpoint
and rename the JSON file. Crash behaviour: that batch is fsynced whole or cut off whole as
a torn tail, so a restart finds either an empty log (and starts over) or every record; a
JSON file found beside a non-empty log was already converted and is only renamed.

The controller's start serializes all of this.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Callable

from protocol.messages import SnapshotFooterRecord, SnapshotHeaderRecord
from protocol.metadata import (
    AbortTransactionRecord,
    BeginTransactionRecord,
    ConfigRecord,
    EndTransactionRecord,
    FeatureLevelRecord,
    RegisterControllerRecord,
)
from protocol.metadata_log import build_control_batch, build_metadata_batch
from protocol.schema import Message
from pylog.controller import json_conversion
from pylog.controller.metadata_log import MetadataLog
from pylog.metadata_image import MetadataImage
from storage.checkpoint import write_file_atomically

METADATA_VERSION = 27
BOOTSTRAP_TRANSACTION = "Bootstrap records"
CONVERSION_TRANSACTION = "Conversion of pylog-topics.json"
ABORT_REASON = "Controller failover"
BOOTSTRAP_CHECKPOINT = "bootstrap.checkpoint"
BROKER_RESOURCE = 4
MIN_IN_SYNC_REPLICAS = "min.insync.replicas"

# finalized at the first start (levels above 0 get a FeatureLevelRecord)
BOOTSTRAP_FEATURES = {
    "eligible.leader.replicas.version": 0,
    "group.version": 1,
    "transaction.version": 2,
}
# (name, min, max) this node supports, in the order Kafka's controller registers them
SUPPORTED_FEATURES = (
    ("group.version", 0, 1),
    ("transaction.version", 0, 2),
    ("eligible.leader.replicas.version", 0, 0),
    ("kraft.version", 0, 0),
    ("metadata.version", 7, METADATA_VERSION),
    ("share.version", 0, 0),
)


def feature_records() -> list[tuple[Message, int]]:
    """metadata.version first, then the other features above level 0 by name."""
    records = [(FeatureLevelRecord(name="metadata.version", feature_level=METADATA_VERSION), 0)]
    for name in sorted(BOOTSTRAP_FEATURES):
        if BOOTSTRAP_FEATURES[name] > 0:
            records.append((FeatureLevelRecord(name=name, feature_level=BOOTSTRAP_FEATURES[name]), 0))
    return records


def bootstrap_records(min_insync_replicas: int = 1) -> list[tuple[Message, int]]:
    """The first start's records: the features and the cluster default of
    min.insync.replicas, in a metadata transaction."""
    cluster_default = ConfigRecord(resource_type=BROKER_RESOURCE, resource_name="",
                                   name=MIN_IN_SYNC_REPLICAS, value=str(min_insync_replicas))
    return [(BeginTransactionRecord(name=BOOTSTRAP_TRANSACTION), 0), *feature_records(),
            (cluster_default, 0), (EndTransactionRecord(), 0)]


def controller_registration(controller_id: int, incarnation_id: uuid.UUID,
                            endpoints: list[tuple[str, str, int, int]]) -> tuple[Message, int]:
    """RegisterControllerRecord v0 for (listener name, host, port, security protocol id)."""
    return (RegisterControllerRecord(
        controller_id=controller_id, incarnation_id=incarnation_id, zk_migration_ready=False,
        end_points=[RegisterControllerRecord.ControllerEndpoint(name=name, host=host, port=port,
                                                                 security_protocol=protocol)
                    for name, host, port, protocol in endpoints],
        features=[RegisterControllerRecord.ControllerFeature(name=name, min_supported_version=low,
                                                              max_supported_version=high)
                  for name, low, high in SUPPORTED_FEATURES]), 0)


def bootstrap_checkpoint_bytes(now_ms: int) -> bytes:
    """`bootstrap.checkpoint` as Kafka's storage format writes it (see the module docstring)."""
    features = feature_records()
    header = build_control_batch([SnapshotHeaderRecord(version=0, last_contained_log_timestamp=0)],
                                 base_offset=0, leader_epoch=0, append_time_ms=now_ms)
    data = build_metadata_batch(features, base_offset=1, leader_epoch=0, append_time_ms=now_ms)
    footer = build_control_batch([SnapshotFooterRecord(version=0)], base_offset=1 + len(features),
                                 leader_epoch=0, append_time_ms=now_ms)
    return header + data + footer


def write_bootstrap_checkpoint(log_dir: Path, now_ms: int) -> None:
    """Write `bootstrap.checkpoint` unless it exists (temp file, fsync, rename, directory
    fsync)."""
    path = Path(log_dir) / BOOTSTRAP_CHECKPOINT
    if path.exists():
        return
    write_file_atomically(path, bootstrap_checkpoint_bytes(now_ms))


class ControllerStart:
    __slots__ = ("epoch", "image", "first_start", "conversion")

    def __init__(self, epoch: int, image: MetadataImage, first_start: bool,
                 conversion: json_conversion.Conversion | None):
        self.epoch = epoch
        self.image = image
        self.first_start = first_start
        self.conversion = conversion   # what a first start converted, if anything


def replay(metadata_log: MetadataLog, image: MetadataImage | None = None,
           on_record: Callable[[Message, int], None] | None = None) -> MetadataImage:
    """`image` (a new one by default) with every batch of the log after its offset applied.
    `on_record(record, offset)` is called for each metadata record applied, in log order, so
    that whatever else follows the log (the controller's heartbeat tracker) is built in the
    same reading of it: decoding the log is most of a restart's cost once it is long."""
    image = image if image is not None else MetadataImage()
    for header, entries in metadata_log.batches(image.offset + 1):
        image.apply_batch(header.partition_leader_epoch, entries)
        if on_record is not None:
            for entry in entries:
                if entry.control_type is None:
                    on_record(entry.record, entry.offset)
    return image


def start_controller(metadata_log: MetadataLog, *, node_id: int, voters: list[int], log_dir: Path,
                     now_ms: int, min_insync_replicas: int = 1,
                     on_record: Callable[[Message, int], None] | None = None) -> ControllerStart:
    """The start sequence of the module docstring. `log_dir` holds meta.properties, the old
    JSON files and bootstrap.checkpoint; `min_insync_replicas` is the controller's static
    value, the bootstrap's cluster default; `on_record` sees every metadata record of the
    log, those this start appends included (`replay`). Returns the new epoch and the image
    of the log."""
    epoch = metadata_log.start_epoch(node_id, voters, now_ms=now_ms)
    image = replay(metadata_log, on_record=on_record)
    if image.in_transaction:
        _append(metadata_log, image, [(AbortTransactionRecord(reason=ABORT_REASON), 0)], now_ms, on_record)
    conversion = None
    first_start = metadata_log.is_empty
    if first_start:
        records = bootstrap_records(min_insync_replicas)
        conversion = json_conversion.conversion_records(log_dir, node_id)
        if conversion is not None and conversion.records:
            records += [(BeginTransactionRecord(name=CONVERSION_TRANSACTION), 0), *conversion.records,
                        (EndTransactionRecord(), 0)]
        _append(metadata_log, image, records, now_ms, on_record)
        write_bootstrap_checkpoint(log_dir, now_ms)
    json_conversion.finish_conversion(log_dir)
    return ControllerStart(epoch, image, first_start, conversion)


def _append(metadata_log: MetadataLog, image: MetadataImage, records: list[tuple[Message, int]],
            now_ms: int, on_record: Callable[[Message, int], None] | None) -> None:
    metadata_log.append(records, now_ms=now_ms)
    replay(metadata_log, image, on_record)
