"""The network edge: accept connections, cut frames, answer them in order.

One `Connection` (an asyncio Protocol) per client socket:

    data_received ──> FrameReader ──> pending frames ──> one task: dispatch, write
                                       (in arrival order)

Kafka handles one request per connection at a time and clients match responses to
requests first-in first-out, so the task takes the next frame only after the previous
response was written (or dropped, for acks=0). Other connections go on meanwhile: a
long-poll Fetch parks only its own connection.

A Protocol rather than asyncio streams: parsing frames out of `data_received` avoids
the StreamReader's copying, which is the bottleneck for large produce requests.

Flow control: when the frames waiting on a connection pass `MAX_PENDING_BYTES` the
transport stops reading until they are consumed, so a client that pipelines faster than
the broker answers cannot grow memory without bound.

Faults: a frame whose size prefix is negative or above `socket.request.max.bytes`, or a
request that cannot be parsed, closes that one connection with one log line; a bug in a
handler is logged with its traceback and closes that connection too. The server keeps
serving everyone else.
"""

from __future__ import annotations

import asyncio
import collections
import logging

from protocol.errors import InvalidFrame
from protocol.framing import FrameReader
from pylog.dispatch import CloseConnection, Dispatcher

log = logging.getLogger("pylog.server")

MAX_PENDING_BYTES = 32 * 1024 * 1024


class Connection(asyncio.Protocol):
    def __init__(self, dispatcher: Dispatcher, max_frame_bytes: int, connections: set):
        self.dispatcher = dispatcher
        self.connections = connections
        self.busy = False
        self.reader = FrameReader(max_frame_bytes)
        self.pending: collections.deque = collections.deque()
        self.pending_bytes = 0
        self.wakeup = asyncio.Event()
        self.transport: asyncio.Transport | None = None
        self.task: asyncio.Task | None = None
        self.peer = ("", 0)
        self.paused = False

    def connection_made(self, transport) -> None:
        self.transport = transport
        self.connections.add(self)
        peer = transport.get_extra_info("peername")
        if peer:
            self.peer = (peer[0], peer[1])
        self.task = asyncio.get_running_loop().create_task(self.serve())

    def data_received(self, data: bytes) -> None:
        try:
            self.reader.feed(data)
            for frame in self.reader.frames():
                self.pending.append(frame)
                self.pending_bytes += len(frame)
        except InvalidFrame as e:
            self.close(f"bad frame: {e}")
            return
        if self.pending:
            self.wakeup.set()
            if self.pending_bytes > MAX_PENDING_BYTES and not self.paused:
                self.paused = True
                self.transport.pause_reading()

    def connection_lost(self, exc) -> None:
        self.connections.discard(self)
        if self.task is not None:
            self.task.cancel()

    def close(self, reason: str) -> None:
        log.warning("closing connection from %s:%s: %s", self.peer[0], self.peer[1], reason)
        if self.transport is not None:
            self.transport.close()
        if self.task is not None:
            self.task.cancel()

    async def serve(self) -> None:
        while True:
            if not self.pending:
                self.wakeup.clear()
                await self.wakeup.wait()
                continue
            frame = self.pending.popleft()
            self.pending_bytes -= len(frame)
            if self.paused and self.pending_bytes <= MAX_PENDING_BYTES // 2:
                self.paused = False
                self.transport.resume_reading()
            self.busy = True
            try:
                response = await self.dispatcher.handle(frame, *self.peer)
            except CloseConnection as e:
                self.close(str(e))
                return
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("request handler failed; closing connection from %s:%s", *self.peer)
                self.close("internal error")
                return
            finally:
                self.busy = False
            if response is not None and not self.transport.is_closing():
                self.transport.write(response)


class Server:
    """The listening socket and its connections."""

    def __init__(self, dispatcher: Dispatcher, max_frame_bytes: int):
        self.dispatcher = dispatcher
        self.max_frame_bytes = max_frame_bytes
        self.connections: set[Connection] = set()
        self.listener: asyncio.Server | None = None

    @property
    def address(self) -> tuple[str, int]:
        return self.listener.sockets[0].getsockname()[:2]

    async def start(self, host: str, port: int) -> None:
        loop = asyncio.get_running_loop()
        self.listener = await loop.create_server(
            lambda: Connection(self.dispatcher, self.max_frame_bytes, self.connections), host, port)

    async def stop(self, grace_s: float = 5.0) -> None:
        """Stop accepting; let each connection finish the request it is handling; close all."""
        if self.listener is not None:
            self.listener.close()
        connections = list(self.connections)
        for connection in connections:
            if connection.transport is not None:
                connection.transport.pause_reading()
        deadline = asyncio.get_running_loop().time() + grace_s
        while any(c.busy for c in connections) and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.01)
        tasks = [c.task for c in connections if c.task is not None]
        for connection in connections:
            if connection.transport is not None:
                connection.transport.close()
            if connection.task is not None:
                connection.task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self.listener is not None:
            await self.listener.wait_closed()
            self.listener = None


async def start_server(dispatcher: Dispatcher, host: str, port: int, max_frame_bytes: int) -> Server:
    server = Server(dispatcher, max_frame_bytes)
    await server.start(host, port)
    return server
