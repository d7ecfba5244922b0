"""DeleteRecords and DescribeLogDirs on the wire, against the reference Kafka.

The same raw requests go to both session brokers, one after another, and the answers are
compared field by field: the rules of tests/pylog/test_delete_records.py are checked
against Kafka's own answers here, so that they are Kafka's behaviour and not pylog's idea
of it. Last, a fresh pair of brokers deletes records and stops cleanly, and what each left
on disk is compared: log-start-offset-checkpoint, and the producer snapshots (none for a
log whose every record is below its new start).
"""

from __future__ import annotations

import time

from protocol.messages import (
    CreateTopicsRequest,
    DeleteRecordsRequest,
    DescribeLogDirsRequest,
    FindCoordinatorRequest,
    ListOffsetsRequest,
    ProduceRequest,
)
from protocol.records import build_batch
from tests.compat.conftest import unique
from tests.compat.reference import SAME_ON_BOTH, KafkaBroker
from tests.integration.support import ServeProcess, WireClient

PRODUCE, LIST_OFFSETS, FIND_COORDINATOR, CREATE_TOPICS, DELETE_RECORDS, DESCRIBE_LOG_DIRS = 0, 2, 10, 19, 21, 35
UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER, COORDINATOR_NOT_AVAILABLE = 3, 6, 15
RETRIABLE = (UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER)


def create_topic(client: WireClient, name: str, partitions: int = 1, configs: dict | None = None) -> None:
    Topic, Config = CreateTopicsRequest.CreatableTopic, CreateTopicsRequest.CreatableTopicConfig
    response = client.request(CREATE_TOPICS, 5, CreateTopicsRequest(timeout_ms=30_000, topics=[Topic(
        name=name, num_partitions=partitions, replication_factor=1,
        configs=[Config(name=k, value=v) for k, v in (configs or {}).items()])]))
    assert response.topics[0].error_code == 0, response.topics[0]


def produce(client: WireClient, topic: str, count: int, partition: int = 0) -> None:
    """`count` records to one partition, retried while Kafka's new partition has no leader yet."""
    records = build_batch([(b"k", b"v%d" % i) for i in range(count)], timestamp_ms=1_700_000_000_000)
    request = ProduceRequest(acks=-1, timeout_ms=5000, topic_data=[ProduceRequest.TopicProduceData(
        name=topic, partition_data=[ProduceRequest.PartitionProduceData(index=partition, records=records)])])
    deadline = time.monotonic() + 30
    while True:
        answer = client.request(PRODUCE, 9, request).responses[0].partition_responses[0]
        if answer.error_code not in RETRIABLE or time.monotonic() > deadline:
            assert answer.error_code == 0, answer
            return
        time.sleep(0.1)


def delete_records(client: WireClient, topic: str, pairs: list[tuple[int, int]], version: int = 2):
    """[(partition, error_code, low_watermark)] sorted by partition (Kafka's order is a map's)."""
    request = DeleteRecordsRequest(timeout_ms=5000, topics=[DeleteRecordsRequest.DeleteRecordsTopic(
        name=topic, partitions=[DeleteRecordsRequest.DeleteRecordsPartition(partition_index=p, offset=o)
                                for p, o in pairs])])
    response = client.request(DELETE_RECORDS, version, request)
    return sorted((t.name, p.partition_index, p.error_code, p.low_watermark)
                  for t in response.topics for p in t.partitions)


def earliest(client: WireClient, topic: str) -> int:
    request = ListOffsetsRequest(replica_id=-1, isolation_level=0, topics=[ListOffsetsRequest.ListOffsetsTopic(
        name=topic, partitions=[ListOffsetsRequest.ListOffsetsPartition(partition_index=0, timestamp=-2)])])
    return client.request(LIST_OFFSETS, 7, request).topics[0].partitions[0].offset


def on_both(both, compat_table, name: str, run):
    """run(client) on each broker; record the row; return {broker: answer}."""
    answers = {}
    for broker_name, broker in both.items():
        with WireClient(broker.bootstrap_servers) as client:
            answers[broker_name] = run(client)
    same = answers["pylog"] == answers["kafka"]
    compat_table.record("client", name, "answered", "answered",
                        "same" if same else f"differs: pylog {answers['pylog']} / kafka {answers['kafka']}")
    return answers


