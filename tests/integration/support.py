"""Shared machinery for the integration tests (fixtures are in conftest.py): real clients, real sockets, real files.

Everything here talks to a pylog broker the way the outside world does:

- `ServeProcess`: `python -m pylog serve --port 0 --data-dir DIR` as a subprocess; waits
  for its "pylog ready on HOST:PORT" line (bounded), stops it with SIGTERM or kills it
  with SIGKILL, and starts it again on the same data directory.
- `WireClient`: a raw TCP socket speaking Kafka frames built with `protocol.headers`,
  for requests no client library would send (bad frames, corrupt batches).
- `KafkaProxy`: a small threaded TCP proxy between a client and the broker that sees
  every request and response frame and can drop a connection right after the broker
  answered a chosen request (before the client gets the answer), and that records the
  Produce requests the client sent.
- Readers of what is on disk: `stored_batches` / `stored_records` walk a partition's
  `.log` segment files with `protocol.records`, independently of the broker.
- `consume_all`: read a whole partition with kafka-python (bounded wait).

The real clients are imported at module level on purpose: a missing client is an
import error, which fails the run (it must never be a skip).
"""

from __future__ import annotations

import os
import re
import selectors
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from collections import deque
from pathlib import Path

import aiokafka  # noqa: F401  (required: a missing client must fail, not skip)
import confluent_kafka  # noqa: F401
import kafka
import pytest
from kafka import KafkaConsumer, TopicPartition

from protocol import headers
from protocol.messages import (
    CreateTopicsRequest,
    FetchRequest,
    IncrementalAlterConfigsRequest,
    InitProducerIdRequest,
    MetadataRequest,
    ProduceRequest,
    RequestHeader,
)
from protocol.records import (
    Compression,
    iter_batch_headers,
    iter_batches,
    iter_records,
    read_batch_header,
    validate_batch,
)

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable

# kafka-python 3.0.12 sometimes never finishes a join: the SyncGroup answer arrives (its
# debug log shows it received), but the member never applies the assignment nor resumes
# its heartbeats, and its session expires. It happens when a short `poll(timeout_ms=...)`
# gives up waiting on the join just as the answer comes in (about 1 in 40 fresh joins with
# 100 ms polls, none in 120 with 1 s polls; every broker answer was delivered, on time).
# So every kafka-python consumer that joins a group polls with 1 s timeouts. A short
# metadata max age also keeps the client's IO loop from sleeping 300 s in select() between
# metadata refreshes, and bounds how long a leader that assigned before it had the topic's
# metadata ("No partition metadata for topic ...") waits to see it and rejoin.
KAFKA_PYTHON_GROUP_POLL_MS = 1000
KAFKA_PYTHON_GROUP_CONFIG = {"metadata_max_age_ms": 1000}

assert kafka.__version__.split(".")[0] == "3", f"kafka-python 3.x required, found {kafka.__version__}"


# ---------------------------------------------------------------------------------------
# waiting


