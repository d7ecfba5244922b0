"""Sending a response frame, with the record bytes it leaves in their files sent from there.

A Fetch answer is a `SplicedFrame` (protocol/file_range.py): header and partition fields in
a bytearray, record bytes as `FileRange`s of segment files. `write_frame` sends the pieces
in order:

    bytes       transport.write
    FileRange   os.sendfile(socket, segment file) while the transport has nothing buffered
                (else the range would overtake bytes still queued) and the socket takes
                more; once the socket takes no more (EAGAIN), the rest of the frame (the
                rest of this range, and every byte and range after it) goes to the
                transport as buffers read in, at most `REST_CHUNK_BYTES` at a time

So the records a socket takes at once go from the page cache to the socket without entering
Python, and the rest costs one read, the same as a plain frame. How much a socket takes at
once is its send buffer: Kafka's `socket.send.buffer.bytes`, 100 KiB (pylog/server.py), so
a Fetch answer of 1 MiB goes mostly through the read; with the operating system's own buffer
(-1) it grows until a client that keeps up takes whole answers.

A rest of up to `REST_CHUNK_BYTES` (the usual one-partition answer) is read in, each range
with one `pread` into a `bytes` of its own, and handed to the transport in one `writelines`
call. (A `bytearray` to read into would be zero-filled first: for a 1 MiB chunk, a memset of
about 18 µs beside the 43 µs of the read itself.) A longer rest (an answer of many
partitions: up to the broker's `fetch.max.bytes`, 55 MiB) is not read whole: `write_frame`
returns a `RestOfFrame`, and `send_rest` hands the transport its next chunk each time the
transport's buffer is down to its low-water mark, half a chunk (pylog/server.py sets it):
the socket never runs dry, and a connection holds about a chunk and a half of an answer,
however large the answer and however many consumers ask at once. The connection answers
nothing else until the rest is out, so responses keep their order.

Why chunks, with the frame's last bytes in the same call as the records before them: the
transport writes the data of each `write` call with a system call of its own, and the
buffers of one `writelines` call with one `writev`. Queued apart, the few bytes that end a
Fetch answer (its tagged fields) could find the socket full again right after the records
and wait for it to drain once more before the client had its answer whole (seen on
loopback: 3 bytes that waited 0.6 ms). A chunk goes in while the transport still holds half
a chunk, so a chunk's end never makes the client wait.

Why the rest is read rather than sent with sendfile too, part by part as the socket drains:
measured on loopback against a confluent-kafka consumer (two A/B runs of each), sendfile
for the rest saves the broker 15-20% of its CPU per record read, but with 1 KiB records
costs the client 7-9% more CPU per record and 7% of its records per second (with 100 B
records it makes no difference). Likely cause: the read brings the records into the
processor's shared cache, where the client's copy then finds them, while sendfile hands
over page-cache pages nobody has touched since they were written. The client is the limit,
so the read stays.

Files: what `write_frame` sends or reads, it does before the event loop runs anything
else, so the segment files named stay open and unchanged meanwhile. A `RestOfFrame`
outlives that turn of the loop, so it holds duplicates of the descriptors of the ranges
left (`os.dup`, one per file): a segment closed meanwhile (retention, a deleted topic, a
cleaned segment swapped in) is still read from the file the answer named, and `close()`
releases them, however the sending ends (`send_rest`). With no descriptor to spare
(EMFILE) the rest is read whole at once instead, as a short rest is.

A socket error while sending (the peer left) aborts the transport, as a failed write does
in the transport itself; so does a range the file no longer holds, or cannot be read (the
log truncated while a long rest was out, a failing disk): a frame cut short would leave the
client waiting for bytes that never come, a padded one would hand it bytes nobody wrote.
"""

from __future__ import annotations

import asyncio
import os

from protocol.file_range import FileRange, SplicedFrame, pread_exact

REST_CHUNK_BYTES = 1024 * 1024


def write_frame(transport, frame: bytearray) -> RestOfFrame | None:
    """Send `frame` on `transport` (an asyncio transport over a TCP socket). Returns None once
    the frame is sent or queued in the transport whole, else the rest still to queue."""
    splices = frame.splices if type(frame) is SplicedFrame else None
    if not splices:
        transport.write(frame)
        return None
    socket_fd = transport.get_extra_info("socket").fileno()
    view = memoryview(frame)
    start = 0
    for index, (position, file_range) in enumerate(splices):
        if position > start:
            transport.write(view[start:position])
            start = position
        sent = 0
        if transport.get_write_buffer_size() == 0:
            try:
                sent = _sendfile(socket_fd, file_range)
            except OSError:
                transport.abort()
                return None
        if sent < file_range.size_bytes:
            rest = FileRange(file_range.fd, file_range.position + sent, file_range.size_bytes - sent)
            pieces: list = [rest]
            for position, later in splices[index + 1:]:
                pieces += (view[start:position], later)
                start = position
            pieces.append(view[start:])
            return RestOfFrame(pieces).write_next(transport)
    if start < len(frame):
        transport.write(view[start:])
    return None


