"""Request/response headers: which version goes with which API version, and the frames.

Named cases here; `tests/compat/test_codegen_against_kafka.py` checks the header version of
every API and version against the flexible versions in Kafka's own definitions.
"""

from __future__ import annotations

import struct
import warnings

import pytest

from protocol import codec, headers, messages
from protocol.errors import BufferUnderflow, UnknownApiKey, UnsupportedVersion
from protocol.messages import (
    ApiVersionsRequest,
    ApiVersionsResponse,
    RequestHeader,
    ResponseHeader,
)
from tests.protocol import strategies as S

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from kafka.protocol.admin import CreateTopicsRequest as KPCreateTopicsRequest
    from kafka.protocol.admin import CreateTopicsResponse as KPCreateTopicsResponse
    from kafka.protocol.consumer import (
        FetchRequest as KPFetchRequest,
        FetchResponse as KPFetchResponse,
        JoinGroupRequest as KPJoinGroupRequest,
        JoinGroupResponse as KPJoinGroupResponse,
        ListOffsetsRequest as KPListOffsetsRequest,
        ListOffsetsResponse as KPListOffsetsResponse,
        OffsetCommitRequest as KPOffsetCommitRequest,
        OffsetCommitResponse as KPOffsetCommitResponse,
        OffsetFetchRequest as KPOffsetFetchRequest,
        OffsetFetchResponse as KPOffsetFetchResponse,
        SyncGroupRequest as KPSyncGroupRequest,
        SyncGroupResponse as KPSyncGroupResponse,
    )
    from kafka.protocol.metadata import (
        ApiVersionsRequest as KPApiVersionsRequest,
        ApiVersionsResponse as KPApiVersionsResponse,
        MetadataRequest as KPMetadataRequest,
        MetadataResponse as KPMetadataResponse,
    )
    from kafka.protocol.producer import (
        InitProducerIdRequest as KPInitProducerIdRequest,
        InitProducerIdResponse as KPInitProducerIdResponse,
        ProduceRequest as KPProduceRequest,
        ProduceResponse as KPProduceResponse,
    )

@pytest.mark.parametrize("api_key,version,request_header,response_header", [
    (0, 8, 1, 0), (0, 9, 2, 1),  # Produce
    (1, 11, 1, 0), (1, 12, 2, 1),  # Fetch
    (3, 8, 1, 0), (3, 9, 2, 1),  # Metadata
    (18, 0, 1, 0), (18, 2, 1, 0), (18, 3, 2, 0), (18, 4, 2, 0), (18, 5, 2, 0),  # ApiVersions: response v0 always
    (11, 5, 1, 0), (11, 6, 2, 1),  # JoinGroup
    (22, 1, 1, 0), (22, 2, 2, 1),  # InitProducerId
    (17, 1, 1, 0),  # SaslHandshake: never flexible
])
def test_header_versions_named_cases(api_key, version, request_header, response_header):
    assert headers.request_header_version(api_key, version) == request_header
    assert headers.response_header_version(api_key, version) == response_header


def test_controlled_shutdown_v0_uses_request_header_v0():
    assert headers.request_header_version(7, 0) == 0
    frame = struct.pack(">hhi", 7, 0, 4242) + b"\x00\x00\x00\x01"
    header, position = headers.decode_request_header(frame)
    assert (header.request_api_key, header.request_api_version, header.correlation_id) == (7, 0, 4242)
    assert position == 8
    with pytest.raises(UnknownApiKey):  # not a broker API here
        headers.decode_request(frame)


def test_unknown_api_keys():
    for key in (-1, 4, 9999):
        with pytest.raises(UnknownApiKey):
            headers.request_class(key)
        with pytest.raises(UnknownApiKey):
            headers.response_class(key)
        with pytest.raises(UnknownApiKey):
            headers.response_header_version(key, 0)
    assert headers.request_class(0) is messages.ProduceRequest
    assert headers.response_class(18) is ApiVersionsResponse


# ---------------------------------------------------------------------------------------
# Request headers on the wire


def test_client_id_stays_a_classic_string_in_header_v2():
    header = RequestHeader(request_api_key=18, request_api_version=3, correlation_id=1, client_id="abc")
    v2 = bytes(codec.encode(header, 2))
    assert v2 == struct.pack(">hhi", 18, 3, 1) + b"\x00\x03abc" + b"\x00"
    assert bytes(codec.encode(header, 1)) == v2[:-1]
    assert bytes(codec.encode(header, 0)) == v2[:8]
    null = bytes(codec.encode(RequestHeader(client_id=None), 2))
    assert null[8:] == b"\xff\xff\x00"


