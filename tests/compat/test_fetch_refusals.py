"""A Fetch that names partitions the metadata does not know, beside ones it does: the
answer's order and grouping (the partitions read first, in the request's order, then the
refused ones; consecutive partitions of a topic in one topic entry), the same on both
brokers (pylog/handlers/fetch.py)."""

from __future__ import annotations

import time

from protocol.messages import CreateTopicsRequest, FetchRequest
from tests.compat.conftest import unique
from tests.integration.support import WireClient


def fetch(client: WireClient, topics: list[tuple[str, list[int]]]):
    request = FetchRequest(replica_id=-1, max_wait_ms=0, min_bytes=1, max_bytes=1 << 20, isolation_level=0, topics=[
        FetchRequest.FetchTopic(topic=name, partitions=[
            FetchRequest.FetchPartition(partition=p, fetch_offset=0, log_start_offset=-1, partition_max_bytes=1 << 16)
            for p in partitions]) for name, partitions in topics])
    return client.request(1, 12, request)


def test_refused_partitions_come_last(both, compat_table):
    first, second, missing = unique("fetch-order-a"), unique("fetch-order-b"), unique("fetch-order-none")
    asked = [(first, [0, 7]), (missing, [0]), (second, [0]), (first, [1])]
    answers = {}
    for name, broker in both.items():
        with WireClient(broker.bootstrap_servers) as client:
            Topic = CreateTopicsRequest.CreatableTopic
            created = client.request(19, 5, CreateTopicsRequest(timeout_ms=30_000, topics=[
                Topic(name=topic, num_partitions=2, replication_factor=1) for topic in (first, second)]))
            assert all(t.error_code == 0 for t in created.topics)
            deadline = time.monotonic() + 30
            while True:   # Kafka's broker learns of the topics, and starts their leaders, just after
                response = fetch(client, asked)   # CreateTopics answers
                answer = [(t.topic, [(p.partition_index, p.error_code) for p in t.partitions])
                          for t in response.responses]
                settled = not any(code in (3, 6) for topic, parts in answer if topic in (first, second)
                                  for index, code in parts if index < 2)
                if settled or time.monotonic() > deadline:
                    break
                time.sleep(0.1)
            answers[name] = answer
    same = answers["pylog"] == answers["kafka"]
    compat_table.record("tool", "Fetch v12 naming unknown topics and partitions", "answered", "answered",
                        "same" if same else f"differs: pylog {answers['pylog']} / kafka {answers['kafka']}")
    assert answers["pylog"] == answers["kafka"]
    assert answers["pylog"] == [(first, [(0, 0)]), (second, [(0, 0)]), (first, [(1, 0), (7, 3)]),
                                (missing, [(0, 3)])]
