"""A `pylog serve` process's memory after clients that claim big frames, send part of them
and hang up: what the half-sent frames held is given back (pylog/server.py)."""

from __future__ import annotations

import socket
import struct
import threading
import time

from tests.integration.support import ServeProcess

MiB = 1024 * 1024


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def test_half_sent_frames_of_closed_connections_give_their_memory_back(tmp_path):
    server = ServeProcess(tmp_path / "data").start()
    try:
        pid = server.process.pid
        time.sleep(0.5)
        idle_mib = rss_mib(pid)
        sent = threading.Barrier(9)

        def claim_100_send_50():
            with socket.create_connection(("127.0.0.1", server.port)) as sock:
                sock.sendall(struct.pack(">i", 100 * MiB))
                chunk = bytes(MiB)
                for _ in range(50):
                    sock.sendall(chunk)
                sent.wait(timeout=60)
                time.sleep(0.5)      # let the broker read it all before the close

        clients = [threading.Thread(target=claim_100_send_50) for _ in range(8)]
        for client in clients:
            client.start()
        sent.wait(timeout=60)
        time.sleep(0.3)
        during_mib = rss_mib(pid)
        for client in clients:
            client.join(timeout=60)
        deadline = time.monotonic() + 10
        while (after_mib := rss_mib(pid)) > idle_mib + 16 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert during_mib > idle_mib + 200, (idle_mib, during_mib)   # the broker did hold the bytes
        assert after_mib <= idle_mib + 16, (idle_mib, during_mib, after_mib)
        assert server.process.poll() is None
    finally:
        server.stop()