def wait_until(predicate, timeout_s: float, what: str, interval_s: float = 0.02):
    """Poll `predicate` until it returns something truthy; fail after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while True:
        result = predicate()
        if result:
            return result
        if time.monotonic() >= deadline:
            pytest.fail(f"timed out after {timeout_s} s waiting for {what}")
        time.sleep(interval_s)


# ---------------------------------------------------------------------------------------
# `pylog serve` as a subprocess


class ServeProcess:
    """`python -m pylog serve` on 127.0.0.1; `start()` waits for the ready line."""

    def __init__(self, data_dir: Path, *, port: int = 0, overrides: dict | None = None,
                 log_path: Path | None = None):
        self.data_dir = Path(data_dir)
        self.port = port
        self.overrides = dict(overrides or {})
        self.log_path = Path(log_path) if log_path else self.data_dir.parent / f"{self.data_dir.name}-serve.log"
        self.process: subprocess.Popen | None = None
        self.host = "127.0.0.1"
        self.starts = 0

    @property
    def bootstrap_servers(self) -> str:
        return f"{self.host}:{self.port}"

    def start(self, timeout_s: float = 30) -> ServeProcess:
        assert self.process is None or self.process.poll() is not None, "already running"
        args = [PYTHON, "-m", "pylog", "serve", "--host", "127.0.0.1", "--port", str(self.port),
                "--data-dir", str(self.data_dir)]
        for key, value in self.overrides.items():
            args += ["--override", f"{key}={value}"]
        self.starts += 1
        log_file = open(self.log_path, "a", encoding="utf-8")
        log_file.write(f"==== start {self.starts}: {' '.join(args)}\n")
        log_file.flush()
        try:
            self.process = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=log_file,
                                            stdin=subprocess.DEVNULL)
        finally:
            log_file.close()
        line = self._read_ready_line(timeout_s)
        match = re.match(rb"pylog ready on ([\d.]+):(\d+)", line)
        if not match:
            self.kill()
            pytest.fail(f"pylog serve did not print its ready line; got {line!r}; log:\n{self.log_text()}")
        self.host, self.port = match.group(1).decode(), int(match.group(2))
        return self

    def _read_ready_line(self, timeout_s: float) -> bytes:
        deadline = time.monotonic() + timeout_s
        buffer = b""
        fd = self.process.stdout.fileno()
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while b"\n" not in buffer:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    self.kill()
                    pytest.fail(f"pylog serve not ready after {timeout_s} s; log:\n{self.log_text()}")
                if selector.select(remaining):
                    chunk = os.read(fd, 4096)
                    if not chunk:
                        break
                    buffer += chunk
        return buffer.split(b"\n", 1)[0]

    def stop(self, timeout_s: float = 30) -> int:
        """SIGTERM and wait; returns the exit status."""
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.kill()
            pytest.fail(f"pylog serve did not stop within {timeout_s} s of SIGTERM; log:\n{self.log_text()}")
        self._close_pipes()
        return code

    def kill(self) -> None:
        """SIGKILL (kill -9) and reap."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=30)
        self._close_pipes()

    def _close_pipes(self) -> None:
        if self.process is not None and self.process.stdout is not None:
            self.process.stdout.close()

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(encoding="utf-8", errors="replace")[-6000:]
        except OSError:
            return ""


# ---------------------------------------------------------------------------------------
# raw Kafka frames over a socket


