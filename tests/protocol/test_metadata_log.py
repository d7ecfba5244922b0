"""The framing of `__cluster_metadata`: metadata record values, Raft control records, batches.

The hex values below were read from the `__cluster_metadata-0` segment of a reference Kafka
4.1.1 (one combined node: topics created and deleted, a broker config set, a controlled
shutdown and a restart); they must decode to what `kafka-dump-log --cluster-metadata-decoder`
printed for them, and encode back to the same bytes. `tests/compat/test_cluster_metadata.py`
does the same for a whole live segment.
"""

from __future__ import annotations

import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol import metadata
from protocol.errors import InvalidRecord
from protocol.messages import KRaftVersionRecord, LeaderChangeMessage, SnapshotFooterRecord, SnapshotHeaderRecord, VotersRecord
from protocol.metadata import (
    BrokerRegistrationChangeRecord,
    ConfigRecord,
    NoOpRecord,
    PartitionChangeRecord,
    PartitionRecord,
    RemoveTopicRecord,
    TopicRecord,
)
from protocol.metadata_log import (
    CONTROL_SCHEMAS,
    FRAME_VERSION,
    METADATA_TOPIC_ID,
    build_control_batch,
    build_metadata_batch,
    decode_control_record,
    decode_record_value,
    encode_control_record,
    encode_record_value,
    read_metadata_batch,
    record_class,
)
from protocol.records import ControlType, TimestampType, build_batch, iter_records, read_batch_header, validate_batch
from tests.protocol import strategies as S

# The ids of that run (Kafka prints them in base64: mZgoB6V5QLClzQdWEABPZw, ...)
T1 = uuid.UUID("99982807-a579-40b0-a5cd-075610004f67")
T2 = uuid.UUID("2c12439f-b96f-414a-bb98-b4e2758376fe")
GONE = uuid.UUID("7652b965-b753-48d9-8d42-d57b1d23928f")
DIRECTORY = uuid.UUID("98a29a13-96ea-3907-6679-83075e9dd4c2")

KAFKA_VALUES = [
    ("010400040231146c6f672e636c65616e65722e74687265616473023200",
     ConfigRecord(resource_type=4, resource_name="1", name="log.cleaner.threads", value="2"), 0),
    ("0109007652b965b75348d98d42d57b1d23928f00", RemoveTopicRecord(topic_id=GONE), 0),
    ("01110000000001000000000000000b010001ff",
     BrokerRegistrationChangeRecord(broker_id=1, broker_epoch=11, fenced=-1), 0),
    ("01110100000001000000000000000b01010101",
     BrokerRegistrationChangeRecord(broker_id=1, broker_epoch=11, in_controlled_shutdown=1), 1),
    ("0103020000000099982807a57940b0a5cd075610004f670200000001020000000101010000000100000000000000000298a29a1396ea3907667983075e9dd4c200",
     PartitionRecord(partition_id=0, topic_id=T1, replicas=[1], isr=[1], leader=1, leader_epoch=0,
                     partition_epoch=0, directories=[DIRECTORY]), 2),
    ("0105020000000099982807a57940b0a5cd075610004f670400050200000001010400000001060101070101",
     PartitionChangeRecord(partition_id=0, topic_id=T1, isr=[1], leader=1, eligible_leader_replicas=[],
                           last_known_elr=[]), 2),
    ("010502000000002c12439fb96f414abb98b4e2758376fe040001010104ffffffff0605020000000107050200000001",
     PartitionChangeRecord(partition_id=0, topic_id=T2, isr=[], leader=-1, eligible_leader_replicas=[1],
                           last_known_elr=[1]), 2),
    ("01140000", NoOpRecord(), 0),
]

# The first batch Kafka wrote at its first start: the LeaderChange of Raft epoch 1.
KAFKA_LEADER_CHANGE_BATCH = bytes.fromhex(
    "00000000000000000000004f00000001025162269d002000000000000001a23242cb8e000001a23242cb8eff"
    "ffffffffffffffffffffffffff000000013a0000000800000002260000000000010200000001000200000001000000")


