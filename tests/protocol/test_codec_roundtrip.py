"""Every generated message at every version survives encode -> decode -> encode.

Values come from Hypothesis strategies built from the schemas themselves
(`strategies.py`): every field on the wire in the version gets a value of its type,
None where the version allows null, tagged fields both at and away from their default;
fields absent in the version keep their default (the codec neither writes nor reads
them, so a decoded message holds the default there).
"""

from __future__ import annotations

import struct
import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.protocol import strategies as S
from protocol import codec
from protocol import primitives as p
from protocol.errors import ProtocolError, UnsupportedVersion
from protocol.messages import (
    ApiVersionsRequest,
    DescribeProducersRequest,
    FetchRequest,
    FetchResponse,
    MetadataRequest,
    ProduceRequest,
)
from protocol.schema import MAX_VERSION, NEW, Array, Field, Message, in_versions

CLASS_VERSIONS = S.class_versions()
CLASSES = S.all_message_classes()


def ids(cv):
    cls, version = cv
    return f"{cls.__name__}-v{version}"


def check_decoded_types(obj, cls, version):
    """`records` fields decode to memoryview, `bytes` fields to bytes, recursively."""
    for field in cls.FIELDS:
        if not in_versions(version, field.versions):
            continue
        value = getattr(obj, field.name)
        if value is None:
            continue
        t = field.type
        element = t.element if isinstance(t, Array) else t
        items = value if isinstance(t, Array) else [value]
        for item in items:
            if element == "records":
                assert isinstance(item, memoryview), (cls.__name__, field.name, type(item))
            elif element == "bytes":
                assert type(item) is bytes, (cls.__name__, field.name, type(item))
            elif isinstance(element, type):
                assert type(item) is element
                check_decoded_types(item, element, version)


def assert_round_trip(message, version):
    cls = type(message)
    data = bytes(codec.encode(message, version))
    decoded, end = codec.decode_from(cls, data, version)
    assert end == len(data), "the decoder must consume exactly what the encoder wrote"
    assert S.plain(decoded) == S.plain(message)
    check_decoded_types(decoded, cls, version)
    again = codec.encode(decoded, version)
    assert bytes(again) == data, "re-encoding the decoded message must give identical bytes"
    return data, decoded


# ---------------------------------------------------------------------------------------
# Every class, every version


def test_the_suite_covers_every_generated_class():
    from protocol import internal, messages, metadata

    names = {cls.__name__ for cls in CLASSES}
    assert names == set(messages.MODULES) | set(internal.MODULES) | set(metadata.MODULES)
    assert len(CLASS_VERSIONS) == sum(c.valid_versions[1] - c.valid_versions[0] + 1 for c in CLASSES)
    # the coordinator records, the metadata records and Raft's control records are part of it
    assert {"OffsetCommitKey", "GroupMetadataValue", "TransactionLogValue"} <= names
    assert {"PartitionChangeRecord", "RegisterBrokerRecord", "ClearElrRecord", "LeaderChangeMessage"} <= names


@pytest.mark.parametrize("cls_version", CLASS_VERSIONS, ids=ids)
@S.fast(5)
@given(data=st.data())
def test_round_trip_hypothesis(cls_version, data):
    cls, version = cls_version
    message = data.draw(S.message_values(cls, version), label=f"{cls.__name__} v{version}")
    assert_round_trip(message, version)


@pytest.mark.parametrize("cls_version", CLASS_VERSIONS, ids=ids)
def test_round_trip_all_defaults(cls_version):
    cls, version = cls_version
    message = cls()
    data, decoded = assert_round_trip(message, version)
    assert decoded == cls()
    if cls.is_flexible(version):
        assert data[-1:] == b"\x00", "defaults leave the top-level tagged-field section empty"


# ---------------------------------------------------------------------------------------
# Tagged fields


def tagged_fields_at(cls, version):
    if not cls.is_flexible(version):
        return []
    return [f for f in cls.FIELDS if in_versions(version, f.versions) and in_versions(version, f.tagged_versions)]


TOP_LEVEL_TAGGED = [(cls, v, f) for cls, v in CLASS_VERSIONS for f in tagged_fields_at(cls, v)]


def test_there_are_top_level_tagged_fields_to_test():
    names = {(cls.__name__, f.name) for cls, _, f in TOP_LEVEL_TAGGED}
    assert ("FetchRequest", "cluster_id") in names
    assert ("ApiVersionsResponse", "finalized_features") in names


@pytest.mark.parametrize("cls,version,field", TOP_LEVEL_TAGGED,
                         ids=[f"{c.__name__}-v{v}-{f.name}" for c, v, f in TOP_LEVEL_TAGGED])
