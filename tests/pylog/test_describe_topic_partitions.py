"""DescribeTopicPartitions (pylog/handlers/describe_topic_partitions.py) over a real socket:
the answer's partitions, paging with the cursor and the partition limit, refusals, and the
authorized operations Kafka reports without an authorizer (Metadata's too)."""

from __future__ import annotations

from protocol.error_codes import ErrorCode
from protocol.messages import DescribeTopicPartitionsRequest, MetadataRequest
from pylog.handlers import authorized_operations

from tests.pylog.wire import RawClient

KEY = 75
Request = DescribeTopicPartitionsRequest


def ask(broker, names=(), limit=2000, cursor=None):
    client = RawClient(broker.bootstrap_servers)
    try:
        return client.request(KEY, 0, Request(topics=[Request.TopicRequest(name=n) for n in names],
                                              response_partition_limit=limit, cursor=cursor))
    finally:
        client.close()


def test_partitions_and_the_elr_fields_of_a_cluster_without_elr(kafka_broker):
    kafka_broker.call(kafka_broker.broker.create_topic, "dtp-a", 3)
    answer = ask(kafka_broker, ["dtp-a"])
    [topic] = answer.topics
    assert (topic.error_code, topic.name, topic.is_internal) == (ErrorCode.NONE, "dtp-a", False)
    assert topic.topic_id == kafka_broker.broker.metadata.topics["dtp-a"].topic_id
    assert topic.topic_authorized_operations == authorized_operations.TOPIC == 3576
    assert [(p.partition_index, p.leader_id, p.replica_nodes, p.isr_nodes, p.eligible_leader_replicas,
             p.last_known_elr, p.offline_replicas) for p in topic.partitions] == [
        (i, 1, [1], [1], [], [], []) for i in range(3)]
    assert answer.next_cursor is None


def test_paging_with_the_partition_limit_and_the_cursor(kafka_broker):
    for name, count in (("dtp-p1", 3), ("dtp-p2", 2), ("dtp-p3", 1)):
        kafka_broker.call(kafka_broker.broker.create_topic, name, count)
    names = ["dtp-p3", "dtp-p1", "dtp-p2", "dtp-p1"]   # sorted and once each in the answer
    seen, cursor = [], None
    for _ in range(10):
        answer = ask(kafka_broker, names, limit=2, cursor=cursor)
        seen += [(t.name, p.partition_index) for t in answer.topics for p in t.partitions]
        assert sum(len(t.partitions) for t in answer.topics) <= 2
        if answer.next_cursor is None:
            break
        cursor = Request.Cursor(topic_name=answer.next_cursor.topic_name,
                                partition_index=answer.next_cursor.partition_index)
    assert seen == [("dtp-p1", 0), ("dtp-p1", 1), ("dtp-p1", 2), ("dtp-p2", 0), ("dtp-p2", 1), ("dtp-p3", 0)]
    # a limit below 1 counts as 1
    assert sum(len(t.partitions) for t in ask(kafka_broker, ["dtp-p1"], limit=0).topics) == 1


def test_unknown_and_invalid_names_and_a_bad_cursor(kafka_broker):
    answer = ask(kafka_broker, ["no-such-topic", "bad/name"])
    assert sorted((t.name, t.error_code) for t in answer.topics) == [
        ("bad/name", ErrorCode.INVALID_TOPIC_EXCEPTION), ("no-such-topic", ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)]
    kafka_broker.call(kafka_broker.broker.create_topic, "dtp-c", 1)
    outside = ask(kafka_broker, ["dtp-c"], cursor=Request.Cursor(topic_name="dtp-zzz", partition_index=0))
    negative = ask(kafka_broker, ["dtp-c"], cursor=Request.Cursor(topic_name="dtp-c", partition_index=-1))
    for answer in (outside, negative):
        assert [(t.name, t.error_code, t.partitions) for t in answer.topics] == [("dtp-c", ErrorCode.INVALID_REQUEST, [])]
    # every topic, from the cursor's name on, and no error entries for unknown ones
    everything = ask(kafka_broker, cursor=Request.Cursor(topic_name="dtp-c", partition_index=0))
    assert [t.name for t in everything.topics] == sorted(n for n in kafka_broker.broker.metadata.topics if n >= "dtp-c")


def test_an_empty_name_without_a_cursor_fails_the_whole_request_as_in_kafka(kafka_broker):
    """Kafka 4.1 takes a topic named "" for the missing cursor's topic and fails on the null
    cursor: UNKNOWN_SERVER_ERROR for every topic asked. With a cursor, "" is an invalid name."""
    kafka_broker.call(kafka_broker.broker.create_topic, "dtp-e", 1)
    failed = ask(kafka_broker, ["dtp-e", ""])
    assert [(t.name, t.error_code, t.partitions, t.topic_authorized_operations) for t in failed.topics] == [
        ("dtp-e", ErrorCode.UNKNOWN_SERVER_ERROR, [], -2**31), ("", ErrorCode.UNKNOWN_SERVER_ERROR, [], -2**31)]
    with_cursor = ask(kafka_broker, ["dtp-e", ""], cursor=Request.Cursor(topic_name="", partition_index=0))
    assert [(t.name, t.error_code) for t in with_cursor.topics] == [
        ("", ErrorCode.INVALID_TOPIC_EXCEPTION), ("dtp-e", ErrorCode.NONE)]


def test_metadata_reports_authorized_operations_when_asked(kafka_broker):
    kafka_broker.call(kafka_broker.broker.create_topic, "dtp-m", 1)
    client = RawClient(kafka_broker.bootstrap_servers)
    try:
        asked = client.request(3, 10, MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name="dtp-m")],
                                                      include_cluster_authorized_operations=True,
                                                      include_topic_authorized_operations=True))
        not_asked = client.request(3, 10, MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name="dtp-m")]))
    finally:
        client.close()
    assert asked.cluster_authorized_operations == authorized_operations.CLUSTER == 8096
    assert asked.topics[0].topic_authorized_operations == authorized_operations.TOPIC
    assert not_asked.cluster_authorized_operations == not_asked.topics[0].topic_authorized_operations == -2147483648
