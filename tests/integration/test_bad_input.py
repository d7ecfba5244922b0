"""Bad input over a raw socket: the broker answers or closes that one connection, keeps
serving every other connection, and damages no log.

Each test starts with a partition holding records a kafka-python producer had
acknowledged, and a kafka-python producer and consumer whose connections are open
before the bad input arrives. After it, those same clients must still work (the
producer appends more, the consumer reads everything) and the partition must hold
exactly the acknowledged records, in whole valid batches.

Kafka's answers, which pylog follows: a frame that cannot be parsed, a size prefix
above socket.request.max.bytes (or negative), an API key the broker does not serve, or
a version outside the advertised range (except ApiVersions, KIP-511) closes the
connection; a Produce whose batch fails its CRC gets CORRUPT_MESSAGE, one larger than
message.max.bytes MESSAGE_TOO_LARGE, and a magic 0/1 message set in Produce v3+
INVALID_RECORD (ProduceRequest.validateRecords) -- each in a well-formed response, the
connection staying open.
"""

from __future__ import annotations

import random
import socket
import struct
import threading
import time
import zlib
from dataclasses import dataclass, field

import pytest
from kafka import KafkaConsumer, KafkaProducer, TopicPartition

from protocol.error_codes import ErrorCode
from protocol.messages import ApiVersionsRequest, MetadataRequest, ProduceRequest, RequestHeader
from protocol import headers
from protocol.records import build_batch
from tests.integration.support import (
    WireClient,
    assert_contiguous_batches,
    stored_batches,
    stored_records,
    wait_until,
)

TOPIC = "bad-input"
MESSAGE_MAX_BYTES = 10_000
REQUEST_MAX_BYTES = 1024 * 1024
CONFIG = {"message.max.bytes": MESSAGE_MAX_BYTES, "socket.request.max.bytes": REQUEST_MAX_BYTES}


@dataclass
class Healthy:
    """A broker with acknowledged records and clients connected before the bad input."""

    broker: object
    producer: KafkaProducer
    consumer: KafkaConsumer
    values: list = field(default_factory=list)
    consumed: list = field(default_factory=list)

    def produce(self, count: int) -> None:
        start = len(self.values)
        futures = []
        for i in range(start, start + count):
            value = b"good-%05d" % i
            self.values.append(value)
            futures.append(self.producer.send(TOPIC, value=value, partition=0))
        self.producer.flush(timeout=30)
        assert [f.get(timeout=10).offset for f in futures] == list(range(start, start + count))

    def consume(self) -> None:
        deadline = time.monotonic() + 30
        while len(self.consumed) < len(self.values):
            assert time.monotonic() < deadline, f"consumed {len(self.consumed)} of {len(self.values)}"
            for batch in self.consumer.poll(timeout_ms=200).values():
                self.consumed.extend(r.value for r in batch)
        assert self.consumed == self.values

    def check(self) -> None:
        """The connected clients still work and the log holds exactly what was acknowledged."""
        self.produce(50)
        self.consume()
        batches = stored_batches(self.broker.data_dir, TOPIC, 0)   # every CRC checks out
        assert assert_contiguous_batches(batches) == len(self.values)
        assert [r.value for r in stored_records(self.broker.data_dir, TOPIC, 0)] == self.values
        with WireClient(self.broker.bootstrap_servers) as wire:   # and new connections are served
            assert wire.request(18, 3, ApiVersionsRequest(client_software_name="t",
                                                          client_software_version="1")).error_code == 0


@pytest.fixture
def healthy(kafka_broker_factory):
    broker = kafka_broker_factory(config=CONFIG)
    producer = KafkaProducer(bootstrap_servers=broker.bootstrap_servers, batch_size=4096)
    consumer = KafkaConsumer(bootstrap_servers=broker.bootstrap_servers, auto_offset_reset="earliest",
                             enable_auto_commit=False)
    state = Healthy(broker, producer, consumer)
    state.produce(200)
    consumer.assign([TopicPartition(TOPIC, 0)])
    state.consume()
    yield state
    producer.close(timeout=10)
    consumer.close()


def frame(payload: bytes) -> bytes:
    return struct.pack(">i", len(payload)) + payload