def test_top_level_tagged_field_is_written_only_when_not_default(cls, version, field):
    at_default = bytes(codec.encode(cls(), version))
    assert at_default[-1] == 0  # empty tagged section
    message = cls(**{field.name: S.non_default_value(field, version)})
    data, decoded = assert_round_trip(message, version)
    assert getattr(decoded, field.name) == getattr(message, field.name)
    # The regular fields are unchanged; only the trailing section differs.
    assert data[: len(at_default) - 1] == at_default[:-1]
    section = memoryview(data)[len(at_default) - 1:]
    count, pos = p.read_uvarint(section, 0)
    tag, pos = p.read_uvarint(section, pos)
    size, pos = p.read_uvarint(section, pos)
    assert (count, tag) == (1, field.tag)
    assert pos + size == len(section)
    # The payload is the value encoded on its own, compact (flexible) form.
    probe = Field(field.name, field.type, field.versions, nullable_versions=field.nullable_versions)
    payload = _encode_single(probe, getattr(message, field.name), version)
    assert bytes(section[pos:]) == payload


def _encode_single(field, value, version):
    """Encode one field with the codec by wrapping it in a one-field flexible message."""

    class One(Message):
        __slots__ = (field.name,)
        schema_name = "One"
        valid_versions = (0, MAX_VERSION)
        flexible_versions = (0, MAX_VERSION)
        FIELDS = (field,)

    one = object.__new__(One)
    setattr(one, field.name, value)
    return bytes(codec.encode(one, version))[:-1]  # drop One's own empty tagged section


FLEXIBLE = [(cls, v) for cls, v in CLASS_VERSIONS if cls.is_flexible(v)]


@pytest.mark.parametrize("cls_version", FLEXIBLE, ids=ids)
def test_unknown_tags_are_skipped(cls_version):
    cls, version = cls_version
    plain_bytes = bytes(codec.encode(cls(), version))
    assert plain_bytes[-1] == 0
    # Three unknown tags (one with a multi-byte tag number, one with a payload over
    # 127 bytes, whose size takes two varint bytes) replace the empty section.
    unknown = [(900, b"abc"), (70_000, b"\x00" * 200), (901, b"")]
    section = p.encode_uvarint(len(unknown))
    for tag, payload in unknown:
        section += p.encode_uvarint(tag) + p.encode_uvarint(len(payload)) + payload
    data = plain_bytes[:-1] + section
    decoded, end = codec.decode_from(cls, data, version)
    assert end == len(data)
    assert decoded == cls()


def test_known_tag_with_padding_is_read_and_the_rest_skipped():
    # FetchRequest v12+: cluster_id is tag 0. Its declared size covers 3 extra bytes.
    version = 12
    base = bytes(codec.encode(FetchRequest(), version))
    value = bytearray()
    p.write_string(value, "kraft", True)
    payload = bytes(value) + b"xyz"
    data = base[:-1] + b"\x01\x00" + p.encode_uvarint(len(payload)) + payload
    decoded, end = codec.decode_from(FetchRequest, data, version)
    assert decoded.cluster_id == "kraft"
    assert end == len(data)


def test_tagged_field_payload_larger_than_127_bytes():
    cluster_id = "c" * 300
    message = FetchRequest(cluster_id=cluster_id)
    data, decoded = assert_round_trip(message, 13)
    assert decoded.cluster_id == cluster_id
    assert p.encode_uvarint(2 + 300) in data  # the tag's size varint takes two bytes


def test_tagged_null_versus_default():
    # cluster_id defaults to null: null is not written, "" is.
    at_default = bytes(codec.encode(FetchRequest(cluster_id=None), 12))
    empty = bytes(codec.encode(FetchRequest(cluster_id=""), 12))
    assert at_default[-1] == 0
    assert len(empty) == len(at_default) + 3  # tag 0, size 1, compact length 1 (empty)
    assert codec.decode(FetchRequest, empty, 12).cluster_id == ""
    assert codec.decode(FetchRequest, at_default, 12).cluster_id is None


def test_tagged_fields_are_written_in_ascending_tag_order():
    # Declared out of tag order on purpose: the wire order must still ascend.
    class Unsorted(Message):
        __slots__ = ("a", "b", "c")
        schema_name = "Unsorted"
        valid_versions = (0, 0)
        flexible_versions = (0, MAX_VERSION)
        FIELDS = (
            Field("a", "int32", (0, MAX_VERSION), tagged_versions=(0, MAX_VERSION), tag=7, default=0),
            Field("b", "int32", (0, MAX_VERSION), default=0),
            Field("c", "string", (0, MAX_VERSION), tagged_versions=(0, MAX_VERSION), tag=2, default=""),
        )

        def __init__(self, a=0, b=0, c=""):
            self.a, self.b, self.c = a, b, c

    message = Unsorted(a=5, b=6, c="x")
    data = bytes(codec.encode(message, 0))
    assert data[:4] == struct.pack(">i", 6)
    reader = p.Reader(data, 4)
    assert reader.uvarint() == 2
    tags = []
    for _ in range(2):
        tags.append(reader.uvarint())
        reader.raw(reader.uvarint())
    assert tags == [2, 7]
    assert codec.decode(Unsorted, data, 0) == message


