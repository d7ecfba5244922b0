"""write_frame over a real TCP connection on a uvloop transport: the bytes a client receives
are the frame's, in order, whether the socket takes the file ranges at once (sendfile), only
partly (the rest read and buffered) or not at all (the transport already holds bytes)."""

from __future__ import annotations

import asyncio
import os
import socket

import pytest
import uvloop

from protocol.file_range import FileRange, SplicedFrame
from pylog.frame_writer import write_frame

MIB = 1024 * 1024


@pytest.fixture
def segment(tmp_path):
    data = os.urandom(24 * MIB)
    path = tmp_path / "00000000000000000000.log"
    path.write_bytes(data)
    fd = os.open(path, os.O_RDONLY)
    yield fd, data
    os.close(fd)


@pytest.fixture
def sendfile_bytes(monkeypatch):
    """What os.sendfile sent, call by call (the real call, counted)."""
    sent: list[int] = []
    real = os.sendfile

    def counted(out_fd, in_fd, offset, count):
        n = real(out_fd, in_fd, offset, count)
        sent.append(n)
        return n

    monkeypatch.setattr(os, "sendfile", counted)
    return sent


def _frame(parts) -> tuple[SplicedFrame, bytes]:
    """A SplicedFrame of `parts` (bytes, or (FileRange, the bytes it holds)) and the bytes it stands for."""
    frame, expected = SplicedFrame(), []
    for part in parts:
        if isinstance(part, tuple):
            file_range, content = part
            frame.splices.append((len(frame), file_range))
            frame.spliced_bytes += file_range.size_bytes
            expected.append(content)
        else:
            frame += part
            expected.append(part)
    return frame, b"".join(expected)


def _send(frames, read_after_s: float, wrap=lambda transport: transport) -> bytes:
    """Write `frames` on the broker side of a loopback connection; the client starts reading
    `read_after_s` after the writes (so that the socket's buffer fills first) and reads until
    the broker closes."""
    received = bytearray()

    async def main():
        loop = asyncio.get_running_loop()
        accepted = loop.create_future()

        class Side(asyncio.Protocol):
            def connection_made(self, transport):
                accepted.set_result(transport)

        server = await loop.create_server(Side, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        client = socket.create_connection(("127.0.0.1", port))
        client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
        transport = await accepted
        # buffers of a fixed size, so that "more than the socket takes" holds on any machine
        transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 256 * 1024)
        for frame in frames:
            write_frame(wrap(transport), frame)
        await asyncio.sleep(read_after_s)

        def read_all():
            while chunk := client.recv(MIB):
                received.extend(chunk)

        reader = loop.run_in_executor(None, read_all)
        while transport.get_write_buffer_size():
            await asyncio.sleep(0.01)
        transport.close()
        await asyncio.wait_for(reader, 30)
        client.close()
        server.close()

    uvloop.run(main())
    return bytes(received)


def test_ranges_a_draining_socket_takes_go_by_sendfile(segment, sendfile_bytes):
    fd, data = segment
    frame, expected = _frame([b"header", (FileRange(fd, 100, 3000), data[100:3100]), b"middle",
                              (FileRange(fd, 5000, 20), data[5000:5020]), b"tail"])
    assert _send([frame], read_after_s=0) == expected
    assert sum(sendfile_bytes) == 3020


def test_what_a_full_socket_does_not_take_is_read_and_buffered(segment, sendfile_bytes):
    fd, data = segment
    big = FileRange(fd, 7, 20 * MIB)
    frame, expected = _frame([b"h" * 9, (big, data[7:7 + 20 * MIB]), b"after"])
    assert _send([frame], read_after_s=0.2) == expected
    assert 0 < sum(sendfile_bytes) < 20 * MIB   # the socket's buffer took part, the transport the rest


def test_a_range_never_overtakes_bytes_the_transport_holds(segment, sendfile_bytes):
    fd, data = segment
    queued = os.urandom(16 * MIB)   # more than the socket takes: the transport keeps some
    first, expected_first = _frame([queued])
    second, expected_second = _frame([b"next", (FileRange(fd, 0, 1000), data[:1000])])
    assert _send([first, second], read_after_s=0.2) == expected_first + expected_second
    assert sendfile_bytes == []


def test_once_the_socket_is_full_the_rest_of_the_frame_goes_in_one_write(segment, sendfile_bytes):
    """The rest of the range, the bytes and the range after it and the frame's last bytes are
    handed to the transport together: its last bytes never wait apart from the records."""
    fd, data = segment
    big = FileRange(fd, 7, 20 * MIB)
    small = FileRange(fd, 21 * MIB, 500)
    frame, expected = _frame([b"h" * 9, (big, data[7:7 + 20 * MIB]), b"between",
                              (small, data[21 * MIB:21 * MIB + 500]), b"end"])
    writes: list[int] = []

    class Counted:
        """The real transport, with the size of each write call noted."""

        def __init__(self, transport):
            self.transport = transport

        def write(self, data):
            writes.append(len(data))
            self.transport.write(data)

        def __getattr__(self, name):
            return getattr(self.transport, name)

    received = _send([frame], read_after_s=0.2, wrap=Counted)
    assert received == expected
    taken = sum(sendfile_bytes)
    assert 0 < taken < 20 * MIB
    assert writes == [9, len(expected) - 9 - taken]


def test_a_range_the_file_no_longer_holds_ends_the_connection_short(segment, sendfile_bytes):
    """A frame that cannot be completed is cut off (the connection closed), never padded."""
    fd, data = segment
    past_the_end = FileRange(fd, 23 * MIB, 5 * MIB)   # the file holds 1 MiB of it
    frame, expected = _frame([b"h" * 9, (past_the_end, data[23 * MIB:] + bytes(4 * MIB)), b"end"])
    received = _send([frame], read_after_s=0.2)
    assert len(received) < len(expected)
    assert received == expected[:len(received)]
