"""A consumer's Fetch, as Kafka's Partition.readRecords answers it: a `last_fetched_epoch`
(v12+) is checked against the leader's epoch cache for consumers as for followers (an epoch
that ended before the fetch offset is a diverging epoch, no records; one the cache cannot
place is OFFSET_OUT_OF_RANGE), and a read_committed answer lists its aborted transactions as
an empty list where a read_uncommitted one has none (null).
tests/compat/test_read_requests.py compares such answers with the reference Kafka's."""

import time

from protocol.error_codes import ErrorCode
from protocol.messages import FetchRequest, ProduceRequest
from protocol.records import build_batch
from tests.pylog.wire import RawClient


def fetch(client, offset: int, *, last_fetched_epoch: int = -1, isolation_level: int = 0):
    request = FetchRequest(replica_id=-1, max_wait_ms=0, min_bytes=0, max_bytes=1 << 20,
                           isolation_level=isolation_level, topics=[FetchRequest.FetchTopic(topic="epochs", partitions=[
                               FetchRequest.FetchPartition(partition=0, fetch_offset=offset, partition_max_bytes=1 << 20,
                                                           last_fetched_epoch=last_fetched_epoch)])])
    data = client.request(1, 12, request).responses[0].partitions[0]
    return (data.error_code, (data.diverging_epoch.epoch, data.diverging_epoch.end_offset),
            data.aborted_transactions, len(data.records or b""))


def test_a_consumers_last_fetched_epoch_and_isolation_level(kafka_broker):
    client = RawClient(kafka_broker.bootstrap_servers)
    client.auto_create("epochs")
    batch = build_batch([(None, b"v%d" % i) for i in range(5)], timestamp_ms=int(time.time() * 1000))
    answer = client.request(0, 9, ProduceRequest(acks=-1, timeout_ms=5000, topic_data=[
        ProduceRequest.TopicProduceData(name="epochs", partition_data=[
            ProduceRequest.PartitionProduceData(index=0, records=batch)])]))
    assert answer.responses[0].partition_responses[0].error_code == ErrorCode.NONE
    epoch = kafka_broker.call(lambda: kafka_broker.broker.partition("epochs", 0).leader_epoch)

    assert fetch(client, 0)[::2] == (ErrorCode.NONE, None)
    assert fetch(client, 0, isolation_level=1)[::2] == (ErrorCode.NONE, [])
    # the leader's epoch: records, as without one
    assert fetch(client, 0, last_fetched_epoch=epoch) == (ErrorCode.NONE, (-1, -1), None, len(batch))
    # past the end of that epoch: where to truncate to, no records
    assert fetch(client, 7, last_fetched_epoch=epoch) == (ErrorCode.NONE, (epoch, 5), None, 0)
    # an epoch after the leader's: the cache cannot place it
    assert fetch(client, 0, last_fetched_epoch=epoch + 1)[:2] == (ErrorCode.OFFSET_OUT_OF_RANGE, (-1, -1))
