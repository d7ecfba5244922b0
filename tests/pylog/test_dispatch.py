"""The connection layer over real sockets: ApiVersions fallback (KIP-511), in-order answers, bad frames."""

import asyncio
import struct

import pytest

from protocol import codec, headers
from protocol.error_codes import ErrorCode
from protocol.messages import ApiVersionsRequest, RequestHeader
from pylog.dispatch import Api, Dispatcher
from pylog.handlers import api_versions
from pylog.server import start_server


async def _server(max_frame_bytes=1 << 20):
    dispatcher = Dispatcher([])
    no_features = lambda: api_versions.NodeFeatures((), {}, -1)  # noqa: E731
    dispatcher.apis[18] = Api(18, 0, 3, api_versions.make_handler(dispatcher, no_features))
    server = await start_server(dispatcher, "127.0.0.1", 0, max_frame_bytes)
    return server, server.address[1]


def _api_versions_frame(version, correlation_id):
    """An ApiVersions request; versions past the schema (5+) carry a v4 body, as a newer client would."""
    header = RequestHeader(request_api_key=18, request_api_version=version, correlation_id=correlation_id,
                           client_id="test")
    body = ApiVersionsRequest(client_software_name="t", client_software_version="1")
    payload = codec.encode(header, 2 if version >= 3 else 1) + codec.encode(body, min(version, 4))
    return struct.pack(">i", len(payload)) + payload


async def _read_response(reader, version):
    size, = struct.unpack(">i", await reader.readexactly(4))
    return headers.decode_response(18, version, await reader.readexactly(size))


@pytest.mark.parametrize("version", [4, 5, 9])
def test_unknown_api_versions_version_gets_v0_fallback(version):
    async def scenario():
        server, port = await _server()
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(_api_versions_frame(version, 77))
        response_header, body = await _read_response(reader, 0)
        writer.close()
        await server.stop()
        return response_header, body

    response_header, body = asyncio.run(scenario())
    assert response_header.correlation_id == 77
    assert body.error_code == ErrorCode.UNSUPPORTED_VERSION
    assert [(a.api_key, a.min_version, a.max_version) for a in body.api_keys] == [(18, 0, 3)]


def test_pipelined_requests_are_answered_in_order():
    async def scenario():
        server, port = await _server()
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"".join(_api_versions_frame(v % 4, 100 + v) for v in range(20)))
        ids = []
        for v in range(20):
            response_header, _ = await _read_response(reader, v % 4)
            ids.append(response_header.correlation_id)
        writer.close()
        await server.stop()
        return ids

    assert asyncio.run(scenario()) == [100 + v for v in range(20)]


@pytest.mark.parametrize("garbage", [
    struct.pack(">i", 0x7FFFFFFF),            # a size far over socket.request.max.bytes
    struct.pack(">i", -5),                    # a negative size
    struct.pack(">i", 8) + b"\x7f\x00" * 4,   # unknown API key 32512
    struct.pack(">i", 3) + b"\x00\x12\x00",   # a header cut short
])
def test_bad_frame_closes_only_that_connection(garbage):
    async def scenario():
        server, port = await _server()
        bad_reader, bad_writer = await asyncio.open_connection("127.0.0.1", port)
        bad_writer.write(garbage)
        closed = await asyncio.wait_for(bad_reader.read(), timeout=5)
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(_api_versions_frame(3, 5))
        response_header, body = await _read_response(reader, 3)
        writer.close()
        await server.stop()
        return closed, response_header, body

    closed, response_header, body = asyncio.run(scenario())
    assert closed == b""  # EOF: the server closed the connection without answering
    assert response_header.correlation_id == 5 and body.error_code == 0
