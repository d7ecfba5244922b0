"""Test support for the controller's rules: images of a registered cluster, and the replay
of a ControllerResult's records the way the QuorumController commits them (one metadata
batch, written and read back through Kafka's record framing, then applied)."""

from __future__ import annotations

import uuid

from protocol.metadata import (
    BrokerRegistrationChangeRecord,
    FeatureLevelRecord,
    RegisterBrokerRecord,
    UnfenceBrokerRecord,
)
from protocol.metadata_log import build_metadata_batch, read_metadata_batch

from pylog.controller.results import LATEST_METADATA_VERSION, ControllerResult
from pylog.metadata_image import MetadataImage


def register(broker_id: int, *, epoch: int | None = None, rack: str | None = None,
             log_dirs=()) -> RegisterBrokerRecord:
    endpoint = RegisterBrokerRecord.BrokerEndpoint(name="PLAINTEXT", host="127.0.0.1",
                                                   port=9090 + broker_id, security_protocol=0)
    return RegisterBrokerRecord(broker_id=broker_id, broker_epoch=epoch if epoch is not None else 100 + broker_id,
                                incarnation_id=uuid.UUID(int=broker_id), end_points=[endpoint],
                                features=[], rack=rack, fenced=True, log_dirs=list(log_dirs))


def cluster(*broker_ids: int, fenced=(), shutting_down=(), racks=None, log_dirs=None,
            metadata_version: int | None = LATEST_METADATA_VERSION, features=None) -> MetadataImage:
    """An image with these brokers registered and unfenced (but `fenced`), `shutting_down`
    in controlled shutdown, at this metadata.version."""
    image = MetadataImage()
    if metadata_version is not None:
        image.replay(FeatureLevelRecord(name="metadata.version", feature_level=metadata_version))
    for name, level in (features or {}).items():
        image.replay(FeatureLevelRecord(name=name, feature_level=level))
    for broker_id in broker_ids:
        record = register(broker_id, rack=(racks or {}).get(broker_id),
                          log_dirs=(log_dirs or {}).get(broker_id, ()))
        image.replay(record)
        if broker_id not in fenced:
            image.replay(UnfenceBrokerRecord(id=broker_id, epoch=record.broker_epoch))
        if broker_id in shutting_down:
            image.replay(BrokerRegistrationChangeRecord(broker_id=broker_id, broker_epoch=record.broker_epoch,
                                                        fenced=0, in_controlled_shutdown=1))
    return image


def commit(image: MetadataImage, result: ControllerResult) -> MetadataImage:
    """Apply `result`'s records to `image` as one committed batch; the image, for chaining."""
    if result.records:
        batch = build_metadata_batch(result.records, base_offset=image.offset + 1, leader_epoch=1,
                                     append_time_ms=0)
        header, entries = read_metadata_batch(batch)
        image.apply_batch(header.partition_leader_epoch, entries)
    return image


def record_names(result: ControllerResult) -> list[str]:
    return [record.schema_name for record, _ in result.records]
