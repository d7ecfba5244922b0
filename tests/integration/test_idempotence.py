"""Idempotent produce: a retried batch is never appended twice.

1. kafka-python (idempotent by default), confluent-kafka and aiokafka (idempotence
   switched on) behind a `KafkaProxy`: the proxy forwards one
   Produce request to the broker, waits for the broker's answer (so the batch IS in the
   log) and then drops the connection instead of relaying it. The client reconnects and
   retries the same batch (same producer id, epoch and sequence); the broker must answer
   it with the original offset and not append it again. Every record must be in the log
   exactly once, in order.
2. The rules themselves over a raw socket (InitProducerId, then hand-built batches):
   duplicates of any of the last five batches, sequence gaps, stale epochs.
"""

from __future__ import annotations

import asyncio
import time

import aiokafka
import confluent_kafka
import pytest
from kafka import KafkaProducer

from protocol import headers
from protocol.error_codes import ErrorCode
from protocol.records import build_batch, iter_batch_headers
from tests.integration.support import (
    WireClient,
    assert_contiguous_batches,
    consume_all,
    end_offset,
    stored_batches,
    stored_records,
)


def produced_batch_headers(proxy, topic: str) -> list:
    """(producer id, epoch, base sequence, record count) of each batch the client sent."""
    sent = []
    for _, payload in proxy.produce_payloads():
        _, request = headers.decode_request(payload)
        for topic_data in request.topic_data:
            if topic_data.name == topic:
                for data in topic_data.partition_data:
                    for _, h in iter_batch_headers(data.records):
                        sent.append((h.producer_id, h.producer_epoch, h.base_sequence, h.records_count))
    return sent


def produce_kafka_python(bootstrap_servers: str, topic: str, groups: list[list[bytes]]) -> list[int]:
    producer = KafkaProducer(bootstrap_servers=bootstrap_servers, retry_backoff_ms=50, reconnect_backoff_ms=50)
    futures = []
    for group in groups:
        futures += [producer.send(topic, value=value, partition=0) for value in group]
        producer.flush(timeout=60)   # one batch (one Produce request) per group
    offsets = [future.get(timeout=30).offset for future in futures]
    producer.close(timeout=10)
    return offsets


def produce_confluent(bootstrap_servers: str, topic: str, groups: list[list[bytes]]) -> list[int]:
    delivered, errors = {}, []

    def report(err, message):
        if err is not None:
            errors.append(err)
        else:
            delivered[message.value()] = message.offset()

    producer = confluent_kafka.Producer({"bootstrap.servers": bootstrap_servers, "enable.idempotence": True,
                                         "linger.ms": 5, "retry.backoff.ms": 50,
                                         "reconnect.backoff.ms": 50})
    for group in groups:
        for value in group:
            producer.produce(topic, value=value, partition=0, on_delivery=report)
        assert producer.flush(60) == 0
    assert not errors, errors[:3]
    return [delivered[value] for group in groups for value in group]


def produce_aiokafka(bootstrap_servers: str, topic: str, groups: list[list[bytes]]) -> list[int]:
    async def run():
        producer = aiokafka.AIOKafkaProducer(bootstrap_servers=bootstrap_servers, enable_idempotence=True,
                                             retry_backoff_ms=50)
        await asyncio.wait_for(producer.start(), 30)
        try:
            futures = []
            for group in groups:
                futures += [await producer.send(topic, value=value, partition=0) for value in group]
                await asyncio.wait_for(producer.flush(), 60)
            return [(await asyncio.wait_for(future, 30)).offset for future in futures]
        finally:
            await asyncio.wait_for(producer.stop(), 30)
    return asyncio.run(run())


PRODUCERS = {"kafka-python": produce_kafka_python, "confluent-kafka": produce_confluent,
             "aiokafka": produce_aiokafka}