@pytest.mark.parametrize("hex_value,record,version", KAFKA_VALUES, ids=[type(r).__name__ + f"-v{v}" for _, r, v in KAFKA_VALUES])
def test_values_kafka_wrote_decode_to_its_records_and_encode_to_the_same_bytes(hex_value, record, version):
    value = bytes.fromhex(hex_value)
    decoded, decoded_version = decode_record_value(value)
    assert (decoded, decoded_version) == (record, version)
    assert encode_record_value(record, version) == value


def test_the_frame_is_version_type_version_then_the_record():
    value = encode_record_value(TopicRecord(name="orders", topic_id=T1), 0)
    assert value[:3] == bytes([FRAME_VERSION, 2, 0])   # frame 1, TopicRecord = type 2, v0
    assert value[3:4] == bytes([7]) and value[4:10] == b"orders"  # compact string
    assert value[10:26] == T1.bytes and value[26:] == b"\x00"     # no tagged fields


def test_a_leader_change_batch_kafka_wrote_reads_and_rebuilds_to_the_same_bytes():
    batch = KAFKA_LEADER_CHANGE_BATCH
    validate_batch(batch)
    header, entries = read_metadata_batch(batch)
    assert header.is_control and not header.is_transactional and header.partition_leader_epoch == 1
    assert header.producer_id == -1 and header.timestamp_type is TimestampType.CREATE_TIME
    [entry] = entries
    assert entry.offset == 0 and entry.control_type is ControlType.LEADER_CHANGE
    voter = LeaderChangeMessage.Voter(voter_id=1)
    assert entry.record == LeaderChangeMessage(version=0, leader_id=1, voters=[voter], granting_voters=[voter])
    rebuilt = build_control_batch([entry.record], base_offset=0, leader_epoch=1,
                                  append_time_ms=header.base_timestamp)
    assert rebuilt == batch


@pytest.mark.parametrize("cls", [getattr(metadata, name) for name in sorted(metadata.MODULES)],
                         ids=sorted(metadata.MODULES))
@S.fast(8)
@given(data=st.data())
def test_every_metadata_record_round_trips_through_its_value_at_every_version(cls, data):
    version = data.draw(st.integers(*cls.valid_versions))
    record = data.draw(S.message_values(cls, version))
    value = encode_record_value(record, version)
    decoded, decoded_version = decode_record_value(value)
    assert decoded_version == version and S.plain(decoded) == S.plain(record)
    assert encode_record_value(decoded, version) == value


def test_the_index_maps_every_record_type_to_its_class():
    assert metadata.RECORDS[0] == "RegisterBrokerRecord" and metadata.RECORDS[5] == "PartitionChangeRecord"
    for record_type, name in metadata.RECORDS.items():
        cls = record_class(record_type)
        assert cls.__name__ == name and cls.api_key == record_type and cls.message_type == "metadata"
    assert len(metadata.RECORDS) == len(metadata.MODULES)


@pytest.mark.parametrize("message", [
    LeaderChangeMessage(leader_id=3, voters=[LeaderChangeMessage.Voter(voter_id=3)]),
    SnapshotHeaderRecord(last_contained_log_timestamp=1234),
    SnapshotFooterRecord(),
    KRaftVersionRecord(k_raft_version=1),
    VotersRecord(voters=[VotersRecord.Voter(voter_id=1, voter_directory_id=DIRECTORY, endpoints=[
        VotersRecord.Endpoint(name="CONTROLLER", host="localhost", port=9093)])]),
], ids=lambda m: type(m).__name__)
def test_control_records_round_trip_with_their_control_key(message):
    key, value = encode_control_record(message)
    control_type, decoded = decode_control_record(key, value)
    assert CONTROL_SCHEMAS[control_type] == type(message).__name__
    assert key == bytes([0, 0, 0, int(control_type)])
    assert decoded == message


