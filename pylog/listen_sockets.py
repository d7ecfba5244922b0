"""The listening sockets of the client listener, opened as Kafka's SocketServer opens its
own (`openServerSocket`), with the options Kafka gives each accepted socket
(`configureAcceptedSocketChannel`) set here once:

    socket() -> SO_REUSEADDR -> SO_RCVBUF socket.receive.buffer.bytes
             -> SO_SNDBUF socket.send.buffer.bytes -> SO_KEEPALIVE -> bind -> listen(backlog)

A socket the kernel accepts is a copy of its listener's: it starts with the listener's
buffer sizes (a size that was set stays fixed, the kernel does not grow it) and its
keepalive, on Linux as on the BSDs. So every connection has Kafka's options as it is
accepted, with no system call of its own for them. (TCP_NODELAY the event loop sets on
each accepted socket.) The options are set before bind: a size set on a socket that is
already listening does not reach a connection the kernel completed in between.
`socket.listen.backlog.size` (Kafka's default 50) is the length of the queue of
connections the kernel has completed and the broker has not yet accepted.

Which addresses are bound:
- a blank host (`listeners=PLAINTEXT://:9092`): every interface, as Kafka does, with one
  socket: an IPv6 socket that also takes IPv4 connections where the system has IPv6,
  otherwise IPv4's 0.0.0.0;
- an address (`127.0.0.1`, `::1`): that address, without a name lookup;
- a name (`localhost`): every address the resolver gives for it, one socket each, all on
  the same port (the first socket's, when port 0 asked for any free one). Kafka binds the
  first address only; binding them all lets a client that resolves `localhost` to `::1`
  before `127.0.0.1` connect at its first try.

A failure to bind (the port in use, an address this machine does not have) raises
`ListenerBindFailed` with Kafka's message, after closing what was opened.
"""

from __future__ import annotations

import errno
import socket

USE_DEFAULT_BUFFER_SIZE = -1   # socket.*.buffer.bytes: leave the operating system's size
LISTEN_BACKLOG = 50            # socket.listen.backlog.size, Kafka's default


class ListenerBindFailed(Exception):
    """The listener could not bind its address; the broker cannot serve."""


def open_listening_sockets(host: str | None, port: int, receive_buffer_bytes: int, send_buffer_bytes: int,
                           backlog: int) -> list[socket.socket]:
    """Bound, listening, non-blocking sockets for `host`:`port` (see the module docstring)."""
    buffers = (receive_buffer_bytes, send_buffer_bytes)
    opened: list[socket.socket] = []
    try:
        if not host:
            opened.append(_wildcard_socket(port, buffers, backlog))
        else:
            for family, address in _addresses(host, port):
                if opened and port == 0:   # every address on the port the first one got
                    address = (address[0], opened[0].getsockname()[1], *address[2:])
                opened.append(_listening_socket(family, address, buffers, backlog))
    except OSError as e:
        for sock in opened:
            sock.close()
        shown = f"[{host}]" if host and ":" in host else (host or "0.0.0.0")
        raise ListenerBindFailed(f"Socket server failed to bind to {shown}:{port}: {e.strerror or e}.") from e
    return opened


def _wildcard_socket(port: int, buffers: tuple[int, int], backlog: int) -> socket.socket:
    """Every interface: IPv6's `::` taking IPv4 too, or IPv4's 0.0.0.0 where IPv6 is
    missing or turned off."""
    if socket.has_ipv6:
        try:
            return _listening_socket(socket.AF_INET6, ("::", port, 0, 0), buffers, backlog)
        except OSError as e:
            if e.errno in (errno.EADDRINUSE, errno.EACCES):
                raise
    return _listening_socket(socket.AF_INET, ("0.0.0.0", port), buffers, backlog)


def _addresses(host: str, port: int) -> list[tuple[int, tuple]]:
    """(family, socket address) to bind for an address or a name, in order."""
    for family in (socket.AF_INET, socket.AF_INET6):
        try:
            socket.inet_pton(family, host)
        except OSError:
            continue
        return [(family, (host, port) if family == socket.AF_INET else (host, port, 0, 0))]
    found = []
    for family, _type, _proto, _name, address in socket.getaddrinfo(host, port, socket.AF_UNSPEC,
                                                                     socket.SOCK_STREAM, 0, socket.AI_PASSIVE):
        if (family, address) not in found:
            found.append((family, address))
    return found


def _listening_socket(family: int, address: tuple, buffers: tuple[int, int], backlog: int) -> socket.socket:
    """`buffers`: (receive, send) sizes in bytes, USE_DEFAULT_BUFFER_SIZE for the system's."""
    receive_buffer_bytes, send_buffer_bytes = buffers
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            # A wildcard IPv6 socket takes IPv4 too; a named host's IPv6 address is its own.
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0 if address[0] == "::" else 1)
        if receive_buffer_bytes != USE_DEFAULT_BUFFER_SIZE:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer_bytes)
        if send_buffer_bytes != USE_DEFAULT_BUFFER_SIZE:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, send_buffer_bytes)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        sock.bind(address)
        sock.listen(backlog)
        sock.setblocking(False)
    except BaseException:
        sock.close()
        raise
    return sock
