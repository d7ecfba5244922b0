"""Golden bytes: pylog's codec against kafka-python 3.x, byte for byte, both directions.

kafka-python 3.x generates its protocol classes from Kafka's own JSON schemas (a newer
set, Kafka 4.2/4.3 era), so it is an independent implementation of the same rules.
For every API both define, at every version up to our (Kafka 3.9) maximum, values are
drawn with Hypothesis from OUR schema, converted field by field into a kafka-python
object, and:

    our bytes == kafka-python's bytes
    kafka-python decodes our bytes to the same values
    we decode kafka-python's bytes to the same values

Where the two schema sets differ (documented in SCHEMA_DIFFERENCES, and checked by
`test_schema_differences_are_exactly_the_documented_ones`):

- kafka-python patches every `authorized_operations` int32 into a "bitfield" (a set of
  bit numbers, None for Kafka's "not requested" value INT32_MIN) and renames
  MetadataResponse/DescribeClusterResponse's `cluster_authorized_operations` and
  MetadataResponse's `topic_authorized_operations` to `authorized_operations`. Same
  4 bytes on the wire; the converter maps int <-> set.
- kafka-python's own conventions: a zero UUID decodes to None; a tagged struct's
  default is None (ours: a default struct); a tagged field at its default is
  passed to kafka-python as kafka-python's default so that neither side writes it.
- kafka-python declares higher minimum versions (Kafka 4.0 dropped old versions,
  KIP-896) but its loader ignores schema minimums and encodes every version from 0,
  with the fields intact, so versions below its declared minimum are compared too.
- Versions above our 3.9 maximum (e.g. Produce 12-13, Fetch 18) and fields that exist
  only in them are not compared; kafka-python's extra newer fields stay at defaults.
- ApiVersionsResponse: kafka-python decodes any response whose error_code is not 0
  as version 0 (KIP-511). The generic comparisons bypass that special case; a
  dedicated test checks it against our v0 error answer.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import warnings

import pytest
from hypothesis import given
from hypothesis import strategies as st

with warnings.catch_warnings():
    # kafka-python 3.0 loads its schemas with importlib.resources.read_text (deprecated)
    warnings.simplefilter("ignore", DeprecationWarning)
    import kafka.protocol as kafka_protocol
    from kafka.protocol.api_message import ApiMessage

from protocol import codec, messages
from protocol.schema import Array, in_versions
from tests.protocol import strategies as S

INT32_MIN = -(1 << 31)

REQUIRED_APIS = ("Produce", "Fetch", "Metadata", "ApiVersions", "ListOffsets", "JoinGroup", "SyncGroup",
                 "OffsetCommit", "OffsetFetch", "InitProducerId", "CreateTopics")

# (kafka-python class, our field path) -> why they differ. The path is ours.
SCHEMA_DIFFERENCES = {
    ("MetadataResponse", "cluster_authorized_operations"):
        "kafka-python: renamed authorized_operations, type bitfield (int32 on the wire)",
    ("MetadataResponse", "topics.topic_authorized_operations"):
        "kafka-python: renamed authorized_operations, type bitfield (int32 on the wire)",
    ("DescribeClusterResponse", "cluster_authorized_operations"):
        "kafka-python: renamed authorized_operations, type bitfield (int32 on the wire)",
    ("DescribeGroupsResponse", "groups.authorized_operations"):
        "kafka-python: type bitfield (int32 on the wire)",
}


def _kafka_python_classes() -> dict[str, type]:
    found = {}
    for info in pkgutil.walk_packages(kafka_protocol.__path__, "kafka.protocol."):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if (inspect.isclass(obj) and issubclass(obj, ApiMessage)
                    and getattr(obj, "_json", None) is not None and obj.__name__ == name):
                found[name] = obj
    return found


KP = _kafka_python_classes()
OURS = {name: getattr(messages, name) for name in [*messages.REQUESTS.values(), *messages.RESPONSES.values()]}
PAIRS = [
    (name, version)
    for name in sorted(set(OURS) & set(KP))
    for version in range(OURS[name].valid_versions[0],
                         min(OURS[name].valid_versions[1], KP[name].valid_versions[1]) + 1)
]


def api_of(name: str) -> str:
    return name.removesuffix("Request").removesuffix("Response")


# ---------------------------------------------------------------------------------------
# Conversion between our objects and kafka-python's, by field name


def kp_field(kp_struct, field):
    fields = kp_struct.fields
    if field.name in fields:
        return fields[field.name]
    if field.name.endswith("authorized_operations") and "authorized_operations" in fields:
        return fields["authorized_operations"]
    raise KeyError(f"kafka-python has no field {field.name}")


def to_kp(obj, cls, kp_struct, make, version):
    kwargs = {}
    for field in cls.FIELDS:
        if in_versions(version, field.versions):
            kf = kp_field(kp_struct, field)
            kwargs[kf.name] = value_to_kp(field, kf, getattr(obj, field.name), version)
    return make(**kwargs)


def value_to_kp(field, kf, value, version):
    if kf.tagged_field_q(version) and S.is_default(field, value):
        return kf.default  # not written by either side
    if value is None:
        return None
    if kf.type_str == "bitfield":
        if value == INT32_MIN:
            return None
        bits = value & 0xFFFFFFFF
        return {i for i in range(32) if bits >> i & 1}
    t = field.type
    if isinstance(t, Array):
        if isinstance(t.element, type):
            return [to_kp(item, t.element, kf.array_of, kf.data_class, version) for item in value]
        return list(value)
    if isinstance(t, type):
        return to_kp(value, t, kf, kf.data_class, version)
    if t in ("bytes", "records"):
        return bytes(value)
    return value


def from_kp(kobj, cls, kp_struct, version, flexible):
    kwargs = {}
    for field in cls.FIELDS:
        if in_versions(version, field.versions):
            kf = kp_field(kp_struct, field)
            kwargs[field.name] = value_from_kp(field, kf, getattr(kobj, kf.name), version, flexible)
    return cls(**kwargs)


def value_from_kp(field, kf, value, version, flexible):
    t = field.type
    if kf.type_str == "bitfield":
        if value is None:
            return INT32_MIN
        bits = sum(1 << i for i in value)
        return bits - (1 << 32) if bits >= 1 << 31 else bits
    if value is None:
        if t == "uuid":
            return S.ZERO_UUID
        tagged = flexible and in_versions(version, field.tagged_versions)
        if tagged and not in_versions(version, field.nullable_versions):
            return field.default_value()
        return None
    if isinstance(t, Array):
        if isinstance(t.element, type):
            return [from_kp(item, t.element, kf.array_of, version, flexible) for item in value]
        return list(value)
    if isinstance(t, type):
        return from_kp(value, t, kf, version, flexible)
    if t in ("bytes", "records"):
        return bytes(value)
    return value


def kp_decode(K, data, version):
    if K.__name__ == "ApiVersionsResponse":
        # bypass kafka-python's "error_code != 0 means v0" special case (tested below)
        return ApiMessage.decode.__func__(K, data, version=version)
    return K.decode(data, version=version)


def check_against_kafka_python(message, version):
    cls = type(message)
    K = KP[cls.__name__]
    ours = bytes(codec.encode(message, version))
    theirs = bytes(to_kp(message, cls, K._struct, K, version).encode(version=version))
    assert ours == theirs, f"{cls.__name__} v{version}: bytes differ"
    # each side decodes the other's bytes to the same values
    decoded_by_kp = kp_decode(K, ours, version)
    back = from_kp(decoded_by_kp, cls, K._struct, version, cls.is_flexible(version))
    assert S.plain(back) == S.plain(message)
    assert S.plain(codec.decode(cls, theirs, version)) == S.plain(message)
    return ours


# ---------------------------------------------------------------------------------------
# Coverage and schema agreement


def test_required_apis_are_compared_in_classic_and_flexible_versions():
    for api in REQUIRED_APIS:
        for kind in ("Request", "Response"):
            name = api + kind
            versions = [v for n, v in PAIRS if n == name]
            cls = OURS[name]
            assert versions, f"{name} is not compared with kafka-python"
            assert versions == list(range(cls.valid_versions[0], cls.valid_versions[1] + 1)), (
                f"{name}: every version up to our maximum must be compared")
            assert any(not cls.is_flexible(v) for v in versions), name
            assert any(cls.is_flexible(v) for v in versions), name


def _layout(cls, version, flexible, path=""):
    """Our wire layout: (path, kind, nullable, tag or None) per field, in order."""
    out = []
    for field in cls.FIELDS:
        if not in_versions(version, field.versions):
            continue
        t = field.type
        element = t.element if isinstance(t, Array) else t
        kind = ("[]" if isinstance(t, Array) else "") + (element if isinstance(element, str) else "struct")
        tag = field.tag if flexible and in_versions(version, field.tagged_versions) else None
        out.append((path + field.name, kind.replace("records", "bytes"),
                    in_versions(version, field.nullable_versions), tag))
        if isinstance(element, type):
            out += _layout(element, version, flexible, path + field.name + ".")
    return out


def _kp_layout(kp_struct, version, flexible, path=""):
    out = []
    for kf in kp_struct._fields:
        if not kf.for_version_q(version):
            continue
        structured = kf.is_struct() or kf.is_struct_array()
        kind = ("[]" if kf.is_array() else "") + ("struct" if structured else kf.type_str.removeprefix("[]"))
        tag = kf.tag if flexible and kf.tagged_field_q(version) else None
        out.append((path + kf.name, kind.replace("records", "bytes"), kf.nullable_for_version_q(version), tag))
        if structured:
            inner = kf.array_of if kf.is_struct_array() else kf
            out += _kp_layout(inner, version, flexible, path + kf.name + ".")
    return out


def test_schema_differences_are_exactly_the_documented_ones():
    found = set()
    for name, version in PAIRS:
        cls, K = OURS[name], KP[name]
        assert cls.is_flexible(version) == K.flexible_version_q(version), (name, version)
        ours = _layout(cls, version, cls.is_flexible(version))
        theirs = _kp_layout(K._struct, version, cls.is_flexible(version))
        assert len(ours) == len(theirs), (name, version)
        for a, b in zip(ours, theirs):
            if a != b:
                found.add((name, a[0]))
                # the documented difference is a rename / bitfield: same place, same size
                assert a[1] == "int32" and b[1] == "bitfield" and a[2:] == b[2:], (name, version, a, b)
    assert found == set(SCHEMA_DIFFERENCES)


def test_tagged_field_defaults_agree():
    """Where a tagged field's default differs, one side would write what the other omits."""
    checked = 0
    for name, version in PAIRS:
        cls, K = OURS[name], KP[name]
        if not cls.is_flexible(version):
            continue
        stack = [(cls, K._struct)]
        while stack:
            struct_cls, kp_struct = stack.pop()
            for field in struct_cls.FIELDS:
                if not in_versions(version, field.versions):
                    continue
                kf = kp_field(kp_struct, field)
                element = field.type.element if isinstance(field.type, Array) else field.type
                if isinstance(element, type):
                    stack.append((element, kf.array_of if kf.is_struct_array() else kf))
                if not in_versions(version, field.tagged_versions):
                    continue
                checked += 1
                ours = field.default_value()
                if isinstance(element, type) and not isinstance(field.type, Array):
                    assert kf.default is None and ours == element()  # kafka-python: None
                elif element == "uuid":
                    assert kf.default is None and ours == S.ZERO_UUID  # kafka-python: None
                else:
                    assert kf.default == ours, (name, version, field.name, kf.default, ours)
    assert checked > 10