class WireClient:
    """One TCP connection speaking raw Kafka frames (every wait bounded by `timeout_s`)."""

    def __init__(self, bootstrap_servers: str, timeout_s: float = 10):
        host, port = bootstrap_servers.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=timeout_s)
        self.timeout_s = timeout_s
        self.correlation_id = 0

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> WireClient:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def encode(self, api_key: int, version: int, body, client_id: str = "pylog-tests") -> bytes:
        self.correlation_id += 1
        header = RequestHeader(request_api_key=api_key, request_api_version=version,
                               correlation_id=self.correlation_id, client_id=client_id)
        payload = headers.encode_request(header, body)
        return struct.pack(">i", len(payload)) + bytes(payload)

    def send(self, api_key: int, version: int, body) -> int:
        self.send_raw(self.encode(api_key, version, body))
        return self.correlation_id

    def receive(self, api_key: int, version: int):
        """Read one response frame; return (header, body)."""
        size, = struct.unpack(">i", self.read_exactly(4))
        return headers.decode_response(api_key, version, self.read_exactly(size))

    def request(self, api_key: int, version: int, body):
        correlation_id = self.send(api_key, version, body)
        header, response = self.receive(api_key, version)
        assert header.correlation_id == correlation_id
        return response

    def read_exactly(self, size: int) -> bytes:
        data = bytearray()
        deadline = time.monotonic() + self.timeout_s
        while len(data) < size:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"read {len(data)} of {size} bytes in {self.timeout_s} s")
            self.sock.settimeout(remaining)
            chunk = self.sock.recv(size - len(data))
            if not chunk:
                raise ConnectionError(f"connection closed after {len(data)} of {size} bytes")
            data += chunk
        return bytes(data)

    # -- a few requests, for tests that need exact control --

    def produce(self, topic: str, partition: int, records: bytes, *, acks: int = -1, version: int = 7):
        """One Produce request for one partition; returns that partition's response."""
        request = ProduceRequest(transactional_id=None, acks=acks, timeout_ms=30_000, topic_data=[
            ProduceRequest.TopicProduceData(name=topic, partition_data=[
                ProduceRequest.PartitionProduceData(index=partition, records=records)])])
        response = self.request(0, version, request)
        (topic_response,) = response.responses
        (partition_response,) = topic_response.partition_responses
        assert (topic_response.name, partition_response.index) == (topic, partition)
        return partition_response

    def create_topics(self, names, partitions: int, configs: dict[str, str] | None = None) -> None:
        """CreateTopics v5 for `names`, each with `partitions` and `configs`; every one must
        be created."""
        Topic, Config = CreateTopicsRequest.CreatableTopic, CreateTopicsRequest.CreatableTopicConfig
        response = self.request(19, 5, CreateTopicsRequest(timeout_ms=30_000, topics=[
            Topic(name=name, num_partitions=partitions, replication_factor=1,
                  configs=[Config(name=key, value=value) for key, value in (configs or {}).items()])
            for name in names]))
        assert [(t.name, t.error_code, t.error_message) for t in response.topics] == [
            (name, 0, None) for name in names]

    def incremental_alter_topic_configs(self, topic: str, configs: dict[str, str]) -> None:
        """IncrementalAlterConfigs v1 SET of `configs` on `topic`; it must be taken."""
        Resource, Config = (IncrementalAlterConfigsRequest.AlterConfigsResource,
                            IncrementalAlterConfigsRequest.AlterableConfig)
        response = self.request(44, 1, IncrementalAlterConfigsRequest(resources=[Resource(
            resource_type=2, resource_name=topic,
            configs=[Config(name=key, config_operation=0, value=value) for key, value in configs.items()])]))
        assert [(r.error_code, r.error_message) for r in response.responses] == [(0, None)]

    def init_producer_id(self, version: int = 1) -> tuple[int, int]:
        response = self.request(22, version, InitProducerIdRequest(transactional_id=None,
                                                                   transaction_timeout_ms=60_000))
        assert response.error_code == 0, response.error_code
        return response.producer_id, response.producer_epoch

    def metadata(self, topics: list[str] | None = None, version: int = 12):
        request = MetadataRequest(topics=None if topics is None else [
            MetadataRequest.MetadataRequestTopic(name=name) for name in topics], allow_auto_topic_creation=False)
        return self.request(3, version, request)

    def closed_by_peer(self, timeout_s: float = 10) -> bool:
        """True if the broker closes the connection within `timeout_s` (EOF or reset),
        False if it stays open. Any bytes the broker sends first are discarded."""
        deadline = time.monotonic() + timeout_s
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            self.sock.settimeout(remaining)
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                return False
            except (ConnectionResetError, BrokenPipeError):
                return True
            if not chunk:
                return True


# ---------------------------------------------------------------------------------------
# a TCP proxy that sees frames


