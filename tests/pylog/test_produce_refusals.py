"""Every batch shape of tests/pylog/batch_shapes.py, sent to pylog over a raw socket.

Each answer must be Kafka's (tests/compat/test_produce_refusals.py checks the same shapes
against the reference Kafka): the error code, the log start offset (or -1 where Kafka
sends none), base offset -1 on failure, the record errors and the error message; and a
refused batch leaves the log as it was.
"""

from __future__ import annotations

import time

import pytest

from protocol.compression import Compression
from protocol.error_codes import ErrorCode
from protocol.messages import ListOffsetsRequest, ProduceRequest
from pylog.testing import EmbeddedBroker
from tests.pylog.batch_shapes import expected_pattern, raw_batch, record_bytes, shapes
from tests.pylog.wire import RawClient

PRODUCE = 0
SHAPES = shapes()


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    embedded = EmbeddedBroker(tmp_path_factory.mktemp("refusals")).start()
    yield embedded
    embedded.stop()


def produce(client: RawClient, topic: str, records: bytes, version: int):
    request = ProduceRequest(acks=-1, timeout_ms=5000, topic_data=[ProduceRequest.TopicProduceData(
        name=topic, partition_data=[ProduceRequest.PartitionProduceData(index=0, records=records)])])
    return client.request(PRODUCE, version, request).responses[0].partition_responses[0]


def check_answer(shape, answer, topic: str) -> None:
    """The assertions both test files make: the answer is the one the shape expects."""
    partition = f"{topic}-0"
    assert ErrorCode(answer.error_code) == shape.code, shape.name
    assert answer.log_start_offset == shape.log_start_offset, shape.name
    if shape.code != ErrorCode.NONE:
        assert answer.base_offset == -1, shape.name
    errors = [(e.batch_index, e.batch_index_error_message) for e in answer.record_errors]
    assert [index for index, _ in errors] == [index for index, _ in shape.record_errors], shape.name
    for (_, message), (_, expected) in zip(errors, shape.record_errors):
        assert expected_pattern(expected, partition).fullmatch(message), (shape.name, message)
    if shape.message is None:
        assert answer.error_message is None, (shape.name, answer.error_message)
    else:
        assert expected_pattern(shape.message, partition).fullmatch(answer.error_message or ""), (
            shape.name, answer.error_message)


@pytest.mark.parametrize("shape", SHAPES, ids=[shape.name for shape in SHAPES])
def test_shape_gets_kafkas_answer(broker, shape):
    topic = "shape-" + "".join(c if c.isalnum() else "-" for c in shape.name)[:200]
    broker.call(lambda: broker.broker.create_topic(topic, 1, dict(shape.topic_configs)))
    client = RawClient(broker.bootstrap_servers)
    try:
        answer = produce(client, topic, shape.records, shape.produce_version)
    finally:
        client.close()
    check_answer(shape, answer, topic)
    log_end_offset = broker.call(lambda: broker.broker.partition(topic, 0).log_end_offset)
    if shape.code == ErrorCode.NONE:
        assert answer.base_offset == 0 and log_end_offset > 0
    else:
        assert log_end_offset == 0, "a refused batch wrote nothing"


def test_listoffsets_by_time_over_a_kept_batch_whose_records_cannot_be_read_whole(broker):
    # the lenient reading keeps a compressed batch whose first record's length prefix is
    # wrong; a lookup by time reads its records whole and fails: INVALID_RECORD for the
    # partition, as Kafka answers (tests/compat/test_produce_refusals.py), the connection kept
    broker.call(lambda: broker.broker.create_topic("kept-lenient", 1))
    now = int(time.time() * 1000)
    batch = raw_batch(record_bytes(0, length_adjust=-9) + record_bytes(1, timestamp_delta=5), records_count=2,
                      last_offset_delta=1, base_timestamp=now, compression=Compression.GZIP)
    client = RawClient(broker.bootstrap_servers)
    try:
        assert produce(client, "kept-lenient", batch, 9).error_code == ErrorCode.NONE
        answers = []
        for timestamp in (now + 3, -3, -1):
            request = ListOffsetsRequest(replica_id=-1, isolation_level=0, topics=[ListOffsetsRequest.ListOffsetsTopic(
                name="kept-lenient", partitions=[ListOffsetsRequest.ListOffsetsPartition(partition_index=0,
                                                                                         timestamp=timestamp)])])
            (answer,) = client.request(2, 7, request).topics[0].partitions
            answers.append((answer.error_code, answer.offset))
        assert answers == [(ErrorCode.INVALID_RECORD, -1), (ErrorCode.INVALID_RECORD, -1), (ErrorCode.NONE, 2)]
    finally:
        client.close()
