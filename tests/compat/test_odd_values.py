"""Requests that decode but carry values no client sends, against the reference Kafka, every
field of the answers compared. Found by a differential fuzz that damages valid frames
(bytes flipped, cut, added) and sends the same damage to both brokers:

- a negative length or count other than -1 is null where null is allowed, as Kafka's readers
  take it;
- FindCoordinator of an unknown key type is INVALID_REQUEST with Kafka's own text for the code;
- a string that is not UTF-8 is read as Java reads it, each malformed sequence one U+FFFD
  (`protocol.primitives.decode_utf8`), in the header's client id and in the body: a
  FindCoordinator key comes back as Kafka decoded it, a topic name is looked up as such;
- ApiVersions v3+ whose client software name or version is not letters and digits with
  `-` and `.` between them is INVALID_REQUEST, with no API listed;
- Produce never creates a topic: an unknown one is UNKNOWN_TOPIC_OR_PARTITION and stays
  unknown;
- Fetch with an isolation level other than 0 and 1 fails whole, in the shape of Kafka's
  `FetchRequest.getErrorResponse` for each version, once a partition is to be read; an
  incremental request (pylog opens no fetch session) is FETCH_SESSION_ID_NOT_FOUND; a
  session id outside Kafka's session-cache shards fails whole; a partition the metadata
  does not know carries an empty list of aborted transactions;
- ListOffsets with an isolation level other than 0 and 1 fails whole, unless it names no
  topic.
"""

from __future__ import annotations

import struct
import time

import pytest

from protocol import headers
from protocol.messages import (
    ApiVersionsRequest,
    FetchRequest,
    FindCoordinatorRequest,
    ListOffsetsRequest,
    MetadataRequest,
    OffsetFetchRequest,
    ProduceRequest,
    RequestHeader,
)
from protocol.records import build_batch
from tests.compat.answers import plain
from tests.compat.conftest import unique
from tests.integration.support import WireClient

# every way a sequence can be malformed, as the fuzz met them: a stray continuation byte,
# an encoded surrogate (one U+FFFD in Java, three in Python's own "replace"), an overlong
# form, a four-byte sequence cut short, a lead byte no sequence starts with
NOT_UTF8 = b"g\x80\xed\xa0\x80\xe0\x80\xf0\x9f\x98p\xff"
PLACEHOLDER = b"#" * len(NOT_UTF8)


# what differs by nature: topic ids, the brokers' ports and the cluster's id
SKIPPED = ("throttle_time_ms", "topic_id", "brokers", "cluster_id", "controller_id", "port",
           "supported_features", "finalized_features", "finalized_features_epoch")


def exchange(client: WireClient, api_key: int, version: int, body, *, client_id: str = "odd-values",
             patch: bytes | None = None, replace: tuple[bytes, bytes] | None = None):
    """Send `body`, with the placeholder bytes (in a string of the body or the client id)
    replaced by `patch`, or the bytes `replace` names by others, and decode the answer."""
    client.correlation_id += 1
    header = RequestHeader(request_api_key=api_key, request_api_version=version,
                           correlation_id=client.correlation_id, client_id=client_id)
    payload = bytes(headers.encode_request(header, body))
    if patch is not None:
        assert payload.count(PLACEHOLDER) == 1
        payload = payload.replace(PLACEHOLDER, patch)
    if replace is not None:
        assert payload.count(replace[0]) == 1
        payload = payload.replace(*replace)
    client.send_raw(struct.pack(">i", len(payload)) + payload)
    response_header, response = client.receive(api_key, version)
    assert response_header.correlation_id == client.correlation_id
    return plain(response, SKIPPED)


def fetch(topic: str, topic_id, *, isolation_level=0, session_id=0, session_epoch=-1, partition=0):
    return FetchRequest(replica_id=-1, max_wait_ms=0, min_bytes=1, max_bytes=1 << 20,
                        isolation_level=isolation_level, session_id=session_id, session_epoch=session_epoch,
                        topics=[FetchRequest.FetchTopic(topic=topic, topic_id=topic_id, partitions=[
                            FetchRequest.FetchPartition(partition=partition, current_leader_epoch=-1,
                                                        fetch_offset=0, last_fetched_epoch=-1, log_start_offset=-1,
                                                        partition_max_bytes=1 << 16)])],
                        forgotten_topics_data=[], rack_id="")


def list_offsets(topics: list[str], *, isolation_level: int):
    return ListOffsetsRequest(replica_id=-1, isolation_level=isolation_level, timeout_ms=1000, topics=[
        ListOffsetsRequest.ListOffsetsTopic(name=name, partitions=[ListOffsetsRequest.ListOffsetsPartition(
            partition_index=0, current_leader_epoch=-1, timestamp=-1)]) for name in topics])


