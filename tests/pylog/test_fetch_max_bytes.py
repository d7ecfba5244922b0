"""The broker's `fetch.max.bytes` caps what a Fetch asks for, as Kafka's
KafkaApis.handleFetchRequest does: the answer's `max_bytes` is the smaller of the request's
and the config's, and so is its `min_bytes`. The first partition with data still gets at
least its first batch whole (KIP-74), and a partition's records may end inside a batch."""

import time

import pytest

from protocol.error_codes import ErrorCode
from protocol.messages import FetchRequest, ProduceRequest
from protocol.records import build_batch
from tests.pylog.wire import RawClient

PRODUCE, FETCH = 0, 1
CAP_BYTES = 1024   # the smallest fetch.max.bytes Kafka takes


def produce(client, topic, index, values):
    batch = build_batch([(None, value) for value in values], timestamp_ms=int(time.time() * 1000))
    answer = client.request(PRODUCE, 9, ProduceRequest(acks=-1, timeout_ms=5000, topic_data=[
        ProduceRequest.TopicProduceData(name=topic, partition_data=[
            ProduceRequest.PartitionProduceData(index=index, records=batch)])]))
    assert answer.responses[0].partition_responses[0].error_code == ErrorCode.NONE
    return len(batch)


def fetch(client, partitions, max_bytes=1 << 20, min_bytes=1, max_wait_ms=0):
    request = FetchRequest(replica_id=-1, max_wait_ms=max_wait_ms, min_bytes=min_bytes, max_bytes=max_bytes,
                           isolation_level=0, session_id=0, session_epoch=-1, topics=[
                               FetchRequest.FetchTopic(topic=topic, partitions=[FetchRequest.FetchPartition(
                                   partition=index, fetch_offset=0, partition_max_bytes=1 << 20)])
                               for topic, index in partitions])
    answer = client.request(FETCH, 12, request)
    return {(t.topic, p.partition_index): len(p.records) for t in answer.responses for p in t.partitions}


@pytest.fixture
def capped(kafka_broker_factory):
    broker = kafka_broker_factory({"fetch.max.bytes": str(CAP_BYTES)})
    broker.call(lambda: broker.broker.create_topic("t", 2))
    client = RawClient(broker.bootstrap_servers)
    yield client
    client.close()


def test_the_answer_holds_no_more_than_fetch_max_bytes(capped):
    sizes = [produce(capped, "t", index, [bytes(500)]) for index in (0, 0, 0, 1, 1)]
    assert sizes[0] < CAP_BYTES < sum(sizes[:3])
    records = fetch(capped, [("t", 0), ("t", 1)], max_bytes=10 << 20)
    assert records == {("t", 0): CAP_BYTES, ("t", 1): 0}   # cut inside the second batch, as Kafka cuts


def test_a_first_batch_larger_than_fetch_max_bytes_comes_whole(capped):
    big = produce(capped, "t", 0, [bytes(3000)])
    produce(capped, "t", 1, [bytes(10)])
    assert fetch(capped, [("t", 0), ("t", 1)]) == {("t", 0): big, ("t", 1): 0}


def test_min_bytes_is_capped_too(capped):
    """Asking for more than the cap as min_bytes would otherwise wait for max_wait_ms."""
    for _ in range(3):
        produce(capped, "t", 0, [bytes(500)])
    started = time.monotonic()
    records = fetch(capped, [("t", 0)], min_bytes=1 << 20, max_wait_ms=5000)
    assert time.monotonic() - started < 2.0
    assert records == {("t", 0): CAP_BYTES}


def test_below_the_cap_the_request_decides(kafka_broker):
    kafka_broker.call(lambda: kafka_broker.broker.create_topic("t", 2))
    client = RawClient(kafka_broker.bootstrap_servers)
    try:
        sizes = [produce(client, "t", index, [bytes(500)]) for index in (0, 0, 1)]
        assert fetch(client, [("t", 0), ("t", 1)]) == {("t", 0): sizes[0] + sizes[1], ("t", 1): sizes[2]}
        assert fetch(client, [("t", 0), ("t", 1)], max_bytes=sizes[0] + 10) == {("t", 0): sizes[0] + 10, ("t", 1): 0}
    finally:
        client.close()


def test_a_later_partition_whose_first_batch_does_not_fit_gets_no_records(kafka_broker):
    """Only the first partition with data gets a batch larger than what is left; a later
    one whose first batch is cut by the limit gets no records at all, not a part of it
    (Kafka's ReplicaManager replaces such a read: `firstEntryIncomplete`). A batch cut
    after the first whole one stays cut."""
    kafka_broker.call(lambda: kafka_broker.broker.create_topic("t", 2))
    client = RawClient(kafka_broker.bootstrap_servers)
    try:
        small = produce(client, "t", 0, [bytes(100)])
        large = produce(client, "t", 1, [bytes(600)])
        assert fetch(client, [("t", 0), ("t", 1)], max_bytes=small + 200) == {("t", 0): small, ("t", 1): 0}
        assert fetch(client, [("t", 1), ("t", 0)], max_bytes=small + 200) == {("t", 1): large, ("t", 0): 0}
        produce(client, "t", 0, [bytes(100)])
        assert fetch(client, [("t", 0)], max_bytes=small + 50) == {("t", 0): small + 50}
    finally:
        client.close()


def test_a_cut_first_batch_carries_no_aborted_transactions_list_for_read_committed(kafka_broker):
    """Kafka's replacement of such a read has no list of aborted transactions: null, where a
    read_committed read of records (or of nothing) lists them, empty here."""
    kafka_broker.call(lambda: kafka_broker.broker.create_topic("t", 2))
    client = RawClient(kafka_broker.bootstrap_servers)
    try:
        produce(client, "t", 0, [bytes(100)])
        produce(client, "t", 1, [bytes(600)])
        answer = client.request(FETCH, 12, FetchRequest(
            replica_id=-1, max_wait_ms=0, min_bytes=1, max_bytes=1 << 20, isolation_level=1, session_id=0,
            session_epoch=-1, topics=[FetchRequest.FetchTopic(topic="t", partitions=[
                FetchRequest.FetchPartition(partition=index, fetch_offset=0, partition_max_bytes=limit)
                for index, limit in ((0, 1 << 20), (1, 200))])]))
        assert [(p.partition_index, bool(p.records), p.aborted_transactions)
                for t in answer.responses for p in t.partitions] == [(0, True, []), (1, False, None)]
    finally:
        client.close()