# ---------------------------------------------------------------------------------------
# The golden comparisons


REQUIRED_PAIRS = [pair for pair in PAIRS if api_of(pair[0]) in REQUIRED_APIS]
OTHER_PAIRS = [pair for pair in PAIRS if api_of(pair[0]) not in REQUIRED_APIS]


@pytest.mark.parametrize("name,version", PAIRS, ids=[f"{n}-v{v}" for n, v in PAIRS])
def test_default_message_matches_kafka_python(name, version):
    check_against_kafka_python(OURS[name](), version)


@pytest.mark.parametrize("name,version", REQUIRED_PAIRS, ids=[f"{n}-v{v}" for n, v in REQUIRED_PAIRS])
@S.fast(6)
@given(data=st.data())
def test_hypothesis_values_match_kafka_python(name, version, data):
    message = data.draw(S.message_values(OURS[name], version), label=f"{name} v{version}")
    check_against_kafka_python(message, version)


@pytest.mark.parametrize("name,version", OTHER_PAIRS, ids=[f"{n}-v{v}" for n, v in OTHER_PAIRS])
@S.fast(2)
@given(data=st.data())
def test_hypothesis_values_match_kafka_python_other_apis(name, version, data):
    message = data.draw(S.message_values(OURS[name], version), label=f"{name} v{version}")
    check_against_kafka_python(message, version)


