"""What Kafka refuses and what it stores, against the reference Kafka.

The batch shapes of tests/pylog/batch_shapes.py, sent to the reference Kafka.

tests/pylog/test_produce_refusals.py checks that pylog answers each shape as the shape
says; this module checks that Kafka does too, with the same assertions, so that the
expectations are Kafka's behaviour and not pylog's idea of it. The answers are also sent to
pylog's session broker here and the two compared field by field (error code, log start
offset, base offset, the record errors' indexes and messages, and the partition's error
message, Kafka's text word for word).

Then one batch whose header understates its max timestamp, sent under each
`compression.type`: what both brokers store (read back with Fetch) is compared, byte for
byte where the stored batch is uncompressed, record for record and header field for header
field where a compressor (whose bytes differ between Java's and pylog's libraries) is involved.
"""

from __future__ import annotations

import re
import struct
import time

import pytest

from protocol.crc32c import crc32c
from protocol.messages import CreateTopicsRequest, ListOffsetsRequest, ProduceRequest
from protocol.records import Compression, build_batch, iter_records, read_batch_header
from tests.compat.conftest import unique
from tests.integration.support import WireClient
from tests.pylog.batch_shapes import raw_batch, record_bytes, shapes
from tests.pylog.test_produce_refusals import check_answer

SHAPES = shapes()
RETRIABLE = (3, 6)  # UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER: Kafka, while a new topic's leader starts


def create_topic(client: WireClient, name: str, configs: dict) -> None:
    Topic, Config = CreateTopicsRequest.CreatableTopic, CreateTopicsRequest.CreatableTopicConfig
    response = client.request(19, 5, CreateTopicsRequest(timeout_ms=30_000, topics=[Topic(
        name=name, num_partitions=1, replication_factor=1,
        configs=[Config(name=key, value=value) for key, value in configs.items()])]))
    assert response.topics[0].error_code == 0, response.topics[0]


def produce(client: WireClient, topic: str, records: bytes, version: int):
    request = ProduceRequest(acks=-1, timeout_ms=5000, topic_data=[ProduceRequest.TopicProduceData(
        name=topic, partition_data=[ProduceRequest.PartitionProduceData(index=0, records=records)])])
    deadline = time.monotonic() + 30
    while True:
        answer = client.request(0, version, request).responses[0].partition_responses[0]
        if answer.error_code not in RETRIABLE or time.monotonic() > deadline:
            return answer
        time.sleep(0.1)


def summary(answer, topic: str) -> tuple:
    """What both brokers must answer alike; messages with the topic's name masked (it differs),
    and the allowed timestamp range, which each broker computes from its own clock."""
    def masked(text):
        return None if text is None else re.sub(r"within \[-?\d+, -?\d+\]", "within [<range from now>]",
                                                text.replace(topic, "<topic>"))
    return (answer.error_code, answer.log_start_offset, answer.base_offset,
            [(e.batch_index, masked(e.batch_index_error_message)) for e in answer.record_errors],
            masked(answer.error_message))


@pytest.mark.parametrize("shape", SHAPES, ids=[shape.name for shape in SHAPES])
def test_kafka_answers_as_the_shape_says(both, compat_table, shape):
    topic = unique("shape")
    answers = {}
    for name, broker in both.items():
        with WireClient(broker.bootstrap_servers) as client:
            create_topic(client, topic, shape.topic_configs)
            answers[name] = produce(client, topic, shape.records, shape.produce_version)
    same = summary(answers["pylog"], topic) == summary(answers["kafka"], topic)
    compat_table.record("client", f"Produce: {shape.name}", f"error {answers['pylog'].error_code}",
                        f"error {answers['kafka'].error_code}", "same" if same else "differs")
    check_answer(shape, answers["kafka"], topic)
    assert summary(answers["pylog"], topic) == summary(answers["kafka"], topic)


def fetch_all(client: WireClient, topic: str) -> bytes:
    from protocol.messages import FetchRequest

    request = FetchRequest(replica_id=-1, max_wait_ms=0, min_bytes=0, max_bytes=1 << 20, isolation_level=0,
                           topics=[FetchRequest.FetchTopic(topic=topic, partitions=[
                               FetchRequest.FetchPartition(partition=0, fetch_offset=0, partition_max_bytes=1 << 20)])])
    data = client.request(1, 11, request).responses[0].partitions[0]
    assert data.error_code == 0
    return bytes(data.records or b"")