class KafkaProxy:
    """A threaded TCP proxy on 127.0.0.1 (port 0) in front of one broker.

    `listen()` binds first (so the broker can advertise the proxy's port), `start(upstream)`
    begins forwarding. Per client connection, one thread forwards request frames to the
    broker and notes (api_key, api_version, correlation_id) of each; another forwards the
    broker's response frames back, in order.

    `drop_after_response(api_key, nth)`: the nth request with that key (1-based, counted
    over all connections) is forwarded to the broker, and when the broker's response to
    it arrives the proxy closes both sockets instead of relaying it: the broker has done
    the work, the client never hears of it.

    `requests`: every (api_key, api_version, payload) a client sent, for inspection.
    `errors`: responses that did not match the oldest unanswered request (there must be
    none: Kafka answers in request order, and acks=0 Produce requests not at all).
    """

    def __init__(self):
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.upstream: tuple[str, int] | None = None
        self.lock = threading.Lock()
        self.requests: list[tuple[int, int, bytes]] = []
        self.counts: dict[int, int] = {}
        self.drop_rule: tuple[int, int] | None = None
        self.dropped: list[tuple[int, int, int]] = []   # (api_key, version, correlation id)
        self.errors: list[str] = []
        self.connections = 0
        self.sockets: list[socket.socket] = []
        self.stopping = False
        self.thread: threading.Thread | None = None

    def listen(self) -> int:
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        return self.port

    @property
    def port(self) -> int:
        return self.listener.getsockname()[1]

    @property
    def bootstrap_servers(self) -> str:
        return f"127.0.0.1:{self.port}"

    def drop_after_response(self, api_key: int, nth: int) -> None:
        self.drop_rule = (api_key, nth)

    def start(self, upstream: str) -> KafkaProxy:
        host, port = upstream.rsplit(":", 1)
        self.upstream = (host, int(port))
        self.thread = threading.Thread(target=self._accept_loop, name="proxy-accept", daemon=True)
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stopping = True
        try:
            self.listener.shutdown(socket.SHUT_RDWR)   # wakes the thread blocked in accept()
        except OSError:
            pass
        _close_quietly(self.listener)
        with self.lock:
            for sock in self.sockets:
                _close_quietly(sock)
        if self.thread is not None:
            self.thread.join(timeout=5)

    def produce_payloads(self) -> list[tuple[int, bytes]]:
        with self.lock:
            return [(version, payload) for key, version, payload in self.requests if key == 0]

    def _accept_loop(self) -> None:
        while not self.stopping:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.upstream, timeout=10)
                server.settimeout(None)
            except OSError:
                _close_quietly(client)
                continue
            for sock in (client, server):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self.lock:
                self.connections += 1
                self.sockets += [client, server]
            pending: deque = deque()
            cond = threading.Condition()
            state = {"closed": False}
            args = (client, server, pending, cond, state)
            threading.Thread(target=self._client_to_server, args=args, daemon=True).start()
            threading.Thread(target=self._server_to_client, args=args, daemon=True).start()

    def _shutdown(self, client, server, cond, state) -> None:
        with cond:
            state["closed"] = True
            cond.notify_all()
        for sock in (client, server):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            _close_quietly(sock)

    def _client_to_server(self, client, server, pending, cond, state) -> None:
        try:
            while True:
                prefix = _recv_exactly(client, 4)
                if prefix is None:
                    break
                size, = struct.unpack(">i", prefix)
                payload = _recv_exactly(client, size) if size > 0 else b""
                if payload is None or len(payload) < 8:
                    break
                api_key, api_version, correlation_id = struct.unpack(">hhi", payload[:8])
                with self.lock:
                    self.requests.append((api_key, api_version, payload))
                    self.counts[api_key] = self.counts.get(api_key, 0) + 1
                    drop = self.drop_rule is not None and self.drop_rule == (api_key, self.counts[api_key])
                expects_response = not (api_key == 0 and _produce_acks(payload) == 0)
                if expects_response:
                    with cond:
                        pending.append((api_key, api_version, correlation_id, drop))
                        cond.notify_all()
                server.sendall(prefix + payload)
        except OSError:
            pass
        self._shutdown(client, server, cond, state)

    def _server_to_client(self, client, server, pending, cond, state) -> None:
        try:
            while True:
                prefix = _recv_exactly(server, 4)
                if prefix is None:
                    break
                size, = struct.unpack(">i", prefix)
                payload = _recv_exactly(server, size)
                if payload is None:
                    break
                correlation_id, = struct.unpack(">i", payload[:4])
                with cond:
                    deadline = time.monotonic() + 10
                    while not pending and not state["closed"] and time.monotonic() < deadline:
                        cond.wait(0.1)
                    entry = pending.popleft() if pending else None
                if entry is None or entry[2] != correlation_id:
                    # Kafka answers one request at a time, in order (clients match FIFO).
                    with self.lock:
                        self.errors.append(f"response with correlation id {correlation_id} "
                                           f"where {entry} was expected")
                    break
                if entry[3]:
                    with self.lock:
                        self.dropped.append(entry[:3])
                    break   # the broker answered; the client never sees it
                client.sendall(prefix + payload)
        except OSError:
            pass
        self._shutdown(client, server, cond, state)