async def send_rest(transport, rest: RestOfFrame, flow: WriteFlow) -> None:
    """Queue `rest` chunk by chunk, each once the transport's buffer is down to its low-water
    mark (`flow`); its descriptors are released however it ends."""
    try:
        while rest is not None:
            await flow.drained()
            if transport.is_closing():
                return
            rest = rest.write_next(transport)
    finally:
        if rest is not None:
            rest.close()


class WriteFlow:
    """A transport's flow control as its protocol hears it (`pause_writing` -> `pause`,
    `resume_writing` -> `resume`): `drained()` returns once the transport's buffer is at or
    below its low-water mark."""

    __slots__ = ("paused", "waiter")

    def __init__(self) -> None:
        self.paused = False
        self.waiter: asyncio.Future | None = None

    def pause(self) -> None:
        self.paused = True

    def resume(self) -> None:
        self.paused = False
        waiter, self.waiter = self.waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def drained(self) -> None:
        if self.paused:
            self.waiter = asyncio.get_running_loop().create_future()
            await self.waiter


class RestOfFrame:
    """The pieces of a frame not yet queued (bytes and `FileRange`s, in order), handed to
    the transport `REST_CHUNK_BYTES` at a time."""

    __slots__ = ("pieces", "size_bytes", "owned_fds", "files_owned")

    def __init__(self, pieces: list):
        self.pieces = pieces
        self.size_bytes = sum(piece.size_bytes if type(piece) is FileRange else len(piece) for piece in pieces)
        self.owned_fds: list[int] = []
        self.files_owned = False

    def write_next(self, transport) -> RestOfFrame | None:
        """Queue the next chunk; self while more is left, else None (all queued, or the
        connection aborted because a file could not give the bytes of its range)."""
        if not self._queue(transport, min(self.size_bytes, REST_CHUNK_BYTES)):
            return None
        if not self.files_owned:   # outliving this turn of the event loop: keep the files open
            try:
                self._own_files()
            except OSError:   # no descriptor to spare (EMFILE): the rest is read now, whole
                self._queue(transport, self.size_bytes)
                return None
        return self

    def close(self) -> None:
        """Release the descriptors this rest holds (whether sent or not)."""
        fds, self.owned_fds = self.owned_fds, []
        for fd in fds:
            os.close(fd)

    def _queue(self, transport, size: int) -> bool:
        """Read the next `size` bytes and hand them to the transport; False once nothing is
        left to send (all of it queued, or the connection aborted)."""
        try:
            buffers = self._read_in(size)
        except OSError:
            buffers = None
        if buffers is None:   # the frame cannot be completed: better cut short than padded
            self.close()
            transport.abort()
            return False
        transport.writelines(buffers)   # one call, one writev
        self.size_bytes -= size
        if not self.size_bytes:
            self.close()
            return False
        return True

    def _own_files(self) -> None:
        """Point the ranges left at duplicates of their descriptors, one per file."""
        self.files_owned = True
        duplicates: dict[int, int] = {}
        pieces = self.pieces
        for index, piece in enumerate(pieces):
            if type(piece) is FileRange:
                fd = duplicates.get(piece.fd)
                if fd is None:
                    fd = duplicates[piece.fd] = os.dup(piece.fd)
                    self.owned_fds.append(fd)
                pieces[index] = FileRange(fd, piece.position, piece.size_bytes)

    def _read_in(self, size: int) -> list | None:
        """The next `size` bytes of the pieces as buffers in order, each range read with one
        `pread` into a buffer of its own (nothing to zero-fill first), the pieces taken out
        (None if a file is shorter than its range)."""
        buffers: list = []
        filled = 0
        pieces = self.pieces
        while filled < size:
            piece = pieces[0]
            is_range = type(piece) is FileRange
            length = piece.size_bytes if is_range else len(piece)
            take = min(length, size - filled)
            if is_range:
                data = pread_exact(piece.fd, piece.position, take)
                if len(data) < take:
                    return None
                buffers.append(data)
            else:
                buffers.append(piece[:take])
            if take == length:
                del pieces[0]
            elif is_range:
                pieces[0] = FileRange(piece.fd, piece.position + take, length - take)
            else:
                pieces[0] = piece[take:]
            filled += take
        return buffers


def _sendfile(socket_fd: int, file_range: FileRange) -> int:
    """Bytes of the range the socket took now, from its start (fewer than asked when the
    socket's buffer is full)."""
    fd, position, remaining = file_range
    sent = 0
    while remaining > 0:
        try:
            n = os.sendfile(socket_fd, fd, position + sent, remaining)
        except BlockingIOError:
            break
        if n == 0:   # the end of the file: the read after this finds it too
            break
        sent += n
        remaining -= n
    return sent
