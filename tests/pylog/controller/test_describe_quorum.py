"""DescribeQuorum (pylog/controller/describe_quorum.py) and what it lists of the observers
(pylog/controller/quorum_observers.py): the answers' shapes are Kafka 4.1.1's (taken from a
reference node), an observer's times follow Kafka's `ReplicaState.updateFollowerState`, and
only the fetches the metadata log answers count (pylog/controller/metadata_fetch.py)."""

from __future__ import annotations

import uuid

import pytest

from protocol import codec
from protocol.messages import DescribeQuorumRequest, DescribeQuorumResponse, FetchRequest
from protocol.metadata_log import METADATA_TOPIC
from pylog.controller.bootstrap import start_controller
from pylog.controller.describe_quorum import describe_quorum
from pylog.controller.metadata_fetch import answer_metadata_fetch
from pylog.controller.metadata_log import MetadataLog, partition_dir
from pylog.controller.quorum_observers import OBSERVER_SESSION_TIMEOUT_MS, QuorumObservers
from tests.compat.answers import plain

NOW_MS = 1_700_000_000_000
ZERO = uuid.UUID(int=0)
NOT_HOSTED = "This server does not host this topic-partition."
ENDPOINTS = (("CONTROLLER", "127.0.0.1", 9093, 0),)


def request(*topics: tuple[str, list[int]]) -> DescribeQuorumRequest:
    R = DescribeQuorumRequest
    return R(topics=[R.TopicData(topic_name=name, partitions=[R.PartitionData(partition_index=p) for p in indexes])
                     for name, indexes in topics])


def answer(req, version: int, observers: QuorumObservers | None = None, now_ms: int = NOW_MS) -> dict:
    """The answer as a client reads it: encoded at `version` and decoded."""
    response = describe_quorum(req, version, leader_id=1, leader_epoch=3, log_end_offset=42, high_watermark=42,
                               observers=observers or QuorumObservers(), endpoints=ENDPOINTS, now_ms=now_ms)
    return plain(codec.decode(DescribeQuorumResponse, codec.encode(response, version), version))


def voter(last_fetch: int, last_caught_up: int) -> dict:
    return {"replica_id": 1, "replica_directory_id": ZERO, "log_end_offset": 42,
            "last_fetch_timestamp": last_fetch, "last_caught_up_timestamp": last_caught_up}


@pytest.mark.parametrize("version", [0, 1, 2])
def test_the_leader_answers_for_itself_as_the_one_voter(version):
    got = answer(request((METADATA_TOPIC, [0])), version)
    # Kafka 4.1.1's answers at each version: v0 carries no times (read back as -1), v2 the nodes
    times = (-1, -1) if version == 0 else (NOW_MS, NOW_MS)
    assert got == {"error_code": 0, "error_message": "", "topics": [{"topic_name": METADATA_TOPIC, "partitions": [{
        "partition_index": 0, "error_code": 0, "error_message": "", "leader_id": 1, "leader_epoch": 3,
        "high_watermark": 42, "current_voters": [voter(*times)], "observers": []}]}],
        "nodes": [{"node_id": 1, "listeners": [{"name": "CONTROLLER", "host": "127.0.0.1", "port": 9093}]}]
        if version >= 2 else []}


@pytest.mark.parametrize("topics", [
    [(METADATA_TOPIC, [1])],
    [("x", [0])],
    [(METADATA_TOPIC, [0, 0])],
    [(METADATA_TOPIC, [0]), ("y", [0, 3])],
])
def test_a_request_not_naming_exactly_the_metadata_partition_gets_an_error_for_each_partition(topics):
    """As Kafka 4.1.1 answered each of these: every partition named, UNKNOWN_TOPIC_OR_PARTITION
    with Kafka's message, even the metadata partition when it is not alone."""
    got = answer(request(*topics), 2)
    assert got == {"error_code": 0, "error_message": "", "nodes": [], "topics": [
        {"topic_name": name, "partitions": [{"partition_index": p, "error_code": 3, "error_message": NOT_HOSTED,
                                             "leader_id": 0, "leader_epoch": 0, "high_watermark": 0,
                                             "current_voters": [], "observers": []} for p in indexes]}
        for name, indexes in topics]}


