"""Record bytes that stay in their file until they are sent: `FileRange` and `SplicedFrame`.

A Fetch answer's records are byte ranges of segment files, sent as stored. Reading each
range into a `bytes` and then copying it into the response frame would pass every fetched
byte through Python twice. Instead a records field may hold a `FileRange` (a file
descriptor, a position, a size), and a response frame is encoded into a `SplicedFrame`:
the encoder writes the field's length prefix as usual, then, in place of the bytes, notes
where they belong. Whoever sends the frame writes its bytes and the ranges in order
(pylog/frame_writer.py: `os.sendfile` from the file to the socket where it can).

    SplicedFrame            a bytearray: the frame with every spliced range left out
      .splices              [(position, FileRange), ...] in ascending position: the range's
                            bytes go right before bytearray[position:]
      .spliced_bytes        the sum of the ranges' sizes (the frame's int32 size prefix
                            counts them)

Encoded into a plain bytearray (`codec.encode`, a test, a client), a `FileRange` is read
at once, so every other encoding path sees ordinary bytes.

The descriptor must stay open, and the range unchanged, until the frame is sent: the
broker builds and sends a Fetch answer in one turn of its event loop (nothing can close or
truncate a segment in between), so it holds.
"""

from __future__ import annotations

import os
from typing import NamedTuple

from protocol.primitives import INT32, encode_uvarint, write_bytes


class FileRange(NamedTuple):
    """`size_bytes` bytes of the open file `fd` from byte `position` on."""

    fd: int
    position: int
    size_bytes: int

    def read(self) -> bytes:
        return pread_exact(self.fd, self.position, self.size_bytes)


class SplicedFrame(bytearray):
    """A frame being encoded, with the `FileRange`s its records fields hold left out."""

    __slots__ = ("splices", "spliced_bytes")

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.splices: list[tuple[int, FileRange]] = []
        self.spliced_bytes = 0

    def whole(self) -> bytes:
        """The frame with its ranges read in: the bytes a receiver gets."""
        if not self.splices:
            return bytes(self)
        parts, start = [], 0
        for position, file_range in self.splices:
            parts += (self[start:position], file_range.read())
            start = position
        parts.append(self[start:])
        return b"".join(parts)


def write_records(out: bytearray, value, compact: bool) -> None:
    """A records field: bytes as `write_bytes` writes them, or a `FileRange` spliced into
    a `SplicedFrame` (read in, into any other bytearray)."""
    if type(value) is not FileRange:
        write_bytes(out, value, compact)
        return
    size = value.size_bytes
    out += encode_uvarint(size + 1) if compact else INT32.pack(size)
    if type(out) is SplicedFrame:
        out.splices.append((len(out), value))
        out.spliced_bytes += size
    else:
        out += value.read()


def pread_exact(fd: int, position: int, size: int) -> bytes:
    """`size` bytes at `position` (fewer only if the file is shorter)."""
    data = os.pread(fd, size, position)
    if len(data) == size or not data:
        return data
    parts = [data]
    got = len(data)
    while got < size:
        more = os.pread(fd, size - got, position + got)
        if not more:
            break
        parts.append(more)
        got += len(more)
    return b"".join(parts)
