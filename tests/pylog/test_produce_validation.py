"""Produce over a real socket: acks, timestamps, keys on compacted topics, what is stored (max timestamp,\ncompression.type), internal topics, and acks=0 failures. (Refused batch shapes: test_produce_refusals.py.)"""

import socket
import struct
import time
from pathlib import Path

import pytest

from protocol.crc32c import crc32c
from protocol.error_codes import ErrorCode
from protocol.messages import FindCoordinatorRequest, ProduceRequest
from protocol.records import Compression, build_batch, iter_batch_headers, iter_records, validate_batch
from tests.pylog.wire import RawClient

PRODUCE = 0


def produce_request(topic, records, acks=-1):
    return ProduceRequest(acks=acks, timeout_ms=5000, topic_data=[ProduceRequest.TopicProduceData(
        name=topic, partition_data=[ProduceRequest.PartitionProduceData(index=0, records=records)])])


def produce(client, topic, records, acks=-1, version=9):
    response = client.request(PRODUCE, version, produce_request(topic, records, acks))
    return response.responses[0].partition_responses[0]


def test_acks_must_be_0_1_or_all(kafka_broker):
    kafka_broker.call(lambda: kafka_broker.broker.create_topic("acks", 1))
    client = RawClient(kafka_broker.bootstrap_servers)
    result = produce(client, "acks", build_batch([(None, b"v")], timestamp_ms=1), acks=2)
    assert result.error_code == ErrorCode.INVALID_REQUIRED_ACKS
    assert kafka_broker.call(lambda: kafka_broker.broker.partition("acks", 0).log_end_offset) == 0


def test_produce_never_creates_a_topic(kafka_broker):
    """As in Kafka, only Metadata auto-creates a topic (a producer asks for it before it
    produces): a Produce to an unknown topic is UNKNOWN_TOPIC_OR_PARTITION, at every version,
    and the topic stays unknown."""
    client = RawClient(kafka_broker.bootstrap_servers)
    for version in (3, 9, 12):
        result = produce(client, "never-created", build_batch([(None, b"v")], timestamp_ms=1), version=version)
        assert (result.error_code, result.base_offset) == (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1)
    assert kafka_broker.call(lambda: "never-created" in kafka_broker.broker.metadata.topics) is False


def test_acks_zero_gets_no_response_but_is_appended(kafka_broker):
    client = RawClient(kafka_broker.bootstrap_servers, timeout_s=1)
    client.auto_create("fire-and-forget")
    client.send(PRODUCE, 9, produce_request("fire-and-forget", build_batch([(None, b"v")], timestamp_ms=1), acks=0))
    # The next request's answer is the first thing on the wire: nothing came for acks=0.
    result = produce(client, "fire-and-forget", build_batch([(None, b"w")], timestamp_ms=1), acks=1)
    assert result.error_code == ErrorCode.NONE and result.base_offset == 1
    client.sock.settimeout(0.2)
    with pytest.raises(socket.timeout):
        client.sock.recv(1)


def test_keyless_records_refused_on_compacted_topic(kafka_broker):
    kafka_broker.call(lambda: kafka_broker.broker.create_topic("compacted", 1, {"cleanup.policy": "compact"}))
    client = RawClient(kafka_broker.bootstrap_servers)
    refused = produce(client, "compacted", build_batch([(b"k", b"v"), (None, b"no key")], timestamp_ms=1))
    assert refused.error_code == ErrorCode.INVALID_RECORD
    accepted = produce(client, "compacted", build_batch([(b"k", b"v")], timestamp_ms=1))
    assert accepted.error_code == ErrorCode.NONE and accepted.base_offset == 0


def test_timestamps_outside_the_configured_bounds_are_refused(kafka_broker):
    kafka_broker.call(lambda: kafka_broker.broker.create_topic(
        "bounded", 1, {"message.timestamp.before.max.ms": "3600000", "message.timestamp.after.max.ms": "3600000"}))
    client = RawClient(kafka_broker.bootstrap_servers)
    now_ms = int(time.time() * 1000)
    too_old = produce(client, "bounded", build_batch([(b"k", b"v")], timestamp_ms=now_ms - 7_200_000))
    too_new = produce(client, "bounded", build_batch([(b"k", b"v")], timestamp_ms=now_ms + 7_200_000))
    fine = produce(client, "bounded", build_batch([(b"k", b"v")], timestamp_ms=now_ms))
    assert too_old.error_code == ErrorCode.INVALID_TIMESTAMP
    assert too_new.error_code == ErrorCode.INVALID_TIMESTAMP
    assert fine.error_code == ErrorCode.NONE and fine.base_offset == 0


def test_log_append_time_topic_answers_with_the_broker_time(kafka_broker):
    kafka_broker.call(lambda: kafka_broker.broker.create_topic(
        "append-time", 1, {"message.timestamp.type": "LogAppendTime"}))
    client = RawClient(kafka_broker.bootstrap_servers)
    before_ms = int(time.time() * 1000)
    result = produce(client, "append-time", build_batch([(b"k", b"v")], timestamp_ms=5))
    assert result.error_code == ErrorCode.NONE
    assert result.log_append_time_ms >= before_ms