def test_nullable_tagged_array_with_empty_default_keeps_null():
    """Kafka writes a tagged field whenever it differs from its default; for a nullable
    array whose default is empty, null differs (Kafka's generator checks
    `x == null || !x.isEmpty()`). No 3.9 schema has such a field yet, so this uses a
    synthetic one."""

    class NullableTaggedArray(Message):
        __slots__ = ("items",)
        schema_name = "NullableTaggedArray"
        valid_versions = (0, 0)
        flexible_versions = (0, MAX_VERSION)
        FIELDS = (
            Field("items", Array("int32"), (0, MAX_VERSION), nullable_versions=(0, MAX_VERSION),
                  tagged_versions=(0, MAX_VERSION), tag=0, default=NEW),
        )

        def __init__(self, items=NEW):
            self.items = [] if items is NEW else items

    for value in ([], [1, 2]):
        assert codec.decode(NullableTaggedArray, codec.encode(NullableTaggedArray(items=value), 0), 0).items == value
    decoded = codec.decode(NullableTaggedArray, codec.encode(NullableTaggedArray(items=None), 0), 0)
    assert decoded.items is None, "a null tagged array with an empty default was dropped by the encoder"


# ---------------------------------------------------------------------------------------
# Nulls, nullable structs, long values


def test_nullable_struct_markers():
    from protocol.messages import ConsumerGroupHeartbeatResponse as CGH

    for assignment in (None, CGH.Assignment()):
        message = CGH(assignment=assignment)
        data, decoded = assert_round_trip(message, 0)
        assert decoded.assignment == assignment
    null_bytes = bytes(codec.encode(CGH(assignment=None), 0))
    present = bytes(codec.encode(CGH(assignment=CGH.Assignment()), 0))
    # the struct is the last regular field: marker -1 (0xff) for null, 1 then the struct
    assert null_bytes[-2:] == b"\xff\x00"
    assert present[len(null_bytes) - 2] == 1


def test_null_in_a_non_nullable_field_is_refused():
    with pytest.raises(ValueError):
        codec.encode(MetadataRequest(topics=None), 0)  # nullable only from v1
    data = bytes(codec.encode(MetadataRequest(topics=None), 1))
    assert data == b"\xff\xff\xff\xff"
    assert codec.decode(MetadataRequest, data, 1).topics is None
    with pytest.raises(ValueError):
        codec.encode(ProduceRequest(topic_data=None), 3)


@pytest.mark.parametrize("version", [3, 8, 9, 11])
def test_long_values_and_zero_copy_records(version):
    records = bytes(range(256)) * 3
    topic = "t" * 200
    partitions = [ProduceRequest.PartitionProduceData(index=i, records=records) for i in range(130)]
    message = ProduceRequest(transactional_id="ü" * 150, acks=-1, timeout_ms=1000,
                             topic_data=[ProduceRequest.TopicProduceData(name=topic, partition_data=partitions)])
    data, decoded = assert_round_trip(message, version)
    assert len(decoded.topic_data[0].partition_data) == 130
    # records are slices of the input: no copy
    buf = memoryview(bytearray(data))
    decoded = codec.decode(ProduceRequest, buf, version)
    first = decoded.topic_data[0].partition_data[0].records
    assert isinstance(first, memoryview) and first.obj is buf.obj
    assert first == records


def test_decode_at_an_offset_inside_a_larger_buffer():
    message = FetchResponse(throttle_time_ms=3, responses=[FetchResponse.FetchableTopicResponse(
        topic="t", partitions=[FetchResponse.PartitionData(partition_index=1, records=b"batch")])])
    for version in (4, 12, 16):
        body = bytes(codec.encode(message, version))
        buffer = b"\x99" * 13 + body + b"trailing"
        decoded, end = codec.decode_from(FetchResponse, buffer, version, 13)
        assert end == 13 + len(body)
        assert S.plain(decoded) == S.plain(codec.decode(FetchResponse, body, version))
        assert decoded.responses[0].partitions[0].records == b"batch"
        out = bytearray(b"prefix")
        assert codec.encode(message, version, out) is out
        assert bytes(out) == b"prefix" + body
        out2 = bytearray(b"p")
        codec.encode_into(out2, message, version)
        assert bytes(out2) == b"p" + body


