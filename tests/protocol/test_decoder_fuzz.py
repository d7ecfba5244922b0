"""Hostile input to the request decoder: only ProtocolError escapes, and without work.

`protocol.headers.decode_request` is what the broker runs on every frame a client
sends. Whatever the bytes, it must either return (header, body) or raise a
`protocol.errors.ProtocolError` subclass -- never IndexError, struct.error,
UnicodeDecodeError, MemoryError, OverflowError, RecursionError, a uuid ValueError --
and a length field claiming 2 GiB must cost nothing: the huge-length cases bound what a
decode allocates, and a decoder that walked the claimed length would hit this file's
pytest timeout (no wall-clock assertion: the suite shares two cores with other runs).
"""

from __future__ import annotations

import struct
import tracemalloc

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol import codec, headers, messages
from protocol import primitives as p
from protocol.errors import (
    BufferUnderflow,
    InvalidLength,
    InvalidVarint,
    ProtocolError,
    UnknownApiKey,
    UnsupportedVersion,
)
from protocol.schema import MAX_VERSION, in_versions
from tests.protocol import strategies as S

# The ZooKeeper-era APIs (LeaderAndIsr, StopReplica, UpdateMetadata, ControlledShutdown), which
# Kafka 4 no longer defines and no KRaft node serves; tests/compat/test_codegen_against_kafka.py
# checks this list against Kafka's definitions.
NON_BROKER_API_KEYS = (4, 5, 6, 7)

REQUEST_CLASSES = [(key, getattr(messages, name)) for key, name in sorted(messages.REQUESTS.items())]
REQUEST_VERSIONS = [(key, cls, v) for key, cls in REQUEST_CLASSES
                    for v in range(cls.valid_versions[0], cls.valid_versions[1] + 1)]

def header_bytes(api_key, version, correlation_id, client_id="fuzz", header_version=None, tags=b"\x00"):
    """A request header written by hand (not by the code under test)."""
    out = struct.pack(">hhi", api_key, version, correlation_id)
    if header_version is None:
        header_version = 1
    if header_version >= 1:
        if client_id is None:
            out += b"\xff\xff"
        else:
            raw = client_id.encode()
            out += struct.pack(">h", len(raw)) + raw
    if header_version >= 2:
        out += tags
    return out


def header_version_for(cls, version):
    return 2 if in_versions(version, cls.flexible_versions) else 1


def frame_for(cls, version, body, correlation_id=1, client_id="fuzz"):
    return header_bytes(cls.api_key, version, correlation_id, client_id,
                        header_version_for(cls, version)) + bytes(codec.encode(body, version))


def decode_safely(frame):
    """decode_request; return the ProtocolError raised (or None). Anything else fails."""
    try:
        headers.decode_request(frame)
    except ProtocolError as e:
        return e
    return None


def populated(cls, version):
    """A message with every field present at `version` away from its default."""
    message = cls()
    for field in cls.FIELDS:
        if in_versions(version, field.versions):
            setattr(message, field.name, S.non_default_value(field, version))
    return message


# ---------------------------------------------------------------------------------------
# Hypothesis: random bytes, random bodies, mutated valid frames

HUGE = [
    b"\x7f\xff\xff\xff", b"\xff\xff\xff\xff", b"\x80\x00\x00\x00", b"\xff\xff\xff\xfe",  # int32
    b"\x7f\xff", b"\x80\x00", b"\xff\xfe",  # int16
    b"\xff\xff\xff\xff\x07", b"\x80\x80\x80\x80\x08", b"\xff\xff\xff\xff\x0f",  # uvarints near 2^31, 2^32
    b"\xff" * 5, b"\x80" * 6, b"\xff" * 11,  # overlong varints
]

MUTATION = st.one_of(
    st.tuples(st.just("flip"), st.integers(0, 1 << 16), st.integers(0, 7)),
    st.tuples(st.just("truncate"), st.integers(0, 1 << 16)),
    st.tuples(st.just("insert"), st.integers(0, 1 << 16), st.binary(min_size=1, max_size=4)),
    st.tuples(st.just("delete"), st.integers(0, 1 << 16), st.integers(1, 4)),
    st.tuples(st.just("overwrite"), st.integers(0, 1 << 16), st.sampled_from(HUGE)),
    st.tuples(st.just("byte"), st.integers(0, 1 << 16), st.sampled_from([0x00, 0x01, 0x7F, 0x80, 0xFF, 0xC3, 0xED])),
)