def api_versions_request_frame(version, correlation_id, client_id=b"rdkafka", header_tags=b"\x00"):
    """An ApiVersions request the way a modern client writes it, by hand."""
    out = struct.pack(">hhi", 18, version, correlation_id)
    out += struct.pack(">h", len(client_id)) + client_id + header_tags
    out += b"\x0blibrdkafka" + b"\x072.16.0" + b"\x00"  # compact strings, empty tagged section
    return out


@pytest.mark.parametrize("version", [3, 4])
def test_api_versions_v3_v4_with_flexible_header(version):
    header, body = headers.decode_request(api_versions_request_frame(version, 31337))
    assert (header.request_api_key, header.request_api_version, header.correlation_id) == (18, version, 31337)
    assert header.client_id == "rdkafka"
    assert body.client_software_name == "librdkafka" and body.client_software_version == "2.16.0"


@pytest.mark.parametrize("header_tags", [b"\x00", b"\x01\x05\x03abc", b"\x02\x00\x00\x09\x01z"])
@pytest.mark.parametrize("version", [5, 6, 100])
def test_api_versions_newer_than_ours_still_yields_the_correlation_id(version, header_tags):
    frame = api_versions_request_frame(version, 271828, header_tags=header_tags)
    with pytest.raises(UnsupportedVersion) as info:
        headers.decode_request(frame)
    header = info.value.header
    assert header.correlation_id == 271828 and header.client_id == "rdkafka"
    assert header.request_api_version == version
    assert headers.peek_request_ids(frame) == (18, version, 271828)
    # the answer goes out as a v0 body with a v0 header, readable by any client
    answer = ApiVersionsResponse(error_code=35, api_keys=[ApiVersionsResponse.ApiVersion(
        api_key=18, min_version=0, max_version=4)])
    out = headers.encode_response_frame(header.correlation_id, 18, 0, answer)
    assert out[4:8] == struct.pack(">i", 271828)
    assert bytes(out[8:]) == bytes(codec.encode(answer, 0))


def test_decode_request_header_reports_where_the_body_starts():
    frame = api_versions_request_frame(3, 1)
    header, position = headers.decode_request_header(frame)
    assert position == 8 + 2 + len(b"rdkafka") + 1
    assert codec.decode(ApiVersionsRequest, frame, 3, position).client_software_name == "librdkafka"


def test_peek_request_ids_needs_eight_bytes():
    for size in range(8):
        with pytest.raises(BufferUnderflow):
            headers.peek_request_ids(b"\x00" * size)
    assert headers.peek_request_ids(struct.pack(">hhi", 3, 12, -5)) == (3, 12, -5)


REQUEST_CLASSES = [getattr(messages, name) for _, name in sorted(messages.REQUESTS.items())]


@pytest.mark.parametrize("cls", REQUEST_CLASSES, ids=lambda c: c.__name__)
def test_encode_request_decode_request_round_trip(cls):
    for version in range(cls.valid_versions[0], cls.valid_versions[1] + 1):
        for client_id in ("client-1", None, "ü"):
            header = RequestHeader(request_api_key=cls.api_key, request_api_version=version,
                                   correlation_id=version * 1000 + 7, client_id=client_id)
            frame = bytes(headers.encode_request(header, cls()))
            decoded_header, body = headers.decode_request(frame)
            assert decoded_header == header
            assert body == cls()
            # header bytes as Kafka defines them: v1 classic, v2 classic client_id + tags
            expected = struct.pack(">hhi", cls.api_key, version, version * 1000 + 7)
            raw = None if client_id is None else client_id.encode()
            expected += b"\xff\xff" if raw is None else struct.pack(">h", len(raw)) + raw
            if cls.is_flexible(version):
                expected += b"\x00"
            assert frame.startswith(expected)
            assert frame[len(expected):] == bytes(codec.encode(cls(), version))


# ---------------------------------------------------------------------------------------
# Responses


RESPONSE_CLASSES = [getattr(messages, name) for _, name in sorted(messages.RESPONSES.items())]


@pytest.mark.parametrize("cls", RESPONSE_CLASSES, ids=lambda c: c.__name__)
def test_encode_response_frame_and_decode_response(cls):
    for version in range(cls.valid_versions[0], cls.valid_versions[1] + 1):
        body = cls()
        frame = bytes(headers.encode_response_frame(-99, cls.api_key, version, body))
        size, = struct.unpack_from(">i", frame)
        assert size == len(frame) - 4
        assert frame[4:8] == struct.pack(">i", -99)
        body_bytes = bytes(codec.encode(body, version))
        flexible_header = cls.is_flexible(version) and cls.api_key != 18
        assert frame[8:] == (b"\x00" if flexible_header else b"") + body_bytes
        header, decoded = headers.decode_response(cls.api_key, version, frame[4:])
        assert header.correlation_id == -99
        assert decoded == body