def _produce_acks(payload: bytes) -> int | None:
    """The acks of a Produce request payload (None if it cannot be parsed)."""
    try:
        _, body = headers.decode_request(payload)
        return body.acks
    except Exception:
        return None


def _recv_exactly(sock: socket.socket, size: int) -> bytes | None:
    data = bytearray()
    while len(data) < size:
        try:
            chunk = sock.recv(size - len(data))
        except OSError:
            return None
        if not chunk:
            return None
        data += chunk
    return bytes(data)


def _close_quietly(sock: socket.socket) -> None:
    try:
        sock.close()
    except OSError:
        pass


# ---------------------------------------------------------------------------------------
# what is on disk


def partition_dir(data_dir: Path, topic: str, partition: int) -> Path:
    return Path(data_dir) / f"{topic}-{partition}"


def segment_files(data_dir: Path, topic: str, partition: int) -> list[Path]:
    return sorted(partition_dir(data_dir, topic, partition).glob("*.log"))


def stored_batches(data_dir: Path, topic: str, partition: int, *, check_crc: bool = True):
    """[(segment path, position, header, batch bytes)] of every batch in the partition's
    segment files, in order. With `check_crc` every batch must pass `validate_batch`."""
    batches = []
    for path in segment_files(data_dir, topic, partition):
        data = path.read_bytes()
        position = 0
        for position, header in iter_batch_headers(data):
            raw = data[position:position + header.size_bytes]
            if check_crc:
                validate_batch(raw)
            batches.append((path, position, header, raw))
    return batches


def stored_records(data_dir: Path, topic: str, partition: int):
    """Every record in the partition's segment files, decoded (protocol.records.Record)."""
    records = []
    for _, _, _, raw in stored_batches(data_dir, topic, partition):
        records.extend(iter_records(raw))
    return records


def assert_contiguous_batches(batches, start: int = 0) -> int:
    """Batches follow each other offset by offset from `start`; return the next offset."""
    expected = start
    for path, position, header, _ in batches:
        assert header.base_offset == expected, f"{path.name}@{position}: base offset {header.base_offset}, expected {expected}"
        expected = header.next_offset
    return expected


# ---------------------------------------------------------------------------------------
# batches as sent, as stored, as served

CODECS = {"none": Compression.NONE, "gzip": Compression.GZIP, "snappy": Compression.SNAPPY,
          "lz4": Compression.LZ4, "zstd": Compression.ZSTD}


def sent_batches(proxy, topic: str, partition: int) -> list[bytes]:
    """The record batches the client sent for one partition, in the order sent."""
    batches = []
    for version, payload in proxy.produce_payloads():
        _, request = headers.decode_request(payload)
        for topic_data in request.topic_data:
            if topic_data.name != topic:
                continue
            for data in topic_data.partition_data:
                if data.index == partition and data.records:
                    batches.extend(bytes(batch) for batch in iter_batches(data.records))
    return batches


def without_broker_stamps(batch: bytes) -> bytes:
    """The batch minus base offset (0-8) and partition leader epoch (12-16)."""
    return batch[8:12] + batch[16:]