def stored_batches(kafka_broker, topic):
    """(header, records) of every batch in the partition's log, read from its segment files."""
    log = kafka_broker.call(lambda: kafka_broker.broker.partition(topic, 0).log)
    data = b"".join(Path(segment.log_path).read_bytes() for segment in log.segments)
    return [(header, list(iter_records(data, position))) for position, header in iter_batch_headers(data)]


def test_the_stored_max_timestamp_is_the_records_largest(kafka_broker):
    """Kafka sets a batch's max_timestamp from its records on every leader append."""
    kafka_broker.call(lambda: kafka_broker.broker.create_topic("max-ts", 1))
    now_ms = int(time.time() * 1000)
    batch = bytearray(build_batch([(b"a", b"1", (), now_ms), (b"b", b"2", (), now_ms + 500)]))
    struct.pack_into(">q", batch, 35, now_ms - 10)  # the producer's header says otherwise...
    struct.pack_into(">I", batch, 17, crc32c(memoryview(batch)[21:]))  # ...with a valid CRC
    client = RawClient(kafka_broker.bootstrap_servers)
    assert produce(client, "max-ts", bytes(batch)).error_code == ErrorCode.NONE
    [(header, records)] = stored_batches(kafka_broker, "max-ts")
    assert header.max_timestamp == now_ms + 500
    validate_batch(Path(kafka_broker.call(
        lambda: kafka_broker.broker.partition("max-ts", 0).log.active_segment.log_path)).read_bytes())


@pytest.mark.parametrize("topic_codec, sent, stored", [
    ("producer", Compression.LZ4, Compression.LZ4),
    ("producer", Compression.NONE, Compression.NONE),
    ("gzip", Compression.NONE, Compression.GZIP),
    ("zstd", Compression.SNAPPY, Compression.ZSTD),
    ("uncompressed", Compression.LZ4, Compression.NONE),
    ("lz4", Compression.LZ4, Compression.LZ4),
])
def test_the_topics_compression_type_decides_the_stored_codec(kafka_broker, topic_codec, sent, stored):
    topic = f"codec-{topic_codec}-{sent.name.lower()}"
    kafka_broker.call(lambda: kafka_broker.broker.create_topic(topic, 1, {"compression.type": topic_codec}))
    now_ms = int(time.time() * 1000)
    rows = [(b"k%d" % i, b"value %d" % i, (("h", b"x"),), now_ms + i) for i in range(5)] + [(None, None, (), now_ms)]
    client = RawClient(kafka_broker.bootstrap_servers)
    produce(client, topic, build_batch([(b"first", b"x")], timestamp_ms=now_ms, compression=sent))
    result = produce(client, topic, build_batch(rows, compression=sent))
    assert result.error_code == ErrorCode.NONE and result.base_offset == 1
    batches = stored_batches(kafka_broker, topic)
    assert [header.compression for header, _ in batches] == [stored, stored]
    header, records = batches[1]
    assert header.base_offset == 1 and header.records_count == 6 and header.last_offset_delta == 5
    assert [(r.offset, r.key, r.value, r.headers, r.timestamp) for r in records] == [
        (1 + i, key, value, headers, timestamp) for i, (key, value, headers, timestamp) in enumerate(rows)]


def test_internal_topics_refuse_client_batches(kafka_broker):
    """Only the group coordinator writes __consumer_offsets (Kafka: INVALID_TOPIC_EXCEPTION)."""
    client = RawClient(kafka_broker.bootstrap_servers)
    request = FindCoordinatorRequest(key="some-group", key_type=0)
    assert client.request(10, 1, request).error_code == ErrorCode.NONE  # creates __consumer_offsets
    before = kafka_broker.call(lambda: kafka_broker.broker.partition("__consumer_offsets", 0).log_end_offset)
    result = produce(client, "__consumer_offsets", build_batch([(b"k", b"v")], timestamp_ms=int(time.time() * 1000)))
    assert result.error_code == ErrorCode.INVALID_TOPIC_EXCEPTION and result.log_start_offset == -1
    assert kafka_broker.call(lambda: kafka_broker.broker.partition("__consumer_offsets", 0).log_end_offset) == before


def test_a_failed_acks_zero_produce_closes_the_connection(kafka_broker):
    """Kafka closes the connection, so that a producer that gets no answer still learns
    something went wrong and refreshes its metadata."""
    kafka_broker.call(lambda: kafka_broker.broker.create_topic("acks-zero", 1, {"cleanup.policy": "compact"}))
    client = RawClient(kafka_broker.bootstrap_servers, timeout_s=5)
    client.send(PRODUCE, 9, produce_request("acks-zero", build_batch([(None, b"keyless")], timestamp_ms=1), acks=0))
    with pytest.raises(ConnectionError):
        client.read_exactly(1)
    assert kafka_broker.call(lambda: kafka_broker.broker.partition("acks-zero", 0).log_end_offset) == 0
    fine = RawClient(kafka_broker.bootstrap_servers, timeout_s=1)  # a good acks=0 request keeps its connection
    fine.send(PRODUCE, 9, produce_request("acks-zero", build_batch([(b"k", b"v")], timestamp_ms=1), acks=0))
    with pytest.raises(socket.timeout):
        fine.read_exactly(1)
