"""Sending a response frame, with the record bytes it leaves in their files sent from there.

A Fetch answer is a `SplicedFrame` (protocol/file_range.py): header and partition fields in
a bytearray, record bytes as `FileRange`s of segment files. `write_frame` sends the pieces
in order:

    bytes       transport.write
    FileRange   os.sendfile(socket, segment file) while the transport has nothing buffered
                (else the range would overtake bytes still queued) and the socket takes
                more; once the socket takes no more (EAGAIN), the rest of the frame (the
                rest of this range, and every byte and range after it) is read into one
                buffer and handed to transport.write, whose buffer sends it as the socket
                drains

So the records a socket takes at once go from the page cache to the socket without entering
Python, and the rest costs one read, the same as a plain frame. How much a socket takes at
once is its send buffer: Kafka's `socket.send.buffer.bytes`, 100 KiB (pylog/server.py), so
a Fetch answer of 1 MiB goes mostly through the read; with the operating system's own buffer
(-1) it grows until a client that keeps up takes whole answers.

Why one buffer for the rest: the transport writes the data of each `write` call with a
system call of its own. Queued apart, the few bytes that end a Fetch answer (its tagged
fields) could find the socket full again right after the records and wait for it to drain
once more before the client had its answer whole (seen on loopback: 3 bytes that waited
0.6 ms).

Why the rest is read rather than sent with sendfile too, part by part as the socket drains:
measured on loopback against a confluent-kafka consumer (two A/B runs of each), sendfile
for the rest saves the broker 15-20% of its CPU per record read, but with 1 KiB records
costs the client 7-9% more CPU per record and 7% of its records per second (with 100 B
records it makes no difference). Likely cause: the read brings the records into the
processor's shared cache, where the client's copy then finds them, while sendfile hands
over page-cache pages nobody has touched since they were written. The client is the limit,
so the read stays.

Nothing here awaits: the frame is sent (or queued in the transport) before the event loop
runs anything else, so the segment files it names stay open and unchanged throughout.

A socket error while sending (the peer left) aborts the transport, as a failed write does
in the transport itself; so does a range the file no longer holds (it cannot happen while
the above holds, but a short frame would leave the client waiting for bytes that never come).
"""

from __future__ import annotations

import os

from protocol.file_range import FileRange, SplicedFrame


def write_frame(transport, frame: bytearray) -> None:
    """Send `frame` on `transport` (an asyncio transport over a TCP socket)."""
    splices = frame.splices if type(frame) is SplicedFrame else None
    if not splices:
        transport.write(frame)
        return
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
                return
        if sent < file_range.size_bytes:
            rest = FileRange(file_range.fd, file_range.position + sent, file_range.size_bytes - sent)
            pieces: list = [rest]
            for position, later in splices[index + 1:]:
                pieces += (view[start:position], later)
                start = position
            pieces.append(view[start:])
            buffer = _read_in(pieces)
            if buffer is None:   # a file is shorter than its range: the frame cannot be completed
                transport.abort()
                return
            transport.write(buffer)
            return
    if start < len(frame):
        transport.write(view[start:])


def _read_in(pieces: list) -> bytearray | None:
    """The bytes and ranges of `pieces` in one buffer, the ranges read in (None if a file
    is shorter than its range)."""
    size = sum(piece.size_bytes if type(piece) is FileRange else len(piece) for piece in pieces)
    buffer = bytearray(size)
    into = memoryview(buffer)
    filled = 0
    for piece in pieces:
        if type(piece) is FileRange:
            end = filled + piece.size_bytes
            if piece.read_into(into[filled:end]) < piece.size_bytes:
                return None
        else:
            end = filled + len(piece)
            into[filled:end] = piece
        filled = end
    return buffer


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