def test_a_metadata_batch_has_kafkas_layout():
    records = [(TopicRecord(name="t", topic_id=T1), 0),
               (PartitionRecord(partition_id=0, topic_id=T1, replicas=[1], isr=[1], leader=1), 1)]
    batch = build_metadata_batch(records, base_offset=42, leader_epoch=3, append_time_ms=1_700_000_000_000)
    validate_batch(batch)
    header = read_batch_header(batch)
    assert (header.base_offset, header.last_offset_delta, header.records_count) == (42, 1, 2)
    assert header.partition_leader_epoch == 3 and not header.is_control and not header.is_transactional
    assert (header.producer_id, header.producer_epoch, header.base_sequence) == (-1, -1, -1)
    assert header.base_timestamp == header.max_timestamp == 1_700_000_000_000
    assert header.attributes == 0  # no compression, CREATE_TIME
    for record in iter_records(batch):
        assert record.key is None and record.headers == () and record.attributes == 0
        assert record.timestamp == 1_700_000_000_000
    _, entries = read_metadata_batch(batch)
    assert [(e.offset, e.record, e.version, e.control_type) for e in entries] == [
        (42, records[0][0], 0, None), (43, records[1][0], 1, None)]


def test_the_metadata_topic_id_is_the_uuid_one():
    assert METADATA_TOPIC_ID.bytes == bytes(15) + b"\x01"


# ---------------------------------------------------------------------------------------
# Refusals


@pytest.mark.parametrize("value,why", [
    (bytes.fromhex("00140000"), "frame version 0"),
    (bytes.fromhex("02140000"), "frame version 2"),
    (bytes.fromhex("01060000"), "unknown metadata record type 6"),
    (bytes.fromhex("017f0000"), "unknown metadata record type 127"),
    (bytes.fromhex("01140100"), "version 1"),          # NoOpRecord has only version 0
    (bytes.fromhex("0114000000"), "1 bytes follow"),   # garbage after the record
    (bytes.fromhex("0102"), "malformed"),              # ends inside the frame
    (bytes.fromhex("01020007"), "malformed"),          # ends inside the record
    (b"", "malformed"),
    (None, "no value"),
])
def test_bad_values_are_refused(value, why):
    with pytest.raises(InvalidRecord, match=why):
        decode_record_value(value)


def test_records_kafkas_reader_refuses_are_refused():
    value = encode_record_value(NoOpRecord(), 0)
    keyed = build_batch([(b"k", value, (), 5)], partition_leader_epoch=1)
    with pytest.raises(InvalidRecord, match="has a key"):
        read_metadata_batch(keyed)
    with_headers = build_batch([(None, value, (("h", b"v"),), 5)], partition_leader_epoch=1)
    with pytest.raises(InvalidRecord, match="headers"):
        read_metadata_batch(with_headers)
    spread = build_batch([(None, value, (), 5), (None, value, (), 6)], partition_leader_epoch=1)
    with pytest.raises(InvalidRecord, match="timestamp delta"):
        read_metadata_batch(spread)


@pytest.mark.parametrize("key,value,why", [
    (None, b"\x00", "int16 version"),
    (b"\x00\x00\x00", b"\x00", "int16 version"),
    (b"\x00\x01\x00\x02", b"\x00", "key version 1"),
    (b"\x00\x00\x00\x00", b"\x00", "type 0 is not one Raft writes"),   # a transaction marker
    (b"\x00\x00\x00\x09", b"\x00", "type 9"),
    (b"\x00\x00\x00\x04", None, "no value"),
    (b"\x00\x00\x00\x04", b"\x00\x00\x00\x00", "bytes follow"),
    (b"\x00\x00\x00\x02", b"\x00", "malformed LeaderChangeMessage"),
])
def test_bad_control_records_are_refused(key, value, why):
    with pytest.raises(InvalidRecord, match=why):
        decode_control_record(key, value)


def test_encoding_refuses_what_is_not_a_metadata_or_control_record():
    with pytest.raises(ValueError):
        encode_record_value(LeaderChangeMessage(), 0)
    with pytest.raises(ValueError):
        encode_control_record(NoOpRecord())
    with pytest.raises(ValueError):
        build_metadata_batch([], base_offset=0, leader_epoch=0, append_time_ms=0)
