"""write_frame over a real TCP connection on a uvloop transport: the bytes a client receives
are the frame's, in order, whether the socket takes the file ranges at once (sendfile), only
partly (the rest read and buffered, chunk by chunk as the transport drains) or not at all
(the transport already holds bytes)."""

from __future__ import annotations

import asyncio
import errno
import os
import socket

import pytest
import uvloop

from protocol.file_range import FileRange, SplicedFrame
from pylog.frame_writer import REST_CHUNK_BYTES, WriteFlow, send_rest, write_frame

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


def _send(frames, read_after_s: float, wrap=lambda transport: transport, after_write=lambda: None,
          client_reads: int | None = None) -> bytes:
    """Write `frames` on the broker side of a loopback connection, as pylog/server.py does (a
    frame's rest queued chunk by chunk as the transport drains, before the next frame); the
    client starts reading `read_after_s` after the first write (so that the socket's buffer
    fills first) and reads until the broker closes, or `client_reads` bytes and hangs up.
    `after_write` runs once the first frame's write_frame has returned."""
    received = bytearray()

    async def main():
        loop = asyncio.get_running_loop()
        accepted = loop.create_future()
        flow = WriteFlow()

        class Side(asyncio.Protocol):
            def connection_made(self, transport):
                transport.set_write_buffer_limits(high=REST_CHUNK_BYTES // 2, low=REST_CHUNK_BYTES // 2)
                accepted.set_result(transport)

            def pause_writing(self):
                flow.pause()

            def resume_writing(self):
                flow.resume()

        server = await loop.create_server(Side, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        client = socket.create_connection(("127.0.0.1", port))
        client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
        transport = await accepted
        # buffers of a fixed size, so that "more than the socket takes" holds on any machine
        transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 256 * 1024)

        def read_all():
            while chunk := client.recv(MIB):
                received.extend(chunk)
                if client_reads is not None and len(received) >= client_reads:
                    client.close()
                    return

        async def write_all():
            for number, frame in enumerate(frames):
                rest = write_frame(wrap(transport), frame)
                if number == 0:
                    after_write()
                if rest is not None:
                    await send_rest(wrap(transport), rest, flow)

        writer = asyncio.ensure_future(write_all())
        await asyncio.sleep(read_after_s)
        reader = loop.run_in_executor(None, read_all)
        await asyncio.wait_for(asyncio.shield(writer), 30) if client_reads is None else await asyncio.sleep(0.3)
        while transport.get_write_buffer_size() and not transport.is_closing():
            await asyncio.sleep(0.01)
        transport.close()
        writer.cancel()
        await asyncio.gather(writer, return_exceptions=True)
        await asyncio.wait_for(reader, 30)
        if client_reads is None:
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


class Counted:
    """The real transport, with the size of each write call noted (a writelines call is one,
    of its buffers' total size: one writev), and the most bytes it held right after one."""

    def __init__(self, transport, writes: list[int], held: list[int]):
        self.transport = transport
        self.writes = writes
        self.held = held

    def write(self, data):
        self.writes.append(len(data))
        self.transport.write(data)
        self.held[0] = max(self.held[0], self.transport.get_write_buffer_size())

    def writelines(self, buffers):
        self.writes.append(sum(len(buffer) for buffer in buffers))
        self.transport.writelines(buffers)
        self.held[0] = max(self.held[0], self.transport.get_write_buffer_size())

    def __getattr__(self, name):
        return getattr(self.transport, name)


def _counted(writes: list[int], held: list[int]):
    wrapped = {}
    return lambda transport: wrapped.setdefault(id(transport), Counted(transport, writes, held))


def test_once_the_socket_is_full_a_short_rest_goes_in_one_write(segment, sendfile_bytes):
    """The rest of the range, the bytes and the range after it and the frame's last bytes are
    handed to the transport together: its last bytes never wait apart from the records."""
    fd, data = segment
    first = FileRange(fd, 7, MIB - 1000)
    small = FileRange(fd, 21 * MIB, 500)
    frame, expected = _frame([b"h" * 9, (first, data[7:7 + MIB - 1000]), b"between",
                              (small, data[21 * MIB:21 * MIB + 500]), b"end"])
    writes: list[int] = []
    received = _send([frame], read_after_s=0.2, wrap=_counted(writes, [0]))
    assert received == expected
    taken = sum(sendfile_bytes)
    assert 0 < taken < MIB - 1000
    assert writes == [9, len(expected) - 9 - taken]


def test_a_long_rest_goes_chunk_by_chunk_as_the_transport_drains(segment, sendfile_bytes):
    """A rest of many chunks is read a chunk at a time, each once the transport is down to
    half a chunk: the transport never holds much more than a chunk and a half, and the last
    chunk carries the frame's last bytes."""
    fd, data = segment
    big = FileRange(fd, 7, 20 * MIB)
    small = FileRange(fd, 21 * MIB, 500)
    frame, expected = _frame([b"h" * 9, (big, data[7:7 + 20 * MIB]), b"between",
                              (small, data[21 * MIB:21 * MIB + 500]), b"end"])
    writes: list[int] = []
    held = [0]
    received = _send([frame], read_after_s=0.2, wrap=_counted(writes, held))
    assert received == expected
    taken = sum(sendfile_bytes)
    assert 0 < taken < 20 * MIB
    rest = len(expected) - 9 - taken
    chunks, last = divmod(rest, REST_CHUNK_BYTES)
    assert writes == [9] + [REST_CHUNK_BYTES] * chunks + ([last] if last else [])
    assert held[0] <= REST_CHUNK_BYTES + REST_CHUNK_BYTES // 2


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_a_long_rest_reads_the_files_it_named_even_once_they_are_closed(tmp_path, sendfile_bytes):
    """A segment closed (its descriptor gone) while a rest is still being sent: the rest keeps
    its own descriptors, sends the file's bytes, and releases them at the end."""
    data = os.urandom(12 * MIB)
    path = tmp_path / "00000000000000000000.log"
    path.write_bytes(data)
    before = _open_fds()
    fd = os.open(path, os.O_RDONLY)
    frame, expected = _frame([b"h" * 9, (FileRange(fd, 0, 12 * MIB), data), b"end"])

    def close_and_reuse_the_number():
        os.close(fd)
        path.unlink()
        assert os.open(os.devnull, os.O_RDONLY) == fd   # the number now names another file

    received = _send([frame], read_after_s=0.2, after_write=close_and_reuse_the_number)
    os.close(fd)
    assert received == expected
    assert 0 < sum(sendfile_bytes) < 12 * MIB
    assert _open_fds() == before


def test_with_no_descriptor_to_spare_a_long_rest_is_read_whole(segment, sendfile_bytes, monkeypatch):
    """os.dup failing (EMFILE: the process is at its limit of open files) falls back to
    reading the whole rest at once: the frame still arrives whole."""
    fd, data = segment

    def no_descriptor(fd):
        raise OSError(errno.EMFILE, "Too many open files")

    monkeypatch.setattr(os, "dup", no_descriptor)
    frame, expected = _frame([b"h" * 9, (FileRange(fd, 0, 20 * MIB), data[:20 * MIB]), b"end"])
    writes: list[int] = []
    assert _send([frame], read_after_s=0.2, wrap=_counted(writes, [0])) == expected
    taken = sum(sendfile_bytes)
    assert writes == [9, REST_CHUNK_BYTES, len(expected) - 9 - taken - REST_CHUNK_BYTES]


def test_a_client_that_leaves_during_a_long_rest_leaves_no_descriptor_behind(segment, sendfile_bytes):
    fd, data = segment
    before = _open_fds()
    frame, expected = _frame([b"h" * 9, (FileRange(fd, 0, 20 * MIB), data[:20 * MIB]), b"end"])
    received = _send([frame], read_after_s=0.2, client_reads=3 * MIB)
    assert 3 * MIB <= len(received) < len(expected)
    assert received == expected[:len(received)]
    assert _open_fds() == before


def test_a_range_the_file_no_longer_holds_ends_the_connection_short(segment, sendfile_bytes):
    """A frame that cannot be completed is cut off (the connection closed), never padded."""
    fd, data = segment
    past_the_end = FileRange(fd, 23 * MIB, 5 * MIB)   # the file holds 1 MiB of it
    frame, expected = _frame([b"h" * 9, (past_the_end, data[23 * MIB:] + bytes(4 * MIB)), b"end"])
    received = _send([frame], read_after_s=0.2)
    assert len(received) < len(expected)
    assert received == expected[:len(received)]