def request_payload(api_key: int, version: int, body, correlation_id: int = 7) -> bytes:
    header = RequestHeader(request_api_key=api_key, request_api_version=version, correlation_id=correlation_id,
                           client_id="bad-input")
    return bytes(headers.encode_request(header, body))


def raw_header(api_key: int, version: int, correlation_id: int = 7) -> bytes:
    """A v1 request header by hand (any key/version, even ones without a schema)."""
    return struct.pack(">hhih", api_key, version, correlation_id, 3) + b"bad"


def produce_body(records: bytes) -> ProduceRequest:
    return ProduceRequest(transactional_id=None, acks=-1, timeout_ms=10_000, topic_data=[
        ProduceRequest.TopicProduceData(name=TOPIC, partition_data=[
            ProduceRequest.PartitionProduceData(index=0, records=records)])])


def good_batch(tag: bytes = b"raw") -> bytes:
    return build_batch([(b"k", tag)], timestamp_ms=int(time.time() * 1000))


def assert_closed(healthy: Healthy, data: bytes, *, half_close: bool = False) -> None:
    with WireClient(healthy.broker.bootstrap_servers) as wire:
        wire.send_raw(data)
        if half_close:
            wire.sock.shutdown(socket.SHUT_WR)
        assert wire.closed_by_peer(timeout_s=10), f"the broker kept the connection open after {data[:40]!r}"


# ---------------------------------------------------------------------------------------
# frames the broker cannot answer: the connection is closed


