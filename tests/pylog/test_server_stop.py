"""The server's stop over real sockets (pylog/server.py): a request in hand is waited for and
answered, but a client that hangs up while the server stops ends its request at once, so a
parked request of a client that has gone does not hold the stop for its whole wait."""

import asyncio
import socket
import struct
import time

from protocol import codec, headers
from protocol.messages import ApiVersionsRequest, ApiVersionsResponse, RequestHeader
from pylog.dispatch import Api, Dispatcher
from pylog.server import start_server


def _frame(correlation_id: int) -> bytes:
    header = RequestHeader(request_api_key=18, request_api_version=3, correlation_id=correlation_id,
                           client_id="test")
    body = ApiVersionsRequest(client_software_name="t", client_software_version="1")
    payload = codec.encode(header, 2) + codec.encode(body, 3)
    return struct.pack(">i", len(payload)) + payload


async def _server_whose_answers_wait(wait_s: float):
    """A server whose one API answers after `wait_s`, as a long poll that finds no data does;
    `started` is set once a request is in hand."""
    started = asyncio.Event()

    async def answer_later(request, context):
        started.set()
        await asyncio.sleep(wait_s)
        return ApiVersionsResponse(error_code=0, api_keys=[])

    server = await start_server(Dispatcher([Api(18, 0, 3, answer_later)]), "127.0.0.1", 0, 1 << 20)
    return server, started


def test_a_request_whose_client_hung_up_does_not_hold_the_stop():
    async def scenario() -> float:
        server, started = await _server_whose_answers_wait(30.0)
        client = socket.create_connection(("127.0.0.1", server.address[1]))
        client.sendall(_frame(1))
        await asyncio.wait_for(started.wait(), 5)
        stopping = asyncio.get_running_loop().create_task(server.stop(grace_s=20.0))
        await asyncio.sleep(0.05)   # the server is stopping, the request in hand
        client.close()              # and now its client hangs up
        began = time.monotonic()
        await asyncio.wait_for(stopping, 20)
        return time.monotonic() - began

    elapsed_s = asyncio.run(scenario())
    assert elapsed_s < 2   # not the 30 s of the request's wait, nor the 20 s of the grace


def test_a_request_in_hand_of_a_client_still_there_is_answered_before_the_stop_ends():
    async def scenario() -> tuple[float, int]:
        server, started = await _server_whose_answers_wait(0.3)
        reader, writer = await asyncio.open_connection("127.0.0.1", server.address[1])
        writer.write(_frame(7))
        await asyncio.wait_for(started.wait(), 5)
        began = time.monotonic()
        await server.stop(grace_s=20.0)
        elapsed_s = time.monotonic() - began
        size, = struct.unpack(">i", await reader.readexactly(4))
        response_header, _ = headers.decode_response(18, 3, await reader.readexactly(size))
        writer.close()
        return elapsed_s, response_header.correlation_id

    elapsed_s, correlation_id = asyncio.run(scenario())
    assert 0.2 < elapsed_s < 5
    assert correlation_id == 7