def test_response_frame_with_content_and_peer_header_tags():
    from protocol.messages import MetadataResponse

    body = MetadataResponse(brokers=[MetadataResponse.MetadataResponseBroker(node_id=1, host="h", port=9092)],
                            cluster_id="cid", controller_id=1)
    frame = bytes(headers.encode_response_frame(12, 3, 12, body))
    header, decoded = headers.decode_response(3, 12, frame[4:])
    assert header.correlation_id == 12 and S.plain(decoded) == S.plain(body)
    # a peer may put tagged fields in the response header: they are skipped
    tagged = frame[4:8] + b"\x01\x07\x02hi" + frame[9:]
    header, decoded = headers.decode_response(3, 12, tagged)
    assert header.correlation_id == 12 and S.plain(decoded) == S.plain(body)
    assert bytes(codec.encode(ResponseHeader(correlation_id=12), 1)) == frame[4:9]


# ---------------------------------------------------------------------------------------
# kafka-python on the other end

KP_PAIRS = [
    (KPProduceRequest, KPProduceResponse), (KPFetchRequest, KPFetchResponse),
    (KPMetadataRequest, KPMetadataResponse), (KPApiVersionsRequest, KPApiVersionsResponse),
    (KPListOffsetsRequest, KPListOffsetsResponse), (KPJoinGroupRequest, KPJoinGroupResponse),
    (KPSyncGroupRequest, KPSyncGroupResponse), (KPOffsetCommitRequest, KPOffsetCommitResponse),
    (KPOffsetFetchRequest, KPOffsetFetchResponse), (KPInitProducerIdRequest, KPInitProducerIdResponse),
    (KPCreateTopicsRequest, KPCreateTopicsResponse),
]


def _common_versions(ours, theirs):
    return range(ours.valid_versions[0], min(ours.valid_versions[1], theirs.max_version) + 1)


@pytest.mark.parametrize("kp_request,kp_response", KP_PAIRS, ids=[r.__name__ for r, _ in KP_PAIRS])
def test_kafka_python_request_with_header_decodes(kp_request, kp_response):
    ours = getattr(messages, kp_request.__name__)
    for version in _common_versions(ours, kp_request):
        request = kp_request()
        request.with_header(correlation_id=7, client_id="x")
        framed = bytes(request.encode(version=version, header=True, framed=True))
        assert struct.unpack_from(">i", framed)[0] == len(framed) - 4
        header, body = headers.decode_request(framed[4:])
        assert (header.request_api_key, header.request_api_version) == (ours.api_key, version)
        assert (header.correlation_id, header.client_id) == (7, "x")
        # the body is what kafka-python encodes without a header
        assert body == codec.decode(ours, bytes(request.encode(version=version)), version)


@pytest.mark.parametrize("kp_request,kp_response", KP_PAIRS, ids=[r.__name__ for _, r in KP_PAIRS])
def test_kafka_python_reads_our_response_frames(kp_request, kp_response):
    ours = getattr(messages, kp_response.__name__)
    for version in _common_versions(ours, kp_response):
        frame = bytes(headers.encode_response_frame(4321, ours.api_key, version, ours()))
        decoded = kp_response.decode(frame, version=version, header=True, framed=True)
        assert decoded.header.correlation_id == 4321
        # kafka-python's own header choice agrees with ours (ApiVersions: always v0)
        # (the version goes to the constructor: kafka-python's encode(version=...) would try
        # to set request_api_version on a response header)
        response = kp_response(version=version)
        response.with_header(correlation_id=4321)
        with_header = bytes(response.encode(header=True))
        kp_header = with_header[: len(with_header) - len(bytes(response.encode()))]
        expected_size = 5 if headers.response_header_version(ours.api_key, version) == 1 else 4
        assert len(kp_header) == expected_size
        assert frame[4:4 + expected_size] == kp_header
        assert headers.decode_response(ours.api_key, version, frame[4:])[1] == ours()


def test_an_encoded_body_makes_the_same_frame_as_its_message():
    body = ApiVersionsResponse(error_code=0, api_keys=[ApiVersionsResponse.ApiVersion(api_key=18, min_version=0,
                                                                                      max_version=4)])
    for version in (0, 3):
        encoded = headers.EncodedBody(codec.encode(body, version))
        assert headers.encode_response_frame(7, 18, version, encoded) == \
            headers.encode_response_frame(7, 18, version, body)
