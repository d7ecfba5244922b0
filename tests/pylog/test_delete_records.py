"""DeleteRecords (key 21) and DescribeLogDirs (key 35) over a real socket.

DeleteRecords moves a partition's log start offset (its low watermark); fetches below it
get OFFSET_OUT_OF_RANGE and ListOffsets earliest answers it. DescribeLogDirs reports the
data directory and the size of each partition log.
"""

from __future__ import annotations

import os

import pytest

from protocol.error_codes import ErrorCode
from protocol.messages import (
    ApiVersionsRequest,
    DeleteRecordsRequest,
    DescribeLogDirsRequest,
    FetchRequest,
    ListOffsetsRequest,
    ProduceRequest,
)
from protocol.records import build_batch
from pylog.coordinator import OFFSETS_TOPIC
from pylog.handlers.delete_records import kafkas_order
from tests.pylog.wire import RawClient

pytestmark = pytest.mark.timeout(60)

PRODUCE, FETCH, LIST_OFFSETS, API_VERSIONS, DELETE_RECORDS, DESCRIBE_LOG_DIRS = 0, 1, 2, 18, 21, 35


@pytest.fixture
def broker(kafka_broker_factory):
    return kafka_broker_factory({"auto.create.topics.enable": "false"})


@pytest.fixture
def raw(broker):
    client = RawClient(broker.bootstrap_servers)
    yield client
    client.close()


def create(broker, topic: str, partitions: int = 1, configs: dict | None = None) -> None:
    broker.call(lambda: broker.broker.create_topic(topic, partitions, configs))


def produce(raw: RawClient, topic: str, count: int, partition: int = 0) -> None:
    records = build_batch([(b"k", b"v%d" % i) for i in range(count)], timestamp_ms=1_700_000_000_000)
    request = ProduceRequest(acks=-1, timeout_ms=5000, topic_data=[ProduceRequest.TopicProduceData(
        name=topic, partition_data=[ProduceRequest.PartitionProduceData(index=partition, records=records)])])
    assert raw.request(PRODUCE, 9, request).responses[0].partition_responses[0].error_code == ErrorCode.NONE


def delete_records(raw: RawClient, topic: str, offsets: dict[int, int] | list[tuple[int, int]], version: int = 2):
    """{partition: (error_code, low_watermark)} of one topic."""
    pairs = offsets.items() if isinstance(offsets, dict) else offsets
    request = DeleteRecordsRequest(timeout_ms=5000, topics=[DeleteRecordsRequest.DeleteRecordsTopic(
        name=topic, partitions=[DeleteRecordsRequest.DeleteRecordsPartition(partition_index=p, offset=o)
                                for p, o in pairs])])
    response = raw.request(DELETE_RECORDS, version, request)
    assert [t.name for t in response.topics] == [topic]
    return {p.partition_index: (p.error_code, p.low_watermark) for p in response.topics[0].partitions}


def earliest(raw: RawClient, topic: str, partition: int = 0) -> int:
    request = ListOffsetsRequest(replica_id=-1, isolation_level=0, topics=[ListOffsetsRequest.ListOffsetsTopic(
        name=topic, partitions=[ListOffsetsRequest.ListOffsetsPartition(partition_index=partition, timestamp=-2)])])
    answer = raw.request(LIST_OFFSETS, 7, request).topics[0].partitions[0]
    assert answer.error_code == ErrorCode.NONE
    return answer.offset


def fetch(raw: RawClient, topic: str, offset: int):
    request = FetchRequest(replica_id=-1, max_wait_ms=0, min_bytes=0, max_bytes=1 << 20, isolation_level=0,
                           session_id=0, session_epoch=-1, topics=[FetchRequest.FetchTopic(
                               topic=topic, partitions=[FetchRequest.FetchPartition(
                                   partition=0, fetch_offset=offset, partition_max_bytes=1 << 20)])])
    return raw.request(FETCH, 12, request).responses[0].partitions[0]


# ---------------------------------------------------------------------------------------
# DeleteRecords


def test_both_apis_are_advertised(raw):
    request = ApiVersionsRequest(client_software_name="t", client_software_version="1")
    advertised = {k.api_key: (k.min_version, k.max_version) for k in raw.request(API_VERSIONS, 3, request).api_keys}
    assert advertised[DELETE_RECORDS] == (0, 2)
    assert advertised[DESCRIBE_LOG_DIRS] == (1, 4)


@pytest.mark.parametrize("version", [0, 1, 2])
def test_delete_records_moves_the_low_watermark(broker, raw, version):
    create(broker, "dr")
    produce(raw, "dr", 5)
    assert delete_records(raw, "dr", {0: 3}, version) == {0: (ErrorCode.NONE, 3)}
    assert earliest(raw, "dr") == 3
    assert fetch(raw, "dr", 2).error_code == ErrorCode.OFFSET_OUT_OF_RANGE
    at = fetch(raw, "dr", 3)
    assert at.error_code == ErrorCode.NONE and at.log_start_offset == 3 and len(at.records) > 0