def fetch_raw(bootstrap_servers: str, topic: str, partition: int = 0, offset: int = 0,
              max_bytes: int = 64 * 1024 * 1024) -> bytes:
    """Fetch v11 over a raw socket: the records bytes exactly as the broker sends them."""
    records = b""
    with WireClient(bootstrap_servers) as wire:
        while True:
            request = FetchRequest(replica_id=-1, max_wait_ms=0, min_bytes=0, max_bytes=max_bytes, isolation_level=1,
                                   topics=[FetchRequest.FetchTopic(topic=topic, partitions=[
                                       FetchRequest.FetchPartition(partition=partition, fetch_offset=offset,
                                                                   partition_max_bytes=max_bytes)])])
            response = wire.request(1, 11, request)
            data = response.responses[0].partitions[0]
            assert data.error_code == 0
            chunk = bytes(data.records or b"")
            complete = [(position, header) for position, header in iter_batch_headers(chunk)]
            if not complete:
                return records
            last_position, last = complete[-1]
            records += chunk[:last_position + last.size_bytes]
            offset = last.next_offset
            if offset >= data.high_watermark:
                return records


def assert_stored_and_served_unchanged(proxy: KafkaProxy, broker, topic: str, codec: str, values: list,
                                       partition: int = 0) -> None:
    """The batches a client sent through `proxy` are in the segment files and in a raw
    Fetch response unchanged: codec, CRC and every byte except the broker's two stamps
    (base offset, partition leader epoch); and their records decode to `values`."""
    assert not proxy.errors, proxy.errors
    sent = sent_batches(proxy, topic, partition)
    stored = stored_batches(broker.data_dir, topic, partition)   # validate_batch: CRC-32C checks out
    assert len(sent) > 1, "expected the client to send several batches"
    assert len(stored) == len(sent), f"{len(sent)} batches sent, {len(stored)} stored"
    assert assert_contiguous_batches(stored) == len(values)
    for i, (sent_batch, (_, _, header, stored_batch)) in enumerate(zip(sent, stored)):
        assert header.compression is CODECS[codec], (
            f"batch {i}: stored with codec {header.compression.name}, expected {codec} "
            f"(sent with {read_batch_header(sent_batch).compression.name})")
        assert header.partition_leader_epoch == 0
        assert read_batch_header(sent_batch).crc == header.crc
        assert without_broker_stamps(stored_batch) == without_broker_stamps(sent_batch), f"batch {i} changed"
    assert [r.value for _, _, _, raw in stored for r in iter_records(raw)] == values
    served = fetch_raw(broker.bootstrap_servers, topic, partition)
    assert served == b"".join(raw for _, _, _, raw in stored), "Fetch served other bytes than stored"


# ---------------------------------------------------------------------------------------
# kafka-python helpers


def consume_all(bootstrap_servers: str, topic: str, partition: int, count: int, *, timeout_s: float = 60,
                start_offset: int = 0, **consumer_config):
    """Read `count` records from `start_offset` of one partition with kafka-python.

    Fails if they do not all arrive within `timeout_s`; stops at `count` records."""
    consumer = KafkaConsumer(bootstrap_servers=bootstrap_servers, enable_auto_commit=False,
                             auto_offset_reset="earliest", **consumer_config)
    try:
        tp = TopicPartition(topic, partition)
        consumer.assign([tp])
        consumer.seek(tp, start_offset)
        records = []
        deadline = time.monotonic() + timeout_s
        while len(records) < count:
            if time.monotonic() > deadline:
                pytest.fail(f"read {len(records)} of {count} records of {topic}-{partition} in {timeout_s} s")
            for batch in consumer.poll(timeout_ms=500).values():
                records.extend(batch)
        return records[:count] if len(records) > count else records
    finally:
        consumer.close()


def end_offset(bootstrap_servers: str, topic: str, partition: int) -> int:
    consumer = KafkaConsumer(bootstrap_servers=bootstrap_servers, enable_auto_commit=False)
    try:
        tp = TopicPartition(topic, partition)
        return consumer.end_offsets([tp])[tp]
    finally:
        consumer.close()
