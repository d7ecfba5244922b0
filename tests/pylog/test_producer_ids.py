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
from pylog.controller import bootstrap
from pylog.controller.metadata_log import MetadataLog, partition_dir
from pylog.producer_ids import PRODUCER_ID_BLOCK_SIZE
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


@pytest.mark.parametrize("version", [3, 4, 5])
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


def test_the_next_block_is_committed_to_the_metadata_log_before_its_first_id_is_handed_out(tmp_path):
    with EmbeddedBroker(tmp_path) as embedded:
        client = RawClient(embedded.bootstrap_servers)
        first = new_id(client)
        assert [new_id(client) for _ in range(3)] == [first + 1, first + 2, first + 3]   # same block
        client.close()
    # what the controller committed, read back from the metadata log itself
    log = MetadataLog.open(partition_dir(tmp_path), now_ms=0)
    try:
        image = bootstrap.replay(log)
    finally:
        log.close()
    assert image.next_producer_id == first + PRODUCER_ID_BLOCK_SIZE