# ---------------------------------------------------------------------------------------
# Versions, errors, introspection


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_versions_outside_valid_versions_are_refused(cls):
    low, high = cls.valid_versions
    for version in (low - 1, high + 1):
        with pytest.raises(UnsupportedVersion) as info:
            codec.encode(cls(), version)
        assert info.value.version == version and info.value.valid == (low, high)
        with pytest.raises(UnsupportedVersion):
            codec.decode(cls, b"\x00" * 64, version)
    text = codec.source(cls, high)
    assert "def decode_" in text and "def encode_" in text


def test_fresh_defaults_are_not_shared():
    a, b = FetchRequest(), FetchRequest()
    a.topics.append(FetchRequest.FetchTopic(topic="x"))
    a.replica_state.replica_id = 5
    assert b.topics == [] and b.replica_state.replica_id == -1


def test_absent_fields_decode_to_defaults_and_are_not_written():
    # max_bytes exists from v3; a v2 encoding drops it and decoding restores the default
    message = FetchRequest(max_bytes=123, topics=[FetchRequest.FetchTopic(topic="a")])
    decoded = codec.decode(FetchRequest, codec.encode(message, 2), 2)
    assert decoded.max_bytes == FetchRequest().max_bytes
    assert decoded.topics[0].topic == "a"
    assert len(codec.encode(message, 3)) == len(codec.encode(message, 2)) + 4


def test_classic_and_compact_forms_of_the_same_message():
    message = ApiVersionsRequest(client_software_name="pylog", client_software_version="1.0")
    assert bytes(codec.encode(message, 0)) == b""  # v0-v2 have no fields
    flexible = bytes(codec.encode(message, 3))
    assert flexible == b"\x06pylog" + b"\x041.0" + b"\x00"
    metadata = MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name="ab")])
    assert bytes(codec.encode(metadata, 0)) == b"\x00\x00\x00\x01" + b"\x00\x02ab"
    assert bytes(codec.encode(metadata, 9)) == b"\x02" + b"\x03ab\x00" + b"\x01\x00\x00" + b"\x00"


@S.fast(60)
@given(st.binary(max_size=80), st.sampled_from([c for c in CLASS_VERSIONS if c[0].message_type == "response"]))
def test_decoding_garbage_raises_only_protocol_errors(data, cls_version):
    cls, version = cls_version
    try:
        codec.decode(cls, data, version)
    except ProtocolError:
        pass


def test_uuid_fields_round_trip_exactly():
    topic_id = uuid.uuid4()
    message = FetchRequest(topics=[FetchRequest.FetchTopic(topic_id=topic_id)])
    decoded = codec.decode(FetchRequest, codec.encode(message, 13), 13)
    assert decoded.topics[0].topic_id == topic_id
    assert topic_id.bytes in bytes(codec.encode(message, 13))


def test_a_direction_is_compiled_at_its_first_use_only():
    """Decoding compiles the decoder alone, encoding the encoder alone (a broker that only
    reads a request never compiles its encoder)."""
    cls, version = DescribeProducersRequest, 0
    for key in [k for k in codec._compiled if k[0] is cls]:
        del codec._compiled[key]
    encoded = codec.encode(cls(topics=[cls.TopicRequest(name="t", partition_indexes=[1, 2])]), version)
    assert {k[2] for k in codec._compiled if k[:2] == (cls, version)} == {codec.ENCODE}
    decoded = codec.decode(cls, encoded, version)
    assert {k[2] for k in codec._compiled if k[:2] == (cls, version)} == {codec.ENCODE, codec.DECODE}
    assert decoded.topics[0].name == "t" and decoded.topics[0].partition_indexes == [1, 2]


def test_a_nested_tagged_struct_is_written_when_any_one_of_its_fields_differs():
    """PartitionData's three tagged structs (diverging_epoch, current_leader, snapshot_id)
    are left out at their defaults and written when one field alone differs: the encoder
    tests each field against its default (protocol/codec.py, differs_from_new_struct)."""
    version = 16

    def encoded_partition(**tagged):
        partition = FetchResponse.PartitionData(partition_index=1, records=b"", **tagged)
        message = FetchResponse(responses=[FetchResponse.FetchableTopicResponse(
            topic_id=uuid.UUID(int=7), partitions=[partition])])
        data, decoded = assert_round_trip(message, version)
        return data, decoded.responses[0].partitions[0]

    plain, decoded = encoded_partition()
    assert decoded == FetchResponse.PartitionData(partition_index=1, records=b"")
    written = 0
    for name in ("diverging_epoch", "current_leader", "snapshot_id"):
        struct_type = type(getattr(FetchResponse.PartitionData(), name))
        for sub in struct_type.FIELDS:
            value = struct_type(**{sub.name: 12345})
            data, decoded = encoded_partition(**{name: value})
            assert getattr(decoded, name) == value
            assert len(data) > len(plain), (name, sub.name)
            written += 1
    assert written == 6
