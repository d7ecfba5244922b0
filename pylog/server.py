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
    def __init__(self, dispatcher: Dispatcher, max_frame_bytes: int):
        self.dispatcher = dispatcher
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
            if response is not None and not self.transport.is_closing():
                self.transport.write(response)


async def start_server(dispatcher: Dispatcher, host: str, port: int, max_frame_bytes: int) -> asyncio.Server:
    loop = asyncio.get_running_loop()
    return await loop.create_server(lambda: Connection(dispatcher, max_frame_bytes), host, port)