GARBAGE = {
    "deadbeef": b"\xde\xad\xbe\xef" * 8,
    "random": random.Random(4).randbytes(300),
    "zeros": bytes(64),
    "short-header": b"\x00\x03\x00",                      # 3 bytes: not even api key + version + id
    "metadata-bad-body": raw_header(3, 9) + b"\xff\xff\xff\xf0\x01",   # array length -16
    "client-id-too-long": struct.pack(">hhih", 18, 0, 1, 5000) + b"x" * 10,
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", sorted(GARBAGE))
def test_garbage_frame_closes_the_connection(healthy, name):
    assert_closed(healthy, frame(GARBAGE[name]))
    healthy.check()


@pytest.mark.timeout(60)
def test_truncated_frames(healthy):
    metadata = request_payload(3, 9, MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name=TOPIC)]))
    produce = request_payload(0, 7, produce_body(good_batch()))
    # A frame whose body ends inside a field: a parse error, the connection is closed.
    assert_closed(healthy, frame(metadata[:len(metadata) - 5]))
    assert_closed(healthy, frame(produce[:len(produce) // 2]))
    # A frame cut short by the end of the stream (size prefix says more), and a cut prefix.
    assert_closed(healthy, frame(produce)[:len(produce) // 2], half_close=True)
    assert_closed(healthy, b"\x00\x00", half_close=True)
    healthy.check()


@pytest.mark.timeout(60)
def test_partial_frame_left_hanging_does_not_block_others(healthy):
    """A client that sends half a frame and waits holds only its own connection."""
    produce = request_payload(0, 7, produce_body(good_batch(b"never-finished")))
    with WireClient(healthy.broker.bootstrap_servers) as hanging:
        hanging.send_raw(frame(produce)[:40])
        healthy.check()            # others are served meanwhile
        hanging.send_raw(frame(produce)[40:])   # completing it later is fine too
        _, response = hanging.receive(0, 7)
        assert response.responses[0].partition_responses[0].error_code == 0
    healthy.values.append(b"never-finished")
    healthy.check()


@pytest.mark.timeout(60)
@pytest.mark.parametrize("size", [2**31 - 1, REQUEST_MAX_BYTES + 1, -1, -2**31])
def test_huge_or_negative_length_prefix(healthy, size):
    # Only the prefix and a few bytes: the broker must not wait for (or allocate) the rest.
    assert_closed(healthy, struct.pack(">i", size) + b"\x00\x12\x00\x00")
    healthy.check()


@pytest.mark.timeout(60)
@pytest.mark.parametrize("api_key,version", [(9999, 0), (-1, 0), (57, 0), (0, 2), (0, 99), (1, 3), (3, 99)],
                         ids=["key-9999", "key-minus-1", "unserved-key-57", "produce-v2", "produce-v99",
                              "fetch-v3", "metadata-v99"])
def test_unknown_api_key_or_version_closes(healthy, api_key, version):
    assert_closed(healthy, frame(raw_header(api_key, version) + bytes(16)))
    healthy.check()


@pytest.mark.timeout(60)
def test_api_versions_from_the_future_gets_the_kip511_answer(healthy):
    with WireClient(healthy.broker.bootstrap_servers) as wire:
        wire.send_raw(frame(struct.pack(">hhih", 18, 99, 41, 1) + b"x" + b"\x00"))
        header, body = wire.receive(18, 0)
        assert header.correlation_id == 41
        assert body.error_code == ErrorCode.UNSUPPORTED_VERSION
        (entry,) = [api for api in body.api_keys if api.api_key == 18]
        assert entry.min_version == 0 and entry.max_version >= 3
        # The connection stays usable: the client retries lower.
        response = wire.request(18, entry.max_version, ApiVersionsRequest(client_software_name="t",
                                                                         client_software_version="1"))
        assert response.error_code == 0
    healthy.check()


# ---------------------------------------------------------------------------------------
# Produce requests the broker answers with an error (connection kept, nothing written)


def produce_error(healthy: Healthy, records: bytes, version: int = 7, check_offset: bool = True) -> int:
    """Send a Produce with these records on a fresh connection; return its error code,
    after checking that the connection still serves a good request afterwards (whose
    offset must be the next one: the bad request appended nothing)."""
    with WireClient(healthy.broker.bootstrap_servers) as wire:
        response = wire.produce(TOPIC, 0, records, version=version)
        code = response.error_code
        good = wire.produce(TOPIC, 0, good_batch(b"after-%d" % code), version=version)
        assert good.error_code == 0, "the connection did not serve a good Produce after the bad one"
        if check_offset:
            assert good.base_offset == len(healthy.values), "the bad Produce appended something"
    healthy.values.append(b"after-%d" % code)
    return code


def corrupt(batch: bytes, position: int) -> bytes:
    data = bytearray(batch)
    data[position] ^= 0x5A
    return bytes(data)


@pytest.mark.timeout(60)
def test_crc_corrupted_batch_is_corrupt_message(healthy):
    batch = good_batch(b"will be corrupted")
    assert produce_error(healthy, corrupt(batch, len(batch) - 3)) == ErrorCode.CORRUPT_MESSAGE   # a record byte
    assert produce_error(healthy, corrupt(batch, 17)) == ErrorCode.CORRUPT_MESSAGE               # the CRC itself
    assert produce_error(healthy, corrupt(batch, 30)) == ErrorCode.CORRUPT_MESSAGE               # header, under CRC
    healthy.check()


@pytest.mark.timeout(60)
def test_one_bad_batch_rejects_the_whole_append(healthy):
    """Two batches, the second corrupt: nothing of the append is written (Kafka refuses
    more than one batch per partition in Produce v3+ anyway, with INVALID_RECORD)."""
    records = good_batch(b"first-of-two") + corrupt(good_batch(b"second-of-two"), 70)
    assert produce_error(healthy, records) in (ErrorCode.CORRUPT_MESSAGE, ErrorCode.INVALID_RECORD)
    healthy.check()


@pytest.mark.timeout(60)
def test_truncated_batch_inside_a_produce(healthy):
    batch = good_batch(b"cut short")
    assert produce_error(healthy, batch[:-4]) in (ErrorCode.CORRUPT_MESSAGE, ErrorCode.INVALID_RECORD)
    assert produce_error(healthy, batch[:30]) in (ErrorCode.CORRUPT_MESSAGE, ErrorCode.INVALID_RECORD)
    healthy.check()


@pytest.mark.timeout(60)
def test_oversized_batch_is_message_too_large(healthy):
    big = build_batch([(b"k", b"x" * (MESSAGE_MAX_BYTES + 100))], timestamp_ms=int(time.time() * 1000))
    assert produce_error(healthy, big) == ErrorCode.MESSAGE_TOO_LARGE
    many = build_batch([(b"k", b"y" * 100)] * 200, timestamp_ms=int(time.time() * 1000))   # ~22 KB of records
    assert produce_error(healthy, many) == ErrorCode.MESSAGE_TOO_LARGE
    healthy.check()


def magic_v1_message_set(value: bytes, timestamp_ms: int) -> bytes:
    """A legacy message set with one magic-1 message (offset, size, crc, magic, ...)."""
    message = struct.pack(">bbq", 1, 0, timestamp_ms) + struct.pack(">i", -1) + struct.pack(">i", len(value)) + value
    message = struct.pack(">I", zlib.crc32(message)) + message
    return struct.pack(">qi", 0, len(message)) + message


def magic_v0_message_set(value: bytes) -> bytes:
    message = struct.pack(">bb", 0, 0) + struct.pack(">i", -1) + struct.pack(">i", len(value)) + value
    message = struct.pack(">I", zlib.crc32(message)) + message
    return struct.pack(">qi", 0, len(message)) + message


@pytest.mark.timeout(60)
def test_legacy_message_sets_are_invalid_record(healthy):
    now = int(time.time() * 1000)
    assert produce_error(healthy, magic_v1_message_set(b"legacy v1", now)) == ErrorCode.INVALID_RECORD
    assert produce_error(healthy, magic_v0_message_set(b"legacy v0")) == ErrorCode.INVALID_RECORD
    assert produce_error(healthy, magic_v1_message_set(b"legacy v1", now), version=3) == ErrorCode.INVALID_RECORD
    healthy.check()


@pytest.mark.timeout(60)
def test_empty_records_is_invalid_record(healthy):
    assert produce_error(healthy, b"") == ErrorCode.INVALID_RECORD
    healthy.check()


# ---------------------------------------------------------------------------------------
# all of it at once, while a producer streams


BAD_STREAMS = [
    frame(GARBAGE["deadbeef"]),
    frame(GARBAGE["random"]),
    struct.pack(">i", 2**31 - 1) + b"\x00\x12",
    struct.pack(">i", -7),
    frame(raw_header(9999, 0) + bytes(8)),
    frame(raw_header(0, 99) + bytes(8)),
    frame(request_payload(0, 7, produce_body(good_batch())))[:25],   # cut short, then EOF
]


@pytest.mark.timeout(120)
def test_bad_connections_while_a_producer_streams(healthy):
    stop = threading.Event()
    acknowledged: list[tuple[int, bytes]] = []
    errors: list = []

    def stream():
        producer = KafkaProducer(bootstrap_servers=healthy.broker.bootstrap_servers, batch_size=4096)
        n = 0
        while not stop.is_set():
            value = b"stream-%06d" % n
            producer.send(TOPIC, value=value, partition=0).add_callback(
                lambda metadata, value=value: acknowledged.append((metadata.offset, value))).add_errback(errors.append)
            n += 1
            if n % 200 == 0:
                producer.flush(timeout=30)
        producer.flush(timeout=30)
        producer.close(timeout=10)

    thread = threading.Thread(target=stream, daemon=True)
    thread.start()
    wait_until(lambda: len(acknowledged) >= 500, 30, "the streaming producer to start")
    for round_ in range(5):
        for data in BAD_STREAMS:
            assert_closed(healthy, data, half_close=data is BAD_STREAMS[-1])
        code = produce_error(healthy, corrupt(good_batch(), 40), check_offset=False)
        assert code == ErrorCode.CORRUPT_MESSAGE
    # The stream kept going through all of it.
    so_far = len(acknowledged)
    wait_until(lambda: len(acknowledged) >= so_far + 500, 30, "the stream to go on")
    stop.set()
    thread.join(timeout=60)
    assert not thread.is_alive() and not errors, errors[:3]

    stored = {r.offset: r.value for r in stored_records(healthy.broker.data_dir, TOPIC, 0)}
    for offset, value in acknowledged:
        assert stored.get(offset) == value
    batches = stored_batches(healthy.broker.data_dir, TOPIC, 0)
    assert assert_contiguous_batches(batches) == len(stored)
    # Everything stored is something that was acknowledged to someone.
    expected_values = set(healthy.values) | {value for _, value in acknowledged}
    assert set(stored.values()) == expected_values
    healthy.values = [stored[offset] for offset in sorted(stored)]
    healthy.check()
