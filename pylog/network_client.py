"""The broker's own Kafka client: requests from one node to another over the wire protocol.

Brokers talk to the controller (BrokerRegistration, BrokerHeartbeat, AlterPartition, the
forwarded admin requests, the `__cluster_metadata` Fetch) and to each other (a follower's
Fetch) with Kafka's protocol, the same frames a client sends. Nothing of one node's memory
is reached from another.

    client = NodeClient("127.0.0.1", 9093, client_id="broker-2")
    response = await client.send(BrokerHeartbeatRequest(...), version=1)

One `NodeClient` is one TCP connection to one node, opened on first use and again after a
failure. Requests may be sent concurrently: each gets the next correlation id and a future;
responses come back in request order (a broker answers one request per connection at a
time), so the reader task resolves the oldest future first and checks the correlation id.
A Produce with acks=0 gets no response; this client is never used for one.

Socket options, Kafka's (its NetworkClient's Selector): TCP_NODELAY (the event loop sets
it), and SO_RCVBUF `receive_buffer_bytes` set before connecting, so that the window the
connection starts with matches it. As in Kafka, a follower's connection to its leader gets
`replica.socket.receive.buffer.bytes` (64 KiB; BrokerBlockingSender), a broker's metadata
fetches from the controller `socket.receive.buffer.bytes` (100 KiB; RaftManager), and its
other requests to the controller the operating system's size (-1, Kafka's
USE_DEFAULT_BUFFER_SIZE; NodeToControllerChannelManager).

Failures: a connection that cannot be opened, closes, or answers with an unreadable frame
fails every request in flight with `NodeUnavailable` and is dropped; the next `send`
connects again. A request not answered within `timeout_ms` raises `NodeUnavailable` and
drops the connection too, since the responses after it could no longer be matched.

Runs on the node's event loop; not thread-safe.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import socket
import struct

from protocol import headers
from protocol.messages import RequestHeader
from protocol.schema import Message
from pylog.listen_sockets import USE_DEFAULT_BUFFER_SIZE

log = logging.getLogger("pylog.network_client")

DEFAULT_REQUEST_TIMEOUT_MS = 30_000
DEFAULT_CONNECT_TIMEOUT_MS = 5_000


class NodeUnavailable(ConnectionError):
    """The node could not be reached, or the connection failed while a request waited."""


class NodeClient:
    def __init__(self, host: str, port: int, *, client_id: str,
                 request_timeout_ms: int = DEFAULT_REQUEST_TIMEOUT_MS,
                 connect_timeout_ms: int = DEFAULT_CONNECT_TIMEOUT_MS,
                 receive_buffer_bytes: int = USE_DEFAULT_BUFFER_SIZE):
        self.host = host
        self.port = port
        self.client_id = client_id
        self.receive_buffer_bytes = receive_buffer_bytes
        self.request_timeout_ms = request_timeout_ms
        self.connect_timeout_ms = connect_timeout_ms
        self._writer: asyncio.StreamWriter | None = None
        self._reader_task: asyncio.Task | None = None
        self._connecting: asyncio.Lock | None = None
        self._in_flight: collections.deque[tuple[int, int, int, asyncio.Future]] = collections.deque()
        self._correlation_id = 0

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    def retarget(self, host: str, port: int) -> None:
        """Point the client at a new address (a node restarted on another port); the open
        connection, if any, is dropped."""
        if (host, port) != (self.host, self.port):
            self.host, self.port = host, port
            self._fail(NodeUnavailable(f"node moved to {host}:{port}"))

    async def send(self, request: Message, version: int, timeout_ms: int | None = None) -> Message:
        """Send `request` at `version` and return the decoded response body."""
        await self._connect()
        self._correlation_id = (self._correlation_id + 1) & 0x7FFFFFFF
        correlation_id = self._correlation_id
        header = RequestHeader(request_api_key=request.api_key, request_api_version=version,
                               correlation_id=correlation_id, client_id=self.client_id)
        payload = headers.encode_request(header, request)
        future = asyncio.get_running_loop().create_future()
        # a caller that gave up (timed out) no longer reads the failure set later
        future.add_done_callback(lambda done: done.cancelled() or done.exception())
        self._in_flight.append((correlation_id, request.api_key, version, future))
        self._writer.write(struct.pack(">i", len(payload)))
        self._writer.write(payload)
        timeout_s = (self.request_timeout_ms if timeout_ms is None else timeout_ms) / 1000
        try:
            async with asyncio.timeout(timeout_s):
                return await asyncio.shield(future)
        except asyncio.TimeoutError:
            self._fail(NodeUnavailable(f"{self.address} did not answer within {timeout_s:.1f} s"))
            raise NodeUnavailable(f"{self.address} did not answer within {timeout_s:.1f} s") from None

    async def _connect(self) -> None:
        if self._writer is not None:
            return
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:
            if self._writer is not None:
                return
            try:
                async with asyncio.timeout(self.connect_timeout_ms / 1000):
                    reader, writer = await self._open()
            except (OSError, asyncio.TimeoutError) as e:
                raise NodeUnavailable(f"cannot connect to {self.address}: {e or 'timed out'}") from None
            self._writer = writer
            self._reader_task = asyncio.get_running_loop().create_task(self._read_responses(reader, writer))

    async def _open(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """A connection to the node: to each of its addresses in turn until one takes it,
        the receive buffer set before connecting."""
        if self.receive_buffer_bytes == USE_DEFAULT_BUFFER_SIZE:
            return await asyncio.open_connection(self.host, self.port)
        loop = asyncio.get_running_loop()
        refused: OSError | None = None
        for family, kind, proto, _name, address in await loop.getaddrinfo(self.host, self.port,
                                                                          type=socket.SOCK_STREAM):
            sock = socket.socket(family, kind, proto)
            try:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, self.receive_buffer_bytes)
                sock.setblocking(False)
                await loop.sock_connect(sock, address)
            except OSError as e:
                sock.close()
                refused = e
                continue
            except BaseException:
                sock.close()
                raise
            return await asyncio.open_connection(sock=sock)
        raise refused or OSError(f"{self.host} has no address")

    async def _read_responses(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                size, = struct.unpack(">i", await reader.readexactly(4))
                frame = await reader.readexactly(size)
                if writer is not self._writer or not self._in_flight:
                    raise NodeUnavailable(f"{self.address} sent a response nobody asked for")
                correlation_id, api_key, version, future = self._in_flight.popleft()
                response_header, body = headers.decode_response(api_key, version, frame)
                if response_header.correlation_id != correlation_id:
                    raise NodeUnavailable(f"{self.address} answered correlation id "
                                          f"{response_header.correlation_id}, expected {correlation_id}")
                if not future.done():
                    future.set_result(body)
        except asyncio.CancelledError:
            raise
        except (OSError, asyncio.IncompleteReadError) as e:
            self._fail(NodeUnavailable(f"connection to {self.address} lost: {e}"), writer)
        except Exception as e:   # an unreadable response: nothing after it can be matched
            log.warning("dropping the connection to %s: %s", self.address, e)
            self._fail(NodeUnavailable(f"connection to {self.address} failed: {e}"), writer)

    def _fail(self, error: Exception, writer: asyncio.StreamWriter | None = None) -> None:
        """Drop the connection (if `writer` is given, only if it is still the current one)
        and fail every request waiting on it."""
        if writer is not None and writer is not self._writer:
            return
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        task, self._reader_task = self._reader_task, None
        if task is not None and task is not asyncio.current_task():
            task.cancel()
        while self._in_flight:
            *_, future = self._in_flight.popleft()
            if not future.done():
                future.set_exception(error)

    async def close(self) -> None:
        task = self._reader_task
        self._fail(NodeUnavailable(f"client of {self.address} closed"))
        if task is not None:
            await asyncio.gather(task, return_exceptions=True)
