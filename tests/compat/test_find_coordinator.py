"""FindCoordinator's answers, field for field, against the reference Kafka: below v4 one
coordinator with the error's name as the message ("NONE"); from v4 one entry per key whose
message is empty, but for an unknown key type (INVALID_REQUEST with that error's default
message). Share keys are asked below v6 only: at v6 Kafka starts its share coordinator,
which pylog does not have (README)."""

from __future__ import annotations

import time

import pytest

from protocol.messages import FindCoordinatorRequest
from tests.integration.support import WireClient

SHARE_KEY = "share-group:AAAAAAAAAAAAAAAAAAAAAA:0"
ASKED = [(version, key_type, key) for version in (4, 5, 6) for key_type, key in ((0, "g"), (1, "t"), (7, "x"))]
ASKED += [(4, 2, SHARE_KEY), (5, 2, SHARE_KEY)]
LOADING = (14, 15)   # COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE: a coordinator starting


def ask(client, version: int, key_type: int, key: str):
    deadline = time.monotonic() + 30
    while True:
        if version >= 4:
            (entry,) = client.request(10, version, FindCoordinatorRequest(
                key_type=key_type, coordinator_keys=[key])).coordinators
            found = (entry.key, entry.error_code, entry.error_message, entry.node_id)
        else:
            answer = client.request(10, version, FindCoordinatorRequest(key_type=key_type, key=key))
            found = (key, answer.error_code, answer.error_message, answer.node_id)
        if found[1] not in LOADING or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


@pytest.fixture(scope="module")
def answers(both):
    found = {}
    for name, broker in both.items():
        with WireClient(broker.bootstrap_servers, timeout_s=30) as client:
            found[name] = [ask(client, *asked) for asked in ASKED] + [ask(client, v, 0, "g") for v in (1, 2, 3)]
    return found


def test_the_same_answers_as_kafka(answers, compat_table):
    compat_table.assert_same("FindCoordinator v1-v6 answers", answers)
    assert answers["kafka"][0] == ("g", 0, "", 1)   # the empty message the comparison stands on
