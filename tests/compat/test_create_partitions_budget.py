"""CreatePartitions past the 10,000 records one request may write, against the reference
Kafka: the topic that passes the budget is answered UNKNOWN_SERVER_ERROR with no message,
and yet grows by what was left of the budget (Kafka 4.1's ReplicationControlManager adds
its records to a bounded list, whose overflow its per-topic catch takes as unexpected,
keeping the records added before); validate_only answers the same and writes nothing. The
partition counts are the controller's, read from its answer to a validate-only request that
would not grow the topic, so that a broker still creating 10,000 logs does not matter."""

from __future__ import annotations

from protocol.messages import CreatePartitionsRequest
from tests.compat.conftest import each_of_a_fresh_pair
from tests.integration.support import WireClient

Grow = CreatePartitionsRequest.CreatePartitionsTopic


def scenario(broker) -> list:
    with WireClient(broker.bootstrap_servers, timeout_s=120) as client:
        def grow(*counts, validate_only=False):
            return [(r.name, r.error_code, r.error_message) for r in client.request(37, 3, CreatePartitionsRequest(
                timeout_ms=60_000, validate_only=validate_only,
                topics=[Grow(name=name, count=count, assignments=None) for name, count in counts])).results]

        def partitions(name):   # the controller's count, in its refusal
            return grow((name, 1), validate_only=True)

        client.create_topics(["budget-a", "budget-b"], 1)
        return [grow(("budget-a", 30_000), validate_only=True), partitions("budget-a"),
                grow(("budget-a", 6_001), ("budget-b", 6_001)), partitions("budget-a"), partitions("budget-b")]


def test_past_the_budget_as_kafka(tmp_path, compat_table):
    answers = each_of_a_fresh_pair(tmp_path, scenario)
    compat_table.assert_same("CreatePartitions past the 10,000-record budget", answers)
    # the controller takes the names in its HashSet's order: budget-b first
    assert answers["kafka"][2] == [("budget-b", 0, None), ("budget-a", -1, None)]
    assert "currently has 4001 partition(s)" in answers["kafka"][3][0][2]