def mutate(frame: bytes, mutations) -> bytes:
    data = bytearray(frame)
    for mutation in mutations:
        kind, where = mutation[0], mutation[1]
        at = where % (len(data) + 1)
        if kind == "flip" and data:
            data[at % len(data)] ^= 1 << mutation[2]
        elif kind == "truncate":
            del data[at:]
        elif kind == "insert":
            data[at:at] = mutation[2]
        elif kind == "delete":
            del data[at:at + mutation[2]]
        elif kind == "overwrite":
            data[at:at + len(mutation[2])] = mutation[2]
        elif kind == "byte" and data:
            data[at % len(data)] = mutation[2]
    return bytes(data)


@st.composite
def valid_frames(draw):
    key, cls, version = draw(st.sampled_from(REQUEST_VERSIONS))
    body = draw(S.message_values(cls, version))
    correlation_id = draw(st.integers(-(1 << 31), (1 << 31) - 1))
    client_id = draw(st.one_of(st.none(), st.text(max_size=4)))
    return frame_for(cls, version, body, correlation_id, client_id)


@S.fast(250)
@given(st.binary(max_size=300), st.sampled_from([bytes, bytearray, memoryview]))
def test_random_bytes(data, wrap):
    decode_safely(wrap(data))


@S.fast(250)
@given(st.sampled_from(REQUEST_VERSIONS), st.integers(-(1 << 31), (1 << 31) - 1), st.binary(max_size=200))
def test_random_body_behind_a_valid_header(request_version, correlation_id, body):
    key, cls, version = request_version
    frame = header_bytes(key, version, correlation_id, "c", header_version_for(cls, version)) + body
    error = decode_safely(frame)
    if isinstance(error, UnsupportedVersion):  # never: the version is valid
        pytest.fail(str(error))


@S.fast(300)
@given(valid_frames(), st.lists(MUTATION, min_size=1, max_size=4))
def test_mutated_valid_frames(frame, mutations):
    assert decode_safely(frame) is None, "the unmutated frame must decode"
    decode_safely(mutate(frame, mutations))


# ---------------------------------------------------------------------------------------
# Truncation


@pytest.mark.parametrize("key,cls", REQUEST_CLASSES, ids=[c.__name__ for _, c in REQUEST_CLASSES])
def test_every_strict_prefix_of_a_valid_frame_is_refused(key, cls):
    """The decoder reads exactly the bytes the encoder wrote, so any shorter frame must
    fail (BufferUnderflow, or InvalidLength when an array count exceeds what is left)."""
    for version in range(cls.valid_versions[0], cls.valid_versions[1] + 1):
        for body in (cls(), populated(cls, version)):
            frame = frame_for(cls, version, body, correlation_id=77)
            header, decoded = headers.decode_request(frame)
            assert header.correlation_id == 77 and S.plain(decoded) == S.plain(body)
            for end in range(len(frame)):
                error = decode_safely(frame[:end])
                assert isinstance(error, (BufferUnderflow, InvalidLength)), (version, end, error)


# ---------------------------------------------------------------------------------------
# Lengths: negative, huge; varints; strings


def body_frame(cls, version, body_bytes, correlation_id=5):
    return header_bytes(cls.api_key, version, correlation_id, "c", header_version_for(cls, version)) + body_bytes


def metadata_v1(count_and_rest: bytes):
    return body_frame(messages.MetadataRequest, 1, count_and_rest)


def produce_v3(records_length: bytes, tail: bytes = b""):
    body = (b"\xff\xff" + struct.pack(">hi", 1, 1000) + struct.pack(">i", 1) + b"\x00\x01t"
            + struct.pack(">i", 1) + struct.pack(">i", 0) + records_length + tail)
    return body_frame(messages.ProduceRequest, 3, body)


