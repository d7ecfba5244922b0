"""DescribeClientQuotas (pylog/handlers/describe_client_quotas.py): no quotas, and Kafka's
refusals of a bad filter, word for word."""

from __future__ import annotations

import pytest

from protocol.error_codes import ErrorCode
from protocol.messages import DescribeClientQuotasRequest

from tests.pylog.wire import RawClient

Component = DescribeClientQuotasRequest.ComponentData


def ask(broker, components, version=1):
    client = RawClient(broker.bootstrap_servers)
    try:
        return client.request(48, version, DescribeClientQuotasRequest(components=components))
    finally:
        client.close()


@pytest.mark.parametrize("version", [0, 1])
def test_a_valid_filter_matches_nothing(kafka_broker, version):
    for components in ([], [Component(entity_type="user", match_type=1, match=None)],
                       [Component(entity_type="client-id", match_type=0, match="app")]):
        answer = ask(kafka_broker, components, version)
        assert (answer.error_code, answer.error_message, answer.entries) == (ErrorCode.NONE, "", [])


@pytest.mark.parametrize("components, code, message", [
    ([Component(entity_type="", match_type=2, match=None)], ErrorCode.INVALID_REQUEST, "Invalid empty entity type."),
    ([Component(entity_type="user", match_type=2, match=None)] * 2, ErrorCode.INVALID_REQUEST,
     "Entity type user cannot appear more than once in the filter."),
    ([Component(entity_type="group", match_type=2, match=None)], ErrorCode.UNSUPPORTED_VERSION,
     "Unsupported entity type group"),
    ([Component(entity_type="user", match_type=0, match=None)], ErrorCode.INVALID_REQUEST,
     "Request specified MATCH_TYPE_EXACT, but set match string to null."),
    ([Component(entity_type="user", match_type=1, match="x")], ErrorCode.INVALID_REQUEST,
     "Request specified MATCH_TYPE_DEFAULT, but also specified a match string."),
    ([Component(entity_type="user", match_type=2, match="x")], ErrorCode.INVALID_REQUEST,
     "Request specified MATCH_TYPE_SPECIFIED, but also specified a match string."),
    ([Component(entity_type="user", match_type=9, match=None)], ErrorCode.INVALID_REQUEST, "Unknown match type 9"),
    ([Component(entity_type="ip", match_type=2, match=None), Component(entity_type="user", match_type=2, match=None)],
     ErrorCode.INVALID_REQUEST, "Invalid entity filter component combination. IP filter component should not be "
                                "used with user or clientId filter component."),
])
def test_bad_filters_get_kafkas_refusal(kafka_broker, components, code, message):
    answer = ask(kafka_broker, components)
    assert (answer.error_code, answer.error_message, answer.entries) == (code, message, None)