def test_no_topic_gets_an_empty_answer():
    assert answer(request(), 2) == {"error_code": 0, "error_message": "", "topics": [], "nodes": []}


def test_an_observer_is_caught_up_when_it_fetches_from_the_leaders_end_or_the_end_it_last_saw():
    observers = QuorumObservers()
    observers.fetched(2, 10, 42, NOW_MS)          # behind: not caught up
    [(_, state)] = observers.active(NOW_MS)
    assert (state.end_offset, state.last_fetch_ms, state.last_caught_up_ms) == (10, NOW_MS, -1)
    observers.fetched(2, 42, 50, NOW_MS + 5)      # reached the end seen at its last fetch
    assert (state.end_offset, state.last_fetch_ms, state.last_caught_up_ms) == (42, NOW_MS + 5, NOW_MS)
    observers.fetched(2, 50, 50, NOW_MS + 9)      # at the leader's end
    assert (state.end_offset, state.last_fetch_ms, state.last_caught_up_ms) == (50, NOW_MS + 9, NOW_MS + 9)
    observers.fetched(2, 50, 60, NOW_MS + 12)     # behind again: the caught-up time stays
    assert state.last_caught_up_ms == NOW_MS + 9
    got = answer(request((METADATA_TOPIC, [0])), 2, observers, now_ms=NOW_MS + 20)
    assert got["topics"][0]["partitions"][0]["observers"] == [
        {"replica_id": 2, "replica_directory_id": ZERO, "log_end_offset": 50,
         "last_fetch_timestamp": NOW_MS + 12, "last_caught_up_timestamp": NOW_MS + 9}]


def test_observers_come_in_kafkas_hash_map_order_and_leave_after_five_silent_minutes():
    observers = QuorumObservers()
    observers.fetched(-1, 0, 42, NOW_MS)          # no replica: a consumer's fetch
    for replica_id in (1, 2, 3):
        observers.fetched(replica_id, 42, 42, NOW_MS)
    # (id, no directory) hashes 961 + 31 * id: buckets 0, 15 and 14 of 16
    assert [replica_id for replica_id, _ in observers.active(NOW_MS)] == [1, 3, 2]
    observers.fetched(3, 42, 42, NOW_MS + OBSERVER_SESSION_TIMEOUT_MS)
    assert [replica_id for replica_id, _ in observers.active(NOW_MS + OBSERVER_SESSION_TIMEOUT_MS)] == [3]


def test_only_fetches_the_log_answers_are_noted(tmp_path):
    log = MetadataLog.open(partition_dir(tmp_path), now_ms=NOW_MS)
    try:
        start_controller(log, node_id=1, voters=[1], log_dir=tmp_path, now_ms=NOW_MS)
        observers = QuorumObservers()

        def fetch(replica_id: int, offset: int, epoch: int, partition: int = 0):
            partition = FetchRequest.FetchPartition(partition=partition, fetch_offset=offset,
                                                    last_fetched_epoch=epoch, partition_max_bytes=1 << 20)
            answer_metadata_fetch(log, FetchRequest(replica_id=replica_id, max_wait_ms=0, topics=[
                FetchRequest.FetchTopic(topic=METADATA_TOPIC, partitions=[partition])]),
                leader_id=1, observers=observers)

        fetch(2, 5, -1)                    # an offset with no epoch: INVALID_REQUEST
        fetch(2, 0, -1, partition=1)       # not the metadata partition
        fetch(3, 1, log.epoch + 1)         # an epoch the log does not have: diverging
        assert observers.active(NOW_MS) == []
        fetch(2, 0, -1)
        fetch(3, log.log_end_offset, log.epoch)
        assert {replica_id: state.end_offset for replica_id, state in observers.active(NOW_MS)} == {
            2: 0, 3: log.log_end_offset}
    finally:
        log.close()
