"""Sending records from a segment file to a socket on loopback: `os.sendfile` against
`writev` of the header and a file-backed buffer, and against a plain read and send.

    python -m bench.sendfile_bench          (BENCH_QUICK=1: a smaller total)

What a Fetch answer is on the wire: a small header (the response's fields) and then a
range of a segment file (the batches, as they were written). Three ways to put one on a
TCP socket, each sending the same responses, the range of each following the last one
through a 64 MiB file held in the page cache:

- sendfile: the header with `send`, then `os.sendfile` from the file (no copy through
  Python: what pylog's frame writer does, pylog/frame_writer.py);
- writev: `os.preadv` of the range into a buffer kept for the run, then one `sendmsg` of
  the header and the buffer (one copy into user space, no Python object per response
  beyond the views);
- read+send: `os.pread` (a new bytes object) and `sendall` of header + range (the copy a
  naive server makes, twice).

The reader is another process, pinned to the other core, reading 1 MiB at a time and
throwing the bytes away; the sender (this process) is pinned to its core. Per response
size (16 KiB, 256 KiB and 1 MiB: a small fetch, and librdkafka's and the Java client's
default partition fetch size) and per way: throughput (MB = 10^6 bytes, of the ranges and
headers) and the sender's CPU time per MB (user + system, from `os.times`). The ratios are
sendfile/writev and sendfile/read+send. Blocking sockets: what is compared is the system
calls and copies, not an event loop.
"""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

if __package__ in (None, ""):  # `python bench/sendfile_bench.py`
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import peers  # noqa: E402

QUICK = os.environ.get("BENCH_QUICK", "") not in ("", "0")
MiB = 1024 * 1024
FILE_BYTES = 64 * MiB
TOTAL_BYTES = (64 if QUICK else 512) * MiB   # sent per run
REPS = 1 if QUICK else 3
RESPONSE_BYTES = (16 * 1024, 256 * 1024, MiB)
HEADER = bytes(64)   # the size of a Fetch response's fields before its records, about

READER = """
import socket, sys
sock = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
buf = bytearray(1 << 20)
view = memoryview(buf)
while sock.recv_into(view):
    pass
"""


def _send_sendfile(sock: socket.socket, fd: int, position: int, size: int) -> None:
    sock.sendall(HEADER)
    out = sock.fileno()
    end = position + size
    while position < end:
        position += os.sendfile(out, fd, position, end - position)


def _sender_writev(buffer: bytearray):
    view = memoryview(buffer)

    def send(sock: socket.socket, fd: int, position: int, size: int) -> None:
        chunk = view[:size]
        got = os.preadv(fd, [chunk], position)
        assert got == size
        parts = [HEADER, chunk]
        while parts:
            sent = sock.sendmsg(parts)
            while parts and sent >= len(parts[0]):
                sent -= len(parts[0])
                parts.pop(0)
            if parts and sent:
                parts[0] = memoryview(parts[0])[sent:]

    return send


def _send_read(sock: socket.socket, fd: int, position: int, size: int) -> None:
    sock.sendall(HEADER + os.pread(fd, size, position))


def _run_once(send, fd: int, response_bytes: int, cpus: tuple[set[int] | None, set[int] | None]) -> tuple[float, float]:
    """Seconds of wall time and of this process's CPU to send TOTAL_BYTES of ranges."""
    sender_cpus, reader_cpus = cpus
    with socket.create_server(("127.0.0.1", 0)) as server:
        reader = subprocess.Popen([sys.executable, "-c", READER, str(server.getsockname()[1])])
        peers.pin(reader.pid, reader_cpus)
        sock, _ = server.accept()
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
        responses = TOTAL_BYTES // response_bytes
        position = 0
        cpu_before, started = os.times(), time.perf_counter()
        for _ in range(responses):
            if position + response_bytes > FILE_BYTES:
                position = 0
            send(sock, fd, position, response_bytes)
            position += response_bytes
        sock.shutdown(socket.SHUT_WR)
        reader.wait(60)
        wall_s = time.perf_counter() - started
        cpu_after = os.times()
    finally:
        sock.close()
        if reader.poll() is None:
            reader.kill()
            reader.wait()
    cpu_s = (cpu_after.user - cpu_before.user) + (cpu_after.system - cpu_before.system)
    return wall_s, cpu_s


def run() -> list[str]:
    sender_cpus, reader_cpus = peers.pinning()
    peers.pin(os.getpid(), sender_cpus)
    lines = [f"sendfile bench: {TOTAL_BYTES // MiB} MiB sent per run as responses of a {len(HEADER)} B header and a "
             f"range of a {FILE_BYTES // MiB} MiB file in the page cache, median of {REPS}; sender on core "
             f"{sorted(sender_cpus) if sender_cpus else 'any'}, reader on the other; MB = 10^6 bytes"]
    with tempfile.NamedTemporaryFile(prefix="bench-sendfile-", dir="/tmp") as file:
        file.write(os.urandom(MiB) * (FILE_BYTES // MiB))
        file.flush()
        fd = file.fileno()
        os.pread(fd, FILE_BYTES, 0)   # in the page cache
        buffer = bytearray(max(RESPONSE_BYTES))
        ways = {"sendfile": _send_sendfile, "writev": _sender_writev(buffer), "read+send": _send_read}
        for response_bytes in RESPONSE_BYTES:
            figures = {}
            for name, send in ways.items():
                runs = [_run_once(send, fd, response_bytes, (sender_cpus, reader_cpus)) for _ in range(REPS)]
                wall_s = statistics.median(w for w, _ in runs)
                cpu_s = statistics.median(c for _, c in runs)
                sent_mb = (TOTAL_BYTES + TOTAL_BYTES // response_bytes * len(HEADER)) / 1e6
                figures[name] = (sent_mb / wall_s, cpu_s * 1000 / sent_mb)
            cells = " | ".join(f"{name} {mb_s:,.0f} MB/s, {cpu_ms:.2f} ms CPU/MB" for name, (mb_s, cpu_ms)
                               in figures.items())
            sendfile_rate, sendfile_cpu = figures["sendfile"]
            lines.append(
                f"responses of {response_bytes // 1024} KiB: {cells}; sendfile/writev throughput "
                f"{sendfile_rate / figures['writev'][0]:.2f}x, CPU {sendfile_cpu / figures['writev'][1]:.2f}x; "
                f"sendfile/read+send throughput {sendfile_rate / figures['read+send'][0]:.2f}x, "
                f"CPU {sendfile_cpu / figures['read+send'][1]:.2f}x")
    return lines


if __name__ == "__main__":
    print("\n".join(run()))
