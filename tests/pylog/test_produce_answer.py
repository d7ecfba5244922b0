"""Which partitions a Produce answer lists and in which order (pylog/handlers/produce_answer.py),
over a real socket: a partition named twice is appended once, with the records named last;
the answer follows Kafka's maps, not the request; a batch with a codec id Kafka does not
know fails a request below v7 whole, and nothing of it is appended. The orders themselves are
checked against Kafka in tests/compat/test_produce_answer_order.py."""

from protocol.error_codes import ErrorCode
from protocol.java_order import computed_bucket_order, spread
from protocol.messages import ProduceRequest
from protocol.records import build_batch
from protocol.schema import ZERO_UUID
from pylog.handlers.produce_answer import PartitionKey, answer_order, by_topic, failure
from tests.pylog.batch_shapes import raw_batch, record_bytes
from tests.pylog.wire import RawClient

PRODUCE = 0
TOPICS = ("ans-a", "ans-b", "ans-c")


def request(entries, acks=-1):
    """One topic entry per (topic, partition, records), in that order."""
    return ProduceRequest(acks=acks, timeout_ms=5000, topic_data=[ProduceRequest.TopicProduceData(
        name=topic, partition_data=[ProduceRequest.PartitionProduceData(index=index, records=records)])
        for topic, index, records in entries])


def listed(response):
    return [(topic.name, p.index, p.error_code) for topic in response.responses for p in topic.partition_responses]


def batch(value: bytes):
    return build_batch([(b"k", value)], timestamp_ms=1_700_000_000_000)


def make_topics(kafka_broker):
    for name in TOPICS:
        kafka_broker.call(lambda name=name: kafka_broker.broker.create_topic(name, 3))
    return {name: kafka_broker.call(lambda name=name: kafka_broker.broker.metadata.topics[name].topic_id)
            for name in TOPICS}


def log_end(kafka_broker, topic, index):
    return kafka_broker.call(lambda: kafka_broker.broker.partition(topic, index).log_end_offset)


def test_a_partition_named_twice_is_appended_once_with_the_last_records(kafka_broker):
    make_topics(kafka_broker)
    client = RawClient(kafka_broker.bootstrap_servers)
    response = client.request(PRODUCE, 9, request([("ans-a", 0, batch(b"first")), ("ans-b", 1, batch(b"x")),
                                                   ("ans-a", 0, batch(b"second"))]))
    assert sorted(listed(response)) == [("ans-a", 0, 0), ("ans-b", 1, 0)]
    assert log_end(kafka_broker, "ans-a", 0) == 1
    stored = kafka_broker.call(lambda: kafka_broker.broker.partition("ans-a", 0).log.read(0, 1 << 20).read_bytes())
    assert b"second" in stored and b"first" not in stored


def test_the_answer_is_in_the_order_of_kafkas_maps(kafka_broker):
    """Partitions appended, then those the metadata lacks, then those whose records field is
    refused, as Kafka's immutable Map merged from its three mutable maps iterates them."""
    ids = make_topics(kafka_broker)
    client = RawClient(kafka_broker.bootstrap_servers)
    entries = [(topic, index, batch(b"v")) for topic in reversed(TOPICS) for index in (2, 0, 1)]
    entries += [("ans-unknown", 0, batch(b"v")), ("ans-a", 7, batch(b"v")), ("ans-b", 2, b"")]
    response = client.request(PRODUCE, 9, request(entries))
    appended = {PartitionKey(ids[t], t, i): failure(i, ErrorCode.NONE) for t, i, _ in entries[:9]}
    unknown = {PartitionKey(ZERO_UUID, "ans-unknown", 0): failure(0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION),
               PartitionKey(ids["ans-a"], "ans-a", 7): failure(7, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)}
    refused = {PartitionKey(ids["ans-b"], "ans-b", 2): failure(2, ErrorCode.INVALID_RECORD)}
    expected = [(t.name, p.index, p.error_code) for t in by_topic(answer_order(appended, unknown, refused))
                for p in t.partition_responses]
    assert listed(response) == expected
    # named twice, with records, then with none: Kafka appends the first and answers the
    # refusal of the second (its maps hold one answer per partition, the refused one merged last)
    assert log_end(kafka_broker, "ans-b", 2) == 1


def test_small_answers_keep_the_order_of_kafkas_maps_merged():
    """Up to four partitions, Scala's immutable Map keeps the order added: the appended
    partitions (in their mutable map's order) before the unknown ones."""
    appended = {PartitionKey(ZERO_UUID, "t", 1): failure(1, ErrorCode.NONE)}
    unknown = {PartitionKey(ZERO_UUID, "u", 0): failure(0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)}
    assert [key for key, _ in answer_order(unknown, appended)] == [PartitionKey(ZERO_UUID, "u", 0),
                                                                   PartitionKey(ZERO_UUID, "t", 1)]
    assert [key for key, _ in answer_order(appended, unknown)] == [PartitionKey(ZERO_UUID, "t", 1),
                                                                   PartitionKey(ZERO_UUID, "u", 0)]


def test_an_unknown_codec_id_below_v7_fails_the_whole_request(kafka_broker):
    make_topics(kafka_broker)
    client = RawClient(kafka_broker.bootstrap_servers)
    codec5 = raw_batch(record_bytes(0), records_count=1, last_offset_delta=0, base_timestamp=1_700_000_000_000,
                       attributes=5)
    entries = [("ans-a", 0, batch(b"v")), ("ans-c", 1, codec5), ("ans-unknown", 0, batch(b"v")), ("ans-a", 0, batch(b"v"))]
    for version in (3, 6):
        response = client.request(PRODUCE, version, request(entries))
        calls = [PartitionKey(ZERO_UUID, t, i) for t, i, _ in entries]
        distinct = list(dict.fromkeys(calls))
        order = [distinct[i] for i in computed_bucket_order([spread(k.java_hash()) for k in calls], calls)]
        assert listed(response) == [(k.topic, k.index, ErrorCode.UNKNOWN_SERVER_ERROR) for k in order]
        assert log_end(kafka_broker, "ans-a", 0) == 0
    # from v7 the batch's CRC and format are checked first, for its partition alone
    response = client.request(PRODUCE, 7, request(entries))
    assert sorted(listed(response)) == [("ans-a", 0, 0), ("ans-c", 1, ErrorCode.UNKNOWN_SERVER_ERROR),
                                        ("ans-unknown", 0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)]
    assert log_end(kafka_broker, "ans-a", 0) == 1


def test_invalid_acks_append_nothing_and_leave_other_refusals_theirs(kafka_broker):
    make_topics(kafka_broker)
    client = RawClient(kafka_broker.bootstrap_servers)
    response = client.request(PRODUCE, 9, request([("ans-a", 0, batch(b"v")), ("ans-unknown", 0, batch(b"v")),
                                                   ("ans-b", 0, b"")], acks=2))
    assert sorted(listed(response)) == [("ans-a", 0, ErrorCode.INVALID_REQUIRED_ACKS),
                                        ("ans-b", 0, ErrorCode.INVALID_RECORD),
                                        ("ans-unknown", 0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)]
    assert log_end(kafka_broker, "ans-a", 0) == 0
