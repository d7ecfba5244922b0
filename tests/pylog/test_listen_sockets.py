"""The client listener's sockets (pylog/listen_sockets.py), opened as Kafka's SocketServer
opens its own: the buffers and keepalive on the listening socket, `socket.listen.backlog.size`
as the kernel's queue of completed connections, which addresses a host binds, and Kafka's one
line when the port is taken. On real sockets, and a real `pylog serve` for the backlog and
the port in use."""

from __future__ import annotations

import re
import select
import signal
import socket
import subprocess
import time

import pytest

from pylog.listen_sockets import ListenerBindFailed, open_listening_sockets
from tests.pylog.test_cli import serve, stop_cleanly
from tests.pylog.test_socket_options import reported_receive_buffer, reported_send_buffer


def _connects(family: int, address: tuple) -> bool:
    try:
        with socket.create_connection(address[:2], timeout=2) as sock:
            return sock.family == family
    except OSError:
        return False


def _has_ipv6_loopback() -> bool:
    if not socket.has_ipv6:
        return False
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
        return True
    except OSError:
        return False


def test_the_listening_socket_has_the_buffers_and_keepalive_and_listens():
    (sock,) = open_listening_sockets("127.0.0.1", 0, 32768, 65536, 50)
    with sock:
        assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF) == reported_receive_buffer(32768)
        assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF) == reported_send_buffer(65536)
        assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 1
        assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN) == 1
        assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR) == 1
        assert sock.getblocking() is False
        assert _connects(socket.AF_INET, sock.getsockname())


def test_a_blank_host_is_one_socket_on_every_interface():
    (sock,) = open_listening_sockets("", 0, -1, -1, 50)
    with sock:
        port = sock.getsockname()[1]
        assert _connects(socket.AF_INET, ("127.0.0.1", port))
        if _has_ipv6_loopback():
            assert sock.family == socket.AF_INET6
            assert _connects(socket.AF_INET6, ("::1", port))


def test_a_name_binds_each_of_its_addresses_on_one_port():
    resolved = {info[4][0] for info in socket.getaddrinfo("localhost", 0, socket.AF_UNSPEC, socket.SOCK_STREAM)}
    sockets = open_listening_sockets("localhost", 0, -1, -1, 50)
    try:
        assert {s.getsockname()[0] for s in sockets} == resolved
        assert len({s.getsockname()[1] for s in sockets}) == 1
        for sock in sockets:
            assert _connects(sock.family, sock.getsockname())
    finally:
        for sock in sockets:
            sock.close()


def test_an_address_in_use_raises_kafkas_message_and_leaves_nothing_open():
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        with pytest.raises(ListenerBindFailed) as raised:
            open_listening_sockets("127.0.0.1", port, -1, -1, 50)
    assert str(raised.value) == f"Socket server failed to bind to 127.0.0.1:{port}: Address already in use."


def test_serve_on_a_port_in_use_exits_1_with_one_line(tmp_path):
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        with serve("--port", str(port), "--data-dir", str(tmp_path / "data")) as process:
            _out, err = process.communicate(timeout=30)
    assert process.returncode == 1
    assert "Traceback" not in err
    errors = [line for line in err.splitlines() if " ERROR " in line]
    assert errors == [errors[0]] and errors[0].endswith(
        f"ERROR pylog.cli: Socket server failed to bind to 127.0.0.1:{port}: Address already in use.")


def _completed_connections(port: int, attempts: int, wait_s: float) -> int:
    """Of `attempts` connections started at once to a broker that does not accept, how many
    the kernel completes within `wait_s`: the listen backlog's worth (Linux holds one more
    than the backlog); the others' SYNs are dropped while the queue is full."""
    pending = []
    try:
        for _ in range(attempts):
            sock = socket.socket()
            sock.setblocking(False)
            sock.connect_ex(("127.0.0.1", port))
            pending.append(sock)
        time.sleep(wait_s)
        _, writable, _ = select.select([], pending, [], 0)
        return sum(1 for s in writable if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0)
    finally:
        for sock in pending:
            sock.close()


@pytest.mark.parametrize("backlog, completed", [(2, 3), (None, 8)])
def test_the_listen_backlog_bounds_the_connections_waiting_to_be_accepted(tmp_path, backlog, completed):
    overrides = ["--override", f"socket.listen.backlog.size={backlog}"] if backlog is not None else []
    with serve("--port", "0", "--data-dir", str(tmp_path / "data"), *overrides) as process:
        port = int(re.match(r"pylog ready on [\d.]+:(\d+)", process.stdout.readline()).group(1))
        process.send_signal(signal.SIGSTOP)   # accepts nothing until continued
        try:
            assert _completed_connections(port, 8, 0.5) == completed
        finally:
            process.send_signal(signal.SIGCONT)
        stop_cleanly(process)