def answers_of(client: WireClient, topic: str, unknown: str) -> list:
    """Every case's answer on one broker; `topic` exists, with one empty partition."""
    found = []
    # strings that are not UTF-8
    found.append(exchange(client, 10, 4, FindCoordinatorRequest(key_type=0, coordinator_keys=[
        PLACEHOLDER.decode()]), patch=NOT_UTF8))
    found.append(exchange(client, 3, 12, MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(
        name=PLACEHOLDER.decode())], allow_auto_topic_creation=False), patch=NOT_UTF8))
    found.append(exchange(client, 3, 12, MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name=topic)],
                                                         allow_auto_topic_creation=False),
                          client_id=PLACEHOLDER.decode(), patch=NOT_UTF8))
    # a negative count other than -1: null where null is allowed (all of a group's offsets)
    found.append(exchange(client, 9, 5, OffsetFetchRequest(group_id="odd-group", topics=None),
                          replace=(b"\xff\xff\xff\xff", b"\xff\xff\xff\xfe")))
    # an unknown coordinator type: INVALID_REQUEST with Kafka's own text for it
    for version in (1, 3, 4):
        found.append(exchange(client, 10, version, FindCoordinatorRequest(key="g", key_type=26,
                                                                          coordinator_keys=["g"])))
    # ApiVersions' client software name and version
    for name, software_version in (("fuzz+client", "1.0"), ("-a", "1.0"), ("a-", "1.0"), ("a_b", "1.0"),
                                   ("", "1.0"), ("ok", "1.0+local"), ("ok", ""), ("a.b-c1", "4.1.1")):
        answer = exchange(client, 18, 3, ApiVersionsRequest(client_software_name=name,
                                                            client_software_version=software_version))
        found.append((name, software_version, answer["error_code"], bool(answer["api_keys"])))
    # Produce to a topic that does not exist
    batch = build_batch([(b"k", b"v")], timestamp_ms=1_700_000_000_000)
    found.append(exchange(client, 0, 9, ProduceRequest(acks=1, timeout_ms=5000, topic_data=[
        ProduceRequest.TopicProduceData(name=unknown, partition_data=[
            ProduceRequest.PartitionProduceData(index=0, records=batch)])])))
    time.sleep(0.5)   # Kafka would create a topic in the background: give it the time
    found.append(exchange(client, 3, 12, MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name=unknown)],
                                                         allow_auto_topic_creation=False)))
    # Fetch
    topic_id = client.metadata([topic]).topics[0].topic_id
    for version in (4, 7, 12, 13, 17):
        found.append(exchange(client, 1, version, fetch(topic, topic_id, isolation_level=2)))
        found.append(exchange(client, 1, version, fetch(topic, topic_id, isolation_level=2, partition=7)))
        found.append(exchange(client, 1, version, fetch(topic, topic_id, partition=7)))
    found.append(exchange(client, 1, 4, fetch(unknown, topic_id)))
    for version in (7, 12, 17):
        for session_id, session_epoch in ((5, 1), (0, 1), (0, -2), (-1, -1), (2**31 - 1, -1),
                                          (-(2**30), -1), (2**31 - 1, 3), (-268435455, -1), (-268435454, -1),
                                          (2147483639, -1), (2147483640, -1)):
            found.append(exchange(client, 1, version, fetch(topic, topic_id, session_id=session_id,
                                                            session_epoch=session_epoch)))
    # ListOffsets
    for version in (2, 6, 10):
        found.append(exchange(client, 2, version, list_offsets([topic, unknown], isolation_level=7)))
        found.append(exchange(client, 2, version, list_offsets([], isolation_level=7)))
    return found


@pytest.fixture(scope="module")
def answers(both):
    topic, unknown = unique("odd-values"), unique("odd-values-unknown")
    found = {}
    for name, broker in both.items():
        with WireClient(broker.bootstrap_servers, timeout_s=60) as client:
            client.create_topics([topic], 1)
            deadline = time.monotonic() + 30
            while client.metadata([topic]).topics[0].error_code != 0 and time.monotonic() < deadline:
                time.sleep(0.1)
            # a new Kafka creates the groups' topic at the first FindCoordinator, then loads
            # its partitions: wait until the group the cases use has its coordinator
            while (client.request(10, 4, FindCoordinatorRequest(key_type=0, coordinator_keys=["g"])).coordinators[
                    0].error_code != 0 or client.request(9, 5, OffsetFetchRequest(
                        group_id="odd-group", topics=None)).error_code != 0) and time.monotonic() < deadline:
                time.sleep(0.2)
            found[name] = answers_of(client, topic, unknown)
    return found


def test_odd_values_are_answered_as_kafka_answers_them(answers, compat_table):
    for index, (ours, theirs) in enumerate(zip(answers["pylog"], answers["kafka"])):
        if ours != theirs:
            print(f"case {index}:\n  pylog {ours}\n  kafka {theirs}")
    compat_table.assert_same("strings that are not UTF-8, software names, Produce to an unknown topic, "
                             "Fetch / ListOffsets isolation levels and sessions", answers)
