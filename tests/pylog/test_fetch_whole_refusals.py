"""Fetch and ListOffsets requests Kafka refuses whole, answered in the shapes Kafka gives
them (pylog/handlers/fetch.py `refusal`, pylog/handlers/list_offsets.py); the reference
Kafka gives the same answers in tests/compat/test_odd_values.py."""

from __future__ import annotations

import uuid

import pytest

from protocol.error_codes import ErrorCode
from protocol.messages import FetchRequest, ListOffsetsRequest
from tests.pylog.wire import RawClient

FETCH, LIST_OFFSETS = 1, 2
TOPIC = "whole-refusals"


@pytest.fixture
def client(kafka_broker):
    kafka_broker.call(lambda: kafka_broker.broker.create_topic(TOPIC, 1) if TOPIC not in
                      kafka_broker.broker.metadata.topics else None)
    raw = RawClient(kafka_broker.bootstrap_servers)
    raw.topic_id = kafka_broker.call(lambda: kafka_broker.broker.metadata.topics[TOPIC].topic_id)
    yield raw
    raw.close()


def fetch(client, version, *, isolation_level=0, session_id=0, session_epoch=-1, partition=0, topic=TOPIC):
    return client.request(FETCH, version, FetchRequest(
        replica_id=-1, max_wait_ms=0, min_bytes=1, max_bytes=1 << 20, isolation_level=isolation_level,
        session_id=session_id, session_epoch=session_epoch, topics=[FetchRequest.FetchTopic(
            topic=topic, topic_id=client.topic_id, partitions=[FetchRequest.FetchPartition(
                partition=partition, current_leader_epoch=-1, fetch_offset=0, last_fetched_epoch=-1,
                log_start_offset=-1, partition_max_bytes=1 << 16)])]))


def partitions(response) -> list:
    return [(t.topic, p.partition_index, p.error_code, p.high_watermark, p.aborted_transactions)
            for t in response.responses for p in t.partitions]


@pytest.mark.parametrize("version,top,listed", [
    (4, 0, [(TOPIC, 0, -1, -1, [])]),      # no top-level error yet: each partition carries it
    (7, -1, [(TOPIC, 0, -1, -1, [])]),     # both
    (12, -1, [(TOPIC, 0, -1, -1, [])]),
    (13, -1, []),                          # the top alone
    (17, -1, [])])
def test_an_unknown_isolation_level_fails_the_whole_fetch_in_kafkas_shape(client, version, top, listed):
    response = fetch(client, version, isolation_level=2)
    assert (response.error_code, partitions(response)) == (top, listed)


def test_an_unknown_isolation_level_is_not_looked_at_when_nothing_is_to_be_read(client):
    """Kafka reads the level only for partitions it will read: one the metadata lacks is
    answered as usual, UNKNOWN_TOPIC_OR_PARTITION, with an empty list of aborted transactions."""
    response = fetch(client, 12, isolation_level=2, partition=7)
    assert (response.error_code, partitions(response)) == (0, [(TOPIC, 7, 3, -1, [])])


def test_partitions_the_metadata_lacks_carry_an_empty_list_where_those_read_carry_null(client):
    unknown = fetch(client, 4, topic="no-such-topic")
    assert partitions(unknown) == [("no-such-topic", 0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1, [])]
    read = fetch(client, 4)
    assert partitions(read) == [(TOPIC, 0, 0, 0, None)]


@pytest.mark.parametrize("session_id,session_epoch", [(5, 1), (0, 1), (0, -2), (123, 2**31 - 1)])
@pytest.mark.parametrize("version", [7, 12, 17])
def test_an_incremental_fetch_names_a_session_that_does_not_exist(client, version, session_id, session_epoch):
    """pylog opens no fetch session (full requests are answered with session id 0), so an
    incremental request's session is unknown: FETCH_SESSION_ID_NOT_FOUND, no partition."""
    response = fetch(client, version, session_id=session_id, session_epoch=session_epoch)
    assert (response.error_code, response.session_id, response.responses) == (
        ErrorCode.FETCH_SESSION_ID_NOT_FOUND, 0, [])