def test_minus_one_deletes_up_to_the_high_watermark(broker, raw):
    create(broker, "dr-hw")
    produce(raw, "dr-hw", 4)
    assert delete_records(raw, "dr-hw", {0: -1}) == {0: (ErrorCode.NONE, 4)}
    assert earliest(raw, "dr-hw") == 4
    produce(raw, "dr-hw", 1)   # the log goes on from there
    assert fetch(raw, "dr-hw", 4).error_code == ErrorCode.NONE


def test_an_offset_below_the_log_start_changes_nothing_and_answers_the_start(broker, raw):
    create(broker, "dr-below")
    produce(raw, "dr-below", 5)
    assert delete_records(raw, "dr-below", {0: 4}) == {0: (ErrorCode.NONE, 4)}
    assert delete_records(raw, "dr-below", {0: 2}) == {0: (ErrorCode.NONE, 4)}
    assert delete_records(raw, "dr-below", {0: 0}) == {0: (ErrorCode.NONE, 4)}
    assert earliest(raw, "dr-below") == 4


def test_offsets_out_of_range(broker, raw):
    create(broker, "dr-range")
    produce(raw, "dr-range", 5)
    assert delete_records(raw, "dr-range", {0: 6}) == {0: (ErrorCode.OFFSET_OUT_OF_RANGE, -1)}
    assert delete_records(raw, "dr-range", {0: -2}) == {0: (ErrorCode.OFFSET_OUT_OF_RANGE, -1)}
    assert delete_records(raw, "dr-range", {0: 5}) == {0: (ErrorCode.NONE, 5)}   # the HW itself is fine
    assert earliest(raw, "dr-range") == 5


def test_unknown_topic_and_partition(broker, raw):
    create(broker, "dr-known", 2)
    produce(raw, "dr-known", 3, partition=1)
    assert delete_records(raw, "no-such-topic", {0: 0}) == {0: (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1)}
    assert delete_records(raw, "dr-known", {1: 2, 7: 0}) == {
        1: (ErrorCode.NONE, 2), 7: (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1)}


def test_internal_topics_refuse(broker, raw):
    broker.call(broker.broker.offset_store.ensure_topic)
    assert delete_records(raw, OFFSETS_TOPIC, {0: 0}) == {0: (ErrorCode.INVALID_TOPIC_EXCEPTION, -1)}


def test_compacted_topics_refuse_unless_they_also_delete(broker, raw):
    create(broker, "dr-compact", configs={"cleanup.policy": "compact"})
    create(broker, "dr-both", configs={"cleanup.policy": "compact,delete"})
    produce(raw, "dr-compact", 3)
    produce(raw, "dr-both", 3)
    assert delete_records(raw, "dr-compact", {0: 1}) == {0: (ErrorCode.POLICY_VIOLATION, -1)}
    assert earliest(raw, "dr-compact") == 0
    assert delete_records(raw, "dr-both", {0: 1}) == {0: (ErrorCode.NONE, 1)}


def test_a_partition_named_twice_counts_once_with_the_last_offset(broker, raw):
    create(broker, "dr-twice")
    produce(raw, "dr-twice", 5)
    assert delete_records(raw, "dr-twice", [(0, 4), (0, 2)]) == {0: (ErrorCode.NONE, 2)}
    assert earliest(raw, "dr-twice") == 2


def test_the_new_log_start_is_checkpointed_before_the_answer(broker, raw):
    create(broker, "dr-durable")
    produce(raw, "dr-durable", 5)
    delete_records(raw, "dr-durable", {0: 3})
    checkpoint = (broker.data_dir / "log-start-offset-checkpoint").read_text().split("\n")
    assert "dr-durable 0 3" in checkpoint


def test_the_low_watermark_survives_a_clean_restart(broker, raw):
    create(broker, "dr-restart")
    produce(raw, "dr-restart", 5)
    delete_records(raw, "dr-restart", {0: 2})
    raw.close()
    broker.restart()
    again = RawClient(broker.bootstrap_servers)
    try:
        assert earliest(again, "dr-restart") == 2
        assert fetch(again, "dr-restart", 1).error_code == ErrorCode.OFFSET_OUT_OF_RANGE
    finally:
        again.close()


# ---------------------------------------------------------------------------------------
# DescribeLogDirs


def describe_log_dirs(raw: RawClient, version: int = 4, topics=None):
    request = DescribeLogDirsRequest(topics=None if topics is None else [
        DescribeLogDirsRequest.DescribableLogDirTopic(topic=t, partitions=ps) for t, ps in topics.items()])
    return raw.request(DESCRIBE_LOG_DIRS, version, request)


