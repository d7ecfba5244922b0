"""The network edge's bounds (pylog/server.py, pylog/request_memory.py) over real sockets:
`queued.max.request.bytes` stops reading across connections until requests are answered,
and `connections.max.idle.ms` closes idle connections, a half-sent frame's too."""

from __future__ import annotations

import select
import socket
import struct
import time

from protocol import headers
from protocol.messages import ApiVersionsRequest, ProduceRequest, RequestHeader
from pylog.testing import EmbeddedBroker
from tests.pylog.wire import RawClient

MiB = 1024 * 1024


def produce_frame(records_bytes: int) -> bytes:
    """A Produce v3 request of one partition whose records are `records_bytes` of zeros (the
    broker answers it with an error: it is not a record batch)."""
    body = ProduceRequest(transactional_id=None, acks=1, timeout_ms=5000, topic_data=[ProduceRequest.TopicProduceData(
        name="big", partition_data=[ProduceRequest.PartitionProduceData(index=0, records=bytes(records_bytes))])])
    payload = headers.encode_request(RequestHeader(request_api_key=0, request_api_version=3, correlation_id=7,
                                                   client_id="big"), body)
    return struct.pack(">i", len(payload)) + payload


def wait_until(condition, timeout_s: float = 10) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def answered_within(sock: socket.socket, timeout_s: float) -> bool:
    return bool(select.select([sock], [], [], timeout_s)[0])


def test_queued_max_request_bytes_stops_reading_until_requests_are_answered(tmp_path):
    broker = EmbeddedBroker(tmp_path, config={"queued.max.request.bytes": str(MiB)}).start()
    big, small = RawClient(broker.bootstrap_servers), None
    try:
        memory = broker.broker.server.memory
        frame = produce_frame(2 * MiB)
        big.sock.sendall(frame[:64 * 1024])           # the prefix claims 2 MiB: admitted, the pool exhausted
        wait_until(lambda: memory.exhausted)
        assert memory.held_bytes == len(frame) - 4
        small = RawClient(broker.bootstrap_servers)
        small.send(18, 3, ApiVersionsRequest(client_software_name="t", client_software_version="1"))
        wait_until(lambda: len(memory.paused) == 1)    # the new connection does not read
        assert not answered_within(small.sock, 0.5)
        big.sock.sendall(frame[64 * 1024:])           # the admitted frame goes on to its end
        _, response = big.receive(0, 3)
        assert response.responses[0].partition_responses[0].error_code != 0
        _, versions = small.receive(18, 3)              # answered once the big request released its bytes
        assert versions.error_code == 0
        wait_until(lambda: memory.held_bytes == 0 and not memory.paused)
    finally:
        big.close()
        if small is not None:
            small.close()
        broker.stop()


def test_a_closed_connection_releases_its_half_sent_frame(tmp_path):
    broker = EmbeddedBroker(tmp_path, config={"queued.max.request.bytes": str(MiB)}).start()
    try:
        memory = broker.broker.server.memory
        client = RawClient(broker.bootstrap_servers)
        client.sock.sendall(struct.pack(">i", 50 * MiB) + bytes(MiB))
        wait_until(lambda: memory.exhausted)
        client.close()
        wait_until(lambda: memory.held_bytes == 0)
        other = RawClient(broker.bootstrap_servers)
        assert other.request(18, 3, ApiVersionsRequest(client_software_name="t", client_software_version="1")
                             ).error_code == 0
        other.close()
    finally:
        broker.stop()


def closed_within(sock: socket.socket, timeout_s: float) -> bool:
    sock.settimeout(timeout_s)
    try:
        return sock.recv(1) == b""
    except socket.timeout:
        return False
    except ConnectionResetError:
        return True


def test_idle_connections_are_closed_and_busy_ones_kept(tmp_path):
    broker = EmbeddedBroker(tmp_path, config={"connections.max.idle.ms": "300"}).start()
    try:
        answered = RawClient(broker.bootstrap_servers)
        assert answered.request(18, 3, ApiVersionsRequest(client_software_name="t",
                                                          client_software_version="1")).error_code == 0
        half_sent = RawClient(broker.bootstrap_servers)
        half_sent.sock.sendall(struct.pack(">i", 1000) + bytes(10))
        silent = RawClient(broker.bootstrap_servers)
        busy = RawClient(broker.bootstrap_servers)
        started = time.monotonic()
        while time.monotonic() - started < 1.5:        # a request every 100 ms: never idle for 300
            assert busy.request(18, 3, ApiVersionsRequest(client_software_name="t",
                                                          client_software_version="1")).error_code == 0
            time.sleep(0.1)
        for client in (answered, half_sent, silent):
            assert closed_within(client.sock, 5)
        assert busy.request(18, 3, ApiVersionsRequest(client_software_name="t",
                                                      client_software_version="1")).error_code == 0
        assert closed_within(busy.sock, 5)
        for client in (answered, half_sent, silent, busy):
            client.close()
    finally:
        broker.stop()


def test_a_client_that_stops_reading_its_answers_is_idle(tmp_path):
    """Fetches sent and their answers not read: once the transport is full the next request
    waits for the client (one answer at a time), and the connection counts as idle."""
    from protocol.messages import FetchRequest
    from protocol.records import build_batch

    broker = EmbeddedBroker(tmp_path, config={"connections.max.idle.ms": "300"}).start()
    try:
        client = RawClient(broker.bootstrap_servers)
        client.auto_create("t")
        batch = build_batch([(None, bytes(1000))] * 500, timestamp_ms=int(time.time() * 1000))
        answer = client.request(0, 9, ProduceRequest(acks=-1, timeout_ms=5000, topic_data=[
            ProduceRequest.TopicProduceData(name="t", partition_data=[
                ProduceRequest.PartitionProduceData(index=0, records=batch)])]))
        assert answer.responses[0].partition_responses[0].error_code == 0
        fetch = FetchRequest(replica_id=-1, max_wait_ms=0, min_bytes=1, max_bytes=MiB, isolation_level=0,
                             topics=[FetchRequest.FetchTopic(topic="t", partitions=[FetchRequest.FetchPartition(
                                 partition=0, fetch_offset=0, partition_max_bytes=MiB)])])
        for _ in range(20):   # 10 MB of answers: more than the sockets and the transport hold
            client.send(1, 12, fetch)
        time.sleep(1.0)   # well past the idle time, had the connection counted as busy
        client.sock.settimeout(5)
        read = 0
        try:
            while chunk := client.sock.recv(MiB):   # what was sent before the close, then the end
                read += len(chunk)
        except ConnectionResetError:
            pass
        assert read < 20 * 500_000   # closed with answers still unsent
        client.close()
    finally:
        broker.stop()
