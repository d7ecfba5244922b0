"""The records of `__cluster_metadata`, KRaft's metadata log: how each one sits in a batch.

The metadata log is one partition, `__cluster_metadata-0` (topic id `METADATA_TOPIC_ID`,
the UUID 0...01), of ordinary magic-2 record batches. Two kinds of batch share it:

Data batches hold metadata records (the generated classes of `protocol.metadata`):

    batch      producer id / epoch / base sequence -1, not transactional, no control bit,
               CREATE_TIME, no compression, base and max timestamp = the append time,
               PartitionLeaderEpoch = the Raft epoch of the leader that wrote it
    record     attributes 0, timestamp delta 0, offset delta 0..n-1, key null, no headers
    value      uvarint frame version (1) | uvarint record type (the schema's apiKey)
               | uvarint record version | the record encoded at that version

Control batches hold the control records Raft itself writes (the generated classes of
`protocol.messages` named in `CONTROL_SCHEMAS`): the same batch fields with the control bit
set (still not transactional), and per record

    key        int16 control key version (0) | int16 control type (2..6, `ControlType`)
    value      the message encoded at version 0, with no frame

What a single Kafka 4.1.1 node (broker and controller, static voters) leaves on disk, for a
writer to follow: in the log directory, `bootstrap.checkpoint` (a snapshot file: a
SnapshotHeader control batch, one data batch of the bootstrap FeatureLevelRecords, a
SnapshotFooter control batch; Raft epoch 0); in `__cluster_metadata-0/`, the segments
(`00000000000000000000.log`, its `.index` and `.timeindex`), `partition.metadata` (topic id
`AAAAAAAAAAAAAAAAAAAAAQ`), `leader-epoch-checkpoint` (the Raft epochs and their start
offsets) and `quorum-state` (JSON: leaderId, leaderEpoch, votedId, currentVoters). Its log
starts with a control batch holding the LeaderChangeMessage of epoch 1 (offset 0), then one
data batch that is a metadata transaction (BeginTransactionRecord "Bootstrap records", the
FeatureLevelRecords, a cluster-default ConfigRecord, EndTransactionRecord); then the
controller's and the broker's registrations, each in its own batch, a NoOpRecord batch about
every 500 ms, and one batch per controller event (a CreateTopics request for three topics:
every TopicRecord, ConfigRecord and PartitionRecord of the three in one batch). Every later start begins with the LeaderChange of the next epoch.

Reading is strict where Kafka's reader (Raft's `RecordsIterator`, `MetadataRecordSerde`) is:
a record with a timestamp delta or headers, a data record with a key, a frame version other
than 1, an unknown record type, a version the schema lacks, or bytes left after the record
all raise `InvalidRecord`; so does a control record of a type that has no schema here. Nothing in this module does I/O:
it turns batches into (offset, record, version) entries and back. The caller serializes
access; every function is pure.
"""

from __future__ import annotations

import uuid
from typing import Iterable, NamedTuple

from protocol import codec, messages, metadata
from protocol.errors import ProtocolError, InvalidRecord
from protocol.primitives import encode_uvarint, read_uvarint
from protocol.records import (
    BatchHeader, ControlType, Record, build_batch, check_magic, iter_records, read_batch_header,
)
from protocol.schema import Message

METADATA_TOPIC = "__cluster_metadata"
METADATA_PARTITION = 0
METADATA_TOPIC_ID = uuid.UUID(int=1)
FRAME_VERSION = 1
CONTROL_KEY_VERSION = 0
CONTROL_RECORD_VERSION = 0  # every control message is written at version 0

CONTROL_SCHEMAS = {
    ControlType.LEADER_CHANGE: "LeaderChangeMessage",
    ControlType.SNAPSHOT_HEADER: "SnapshotHeaderRecord",
    ControlType.SNAPSHOT_FOOTER: "SnapshotFooterRecord",
    ControlType.KRAFT_VERSION: "KRaftVersionRecord",
    ControlType.KRAFT_VOTERS: "VotersRecord",
}
_CONTROL_TYPES = {name: control_type for control_type, name in CONTROL_SCHEMAS.items()}


class MetadataEntry(NamedTuple):
    """One record of the metadata log. `control_type` is None for a metadata record."""

    offset: int
    record: Message
    version: int
    control_type: ControlType | None = None


# ---------------------------------------------------------------------------------------
# One record's value


def record_class(record_type: int) -> type[Message]:
    """The metadata record class of `record_type` (its apiKey); InvalidRecord if unknown."""
    name = metadata.RECORDS.get(record_type)
    if name is None:
        raise InvalidRecord(f"unknown metadata record type {record_type}")
    return getattr(metadata, name)


def encode_record_value(record: Message, version: int) -> bytes:
    """The value of a metadata record in a data batch: the frame, then the record."""
    if record.message_type != "metadata":
        raise ValueError(f"{record.schema_name} is not a metadata record")
    codec.check_version(type(record), version)
    out = bytearray(encode_uvarint(FRAME_VERSION))
    out += encode_uvarint(record.api_key)
    out += encode_uvarint(version)
    codec.encode_into(out, record, version)
    return bytes(out)


