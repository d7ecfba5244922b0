"""A `pylog serve` process's memory against clients that would make it hold much: frames
claimed big, half sent and dropped give their memory back; answers of many partitions are
not held whole; and a client that sends requests without reading their answers gets one
answer held at a time (pylog/server.py, pylog/frame_writer.py)."""

from __future__ import annotations

import socket
import struct
import threading
import time

from protocol.messages import FetchRequest
from protocol.records import build_batch
from tests.integration.support import ServeProcess, WireClient

MiB = 1024 * 1024


def rss_mib(pid: int, field: str = "VmRSS") -> float:
    """The process's resident memory now (VmRSS), or its peak (VmHWM), in MiB."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise AssertionError(f"no {field}")


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


def fill_1_mb(client: WireClient, topic: str, partitions: int) -> None:
    """About 1 MB in each partition of `topic`: two batches of 500 records of 1000 B (each
    under the default message.max.bytes)."""
    batch = build_batch([(None, bytes(1000))] * 500, timestamp_ms=int(time.time() * 1000))
    for index in range(partitions):
        for _ in range(2):
            assert client.produce(topic, index, batch).error_code == 0


def reset_peak_rss(pid: int) -> None:
    """The process's peak resident memory (VmHWM) starts again from now."""
    with open(f"/proc/{pid}/clear_refs", "w", encoding="ascii") as clear:
        clear.write("5")


def fetch_from_start(topic: str, partitions: int) -> FetchRequest:
    """A Fetch of every partition of `topic` from offset 0, 1 MiB each, answered at once."""
    return FetchRequest(replica_id=-1, max_wait_ms=0, min_bytes=1, max_bytes=55 * MiB, isolation_level=0,
                        session_id=0, session_epoch=-1, topics=[FetchRequest.FetchTopic(topic=topic, partitions=[
                            FetchRequest.FetchPartition(partition=index, fetch_offset=0, partition_max_bytes=MiB)
                            for index in range(partitions)])])


def test_answers_of_many_partitions_are_not_held_whole(tmp_path):
    """Four consumers each fetch 40 partitions of 1 MiB at once and read their 40 MiB answers
    slowly: the broker's peak memory meanwhile grows by a few chunks per connection
    (pylog/frame_writer.py), not by the answers' size."""
    partitions, consumers = 40, 4
    server = ServeProcess(tmp_path / "data").start()
    try:
        pid = server.process.pid
        with WireClient(server.bootstrap_servers) as producer:
            producer.create_topics(["wide"], partitions)
            fill_1_mb(producer, "wide", partitions)
        time.sleep(0.5)
        idle_mib = rss_mib(pid)
        reset_peak_rss(pid)
        request = fetch_from_start("wide", partitions)
        received: list[int] = []

        def slow_consumer():
            with WireClient(server.bootstrap_servers, timeout_s=60) as client:
                client.send(1, 12, request)
                size, = struct.unpack(">i", client.read_exactly(4))
                got = 0
                while got < size:
                    got += len(client.sock.recv(min(256 * 1024, size - got)))
                    time.sleep(0.002)
                received.append(got)

        threads = [threading.Thread(target=slow_consumer) for _ in range(consumers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        peak_mib = rss_mib(pid, "VmHWM")
        print(f"idle {idle_mib:.1f} MiB, peak while fetching {peak_mib:.1f} MiB")
        assert len(received) == consumers and min(received) > partitions * 900_000, received
        assert peak_mib <= idle_mib + 24, (idle_mib, peak_mib)   # held whole: 4 x 40 MiB
        assert server.process.poll() is None
    finally:
        server.stop()


def test_a_client_that_sends_fetches_without_reading_holds_one_answer_at_a_time(tmp_path):
    """Two hundred Fetches of a 1 MiB partition sent at once by a client that reads nothing
    yet: the broker takes the next request only once the last answer has mostly drained, as
    Kafka answers one request per connection at a time, so its memory does not grow with the
    requests; once the client reads, every answer comes, in order."""
    fetches = 200
    server = ServeProcess(tmp_path / "data").start()
    try:
        pid = server.process.pid
        with WireClient(server.bootstrap_servers) as client:
            client.create_topics(["one"], 1)
            fill_1_mb(client, "one", 1)
            time.sleep(0.5)
            idle_mib = rss_mib(pid)
            reset_peak_rss(pid)
            request = fetch_from_start("one", 1)
            first_id = client.correlation_id + 1
            for _ in range(fetches):
                client.send(1, 12, request)
            time.sleep(1.0)
            peak_mib = rss_mib(pid, "VmHWM")
            print(f"idle {idle_mib:.1f} MiB, peak with {fetches} fetches unread {peak_mib:.1f} MiB")
            for number in range(fetches):
                response_header, answer = client.receive(1, 12)
                assert response_header.correlation_id == first_id + number
                assert len(answer.responses[0].partitions[0].records) > 900_000
        assert peak_mib <= idle_mib + 16, (idle_mib, peak_mib)   # held at once: 200 x 1 MiB
        assert server.process.poll() is None
    finally:
        server.stop()