def test_hand_built_frames_are_valid_when_unmodified():
    header, body = headers.decode_request(metadata_v1(struct.pack(">i", 1) + b"\x00\x01a"))
    assert [t.name for t in body.topics] == ["a"] and header.client_id == "c"
    _, body = headers.decode_request(produce_v3(struct.pack(">i", 2), b"ab"))
    assert body.topic_data[0].partition_data[0].records == b"ab"
    _, body = headers.decode_request(produce_v3(struct.pack(">i", -1)))
    assert body.topic_data[0].partition_data[0].records is None  # nullable


def test_any_negative_length_is_null_where_null_is_allowed():
    """Kafka's generated readers test `length < 0`, not `== -1`: -2 or INT32_MIN is a null
    topic list (all topics), a null client id, null records."""
    for count in (-2, -(1 << 31)):
        _, body = headers.decode_request(metadata_v1(struct.pack(">i", count)))
        assert body.topics is None
    header, _ = headers.decode_request(header_bytes(18, 0, 9, None, 0) + struct.pack(">h", -2))
    assert header.client_id is None
    _, body = headers.decode_request(produce_v3(struct.pack(">i", -2)))
    assert body.topic_data[0].partition_data[0].records is None


@pytest.mark.parametrize("frame,error", [
    pytest.param(body_frame(messages.MetadataRequest, 0, struct.pack(">i", -1)), InvalidLength,
                 id="null-array-where-not-nullable"),
    pytest.param(metadata_v1(struct.pack(">i", 1) + struct.pack(">h", -1)), InvalidLength,
                 id="null-string-where-not-nullable"),
    pytest.param(metadata_v1(struct.pack(">i", 1) + struct.pack(">h", -2)), InvalidLength, id="string-length-minus-2"),
    pytest.param(body_frame(messages.MetadataRequest, 0, struct.pack(">i", -2)), InvalidLength,
                 id="array-count-minus-2-where-not-nullable"),
    pytest.param(body_frame(messages.ApiVersionsRequest, 3, b"\x00\x01\x00"), InvalidLength,
                 id="compact-null-where-not-nullable"),
])
def test_negative_lengths(frame, error):
    assert isinstance(decode_safely(frame), error)


def _uvarint(n):
    return p.encode_uvarint(n)


# FetchRequest v12: seven fixed-width fields (25 bytes), then empty topics, forgotten
# topics and rack id; the tagged section follows.
FETCH_V12_FIELDS = b"\x00" * 25 + b"\x01\x01\x01"


def test_fetch_v12_prefix_is_what_the_huge_case_assumes():
    _, body = headers.decode_request(body_frame(messages.FetchRequest, 12, FETCH_V12_FIELDS + b"\x00"))
    assert body.topics == [] and body.rack_id == "" and body.cluster_id is None
    _, body = headers.decode_request(body_frame(messages.FetchRequest, 12, FETCH_V12_FIELDS + b"\x01\x00\x02\x02x"))
    assert body.cluster_id == "x"


HUGE_CASES = [
    pytest.param(produce_v3(struct.pack(">i", (1 << 31) - 1)), BufferUnderflow, id="bytes-2^31-1"),
    pytest.param(metadata_v1(struct.pack(">i", (1 << 31) - 1)), InvalidLength, id="array-2^31-1"),
    pytest.param(metadata_v1(struct.pack(">i", 1) + struct.pack(">h", 0x7FFF)), BufferUnderflow, id="string-0x7fff"),
    pytest.param(body_frame(messages.ApiVersionsRequest, 3, _uvarint(1 << 31)), BufferUnderflow,
                 id="compact-string-2^31-1"),
    pytest.param(body_frame(messages.ApiVersionsRequest, 3, _uvarint((1 << 32) - 1)), BufferUnderflow,
                 id="compact-string-2^32-2"),
    pytest.param(body_frame(messages.MetadataRequest, 9, _uvarint(1 << 31)), InvalidLength, id="compact-array-2^31-1"),
    pytest.param(body_frame(messages.ApiVersionsRequest, 3, b"\x01\x01" + _uvarint((1 << 31) - 1)), InvalidLength,
                 id="tagged-count-2^31-1"),
    pytest.param(body_frame(messages.ApiVersionsRequest, 3, b"\x01\x01\x01\x05" + _uvarint((1 << 31) - 1)),
                 BufferUnderflow, id="tagged-size-2^31-1"),
    pytest.param(body_frame(messages.FetchRequest, 12, FETCH_V12_FIELDS + b"\x01\x00" + _uvarint((1 << 31) - 1)), BufferUnderflow,
                 id="known-tag-size-2^31-1"),
    pytest.param(header_bytes(18, 3, 9, "c", 2, tags=b"\x01\x00" + _uvarint((1 << 31) - 1)), BufferUnderflow,
                 id="header-tag-size-2^31-1"),
]


