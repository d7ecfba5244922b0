"""Produce's checks beyond the batch format, over a real socket: acks, timestamps, keys on compacted topics."""

import socket
import time

import pytest

from protocol.error_codes import ErrorCode
from protocol.messages import ProduceRequest
from protocol.records import build_batch
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


def test_acks_zero_gets_no_response_but_is_appended(kafka_broker):
    client = RawClient(kafka_broker.bootstrap_servers, timeout_s=1)
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


def test_control_batches_from_clients_are_refused(kafka_broker):
    """Transaction markers are the coordinator's to write, never a producer's."""
    from protocol.records import ControlType, build_control_batch

    kafka_broker.call(lambda: kafka_broker.broker.create_topic("markers", 1))
    client = RawClient(kafka_broker.bootstrap_servers)
    marker = build_control_batch(ControlType.COMMIT, producer_id=7, producer_epoch=0, timestamp_ms=1)
    result = produce(client, "markers", marker)
    assert result.error_code == ErrorCode.INVALID_RECORD
    assert kafka_broker.call(lambda: kafka_broker.broker.partition("markers", 0).log_end_offset) == 0
