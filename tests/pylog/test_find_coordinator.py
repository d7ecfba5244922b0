"""FindCoordinator (key 10): this node coordinates every group and transaction, in Kafka's shapes.

Below v4 the answer is one coordinator, and Kafka writes the error's name into the message
even on success ("NONE"); from v4 on, one entry per key, with an empty message (Kafka sets
none: the field's default), but for an unknown key type, refused with INVALID_REQUEST's
default message.
"""

from __future__ import annotations

import pytest

from protocol.error_codes import ErrorCode
from protocol.messages import FindCoordinatorRequest
from tests.pylog.wire import RawClient


@pytest.mark.parametrize("version", range(0, 4))
def test_one_coordinator_below_v4(kafka_broker, version):
    client = RawClient(kafka_broker.bootstrap_servers)
    response = client.request(10, version, FindCoordinatorRequest(key="g", key_type=0))
    assert (response.error_code, response.node_id, response.port) == (ErrorCode.NONE, 1, kafka_broker.port)
    if version >= 1:
        assert response.error_message == "NONE"


@pytest.mark.parametrize("version", [4, 5, 6])
def test_one_entry_per_key_from_v4(kafka_broker, version):
    client = RawClient(kafka_broker.bootstrap_servers)
    response = client.request(10, version, FindCoordinatorRequest(key_type=1, coordinator_keys=["t1", "t2"]))
    assert [(c.key, c.error_code, c.error_message, c.node_id) for c in response.coordinators] == [
        ("t1", ErrorCode.NONE, "", 1), ("t2", ErrorCode.NONE, "", 1)]


@pytest.mark.parametrize("version", [4, 5, 6])
def test_an_unknown_key_type_from_v4_is_refused_with_kafkas_default_message(kafka_broker, version):
    client = RawClient(kafka_broker.bootstrap_servers)
    response = client.request(10, version, FindCoordinatorRequest(key_type=7, coordinator_keys=["x"]))
    assert [(c.key, c.error_code, c.error_message, c.node_id) for c in response.coordinators] == [
        ("x", ErrorCode.INVALID_REQUEST, ErrorCode.INVALID_REQUEST.message, -1)]


def test_an_unknown_key_type_is_an_invalid_request(kafka_broker):
    client = RawClient(kafka_broker.bootstrap_servers)
    response = client.request(10, 2, FindCoordinatorRequest(key="g", key_type=7))
    assert response.error_code == ErrorCode.INVALID_REQUEST


SHARE_KEY = "share-group:AAAAAAAAAAAAAAAAAAAAAA:0"   # groupId:topicId:partition


@pytest.mark.parametrize("version, key, code", [
    (5, SHARE_KEY, ErrorCode.INVALID_REQUEST),              # share keys need v6
    (6, "share-group:not-a-uuid:0", ErrorCode.INVALID_REQUEST),
    (6, "share-group:AAAAAAAAAAAAAAAAAAAAAA", ErrorCode.INVALID_REQUEST),
    (6, " :AAAAAAAAAAAAAAAAAAAAAA:0", ErrorCode.INVALID_REQUEST),
    (6, SHARE_KEY, ErrorCode.COORDINATOR_NOT_AVAILABLE),    # well formed: pylog has no share coordinator
])
def test_share_coordinator_keys(kafka_broker, version, key, code):
    client = RawClient(kafka_broker.bootstrap_servers)
    response = client.request(10, version, FindCoordinatorRequest(key_type=2, coordinator_keys=[key]))
    assert [(c.key, c.error_code, c.error_message, c.node_id) for c in response.coordinators] == [(key, code, "", -1)]
