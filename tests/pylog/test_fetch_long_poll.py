"""Long-poll Fetch: when it waits and when it answers at once, over a real socket.

Kafka's ReplicaManager.fetchMessages answers a Fetch at once when any partition read
ended in an error, whatever `max_wait_ms` and `min_bytes` say; and deleting a topic
completes the fetches parked on its partitions, which then answer with the partition's
error. A partition with an error carries offsets -1 (Kafka's LogReadResult for an
error). A partition the metadata does not know is not read (KafkaApis answers it apart):
it does not end the wait for the others, and a fetch of nothing else is answered at once.
Checked against Kafka 4.1.1: each erroring fetch below came back within 50 ms, the parked
one within 70 ms of the delete, with UNKNOWN_TOPIC_OR_PARTITION; a fetch of an empty
partition and an unknown one (a partition or a topic) waited its whole 5 s.
"""

import threading
import time

import pytest

from protocol.error_codes import ErrorCode
from protocol.messages import DeleteTopicsRequest, FetchRequest, ProduceRequest
from protocol.records import build_batch
from tests.pylog.wire import RawClient

PRODUCE, FETCH, DELETE_TOPICS = 0, 1, 20
MAX_WAIT_MS = 5000
AT_ONCE_S = 2.0   # far below max_wait: the answer did not wait


def fetch_request(partitions, max_wait_ms=MAX_WAIT_MS):
    """partitions: (topic, partition, fetch_offset, current_leader_epoch) in request order."""
    topics: dict[str, list] = {}
    for topic, index, fetch_offset, current_leader_epoch in partitions:
        topics.setdefault(topic, []).append(FetchRequest.FetchPartition(
            partition=index, current_leader_epoch=current_leader_epoch, fetch_offset=fetch_offset,
            partition_max_bytes=1 << 20))
    return FetchRequest(replica_id=-1, max_wait_ms=max_wait_ms, min_bytes=1, max_bytes=1 << 20, isolation_level=0,
                        session_id=0, session_epoch=-1,
                        topics=[FetchRequest.FetchTopic(topic=name, partitions=parts) for name, parts in topics.items()])


def timed_fetch(client, request):
    started = time.monotonic()
    response = client.request(FETCH, 12, request)
    return time.monotonic() - started, {(t.topic, p.partition_index): p for t in response.responses
                                        for p in t.partitions}


@pytest.fixture
def topics(kafka_broker):
    """`full` holds three records; `empty` none (a fetch of it alone waits)."""
    broker = kafka_broker.broker
    kafka_broker.call(lambda: broker.create_topic("full", 1))
    kafka_broker.call(lambda: broker.create_topic("empty", 1))
    client = RawClient(kafka_broker.bootstrap_servers)
    records = build_batch([(b"k", b"a"), (b"k", b"b"), (b"k", b"c")], timestamp_ms=int(time.time() * 1000))
    answer = client.request(PRODUCE, 9, ProduceRequest(acks=-1, timeout_ms=5000, topic_data=[
        ProduceRequest.TopicProduceData(name="full", partition_data=[
            ProduceRequest.PartitionProduceData(index=0, records=records)])]))
    assert answer.responses[0].partition_responses[0].error_code == ErrorCode.NONE
    yield client
    client.close()


@pytest.mark.parametrize("failing, code", [
    (("full", 0, 100, -1), ErrorCode.OFFSET_OUT_OF_RANGE),
    (("full", 0, 3, 4), ErrorCode.UNKNOWN_LEADER_EPOCH),
], ids=["offset-out-of-range", "unknown-leader-epoch"])
def test_a_partition_with_an_error_answers_a_long_poll_at_once(topics, failing, code):
    # Alone, `empty` would keep the fetch waiting for 5 s; the erroring partition does not.
    elapsed_s, partitions = timed_fetch(topics, fetch_request([("empty", 0, 0, -1), failing]))
    assert elapsed_s < AT_ONCE_S, f"waited {elapsed_s:.2f} s with {code.name} in the answer"
    failed = partitions[failing[:2]]
    assert failed.error_code == code
    assert (failed.high_watermark, failed.last_stable_offset, failed.log_start_offset) == (-1, -1, -1)
    assert len(failed.records) == 0
    healthy = partitions[("empty", 0)]
    assert (healthy.error_code, healthy.high_watermark, healthy.log_start_offset) == (ErrorCode.NONE, 0, 0)


@pytest.mark.parametrize("unknown", [("full", 7, 0, -1), ("no-such-topic", 0, 0, -1)],
                         ids=["unknown-partition", "unknown-topic"])
def test_a_partition_the_metadata_does_not_know_does_not_end_the_wait(topics, unknown):
    elapsed_s, partitions = timed_fetch(topics, fetch_request([("empty", 0, 0, -1), unknown], max_wait_ms=1000))
    assert elapsed_s >= 0.9, f"answered after {elapsed_s:.2f} s"
    assert partitions[unknown[:2]].error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    assert partitions[("empty", 0)].error_code == ErrorCode.NONE
    # alone, nothing is read and nothing waits
    elapsed_s, partitions = timed_fetch(topics, fetch_request([unknown]))
    assert elapsed_s < AT_ONCE_S and partitions[unknown[:2]].error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION


def test_a_fenced_leader_epoch_answers_a_long_poll_at_once(kafka_broker, topics):
    # One node never changes leaders; a leader at epoch 2 stands in for one that did.
    kafka_broker.call(lambda: kafka_broker.broker.partition("empty", 0).lead_alone(2))
    elapsed_s, partitions = timed_fetch(topics, fetch_request([("empty", 0, 0, 1)]))
    assert elapsed_s < AT_ONCE_S
    assert partitions[("empty", 0)].error_code == ErrorCode.FENCED_LEADER_EPOCH


def test_without_an_error_a_long_poll_waits_for_max_wait(topics):
    elapsed_s, partitions = timed_fetch(topics, fetch_request([("empty", 0, 0, -1), ("full", 0, 3, 0)],
                                                              max_wait_ms=1000))
    assert elapsed_s >= 0.9
    assert all(p.error_code == ErrorCode.NONE for p in partitions.values())


def test_deleting_a_topic_answers_the_fetches_parked_on_it(kafka_broker, topics):
    parked = RawClient(kafka_broker.bootstrap_servers)
    answer = {}

    def fetch():
        answer["elapsed_s"], answer["partitions"] = timed_fetch(parked, fetch_request([("empty", 0, 0, -1)],
                                                                                      max_wait_ms=20_000))
        answer["at"] = time.monotonic()

    thread = threading.Thread(target=fetch)
    thread.start()
    time.sleep(0.5)   # the fetch found nothing and parked
    assert thread.is_alive(), "the fetch did not wait"
    deleted_at = time.monotonic()
    deleted = topics.request(DELETE_TOPICS, 4, DeleteTopicsRequest(topic_names=["empty"], timeout_ms=5000))
    assert deleted.responses[0].error_code == ErrorCode.NONE
    thread.join(timeout=10)
    parked.close()
    assert not thread.is_alive(), "the parked fetch was not answered"
    assert answer["at"] - deleted_at < AT_ONCE_S, f"answered {answer['at'] - deleted_at:.2f} s after the delete"
    gone = answer["partitions"][("empty", 0)]
    assert gone.error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    assert (gone.high_watermark, gone.last_stable_offset, gone.log_start_offset) == (-1, -1, -1)
