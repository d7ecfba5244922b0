"""Metadata v10 and v11 carry a topic id and a nullable name in each requested topic, but
only v12 may use them: a null name, or a topic id, below v12 is refused with
INVALID_REQUEST for every topic asked, the same on both brokers (pylog/handlers/metadata.py)."""

from __future__ import annotations

import uuid

import pytest

from protocol.messages import MetadataRequest
from tests.compat.conftest import unique
from tests.integration.support import WireClient

Asked = MetadataRequest.MetadataRequestTopic


def answer(client: WireClient, version: int, topics: list):
    response = client.request(3, version, MetadataRequest(topics=topics, allow_auto_topic_creation=False))
    return ([(t.error_code, t.name, t.topic_id, t.is_internal, len(t.partitions)) for t in response.topics],
            len(response.brokers), response.controller_id, response.cluster_id)


@pytest.mark.parametrize("version", [10, 11])
@pytest.mark.parametrize("case", ["null name", "topic id"])
def test_what_only_v12_may_ask_is_refused_below_it(both, compat_table, version, case):
    named = unique("metadata-v10")
    topic_id = uuid.UUID("7b2b5c3e-4d0e-4f6a-9c11-0123456789ab")
    topics = ([Asked(name=named), Asked(name=None)] if case == "null name"
              else [Asked(name=named), Asked(name=named + "-by-id", topic_id=topic_id)])
    answers = {}
    for name, broker in both.items():
        with WireClient(broker.bootstrap_servers) as client:
            answers[name] = answer(client, version, topics)
    same = answers["pylog"] == answers["kafka"]
    compat_table.record("tool", f"Metadata v{version} with a {case}", "INVALID_REQUEST", "INVALID_REQUEST",
                        "same" if same else f"differs: pylog {answers['pylog']} / kafka {answers['kafka']}")
    assert answers["pylog"] == answers["kafka"], answers
    topics_answered, brokers, controller_id, cluster_id = answers["pylog"]
    assert [t[0] for t in topics_answered] == [42, 42]
    assert topics_answered[1][1] == ("" if case == "null name" else named + "-by-id")
    assert (brokers, controller_id, cluster_id) == (0, -1, None)
