"""`__consumer_offsets` deleted while a group has committed offsets: the brokers give the
group up (Kafka's BrokerMetadataPublisher resigns every partition of a deleted coordinator
topic), the next FindCoordinator creates the topic again, and the group starts empty: its
offsets are gone, not served from memory (pylog/coordinator/coordinator.py `on_deleted`).
One fresh pylog and one fresh Kafka, for this module alone (the deletion would take every
other test's groups with it)."""

from __future__ import annotations

import time

import pytest

from tests.compat.conftest import each_of_a_fresh_pair
from tests.compat.test_consumer_offsets import commit, create_topic, delete_topic, fetch, find_coordinator
from tests.integration.support import WireClient


def offsets_after_deleting_the_topic(broker) -> tuple[int, int]:
    with WireClient(broker.bootstrap_servers, timeout_s=30) as client:
        create_topic(client, "orders", 1)
        find_coordinator(client, "g")
        commit(client, 8, "g", {("orders", 0): (7, "", -1)})
        before = fetch(client, "g", "orders", [0])[("orders", 0)]
        delete_topic(client, "__consumer_offsets")
        deadline = time.monotonic() + 30   # Kafka's broker applies the deletion after the answer
        while True:
            find_coordinator(client, "g")   # creates the topic again
            after = fetch(client, "g", "orders", [0])[("orders", 0)]
            if after == -1 or time.monotonic() > deadline:
                return before, after
            time.sleep(0.2)


@pytest.fixture(scope="module")
def answers(tmp_path_factory):
    return each_of_a_fresh_pair(tmp_path_factory.mktemp("offsets-topic-deleted"), offsets_after_deleting_the_topic)


def test_a_groups_offsets_go_with_the_offsets_topic(answers, compat_table):
    same = answers["pylog"] == answers["kafka"]
    compat_table.record("tool", "__consumer_offsets deleted: the group's offset before / after", str(answers["pylog"]),
                        str(answers["kafka"]), "same" if same else "differs")
    assert answers["pylog"] == answers["kafka"] == (7, -1)
