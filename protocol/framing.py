"""Kafka's framing: cutting a byte stream into requests (or responses), and back.

Every Kafka request and response travels as one frame:

    offset  size  field
    0       4     size      int32, big-endian: the number of bytes that follow
    4       size  payload   request or response header, then the message body

There is no magic number, checksum or terminator; a connection is just frames back to back.
A size that is negative, or larger than the broker accepts (Kafka's
`socket.request.max.bytes`, 100 MiB by default), means the peer is broken or hostile:
the only safe answer is to close the connection.

Theory of operation
-------------------

`FrameReader` does no I/O. Its owner (the broker's connection protocol, a test, a fuzzer)
hands it whatever bytes arrived, in whatever pieces, and asks for frames:

    reader.feed(data)              # any chunking: 1 byte, half a frame, ten frames
    for payload in reader.frames():
        handle(payload)

as h11's `receive_data` / `next_event`. `next_frame()` returns one complete payload or
None when the next frame is not complete yet; `frames()` drains every complete one.

The reader holds input in one of two places, so that each received byte is copied a
bounded number of times whatever the chunking (no re-copying of a growing buffer, which
would be quadratic when a 1 MiB frame arrives in 64 KiB pieces):

1. `_buf`, a bytearray with a read position `_pos`: input not parsed yet. A complete
   frame is sliced out of it (one copy, into a `bytearray`). When the reader runs out of
   complete frames, what is left is at most a partial size prefix (< 4 bytes) and `_buf`
   is replaced by a new one, so it never keeps the capacity a burst of input left behind.
2. `_parts`, a list of chunks: the body of a frame that has not fully arrived. Once a
   size prefix has been read and checked and its body is incomplete, the body bytes so
   far move out of `_buf`; later `feed` calls append to `_parts` without touching what
   came before. A `bytes` chunk is kept as it is (no copy); small pieces are gathered
   into bytearrays of up to 64 KiB, so a byte-at-a-time sender does not cost a list item
   per byte. When `_parts` holds the whole body, one `join` builds the payload, and the
   bytes past its end (the next frames) go back to `_buf`.

Memory: the reader holds the bytes it was fed and has not handed back (plus, for a
caller that takes one frame per feed, a consumed head of at most max(64 KiB, that
much)), and allocates nothing from a size prefix itself: a peer that claims 100 MiB and
sends 4 bytes costs 4 bytes. (Kafka's own `NetworkReceive` allocates the claimed size up
front; pylog need not.) A bad size raises `InvalidFrame` before its body is collected and before any
frame after it is returned: `feed` checks the prefix of the frame to be returned next as
soon as its 4 bytes are in, and `next_frame` checks every prefix it reads (the only way
to reach one that arrived behind the end of another frame). After `InvalidFrame` the
reader is broken for good: every later call raises it again, since the stream has lost
its frame boundaries and the connection must be closed.

Writing is the reverse: `frame(payload)` returns the prefixed bytes; `frame_parts(...)`
returns the prefix and the unchanged parts for `writelines`, to avoid copying large
payloads (records read from a segment) into a new buffer.

Not thread-safe: one reader per connection, used by one task.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator

from protocol.errors import InvalidFrame

SIZE = struct.Struct(">i")
SIZE_BYTES = SIZE.size  # 4

#: Kafka's default `socket.request.max.bytes` (104857600): the largest request a broker reads.
DEFAULT_MAX_FRAME_BYTES = 100 * 1024 * 1024

#: The largest payload an int32 size prefix can describe.
MAX_INT32 = 0x7FFFFFFF

# Tuning of the buffers (see the module docstring); none of them limits what is accepted.
COALESCE_BYTES = 4096  # body pieces smaller than this are copied into an accumulator
ACCUMULATE_BYTES = 64 * 1024  # ... until it holds this much
COMPACT_BYTES = 64 * 1024  # drop a consumed head of _buf at least this long

Bytes = bytes | bytearray | memoryview


class FrameReader:
    """Incremental parser of size-prefixed frames; feed it bytes, take out payloads.

    Not thread-safe: one reader per connection, driven by one task.
    """

    __slots__ = ("max_frame_bytes", "_buf", "_pos", "_size", "_parts", "_parts_bytes", "_error")

    def __init__(self, max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES):
        if not 0 <= max_frame_bytes <= MAX_INT32:
            raise ValueError(f"max_frame_bytes must be in 0..{MAX_INT32}, not {max_frame_bytes}")
        self.max_frame_bytes = max_frame_bytes
        self._buf = bytearray()  # unparsed input, from _pos on
        self._pos = 0
        self._size = -1  # size of the frame whose body is being collected in _parts, else -1
        self._parts: list[Bytes] = []
        self._parts_bytes = 0
        self._error: str | None = None  # why the stream broke, once it has

    @property
    def buffered_bytes(self) -> int:
        """Bytes of input the reader holds in memory (fed, and not yet freed after use)."""
        return len(self._buf) + self._parts_bytes

    @property
    def next_frame_size(self) -> int | None:
        """The size its prefix claims for the next frame, once the prefix has arrived and
        the frame is not complete yet; else None. (After `frames()`, this is the frame being
        received, if any: what a memory pool charges before its bytes are in.)"""
        if self._size >= 0:
            return self._size if self._parts_bytes < self._size else None
        if len(self._buf) - self._pos < SIZE_BYTES:
            return None
        size = SIZE.unpack_from(self._buf, self._pos)[0]
        return size if len(self._buf) - self._pos - SIZE_BYTES < size else None

    def feed(self, data: Bytes) -> None:
        """Add received bytes.

        Raises InvalidFrame at once if the size prefix of the next frame to be returned is
        now complete and bad. (Prefixes further on are checked by `next_frame` before it
        returns anything past them.) A `bytes` argument may be kept by reference; any
        other buffer (a bytearray or memoryview the caller will reuse) is copied.
        """
        if self._error is not None:
            raise InvalidFrame(self._error)
        if not data:
            return
        if self._size >= 0:
            self._add_part(data)
            return
        self._buf += data
        if len(self._buf) - self._pos >= SIZE_BYTES:
            self._check_size(SIZE.unpack_from(self._buf, self._pos)[0])

    def next_frame(self) -> bytearray | None:
        """The next complete payload (without its size prefix), or None if none is complete.

        A bytearray, which the caller owns: the broker decodes a Produce request from it and
        storage stamps offsets into the record batches in place, with no further copy."""
        if self._error is not None:
            raise InvalidFrame(self._error)
        if self._size >= 0:
            if self._parts_bytes < self._size:
                return None
            return self._finish_parts()
        buf, pos = self._buf, self._pos
        available = len(buf) - pos
        if available < SIZE_BYTES:
            self._compact()
            return None
        size = SIZE.unpack_from(buf, pos)[0]
        self._check_size(size)
        start = pos + SIZE_BYTES
        end = start + size
        if end <= len(buf):
            with memoryview(buf) as view:
                payload = bytearray(view[start:end])
            self._pos = end
            if end == len(buf):
                self._compact()
            elif end >= COMPACT_BYTES and end * 2 >= len(buf):
                del buf[:end]  # a caller that takes one frame per feed: drop the consumed head
                self._pos = 0
            return payload
        # The body is incomplete: park what there is of it in _parts, and collect the rest
        # there, so that later feeds append instead of growing and re-copying _buf.
        with memoryview(buf) as view:
            head = bytes(view[start:])
        self._buf = bytearray()
        self._pos = 0
        self._size = size
        self._parts = []
        self._parts_bytes = 0
        if head:
            self._add_part(head)
        return None

    def frames(self) -> Iterator[bytearray]:
        """Yield every complete payload buffered so far."""
        while (payload := self.next_frame()) is not None:
            yield payload

    def _finish_parts(self) -> bytearray:
        size = self._size
        parts = self._parts
        extra = self._parts_bytes - size  # bytes past the end of this frame (next frames)
        leftover: list[Bytes] = []
        while extra > 0:
            last = parts.pop()
            if len(last) <= extra:
                leftover.append(last)
                extra -= len(last)
            else:
                cut = len(last) - extra
                view = memoryview(last)
                parts.append(view[:cut])
                leftover.append(view[cut:])
                extra = 0
        payload = bytearray().join(parts)
        self._size = -1
        self._parts = []
        self._parts_bytes = 0
        self._buf = bytearray()
        self._pos = 0
        for chunk in reversed(leftover):
            self._buf += chunk  # the next frames; their prefixes are checked on the next call
        return payload

    def _add_part(self, data: Bytes) -> None:
        parts = self._parts
        n = len(data)
        if n < COALESCE_BYTES:
            # Small pieces (a byte-at-a-time sender) are gathered into a bytearray of our
            # own, so a big frame fed in tiny pieces does not become a million list items.
            if parts and type(parts[-1]) is bytearray and len(parts[-1]) < ACCUMULATE_BYTES:
                parts[-1] += data
            else:
                parts.append(bytearray(data))
        else:
            parts.append(data if type(data) is bytes else bytes(data))
        self._parts_bytes += n

    def _check_size(self, size: int) -> None:
        if size < 0:
            self._error = f"frame size {size} is negative"
        elif size > self.max_frame_bytes:
            self._error = f"frame size {size} exceeds the maximum of {self.max_frame_bytes} bytes"
        else:
            return
        # Drop whatever is buffered: nothing after a bad prefix can be parsed.
        self._buf = bytearray()
        self._pos = 0
        self._parts = []
        self._parts_bytes = 0
        self._size = -1
        raise InvalidFrame(self._error)

    def _compact(self) -> None:
        """Forget consumed input in a fresh buffer, so the capacity of a past burst is freed."""
        if self._pos or self._buf:
            self._buf = self._buf[self._pos:]
            self._pos = 0


def frame(payload: Bytes) -> bytes:
    """`payload` with its int32 size prefix, as one bytes object."""
    size = _nbytes(payload)
    return SIZE.pack(_checked(size)) + payload


def frame_parts(*parts: Bytes) -> list[Bytes]:
    """A frame as a list for `writelines`: the size prefix, then `parts` unchanged (not copied)."""
    size = sum(_nbytes(part) for part in parts)
    return [SIZE.pack(_checked(size)), *parts]


def _nbytes(data: Bytes) -> int:
    return data.nbytes if isinstance(data, memoryview) else len(data)


def _checked(size: int) -> int:
    if size > MAX_INT32:
        raise ValueError(f"a {size}-byte payload does not fit an int32 frame size")
    return size
