"""Which partitions a Fetch or a ListOffsets answer lists, and in which order, over a real
socket (pylog/handlers/fetch.py, pylog/handlers/list_offsets.py). The reference Kafka gives
the same answers in tests/compat/test_partition_list_answers.py."""

from __future__ import annotations

import uuid

from protocol.error_codes import ErrorCode
from protocol.java_order import java_string_hashcode, topic_partition_hash
from protocol.messages import FetchRequest, ListOffsetsRequest, ProduceRequest
from protocol.records import build_batch
from protocol.scala_order import champ_order, mutable_hash_set_order
from tests.pylog.wire import RawClient

FETCH, LIST_OFFSETS, PRODUCE = 1, 2, 0
TOPICS = ("listed-a", "listed-b", "listed-c", "listed-d", "listed-e")


def make_topics(kafka_broker):
    for name in TOPICS:
        kafka_broker.call(lambda name=name: kafka_broker.broker.create_topic(name, 3))
    return {name: kafka_broker.call(lambda name=name: kafka_broker.broker.metadata.topics[name].topic_id)
            for name in TOPICS}


def fetch(plan, ids=None):
    return FetchRequest(replica_id=-1, max_wait_ms=0, min_bytes=1, max_bytes=1 << 20, isolation_level=0,
                        session_id=0, session_epoch=-1, forgotten_topics_data=[], rack_id="", topics=[
                            FetchRequest.FetchTopic(topic=topic, topic_id=ids.get(topic, uuid.UUID(int=7)) if ids
                                                    else uuid.UUID(int=0), partitions=[FetchRequest.FetchPartition(
                                                        partition=index, current_leader_epoch=-1, fetch_offset=offset,
                                                        last_fetched_epoch=-1, log_start_offset=-1,
                                                        partition_max_bytes=1 << 16)])
                            for topic, index, offset in plan])


def listed(response, ids=None):
    names = {topic_id: name for name, topic_id in (ids or {}).items()}
    return [(t.topic or names.get(t.topic_id, "?"), p.partition_index, p.error_code)
            for t in response.responses for p in t.partitions]


def test_fetch_answers_a_partition_named_twice_once_for_its_last_entry(kafka_broker):
    make_topics(kafka_broker)
    client = RawClient(kafka_broker.bootstrap_servers)
    client.request(PRODUCE, 9, _produce("listed-a", 0))
    response = client.request(FETCH, 12, fetch([("listed-a", 0, 5), ("listed-b", 1, 0), ("listed-a", 0, 0),
                                                ("listed-a", 1, 0)]))
    assert listed(response) == [("listed-a", 0, 0), ("listed-b", 1, 0), ("listed-a", 1, 0)]
    assert response.responses[0].partitions[0].records   # read from offset 0, the last entry's


def test_fetch_answers_unknown_ids_before_unknown_partitions_for_a_consumer(kafka_broker):
    ids = make_topics(kafka_broker)
    client = RawClient(kafka_broker.bootstrap_servers)
    response = client.request(FETCH, 13, fetch([("listed-a", 9, 0), ("nowhere", 0, 0), ("listed-b", 0, 0)], ids))
    assert listed(response, ids) == [("listed-b", 0, 0), ("?", 0, ErrorCode.UNKNOWN_TOPIC_ID),
                                     ("listed-a", 9, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)]


def test_list_offsets_answers_in_kafkas_maps_order_and_refuses_a_partition_named_twice(kafka_broker):
    make_topics(kafka_broker)
    client = RawClient(kafka_broker.bootstrap_servers)
    plan = [("listed-c", 2), ("listed-a", 0), ("listed-e", 1), ("listed-a", 2), ("listed-c", 2), ("nowhere", 0),
            ("listed-b", 0), ("listed-a", 1), ("listed-d", 0), ("listed-e", 0)]
    response = client.request(LIST_OFFSETS, 7, ListOffsetsRequest(replica_id=-1, isolation_level=0, timeout_ms=0, topics=[
        ListOffsetsRequest.ListOffsetsTopic(name=topic, partitions=[ListOffsetsRequest.ListOffsetsPartition(
            partition_index=index, current_leader_epoch=-1, timestamp=-1)]) for topic, index in plan]))
    by_topic: dict[str, list[tuple[str, int]]] = {}
    for key in dict.fromkeys(plan):
        by_topic.setdefault(key[0], []).append(key)
    expected = [key for name in champ_order(list(by_topic), [java_string_hashcode(n) for n in by_topic])
                for key in mutable_hash_set_order(by_topic[name], [topic_partition_hash(*k) for k in by_topic[name]])]
    got = [(t.name, p.partition_index, p.error_code) for t in response.topics for p in t.partitions]
    assert [(name, index) for name, index, _ in got] == expected
    codes = {(name, index): code for name, index, code in got}
    assert codes[("listed-c", 2)] == ErrorCode.INVALID_REQUEST
    assert codes[("nowhere", 0)] == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    assert {code for key, code in codes.items() if key not in (("listed-c", 2), ("nowhere", 0))} == {0}
    assert len(response.topics) == len(by_topic)   # a topic once, however many entries named it


def _produce(topic, index):
    return ProduceRequest(acks=-1, timeout_ms=5000, topic_data=[ProduceRequest.TopicProduceData(
        name=topic, partition_data=[ProduceRequest.PartitionProduceData(
            index=index, records=build_batch([(b"k", b"v")], timestamp_ms=1_700_000_000_000))])])