@pytest.mark.parametrize("topic_codec, sent", [
    ("uncompressed", Compression.LZ4), ("uncompressed", Compression.NONE), ("producer", Compression.NONE),
    ("gzip", Compression.NONE), ("lz4", Compression.GZIP), ("zstd", Compression.SNAPPY), ("snappy", Compression.ZSTD),
])
def test_the_stored_batch_is_kafkas(both, compat_table, topic_codec, sent):
    """The topic's compression.type decides the codec Kafka stores, and the max timestamp
    is the records' largest (the header below says less): the same on pylog, byte for byte
    where no compressor is involved, record for record where one is."""
    topic = unique(f"stored-{topic_codec}")
    now_ms = int(time.time() * 1000)
    rows = [(b"k%d" % i, b"value %d" % i, (("h", b"x"),), now_ms + 7 * i) for i in range(5)] + [(None, None, (), now_ms)]
    batch = bytearray(build_batch(rows, compression=sent, producer_id=-1))
    struct.pack_into(">q", batch, 35, now_ms)  # max_timestamp below the records' largest
    struct.pack_into(">I", batch, 17, crc32c(memoryview(batch)[21:]))
    stored = {}
    for name, broker in both.items():
        with WireClient(broker.bootstrap_servers) as client:
            create_topic(client, topic, {"compression.type": topic_codec})
            assert produce(client, topic, bytes(batch), 9).error_code == 0
            stored[name] = fetch_all(client, topic)
    headers = {name: read_batch_header(data) for name, data in stored.items()}
    records = {name: [(r.offset, r.timestamp, r.key, r.value, r.headers) for r in iter_records(data)]
               for name, data in stored.items()}
    byte_for_byte = headers["kafka"].compression is Compression.NONE
    same = (stored["pylog"] == stored["kafka"]) if byte_for_byte else (
        records["pylog"] == records["kafka"] and headers["pylog"].compression == headers["kafka"].compression)
    compat_table.record("files", f"stored batch: compression.type={topic_codec}, sent {sent.name.lower()}",
                        headers["pylog"].compression.name.lower(), headers["kafka"].compression.name.lower(),
                        ("same bytes" if byte_for_byte else "same records") if same else "differs")
    expected_codec = sent if topic_codec == "producer" else (
        Compression.NONE if topic_codec == "uncompressed" else Compression[topic_codec.upper()])
    assert headers["kafka"].compression is expected_codec
    assert headers["kafka"].max_timestamp == now_ms + 28
    assert records["pylog"] == records["kafka"]
    assert headers["pylog"].compression == headers["kafka"].compression
    assert headers["pylog"]._replace(crc=0, batch_length=0) == headers["kafka"]._replace(crc=0, batch_length=0)
    if byte_for_byte:
        assert stored["pylog"] == stored["kafka"]


def test_listoffsets_over_a_batch_kept_with_a_wrong_record_length(both, compat_table):
    """A compressed batch kept as it came passes the lenient reading (a record's length
    prefix unchecked); a ListOffsets by timestamp then reads its records whole."""
    topic = unique("lenient-kept")
    now = int(time.time() * 1000)
    batch = raw_batch(record_bytes(0, length_adjust=-9) + record_bytes(1, timestamp_delta=5), records_count=2,
                      last_offset_delta=1, base_timestamp=now, compression=Compression.GZIP)
    Partition = ListOffsetsRequest.ListOffsetsPartition
    answers = {}
    for name, broker in both.items():
        with WireClient(broker.bootstrap_servers) as client:
            create_topic(client, topic, {})
            stored = produce(client, topic, batch, 9)
            found = []
            for timestamp in (now + 3, -3, -1):
                request = ListOffsetsRequest(replica_id=-1, isolation_level=0, topics=[ListOffsetsRequest.ListOffsetsTopic(
                    name=topic, partitions=[Partition(partition_index=0, timestamp=timestamp)])])
                (answer,) = client.request(2, 7, request).topics[0].partitions
                found.append((timestamp - now if timestamp > 0 else timestamp, answer.error_code, answer.offset))
            answers[name] = (stored.error_code, found)
    same = answers["pylog"] == answers["kafka"]
    compat_table.record("client", "ListOffsets over a kept batch with a wrong record length", str(answers["pylog"]),
                        str(answers["kafka"]), "same" if same else "differs")
    assert answers["pylog"] == answers["kafka"], answers
    assert answers["kafka"] == (0, [(3, 87, -1), (-3, 87, -1), (-1, 0, 2)])   # INVALID_RECORD where read whole
