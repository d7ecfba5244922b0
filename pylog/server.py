"""The network edge: accept connections, cut frames, answer them in order.

One `Connection` (an asyncio Protocol) per client socket:

    data_received ──> FrameReader ──> pending frames ──> one task: dispatch, write
                                       (in arrival order)

Kafka handles one request per connection at a time and clients match responses to
requests first-in first-out, so the task takes the next frame only after the previous
response was written (or dropped, for acks=0) and the client has read it down to the
transport's low-water mark: a client that sends requests and reads no answers holds one
answer in the broker, not one per request. Other connections go on meanwhile: a
long-poll Fetch parks only its own connection.

A Protocol rather than asyncio streams: parsing frames out of `data_received` avoids
the StreamReader's copying, which is the bottleneck for large produce requests. Responses
go out through pylog/frame_writer.py, which sends a Fetch answer's records from the segment
files with os.sendfile.

Flow control: when the frames waiting on a connection pass `MAX_PENDING_BYTES` the
transport stops reading until they are consumed, so a client that pipelines faster than
the broker answers cannot grow memory without bound. Across connections,
`queued.max.request.bytes` bounds the bytes of the requests held (pylog/request_memory.py):
each frame is charged from its size prefix on, released once answered, and while the pool
is exhausted the connections stop reading. A frame's bytes are allocated only as they
arrive (protocol/framing.py), and a closed connection drops what it held at once.
Answers are bounded too: a Fetch answer longer than the socket takes at once is read into
the transport a chunk at a time as the transport drains (its write-buffer water marks:
half a chunk; `send_rest`, pylog/frame_writer.py), so a connection holds about a chunk and
a half of an answer whatever the answer's size.

Connections per client address: `max.connections.per.ip` and its overrides
(pylog/connection_quotas.py) are checked as a connection is accepted; one beyond its
address's maximum is closed before anything is read from it.

Idle connections: `connections.max.idle.ms` (Kafka's default 10 minutes; -1 never) closes
a connection with no complete request in and no response out for that long, and nothing
waiting or in hand; a connection that never completes its frame is idle too, and so is
one whose next request waits on a client that does not read its last answer (the answer
draining counts as activity). A long-poll Fetch in hand keeps its connection from being
idle.

Socket options, Kafka's (its SocketServer): every accepted socket has TCP_NODELAY (the
event loop sets it), SO_KEEPALIVE, SO_SNDBUF `socket.send.buffer.bytes` and SO_RCVBUF
`socket.receive.buffer.bytes`, all but the first inherited from the listening socket, which
has them before it is bound (pylog/listen_sockets.py). Both buffers default to 100 KiB
(Linux doubles the value for its own bookkeeping); -1 (Kafka's USE_DEFAULT_BUFFER_SIZE)
leaves the operating system's size, which it grows as the connection goes. A fixed send
buffer holds a large Fetch answer back until the client has read what went before, so the
rest waits in the transport and goes out as the socket turns writable
(pylog/frame_writer.py). A buffer grown to hold the whole answer takes it at once, and on
loopback the kernel then sends the rest from the client's thread, as the client's reads
acknowledge what came before: a confluent-kafka consumer pays for that.

Stopping (`Server.stop`): no new connection is accepted, and bytes that arrive from then on
become no request; each connection's requests already taken are answered (up to a grace
period), then every connection is closed. Connections are still read meanwhile, their bytes
dropped, so that a client that hangs up ends its connection and cancels its request in
hand: a long-poll Fetch parked for a follower broker that has already stopped does not hold
the stop until its wait is over.

Faults: a frame whose size prefix is negative or above `socket.request.max.bytes`, or a
request that cannot be parsed, closes that one connection with one log line; a bug in a
handler is logged with its traceback and closes that connection too. The server keeps
serving everyone else.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import time

from protocol.errors import InvalidFrame
from protocol.framing import FrameReader
from pylog.connection_quotas import ConnectionQuotas
from pylog.dispatch import CloseConnection, Dispatcher
from pylog.frame_writer import REST_CHUNK_BYTES, WriteFlow, send_rest, write_frame
from pylog.listen_sockets import LISTEN_BACKLOG, USE_DEFAULT_BUFFER_SIZE, open_listening_sockets
from pylog.request_memory import RequestMemory

log = logging.getLogger("pylog.server")

MAX_PENDING_BYTES = 32 * 1024 * 1024


class Connection(asyncio.Protocol):
    def __init__(self, dispatcher: Dispatcher, max_frame_bytes: int, connections: set,
                 memory: RequestMemory | None = None, quotas: ConnectionQuotas | None = None):
        self.dispatcher = dispatcher
        self.quotas = quotas
        self.counted = False             # counted in `quotas` (a rejected connection is not)
        self.connections = connections
        self.memory = memory if memory is not None else RequestMemory()
        self.busy = False
        self.reader = FrameReader(max_frame_bytes)
        self.pending: collections.deque = collections.deque()
        self.pending_bytes = 0
        self.wakeup = asyncio.Event()
        self.transport: asyncio.Transport | None = None
        self.task: asyncio.Task | None = None
        self.peer = ("", 0)
        self.paused = False              # too many frames waiting on this connection
        self.paused_for_memory = False   # the request memory pool is exhausted
        self.admitted_bytes = 0          # charged for the frame being received, if admitted
        self.last_active_s = time.monotonic()   # a complete request in, or a response out
        self.write_flow = WriteFlow()    # the transport's buffer against its water marks
        self.stopping = False            # the server stops: bytes that arrive are dropped unread

    def connection_made(self, transport) -> None:
        self.transport = transport
        # a long answer's next chunk goes in once its last one is down to half a chunk
        transport.set_write_buffer_limits(high=REST_CHUNK_BYTES // 2, low=REST_CHUNK_BYTES // 2)
        peer = transport.get_extra_info("peername")
        if peer:
            self.peer = (peer[0], peer[1])
        if self.quotas is not None and peer:
            if not self.quotas.admit(self.peer[0]):
                transport.abort()   # at once, nothing read (Kafka's closeChannel)
                return
            self.counted = True
        self.connections.add(self)
        if self.memory.exhausted:
            self.pause_for_memory()
        self.task = asyncio.get_running_loop().create_task(self.serve())

    def pause_writing(self) -> None:
        self.write_flow.pause()

    def resume_writing(self) -> None:
        self.last_active_s = time.monotonic()   # the client read part of an answer
        self.write_flow.resume()

    def data_received(self, data: bytes) -> None:
        if self.stopping:
            return
        try:
            self.reader.feed(data)
        except InvalidFrame as e:
            self.close(f"bad frame: {e}")
            return
        if self.paused_for_memory:
            # read though paused (uvloop starts reading after connection_made, whatever it
            # said): the bytes wait in the reader until the pool has room
            self.transport.pause_reading()
            return
        self.take_frames()

    def take_frames(self) -> None:
        """Move the complete frames from the reader to `pending`, charging the pool."""
        taken = 0
        try:
            for frame in self.reader.frames():
                if self.admitted_bytes:
                    self.admitted_bytes = 0     # its charge is the frame's from now on
                else:
                    self.memory.charge(len(frame))
                self.pending.append(frame)
                self.pending_bytes += len(frame)
                taken += 1
        except InvalidFrame as e:
            self.close(f"bad frame: {e}")
            return
        if taken:
            self.last_active_s = time.monotonic()
        claimed = self.reader.next_frame_size
        if claimed is not None and not self.admitted_bytes and not self.memory.exhausted:
            self.memory.charge(claimed)
            self.admitted_bytes = claimed
        if self.memory.exhausted:
            for connection in self.connections:
                connection.pause_for_memory()
        if self.pending:
            self.wakeup.set()
            if self.pending_bytes > MAX_PENDING_BYTES and not self.paused:
                self.paused = True
                self.transport.pause_reading()

    def pause_for_memory(self) -> None:
        """Stop reading until the pool has room, unless in the middle of an admitted frame."""
        if self.admitted_bytes or self.paused_for_memory or self.transport is None:
            return
        self.paused_for_memory = True
        self.memory.pause(self)
        self.transport.pause_reading()

    def resume_for_memory(self) -> None:
        self.paused_for_memory = False
        if self.transport is None or self.transport.is_closing():
            return
        if not self.paused:
            self.transport.resume_reading()
        self.take_frames()

    def connection_lost(self, exc) -> None:
        if self.counted:
            self.counted = False
            self.quotas.release(self.peer[0])
        self.connections.discard(self)
        self.memory.forget(self)
        held, self.admitted_bytes = self.pending_bytes + self.admitted_bytes, 0
        self.pending.clear()
        self.pending_bytes = 0
        self.reader = FrameReader(self.reader.max_frame_bytes)   # what a half-sent frame held goes now
        if held:
            self.memory.release(held)
        if self.task is not None:
            self.task.cancel()

    def close(self, reason: str) -> None:
        log.warning("closing connection from %s:%s: %s", self.peer[0], self.peer[1], reason)
        if self.transport is not None:
            self.transport.close()
        if self.task is not None:
            self.task.cancel()

    def idle_for_s(self, now_s: float) -> float:
        """How long nothing has happened here: 0 while a request is in hand or waits for its
        turn, unless its turn waits on a client that does not read the last answer."""
        if self.busy or (self.pending and not self.write_flow.paused):
            return 0.0
        return now_s - self.last_active_s

    async def serve(self) -> None:
        while True:
            if not self.pending:
                self.wakeup.clear()
                await self.wakeup.wait()
                continue
            # one answer at a time, as Kafka's: the next request waits until the client has
            # read the last answer down to the transport's low-water mark
            await self.write_flow.drained()
            frame = self.pending.popleft()
            self.pending_bytes -= len(frame)
            if self.paused and self.pending_bytes <= MAX_PENDING_BYTES // 2:
                self.paused = False
                if not self.paused_for_memory:
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
                self.memory.release(len(frame))
            if response is not None and not self.transport.is_closing():
                rest = write_frame(self.transport, response)
                if rest is not None:   # a long answer: nothing else goes out before its end
                    await send_rest(self.transport, rest, self.write_flow)
            self.last_active_s = time.monotonic()


class Server:
    """The listening sockets, their connections, and the closing of idle ones."""

    def __init__(self, dispatcher: Dispatcher, max_frame_bytes: int, *, max_idle_ms: int = -1,
                 queued_max_request_bytes: int = -1, send_buffer_bytes: int = USE_DEFAULT_BUFFER_SIZE,
                 receive_buffer_bytes: int = USE_DEFAULT_BUFFER_SIZE, listen_backlog: int = LISTEN_BACKLOG,
                 quotas: ConnectionQuotas | None = None):
        self.dispatcher = dispatcher
        self.quotas = quotas if quotas is not None else ConnectionQuotas()
        self.max_frame_bytes = max_frame_bytes
        self.max_idle_ms = max_idle_ms
        self.send_buffer_bytes = send_buffer_bytes
        self.receive_buffer_bytes = receive_buffer_bytes
        self.listen_backlog = listen_backlog
        self.memory = RequestMemory(queued_max_request_bytes)
        self.connections: set[Connection] = set()
        self.listeners: list[asyncio.Server] = []   # one per address bound (pylog/listen_sockets.py)
        self._reaper: asyncio.Task | None = None

    @property
    def address(self) -> tuple[str, int]:
        return self.listeners[0].sockets[0].getsockname()[:2]

    async def start(self, host: str | None, port: int) -> None:
        loop = asyncio.get_running_loop()
        sockets = open_listening_sockets(host, port, self.receive_buffer_bytes, self.send_buffer_bytes,
                                         self.listen_backlog)
        try:
            while sockets:
                self.listeners.append(await loop.create_server(
                    lambda: Connection(self.dispatcher, self.max_frame_bytes, self.connections, self.memory,
                                       self.quotas),
                    sock=sockets[0], backlog=self.listen_backlog))
                sockets.pop(0)
        except BaseException:
            for sock in sockets:
                sock.close()
            for listener in self.listeners:
                listener.close()
            self.listeners = []
            raise
        if self.max_idle_ms >= 0:
            self._reaper = loop.create_task(self._close_idle())

    async def _close_idle(self) -> None:
        """Close the connections idle for `connections.max.idle.ms`, checking a few times
        per period (at most every second): no complete request in and no response out for
        that long, with nothing waiting, counts as idle, a half-sent frame too."""
        max_idle_s = self.max_idle_ms / 1000
        check_s = min(max(max_idle_s / 4, 0.01), 1.0)
        while True:
            await asyncio.sleep(check_s)
            now_s = time.monotonic()
            for connection in list(self.connections):
                idle_s = connection.idle_for_s(now_s)
                if idle_s >= max_idle_s:
                    log.info("closing connection from %s:%s: idle for %d ms (connections.max.idle.ms %d)",
                             connection.peer[0], connection.peer[1], idle_s * 1000, self.max_idle_ms)
                    connection.transport.close()

    async def stop(self, grace_s: float = 5.0) -> None:
        """Stop accepting; let each connection finish the request it is handling; close all."""
        if self._reaper is not None:
            self._reaper.cancel()
            self._reaper = None
        for listener in self.listeners:
            listener.close()
        connections = list(self.connections)
        for connection in connections:
            # still read, to hear a client hang up: its request in hand (a parked long poll)
            # is then cancelled, rather than waited for until its time is up
            connection.stopping = True
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
        for listener in self.listeners:
            await listener.wait_closed()
        self.listeners = []


async def start_server(dispatcher: Dispatcher, host: str, port: int, max_frame_bytes: int, *,
                       max_idle_ms: int = -1, queued_max_request_bytes: int = -1,
                       send_buffer_bytes: int = USE_DEFAULT_BUFFER_SIZE,
                       receive_buffer_bytes: int = USE_DEFAULT_BUFFER_SIZE,
                       listen_backlog: int = LISTEN_BACKLOG, quotas: ConnectionQuotas | None = None) -> Server:
    server = Server(dispatcher, max_frame_bytes, max_idle_ms=max_idle_ms,
                    queued_max_request_bytes=queued_max_request_bytes, send_buffer_bytes=send_buffer_bytes,
                    receive_buffer_bytes=receive_buffer_bytes, listen_backlog=listen_backlog, quotas=quotas)
    await server.start(host, port)
    return server
