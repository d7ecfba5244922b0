"""A `pylog serve` process's memory against clients that would make it hold much: frames
claimed big, half sent and dropped give their memory back; answers of many partitions are
not held whole; and a client that sends requests without reading their answers gets one
answer held at a time (pylog/server.py, pylog/frame_writer.py)."""

from __future__ import annotations

import socket
import struct
import threading
import time

from tests.integration.support import ServeProcess

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


def test_answers_of_many_partitions_are_not_held_whole(tmp_path):
    """Four consumers each fetch 40 partitions of 1 MiB at once and read their 40 MiB answers
    slowly: the broker's peak memory meanwhile grows by a few chunks per connection
    (pylog/frame_writer.py), not by the answers' size."""
    from protocol.messages import FetchRequest, ProduceRequest
    from protocol.records import build_batch
    from tests.pylog.wire import RawClient

    partitions, consumers = 40, 4
    server = ServeProcess(tmp_path / "data", overrides={"num.partitions": partitions}).start()
    try:
        pid = server.process.pid
        producer = RawClient(server.bootstrap_servers)
        value = bytes(1000)
        for index in range(partitions):
            for _ in range(2):   # two batches of ~500 KiB: under the default message.max.bytes
                batch = build_batch([(None, value)] * 500, timestamp_ms=int(time.time() * 1000))
                answer = producer.request(0, 9, ProduceRequest(acks=-1, timeout_ms=10_000, topic_data=[
                    ProduceRequest.TopicProduceData(name="wide", partition_data=[
                        ProduceRequest.PartitionProduceData(index=index, records=batch)])]))
                assert answer.responses[0].partition_responses[0].error_code == 0, answer
        producer.close()
        time.sleep(0.5)
        idle_mib = rss_mib(pid)
        with open(f"/proc/{pid}/clear_refs", "w", encoding="ascii") as clear:
            clear.write("5")   # the peak (VmHWM) starts again from here
        request = FetchRequest(replica_id=-1, max_wait_ms=0, min_bytes=1, max_bytes=55 * MiB, isolation_level=0,
                               session_id=0, session_epoch=-1, topics=[FetchRequest.FetchTopic(
                                   topic="wide", partitions=[FetchRequest.FetchPartition(
                                       partition=index, fetch_offset=0, partition_max_bytes=MiB)
                                       for index in range(partitions)])])
        received: list[int] = []

        def slow_consumer():
            client = RawClient(server.bootstrap_servers)
            try:
                client.send(1, 12, request)
                size, = struct.unpack(">i", client.read_exactly(4))
                got = 0
                while got < size:
                    got += len(client.sock.recv(min(256 * 1024, size - got)))
                    time.sleep(0.002)
                received.append(got)
            finally:
                client.close()

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
    from protocol import headers
    from protocol.messages import FetchRequest, ProduceRequest
    from protocol.records import build_batch
    from tests.pylog.wire import RawClient

    fetches = 200
    server = ServeProcess(tmp_path / "data").start()
    try:
        pid = server.process.pid
        client = RawClient(server.bootstrap_servers)
        for _ in range(2):
            batch = build_batch([(None, bytes(1000))] * 500, timestamp_ms=int(time.time() * 1000))
            answer = client.request(0, 9, ProduceRequest(acks=-1, timeout_ms=10_000, topic_data=[
                ProduceRequest.TopicProduceData(name="one", partition_data=[
                    ProduceRequest.PartitionProduceData(index=0, records=batch)])]))
            assert answer.responses[0].partition_responses[0].error_code == 0, answer
        time.sleep(0.5)
        idle_mib = rss_mib(pid)
        with open(f"/proc/{pid}/clear_refs", "w", encoding="ascii") as clear:
            clear.write("5")
        request = FetchRequest(replica_id=-1, max_wait_ms=0, min_bytes=1, max_bytes=55 * MiB, isolation_level=0,
                               session_id=0, session_epoch=-1, topics=[FetchRequest.FetchTopic(
                                   topic="one", partitions=[FetchRequest.FetchPartition(
                                       partition=0, fetch_offset=0, partition_max_bytes=MiB)])])
        first_id = client.correlation_id + 1
        for _ in range(fetches):
            client.send(1, 12, request)
        time.sleep(1.0)
        peak_mib = rss_mib(pid, "VmHWM")
        print(f"idle {idle_mib:.1f} MiB, peak with {fetches} fetches unread {peak_mib:.1f} MiB")
        for number in range(fetches):
            size, = struct.unpack(">i", client.read_exactly(4))
            response_header, answer = headers.decode_response(1, 12, client.read_exactly(size))
            assert response_header.correlation_id == first_id + number
            assert len(answer.responses[0].partitions[0].records) > 900_000
        client.close()
        assert peak_mib <= idle_mib + 16, (idle_mib, peak_mib)   # held at once: 200 x 1 MiB
        assert server.process.poll() is None
    finally:
        server.stop()