def segment_bytes(broker, topic: str, partition: int) -> int:
    directory = broker.data_dir / f"{topic}-{partition}"
    return sum(f.stat().st_size for f in directory.iterdir() if f.suffix == ".log")


def test_describe_log_dirs_reports_the_data_directory_and_each_log(broker, raw):
    create(broker, "ld-a", 2)
    create(broker, "ld-b")
    produce(raw, "ld-a", 3, partition=1)
    produce(raw, "ld-b", 7)
    response = describe_log_dirs(raw)
    assert response.error_code == ErrorCode.NONE
    [result] = response.results
    assert result.error_code == ErrorCode.NONE
    assert result.log_dir == str(broker.data_dir.absolute())
    reported = {(t.name, p.partition_index): (p.partition_size, p.offset_lag, p.is_future_key)
                for t in result.topics for p in t.partitions}
    assert reported == {("ld-a", 0): (0, 0, False),
                        ("ld-a", 1): (segment_bytes(broker, "ld-a", 1), 0, False),
                        ("ld-b", 0): (segment_bytes(broker, "ld-b", 0), 0, False)}
    assert reported[("ld-b", 0)][0] > reported[("ld-a", 1)][0] > 0
    volume = os.statvfs(broker.data_dir)
    assert result.total_bytes == volume.f_blocks * volume.f_frsize
    assert 0 < result.usable_bytes <= result.total_bytes


def test_describe_log_dirs_for_some_partitions(broker, raw):
    create(broker, "ld-some", 3)
    create(broker, "ld-other")
    result = describe_log_dirs(raw, topics={"ld-some": [0, 2, 9], "no-such-topic": [0]}).results[0]
    assert [(t.name, sorted(p.partition_index for p in t.partitions)) for t in result.topics] == [("ld-some", [0, 2])]


# Topics created one request each, in this order, on a fresh broker, and the reference Kafka
# 4.1.1's DescribeLogDirs answers over them: topics as its Scala HashMap of every topic in the
# directory iterates, partitions as its ConcurrentHashMap of the logs does.
LOG_DIR_TOPICS = [("orders", 8), ("payments", 2), ("audit", 1), ("alpha", 3), ("b", 3), ("zeta9", 3), ("q", 3)]
KAFKAS_LOG_DIRS = [("alpha", [2, 0, 1]), ("payments", [0, 1]), ("zeta9", [0, 2, 1]), ("orders", [7, 0, 1, 2, 3, 4, 5, 6]),
                   ("audit", [0]), ("q", [2, 1, 0]), ("b", [2, 1, 0])]
KAFKAS_SOME_LOG_DIRS = [("alpha", [1]), ("zeta9", [0, 2])]


def test_describe_log_dirs_answers_in_kafkas_order(broker, raw):
    for name, count in LOG_DIR_TOPICS:
        create(broker, name, count)

    def listed(topics=None):
        result = describe_log_dirs(raw, topics=topics).results[0]
        return [(t.name, [p.partition_index for p in t.partitions]) for t in result.topics]

    assert listed() == KAFKAS_LOG_DIRS
    # the order of every topic in the directory, not of those asked for
    assert listed({"zeta9": [2, 0, 9], "alpha": [1], "nope": [0]}) == KAFKAS_SOME_LOG_DIRS


def test_describe_log_dirs_v1_has_no_volume_sizes(broker, raw):
    create(broker, "ld-v1")
    result = describe_log_dirs(raw, version=1).results[0]
    assert [t.name for t in result.topics] == ["ld-v1"]
    assert (result.total_bytes, result.usable_bytes) == (-1, -1)   # not on the wire before v4: the default


# (topic, partitions) asked, whether any is in the metadata, and the reference Kafka 4.1.1's
# answer order: topics as its Scala HashMap of them iterates, partitions as its maps of them do
KAFKAS_ORDERS = [
    ([("orders", list(range(8))), ("payments", [0, 5]), ("audit", [1])], True,
     [("payments", [5, 0]), ("orders", [7, 0, 1, 2, 3, 4, 5, 6]), ("audit", [1])]),
    ([("nope-a", [0, 1]), ("nope-b", [2]), ("", [0])], False, [("", [0]), ("nope-b", [2]), ("nope-a", [0, 1])]),
    ([("nope-a", [0, 1, 2]), ("nope-b", [2, 3]), ("zz", [0])], False,
     [("nope-b", [2, 3]), ("nope-a", [0, 1, 2]), ("zz", [0])]),
]


@pytest.mark.parametrize("asked, any_in_metadata, expected", KAFKAS_ORDERS, ids=["some known", "four unknown",
                                                                                  "six unknown"])
def test_the_answer_comes_in_kafkas_order(asked, any_in_metadata, expected):
    assert kafkas_order([(name, p) for name, parts in asked for p in parts], any_in_metadata) == expected
