"""pylog's own client (pylog/network_client.py) against a real broker over a socket."""

from __future__ import annotations

import asyncio
import socket

import pytest

from protocol.messages import ApiVersionsRequest, MetadataRequest
from pylog.broker import Broker
from pylog.config import BrokerConfig
from pylog.network_client import NodeClient, NodeUnavailable
from tests.pylog.test_socket_options import reported_receive_buffer


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, 30))


async def started_broker(tmp_path, port: int = 0) -> Broker:
    broker = Broker(BrokerConfig.from_properties(None, {"log.dirs": str(tmp_path)}))
    await broker.start(host="127.0.0.1", port=port)
    return broker


def test_concurrent_requests_get_their_own_answers(tmp_path):
    async def scenario():
        broker = await started_broker(tmp_path)
        client = NodeClient("127.0.0.1", broker.port, client_id="test")
        try:
            versions, metadata = await asyncio.gather(
                client.send(ApiVersionsRequest(client_software_name="t", client_software_version="1"), 3),
                client.send(MetadataRequest(topics=[]), 12))
            assert any(api.api_key == 18 for api in versions.api_keys)
            assert [b.node_id for b in metadata.brokers] == [broker.node_id]
        finally:
            await client.close()
            await broker.stop()
    run(scenario())


def test_an_unreachable_node_fails_the_request_and_a_later_send_reconnects(tmp_path):
    port = free_port()

    async def scenario():
        client = NodeClient("127.0.0.1", port, client_id="test", connect_timeout_ms=1000)
        with pytest.raises(NodeUnavailable):
            await client.send(ApiVersionsRequest(), 0)
        broker = await started_broker(tmp_path, port)
        try:
            response = await client.send(ApiVersionsRequest(), 0)
            assert response.error_code == 0
        finally:
            await client.close()
            await broker.stop()
    run(scenario())


def test_a_node_that_stops_fails_what_is_in_flight(tmp_path):
    async def scenario():
        broker = await started_broker(tmp_path)
        client = NodeClient("127.0.0.1", broker.port, client_id="test")
        await client.send(ApiVersionsRequest(), 0)
        await broker.stop()
        with pytest.raises(NodeUnavailable):
            await client.send(ApiVersionsRequest(), 0, timeout_ms=5000)
        await client.close()
    run(scenario())


def test_the_receive_buffer_is_set_on_the_connection(tmp_path):
    async def scenario():
        broker = await started_broker(tmp_path)
        sized = NodeClient("localhost", broker.port, client_id="test", receive_buffer_bytes=32768)
        default = NodeClient("127.0.0.1", broker.port, client_id="test")
        try:
            for client in (sized, default):
                assert (await client.send(ApiVersionsRequest(), 0)).error_code == 0
            got = sized._writer.get_extra_info("socket").getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
            assert got == reported_receive_buffer(32768)
            untouched = default._writer.get_extra_info("socket").getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
            assert untouched != got
        finally:
            await sized.close()
            await default.close()
            await broker.stop()
    run(scenario())


def test_a_sized_connection_to_an_unreachable_node_fails_the_request(tmp_path):
    port = free_port()

    async def scenario():
        client = NodeClient("127.0.0.1", port, client_id="test", connect_timeout_ms=1000, receive_buffer_bytes=32768)
        with pytest.raises(NodeUnavailable, match="cannot connect"):
            await client.send(ApiVersionsRequest(), 0)
        await client.close()
    run(scenario())


def test_a_caller_cancelled_as_its_answer_arrives_ends_cancelled(tmp_path):
    """The answer and the cancellation land in the same step of the loop: the caller must
    see the cancellation, or a task stopped at that moment (a heartbeat loop) runs on."""
    async def scenario():
        broker = await started_broker(tmp_path)
        client = NodeClient("127.0.0.1", broker.port, client_id="test")
        try:
            await client.send(ApiVersionsRequest(), 0)
            caller = asyncio.get_running_loop().create_task(client.send(ApiVersionsRequest(), 0))
            while not client._in_flight:
                await asyncio.sleep(0)
            *_, answer = client._in_flight[0]
            answer.add_done_callback(lambda _: caller.cancel())
            done = await asyncio.gather(caller, return_exceptions=True)
            assert answer.done() and not answer.cancelled() and answer.exception() is None
            assert isinstance(done[0], asyncio.CancelledError), done
        finally:
            await client.close()
            await broker.stop()
    run(scenario())
