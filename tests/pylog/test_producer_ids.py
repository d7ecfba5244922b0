"""InitProducerId without a transactional id, and producer ids never handed out twice.

Kafka 4.1.1 (TransactionCoordinator.handleInitProducerId with a null transactional id)
hands every such request a new producer id at epoch 0, even one carrying its current id
and epoch; KafkaApis refuses an id without an epoch or an epoch without an id with
INVALID_REQUEST (-1, -1). Checked against the reference broker: ids 0, 1, then 2, 3, 4
for requests carrying (0, 0), (0, 5), (0, 32767); INVALID_REQUEST for (0, -1) and (-1, 3).
"""

from __future__ import annotations

import time

import pytest

from protocol.error_codes import ErrorCode
from protocol.messages import InitProducerIdRequest, ProduceRequest
from protocol.records import build_batch
from pylog.producer_ids import PRODUCER_ID_BLOCK_SIZE, PRODUCER_IDS_FILE
from pylog.testing import EmbeddedBroker
from tests.pylog.wire import RawClient

PRODUCE, INIT_PRODUCER_ID = 0, 22


def init_producer_id(client, producer_id=-1, producer_epoch=-1, version=4):
    response = client.request(INIT_PRODUCER_ID, version, InitProducerIdRequest(
        transactional_id=None, transaction_timeout_ms=60_000, producer_id=producer_id, producer_epoch=producer_epoch))
    return response.error_code, response.producer_id, response.producer_epoch


def new_id(client) -> int:
    code, producer_id, epoch = init_producer_id(client)
    assert (code, epoch) == (ErrorCode.NONE, 0)
    return producer_id


def produce(client, topic, producer_id, base_sequence, count):
    records = build_batch([(None, b"v%d" % i) for i in range(count)], timestamp_ms=int(time.time() * 1000),
                          producer_id=producer_id, producer_epoch=0, base_sequence=base_sequence)
    response = client.request(PRODUCE, 9, ProduceRequest(acks=-1, timeout_ms=5000, topic_data=[
        ProduceRequest.TopicProduceData(name=topic, partition_data=[
            ProduceRequest.PartitionProduceData(index=0, records=records)])]))
    return response.responses[0].partition_responses[0].error_code


def test_two_requests_get_two_ids(kafka_broker):
    client = RawClient(kafka_broker.bootstrap_servers)
    first, second = new_id(client), new_id(client)
    assert first >= 0 and second >= 0 and first != second


@pytest.mark.parametrize("version", [3, 4])
def test_a_request_carrying_its_id_and_epoch_still_gets_a_new_id(kafka_broker, version):
    client = RawClient(kafka_broker.bootstrap_servers)
    current = new_id(client)
    seen = {current}
    for epoch in (0, 5, 32767):
        code, producer_id, producer_epoch = init_producer_id(client, current, epoch, version)
        assert (code, producer_epoch) == (ErrorCode.NONE, 0)
        assert producer_id not in seen, f"{producer_id} handed out again"
        seen.add(producer_id)


def test_an_id_without_an_epoch_or_an_epoch_without_an_id_is_invalid(kafka_broker):
    client = RawClient(kafka_broker.bootstrap_servers)
    current = new_id(client)
    assert init_producer_id(client, current, -1) == (ErrorCode.INVALID_REQUEST, -1, -1)
    assert init_producer_id(client, -1, 3) == (ErrorCode.INVALID_REQUEST, -1, -1)


def test_the_next_block_is_on_disk_before_its_first_id_is_handed_out(kafka_broker):
    client = RawClient(kafka_broker.bootstrap_servers)
    first = new_id(client)
    lines = (kafka_broker.data_dir / PRODUCER_IDS_FILE).read_text().splitlines()
    assert lines == ["0", "1", str(first + PRODUCER_ID_BLOCK_SIZE)]


def test_ids_the_partitions_know_are_not_handed_out_without_the_block_file(tmp_path):
    # A previous broker left producer 0 at sequence 2,999 in one partition and producer
    # 4321 (a client's id from elsewhere) in another; the id-block file is gone.
    with EmbeddedBroker(tmp_path) as previous:
        client = RawClient(previous.bootstrap_servers)
        previous.call(lambda: previous.broker.create_topic("held", 1))
        previous.call(lambda: previous.broker.create_topic("other", 1))
        assert new_id(client) == 0
        assert produce(client, "held", 0, 0, 3000) == ErrorCode.NONE
        assert produce(client, "other", 4321, 0, 1) == ErrorCode.NONE
        client.close()
    (tmp_path / PRODUCER_IDS_FILE).unlink()

    with EmbeddedBroker(tmp_path) as embedded:
        client = RawClient(embedded.bootstrap_servers)
        producer_id = new_id(client)
        assert producer_id > 4321
        # The new idempotent producer's first batch is accepted where producer 0 wrote.
        assert produce(client, "held", producer_id, 0, 5) == ErrorCode.NONE
        assert produce(client, "held", producer_id, 5, 5) == ErrorCode.NONE
        client.close()