def decode_record_value(value) -> tuple[Message, int]:
    """(record, version) from a data batch record's value."""
    if value is None:
        raise InvalidRecord("a metadata record has no value")
    buf = memoryview(value)
    try:
        frame_version, position = read_uvarint(buf, 0)
        if frame_version != FRAME_VERSION:
            raise InvalidRecord(f"metadata record frame version {frame_version}, not {FRAME_VERSION}")
        record_type, position = read_uvarint(buf, position)
        version, position = read_uvarint(buf, position)
        cls = record_class(record_type)
        record, end = codec.decode_from(cls, buf, version, position)
    except InvalidRecord:
        raise
    except ProtocolError as error:
        raise InvalidRecord(f"malformed metadata record: {error}") from None
    if end != len(buf):
        raise InvalidRecord(f"{len(buf) - end} bytes follow the {cls.schema_name} v{version}")
    return record, version


def encode_control_record(message: Message) -> tuple[bytes, bytes]:
    """(key, value) of a Raft control record."""
    control_type = _CONTROL_TYPES.get(message.schema_name)
    if control_type is None:
        raise ValueError(f"{message.schema_name} is not a Raft control record")
    key = CONTROL_KEY_VERSION.to_bytes(2, "big", signed=True) + int(control_type).to_bytes(2, "big", signed=True)
    return key, bytes(codec.encode(message, CONTROL_RECORD_VERSION))


def decode_control_record(key, value) -> tuple[ControlType, Message]:
    """(type, message) of a Raft control record from its key and value."""
    if key is None or len(key) < 4:
        raise InvalidRecord("a control record key holds an int16 version and an int16 type")
    key_version = int.from_bytes(key[0:2], "big", signed=True)
    type_id = int.from_bytes(key[2:4], "big", signed=True)
    if key_version != CONTROL_KEY_VERSION:
        raise InvalidRecord(f"control record key version {key_version}")
    try:
        control_type = ControlType(type_id)
        name = CONTROL_SCHEMAS[control_type]
    except (ValueError, KeyError):
        raise InvalidRecord(f"control record type {type_id} is not one Raft writes") from None
    if value is None:
        raise InvalidRecord(f"the {name} control record has no value")
    cls = getattr(messages, name)
    try:
        message, end = codec.decode_from(cls, value, CONTROL_RECORD_VERSION)
    except ProtocolError as error:
        raise InvalidRecord(f"malformed {name}: {error}") from None
    if end != len(value):
        raise InvalidRecord(f"{len(value) - end} bytes follow the {name}")
    return control_type, message


# ---------------------------------------------------------------------------------------
# Batches


def build_metadata_batch(records: Iterable[tuple[Message, int]], *, base_offset: int,
                         leader_epoch: int, append_time_ms: int) -> bytes:
    """A data batch of metadata records, each given with the version to write it at."""
    values = [(None, encode_record_value(record, version), (), append_time_ms)
              for record, version in records]
    if not values:
        raise ValueError("a metadata batch holds at least one record")
    return build_batch(values, base_offset=base_offset, partition_leader_epoch=leader_epoch,
                       timestamp_ms=append_time_ms)


def build_control_batch(control_messages: Iterable[Message], *, base_offset: int,
                        leader_epoch: int, append_time_ms: int) -> bytes:
    """A control batch of Raft control records (e.g. the LeaderChangeMessage of a new epoch)."""
    entries = [(*encode_control_record(message), (), append_time_ms) for message in control_messages]
    if not entries:
        raise ValueError("a control batch holds at least one record")
    return build_batch(entries, base_offset=base_offset, partition_leader_epoch=leader_epoch,
                       timestamp_ms=append_time_ms, is_control=True)


def read_metadata_batch(batch, position: int = 0) -> tuple[BatchHeader, list[MetadataEntry]]:
    """The header and the decoded records of the batch at `position`. The CRC is the
    caller's to check (`protocol.records.validate_batch`)."""
    check_magic(batch, position)
    header = read_batch_header(batch, position)
    entries = []
    for record in iter_records(batch, position):
        entries.append(_entry(record, header))
    return header, entries


def _entry(record: Record, header: BatchHeader) -> MetadataEntry:
    if record.timestamp != header.base_timestamp:
        raise InvalidRecord(f"record at offset {record.offset} has a timestamp delta")
    if record.headers:
        raise InvalidRecord(f"record at offset {record.offset} has headers")
    if header.is_control:
        control_type, message = decode_control_record(record.key, record.value)
        return MetadataEntry(record.offset, message, CONTROL_RECORD_VERSION, control_type)
    if record.key is not None:
        raise InvalidRecord(f"metadata record at offset {record.offset} has a key")
    message, version = decode_record_value(record.value)
    return MetadataEntry(record.offset, message, version)