@pytest.mark.parametrize("session_id,session_epoch,refused", [
    (-1, -1, False), (-268435454, 0, False), (2147483639, -1, False),   # in Kafka's shards
    (-268435455, -1, True), (2147483640, 0, True), (2**31 - 1, -1, True), (-(2**30), 3, True)])
def test_a_session_id_outside_kafkas_session_shards_fails_the_whole_fetch(client, session_id, session_epoch,
                                                                           refused):
    response = fetch(client, 12, session_id=session_id, session_epoch=session_epoch)
    if refused:
        assert (response.error_code, response.session_id, partitions(response)) == (
            ErrorCode.UNKNOWN_SERVER_ERROR, session_id, [(TOPIC, 0, -1, -1, [])])
    else:
        assert (response.error_code, response.session_id, partitions(response)) == (0, 0, [(TOPIC, 0, 0, 0, None)])


@pytest.mark.parametrize("version", [2, 6, 10])
def test_an_unknown_isolation_level_fails_a_whole_list_offsets(client, version):
    request = ListOffsetsRequest(replica_id=-1, isolation_level=7, topics=[
        ListOffsetsRequest.ListOffsetsTopic(name=name, partitions=[ListOffsetsRequest.ListOffsetsPartition(
            partition_index=0, current_leader_epoch=-1, timestamp=-1)]) for name in (TOPIC, "no-such-topic")])
    response = client.request(LIST_OFFSETS, version, request)
    assert [(t.name, p.partition_index, p.error_code, p.offset, p.timestamp) for t in response.topics
            for p in t.partitions] == [(TOPIC, 0, -1, -1, -1), ("no-such-topic", 0, -1, -1, -1)]
    assert client.request(LIST_OFFSETS, version, ListOffsetsRequest(replica_id=-1, isolation_level=7,
                                                                    topics=[])).topics == []


def fetch_by_ids(client, partitions, version=13):
    """A Fetch naming (topic id, partition) pairs, one topic entry each."""
    return client.request(FETCH, version, FetchRequest(
        replica_id=-1, max_wait_ms=0, min_bytes=1, max_bytes=1 << 20, isolation_level=0, session_id=0,
        session_epoch=-1, topics=[FetchRequest.FetchTopic(topic="", topic_id=topic_id, partitions=[
            FetchRequest.FetchPartition(partition=index, current_leader_epoch=-1, fetch_offset=0,
                                        last_fetched_epoch=-1, log_start_offset=-1, partition_max_bytes=1 << 16)])
            for topic_id, index in partitions]))


@pytest.mark.parametrize("version", [13, 16, 17])
def test_a_partition_after_one_of_the_zero_topic_id_fails_the_request(client, version):
    """Kafka 4.1.1 groups an answer's partitions by name where the topic id is the zero id,
    and the zero id names no topic: the partition after it throws, and the request fails
    whole, in getErrorResponse's shape for v13+ (the error at the top, no partition)."""
    zero, unknown = uuid.UUID(int=0), uuid.UUID(int=77)
    for partitions in ([(zero, 0), (zero, 1)], [(zero, 0), (client.topic_id, 9)], [(zero, 0), (unknown, 0)]):
        response = fetch_by_ids(client, partitions, version)
        assert (response.error_code, response.responses) == (ErrorCode.UNKNOWN_SERVER_ERROR, []), partitions
    # alone, or last, it is an unknown topic id like any other
    for partitions in ([(zero, 0)], [(client.topic_id, 0), (zero, 0)], [(unknown, 0), (unknown, 1)]):
        response = fetch_by_ids(client, partitions, version)
        assert response.error_code == 0
        assert [p.error_code for t in response.responses for p in t.partitions][-1] == ErrorCode.UNKNOWN_TOPIC_ID
