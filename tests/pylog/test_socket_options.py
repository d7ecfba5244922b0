"""The socket options the network edge (pylog/server.py) gives its sockets, Kafka's: SO_SNDBUF
`socket.send.buffer.bytes`, SO_RCVBUF `socket.receive.buffer.bytes`, SO_KEEPALIVE, which an
accepted socket inherits from the listening socket; -1 leaves a buffer at the operating
system's size. Read back from the broker's side of a real connection, and compared with a
socket whose buffer was set on itself after the accept, as Kafka sets it."""

from __future__ import annotations

import socket

import pytest

from pylog.testing import EmbeddedBroker
from tests.pylog.test_connection_limits import wait_until
from tests.pylog.wire import RawClient


def buffer_sizes_of(send_buffer_bytes: int, receive_buffer_bytes: int) -> tuple[int, int]:
    """What this kernel reports for a connection whose buffers were set to these sizes
    (-1: not set) the way Kafka sets them: Linux doubles a set value, and caps it."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        if receive_buffer_bytes != -1:
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer_bytes)
        with socket.create_connection(listener.getsockname()) as _client:
            accepted, _ = listener.accept()
            with accepted:
                if send_buffer_bytes != -1:
                    accepted.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, send_buffer_bytes)
                return (accepted.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF),
                        accepted.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF))


def reported_receive_buffer(size_bytes: int | None) -> int:
    """What this kernel reports for a new socket whose SO_RCVBUF was set to `size_bytes`
    (None: not set)."""
    return _reported(socket.SO_RCVBUF, size_bytes)


def reported_send_buffer(size_bytes: int | None) -> int:
    """The same for SO_SNDBUF."""
    return _reported(socket.SO_SNDBUF, size_bytes)


def _reported(option: int, size_bytes: int | None) -> int:
    with socket.socket() as probe:
        if size_bytes is not None:
            probe.setsockopt(socket.SOL_SOCKET, option, size_bytes)
        return probe.getsockopt(socket.SOL_SOCKET, option)


@pytest.mark.parametrize("config, sizes", [
    ({}, (102400, 102400)),   # Kafka's defaults
    ({"socket.send.buffer.bytes": "65536", "socket.receive.buffer.bytes": "32768"}, (65536, 32768)),
    ({"socket.send.buffer.bytes": "-1", "socket.receive.buffer.bytes": "-1"}, (-1, -1)),
])
def test_accepted_sockets_get_the_configured_buffers_and_keepalive(tmp_path, config, sizes):
    expected = buffer_sizes_of(*sizes)
    broker = EmbeddedBroker(tmp_path, config=config).start()
    client = RawClient(broker.bootstrap_servers)
    try:
        server = broker.broker.server
        wait_until(lambda: len(server.connections) == 1)
        (connection,) = server.connections
        sock = connection.transport.get_extra_info("socket")
        got = (sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF),
               sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF))
        assert got == expected
        assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 1
    finally:
        client.close()
        broker.stop()


def test_the_defaults_differ_from_the_operating_systems():
    """(else the first case above could not tell a set buffer from an untouched one)"""
    assert buffer_sizes_of(102400, 102400) != buffer_sizes_of(-1, -1)