def test_api_versions_error_answer_is_read_as_v0_by_kafka_python():
    """KIP-511: to a version it does not know the broker answers UNSUPPORTED_VERSION as a
    v0 body listing its ApiVersions range; kafka-python reads any error answer as v0."""
    from kafka.protocol.metadata import ApiVersionsResponse as KPApiVersionsResponse

    from protocol.messages import ApiVersionsResponse

    body = ApiVersionsResponse(error_code=35, api_keys=[
        ApiVersionsResponse.ApiVersion(api_key=18, min_version=0, max_version=4)])
    data = bytes(codec.encode(body, 0))
    for asked in range(0, 5):
        decoded = KPApiVersionsResponse.decode(data, version=asked)
        assert decoded.error_code == 35
        assert [(k.api_key, k.min_version, k.max_version) for k in decoded.api_keys] == [(18, 0, 4)]


def test_produce_with_real_record_batch_matches_kafka_python():
    """A Produce request carrying a real v2 record batch built by kafka-python."""
    from kafka.record.memory_records import MemoryRecordsBuilder

    from protocol.messages import ProduceRequest

    builder = MemoryRecordsBuilder(magic=2, compression_type=0, batch_size=1 << 16)
    for i in range(3):
        builder.append(timestamp=1_700_000_000_000 + i, key=b"k%d" % i, value=b"v" * (50 * i), headers=[])
    builder.close()
    batch = builder.buffer()
    message = ProduceRequest(acks=-1, timeout_ms=30_000, topic_data=[ProduceRequest.TopicProduceData(
        name="topic", partition_data=[ProduceRequest.PartitionProduceData(index=0, records=batch)])])
    for version in (3, 7, 8, 9, 11):
        data = check_against_kafka_python(message, version)
        assert bytes(batch) in data
        decoded = codec.decode(ProduceRequest, data, version)
        assert decoded.topic_data[0].partition_data[0].records == bytes(batch)