@pytest.mark.parametrize("frame,error", HUGE_CASES)
def test_huge_lengths_fail_fast_without_allocating(frame, error):
    assert isinstance(decode_safely(frame), error)  # first call compiles the decoders
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before, _ = tracemalloc.get_traced_memory()
        raised = decode_safely(frame)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        if not was_tracing:
            tracemalloc.stop()
    assert isinstance(raised, error), raised
    assert peak - before < 64 * 1024, f"decoding allocated {peak - before} bytes"


@pytest.mark.parametrize("varint", [b"\x80" * 5 + b"\x01", b"\xff" * 6, b"\xff" * 5 + b"\x00", b"\x80" * 10])
def test_overlong_varints_raise_invalid_varint(varint):
    # as a compact string length, as a compact array count, as a tagged-field count
    assert isinstance(decode_safely(body_frame(messages.ApiVersionsRequest, 3, varint)), InvalidVarint)
    assert isinstance(decode_safely(body_frame(messages.MetadataRequest, 9, varint)), InvalidVarint)
    assert isinstance(decode_safely(body_frame(messages.ApiVersionsRequest, 3, b"\x01\x01" + varint)), InvalidVarint)


@pytest.mark.parametrize("raw,text", [(b"\xff\xfe", "\ufffd\ufffd"), (b"\xc3", "\ufffd"), (b"\xed\xa0\x80", "\ufffd"),
                                      (b"a\x80b", "a\ufffdb"), (b"\xf8\x88\x80\x80\x80", "\ufffd" * 5)])
def test_strings_that_are_not_utf8_decode_as_java_reads_them(raw, text):
    """Kafka reads a string with Java's `new String(bytes, UTF_8)`: malformed bytes become
    U+FFFD, the request is read all the same."""
    # in the header's client_id
    header, _ = headers.decode_request(struct.pack(">hhih", 18, 0, 1, len(raw)) + raw)
    assert header.client_id == text
    # in a classic body string
    _, body = headers.decode_request(metadata_v1(struct.pack(">ih", 1, len(raw)) + raw))
    assert [topic.name for topic in body.topics] == [text]
    # in a compact body string
    _, body = headers.decode_request(body_frame(messages.ApiVersionsRequest, 3,
                                                _uvarint(len(raw) + 1) + raw + b"\x01\x00"))
    assert body.client_software_name == text


def test_valid_utf8_is_accepted():
    raw = "ü€😀".encode()
    _, body = headers.decode_request(metadata_v1(struct.pack(">ih", 1, len(raw)) + raw))
    assert body.topics[0].name == "ü€😀"


# ---------------------------------------------------------------------------------------
# API keys and versions


@pytest.mark.parametrize("api_key", [-1, -32768, 32767, 999, *NON_BROKER_API_KEYS])
def test_unknown_api_key(api_key):
    assert api_key not in messages.REQUESTS
    for version in (0, 1, 3):
        error = decode_safely(header_bytes(api_key, version, 4, "c") + b"\x00" * 16)
        assert isinstance(error, UnknownApiKey) and error.api_key == api_key


@pytest.mark.parametrize("key,cls", REQUEST_CLASSES, ids=[c.__name__ for _, c in REQUEST_CLASSES])
def test_unsupported_version_carries_the_parsed_header(key, cls):
    low, high = cls.valid_versions
    for version in (high + 1, low - 1, -1, MAX_VERSION):
        if low <= version <= high:
            continue
        # a client writes the flexible header when the (open-ended) flexible range says so
        frame = header_bytes(key, version, 123456, "cli", header_version_for(cls, version)) + b"\x00" * 8
        error = decode_safely(frame)
        assert isinstance(error, UnsupportedVersion), error
        assert error.version == version and error.valid == (low, high)
        assert error.header.correlation_id == 123456
        assert error.header.request_api_key == key
        assert error.header.request_api_version == version
        assert error.header.client_id == "cli"