def test_delete_records_rules(both, compat_table):
    topic, compacted, twice = unique("dr-wire"), unique("dr-wire-compact"), unique("dr-wire-twice")
    missing = unique("dr-wire-no-such-topic")

    def run(client):
        create_topic(client, topic, 2)
        create_topic(client, compacted, configs={"cleanup.policy": "compact"})
        create_topic(client, twice)
        produce(client, topic, 5)
        produce(client, topic, 2, partition=1)
        produce(client, compacted, 2)
        produce(client, twice, 5)
        steps = [delete_records(client, topic, [(0, 3)]),
                 ("earliest", earliest(client, topic)),
                 delete_records(client, topic, [(0, 1)], version=0),          # below the start
                 delete_records(client, topic, [(0, -2)], version=1),         # negative
                 delete_records(client, topic, [(0, 6)]),                     # past the HW
                 delete_records(client, topic, [(0, -1), (1, 0), (9, 0)]),    # the HW; at the start; unknown
                 ("earliest", earliest(client, topic)),
                 delete_records(client, missing, [(0, 0)]),
                 delete_records(client, compacted, [(0, 1)]),
                 delete_records(client, twice, [(0, 4), (0, 2)])]
        return steps

    answers = on_both(both, compat_table, "DeleteRecords: the rules, raw", run)
    assert answers["pylog"] == answers["kafka"]


def test_delete_records_on_an_internal_topic(both, compat_table):
    def run(client):
        # FindCoordinator makes each broker create __consumer_offsets
        deadline = time.monotonic() + 30
        while True:
            found = client.request(FIND_COORDINATOR, 3, FindCoordinatorRequest(key=unique("dr-group"), key_type=0))
            answer = delete_records(client, "__consumer_offsets", [(0, 0)])
            if answer[0][2] not in RETRIABLE or time.monotonic() > deadline:
                return answer
            assert found.error_code in (0, COORDINATOR_NOT_AVAILABLE)
            time.sleep(0.2)

    answers = on_both(both, compat_table, "DeleteRecords: __consumer_offsets, raw", run)
    assert answers["kafka"] == [("__consumer_offsets", 0, 17, -1)]   # INVALID_TOPIC_EXCEPTION
    assert answers["pylog"] == answers["kafka"]


def test_describe_log_dirs(both, compat_table):
    topic, missing = unique("log-dirs-wire"), unique("log-dirs-no-such")

    def describe(client, version: int, topics):
        request = DescribeLogDirsRequest(topics=None if topics is None else [
            DescribeLogDirsRequest.DescribableLogDirTopic(topic=t, partitions=ps) for t, ps in topics.items()])
        response = client.request(DESCRIBE_LOG_DIRS, version, request)
        return (response.error_code, [
            (r.error_code, r.total_bytes > 0, r.usable_bytes > 0,
             sorted((t.name, p.partition_index, p.partition_size, p.offset_lag, p.is_future_key)
                    for t in r.topics for p in t.partitions))
            for r in response.results])

    def run(client):
        create_topic(client, topic, 2)
        produce(client, topic, 4)
        produce(client, topic, 1, partition=1)   # Kafka creates a partition's log on its own time
        return [describe(client, 4, {topic: [0, 1, 7], missing: [0]}),
                describe(client, 1, {topic: [1]})]

    answers = on_both(both, compat_table, "DescribeLogDirs, raw", run)
    v4 = answers["kafka"][0][1][0]
    assert v4[:3] == (0, True, True) and [p[1] for p in v4[3]] == [0, 1]
    assert answers["kafka"][1][1][0][1:3] == (False, False)   # v1: no volume sizes on the wire
    assert answers["pylog"] == answers["kafka"]


def test_what_a_clean_stop_leaves_after_delete_records(tmp_path, compat_table):
    brokers = {"pylog": ServeProcess(tmp_path / "pylog" / "data", overrides=SAME_ON_BOTH),
               "kafka": KafkaBroker(tmp_path / "kafka" / "data")}
    (tmp_path / "pylog").mkdir()
    try:
        for name, broker in brokers.items():
            broker.start()
            with WireClient(broker.bootstrap_servers) as client:
                for topic in ("everything", "some", "none"):
                    create_topic(client, topic)
                    produce(client, topic, 5)
                assert delete_records(client, "everything", [(0, -1)]) == [("everything", 0, 0, 5)]
                assert delete_records(client, "some", [(0, 2)]) == [("some", 0, 0, 2)]
    finally:
        for broker in brokers.values():
            if broker.process is not None:
                broker.stop()

    def left(data_dir):
        lines = (data_dir / "log-start-offset-checkpoint").read_text().split("\n")
        entries = sorted(line for line in lines[2:] if line.split(" ")[0] in ("everything", "some", "none"))
        snapshots = {topic: sorted(p.name for p in (data_dir / f"{topic}-0").glob("*.snapshot"))
                     for topic in ("everything", "some", "none")}
        return entries, snapshots

    found = {name: left(broker.data_dir) for name, broker in brokers.items()}
    compat_table.record("files", "after DeleteRecords: log-start-offset-checkpoint, snapshots", "written", "written",
                        "same" if found["pylog"] == found["kafka"] else f"differs: {found}")
    assert found["kafka"][0] == ["everything 0 5", "some 0 2"]
    assert found["pylog"] == found["kafka"]
