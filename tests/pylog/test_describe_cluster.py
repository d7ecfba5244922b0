"""DescribeCluster (pylog/handlers/describe_cluster.py) over a real socket, at each version."""

from __future__ import annotations

import pytest

from protocol.error_codes import ErrorCode
from protocol.messages import DescribeClusterRequest
from pylog.handlers import authorized_operations

from tests.pylog.wire import RawClient


def ask(broker, version: int, **fields):
    client = RawClient(broker.bootstrap_servers)
    try:
        return client.request(60, version, DescribeClusterRequest(**fields))
    finally:
        client.close()


@pytest.mark.parametrize("version", [0, 1, 2])
def test_the_broker_the_cluster_id_and_the_controller_id(kafka_broker, version):
    answer = ask(kafka_broker, version, include_cluster_authorized_operations=True)
    assert (answer.error_code, answer.error_message) == (ErrorCode.NONE, None)
    assert answer.cluster_id == kafka_broker.broker.cluster_id and answer.controller_id == 1
    assert [(b.broker_id, b.host, b.port, b.is_fenced) for b in answer.brokers] == [
        (1, "127.0.0.1", kafka_broker.port, False)]
    assert answer.cluster_authorized_operations == authorized_operations.CLUSTER
    assert ask(kafka_broker, version).cluster_authorized_operations == authorized_operations.OMITTED


@pytest.mark.parametrize("endpoint_type, version, code, message", [
    (2, 1, ErrorCode.MISMATCHED_ENDPOINT_TYPE,
     "The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type CONTROLLER"),
    (0, 2, ErrorCode.UNSUPPORTED_ENDPOINT_TYPE, "Unsupported endpoint type 0"),
    (7, 1, ErrorCode.UNSUPPORTED_ENDPOINT_TYPE, "Unsupported endpoint type 7"),
])
def test_endpoint_types_other_than_broker_are_refused(kafka_broker, endpoint_type, version, code, message):
    answer = ask(kafka_broker, version, endpoint_type=endpoint_type)
    assert (answer.error_code, answer.error_message, answer.brokers) == (code, message, [])
