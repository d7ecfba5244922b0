"""AllocateProducerIds at the controller: blocks of 1000 ids from the image's
next_producer_id, one ProducerIdsRecord each, and the broker epoch check."""

from __future__ import annotations

from protocol.error_codes import ErrorCode
from protocol.messages import AllocateProducerIdsRequest
from protocol.metadata import ProducerIdsRecord

from pylog.controller.producer_id_control import (
    LONG_MAX,
    PRODUCER_ID_BLOCK_SIZE,
    allocate_producer_ids,
    stale_broker_epoch_problem,
)

from tests.pylog.controller.cluster_images import cluster, commit


def allocate(image, broker_id, epoch):
    return allocate_producer_ids(image, AllocateProducerIdsRequest(broker_id=broker_id, broker_epoch=epoch))


def test_blocks_of_1000_follow_each_other_across_brokers():
    image = cluster(1, 2)
    blocks = []
    for broker_id in (1, 2, 1):
        result = allocate(image, broker_id, image.brokers[broker_id].epoch)
        assert result.response.error_code == ErrorCode.NONE
        blocks.append((result.response.producer_id_start, result.response.producer_id_len))
        [(record, version)] = result.records
        assert version == 0
        assert (record.broker_id, record.broker_epoch) == (broker_id, image.brokers[broker_id].epoch)
        commit(image, result)
    assert PRODUCER_ID_BLOCK_SIZE == 1000
    assert blocks == [(0, 1000), (1000, 1000), (2000, 1000)]
    assert image.next_producer_id == 3000


def test_the_next_block_starts_at_the_images_next_producer_id():
    image = cluster(1)
    image.replay(ProducerIdsRecord(broker_id=1, broker_epoch=image.brokers[1].epoch, next_producer_id=5000))
    result = allocate(image, 1, image.brokers[1].epoch)
    assert (result.response.producer_id_start, result.response.producer_id_len) == (5000, 1000)
    assert result.records[0][0].next_producer_id == 6000


def test_an_unknown_broker_or_a_stale_epoch_gets_stale_broker_epoch_and_no_record():
    image = cluster(1)
    epoch = image.brokers[1].epoch
    for broker_id, broker_epoch, problem in [
            (1, epoch - 1, f"Expected broker epoch {epoch}, but got broker epoch {epoch - 1}"),
            (7, 0, "No broker registration found for broker id 7")]:
        result = allocate(image, broker_id, broker_epoch)
        assert result.response.error_code == ErrorCode.STALE_BROKER_EPOCH
        assert result.records == []
        assert stale_broker_epoch_problem(image, broker_id, broker_epoch) == problem
    assert stale_broker_epoch_problem(image, 1, epoch) is None


def test_ids_running_out_is_an_unknown_server_error():
    image = cluster(1)
    image.replay(ProducerIdsRecord(broker_id=1, broker_epoch=image.brokers[1].epoch,
                                   next_producer_id=LONG_MAX - PRODUCER_ID_BLOCK_SIZE + 1))
    result = allocate(image, 1, image.brokers[1].epoch)
    assert result.response.error_code == ErrorCode.UNKNOWN_SERVER_ERROR and result.records == []
    image.replay(ProducerIdsRecord(broker_id=1, broker_epoch=image.brokers[1].epoch,
                                   next_producer_id=LONG_MAX - PRODUCER_ID_BLOCK_SIZE))
    last = allocate(image, 1, image.brokers[1].epoch)
    assert last.response.error_code == ErrorCode.NONE
    assert last.records[0][0].next_producer_id == LONG_MAX
    commit(image, last)   # the record still frames: next_producer_id fits an int64