@pytest.mark.timeout(120)
@pytest.mark.parametrize("nth_produce", [1, 3])
@pytest.mark.parametrize("client", sorted(PRODUCERS))
def test_retry_after_dropped_response_is_not_duplicated(kafka_broker_factory, kafka_proxy, client, nth_produce):
    broker = kafka_broker_factory(config={"advertised.listeners": f"PLAINTEXT://127.0.0.1:{kafka_proxy.port}"})
    kafka_proxy.start(broker.bootstrap_servers)
    kafka_proxy.drop_after_response(api_key=0, nth=nth_produce)
    topic = f"idem-drop-{client}-{nth_produce}"

    groups = [[b"idem-%d-%03d" % (group, i) for i in range(100)] for group in range(6)]
    values = [value for group in groups for value in group]
    offsets = PRODUCERS[client](kafka_proxy.bootstrap_servers, topic, groups)

    assert not kafka_proxy.errors, kafka_proxy.errors
    assert kafka_proxy.dropped, "the proxy never dropped a Produce response"
    assert kafka_proxy.connections >= 2, "the client did not reconnect"
    # The client did retry: some batch (producer id, epoch, sequence) went out twice.
    sent = produced_batch_headers(kafka_proxy, topic)
    retried = [batch for batch in set(sent) if sent.count(batch) > 1]
    assert retried, f"no batch was sent twice: {sent}"
    assert all(pid >= 0 and seq >= 0 for pid, _, seq, _ in sent), "expected an idempotent producer"

    assert end_offset(broker.bootstrap_servers, topic, 0) == len(values), (
        f"the log holds {end_offset(broker.bootstrap_servers, topic, 0)} records for {len(values)} sent: "
        f"the retried batch {retried} was appended again")
    assert offsets == list(range(len(values))), "acknowledged offsets are not 0..n-1"
    batches = stored_batches(broker.data_dir, topic, 0)
    assert assert_contiguous_batches(batches) == len(values)
    assert [r.value for r in stored_records(broker.data_dir, topic, 0)] == values
    assert [r.value for r in consume_all(broker.bootstrap_servers, topic, 0, len(values))] == values


def batch(pid: int, epoch: int, sequence: int, count: int, tag: str) -> bytes:
    return build_batch([(None, b"%s-%d" % (tag.encode(), i)) for i in range(count)],
                       timestamp_ms=int(time.time() * 1000), producer_id=pid, producer_epoch=epoch,
                       base_sequence=sequence)


@pytest.mark.timeout(60)
def test_sequence_rules_over_a_raw_socket(kafka_broker):
    topic = "idem-raw"
    with WireClient(kafka_broker.bootstrap_servers) as wire:
        wire.create_topics([topic], 1)
        pid, epoch = wire.init_producer_id()
        assert pid >= 0 and epoch == 0
        sent = [batch(pid, epoch, 10 * n, 10, f"b{n}") for n in range(6)]   # sequences 0..59
        for n, data in enumerate(sent):
            response = wire.produce(topic, 0, data)
            assert (response.error_code, response.base_offset) == (ErrorCode.NONE, 10 * n)

        # A retry of any of the last five batches: its original offset, nothing appended.
        for n in range(1, 6):
            response = wire.produce(topic, 0, sent[n])
            assert (response.error_code, response.base_offset) == (ErrorCode.NONE, 10 * n), f"retry of batch {n}"
        # The sixth-newest batch is no longer remembered: out of order (not appended).
        response = wire.produce(topic, 0, sent[0])
        assert response.error_code == ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, response
        # A gap.
        response = wire.produce(topic, 0, batch(pid, epoch, 65, 1, "gap"))
        assert response.error_code == ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, response
        # The next sequence is fine.
        response = wire.produce(topic, 0, batch(pid, epoch, 60, 5, "next"))
        assert (response.error_code, response.base_offset) == (ErrorCode.NONE, 60)

        # A bumped epoch (an idempotent producer bumps its own after a sequence error it
        # cannot resolve, KIP-360) starts at 0; the old epoch is fenced afterwards.
        response = wire.produce(topic, 0, batch(pid, epoch + 1, 5, 1, "bad-start"))
        assert response.error_code == ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, response
        response = wire.produce(topic, 0, batch(pid, epoch + 1, 0, 3, "new-epoch"))
        assert (response.error_code, response.base_offset) == (ErrorCode.NONE, 65)
        response = wire.produce(topic, 0, batch(pid, epoch, 65, 1, "zombie"))
        assert response.error_code == ErrorCode.INVALID_PRODUCER_EPOCH, response

    expected = [b"b%d-%d" % (n, i) for n in range(6) for i in range(10)]
    expected += [b"next-%d" % i for i in range(5)] + [b"new-epoch-%d" % i for i in range(3)]
    assert [r.value for r in stored_records(kafka_broker.data_dir, topic, 0)] == expected
    assert [r.value for r in consume_all(kafka_broker.bootstrap_servers, topic, 0, len(expected))] == expected
    assert end_offset(kafka_broker.bootstrap_servers, topic, 0) == len(expected)
