"""OffsetDelete's first checks, in Kafka's order (GroupCoordinatorService.deleteOffsets):
an empty group id is INVALID_GROUP_ID before any coordinator is looked for."""

from __future__ import annotations

from protocol.error_codes import ErrorCode
from protocol.messages import OffsetDeleteRequest

from tests.integration.support import WireClient

Topic, Partition = OffsetDeleteRequest.OffsetDeleteRequestTopic, OffsetDeleteRequest.OffsetDeleteRequestPartition


def test_an_empty_group_id_is_invalid(kafka_broker):
    with WireClient(kafka_broker.bootstrap_servers) as client:
        answer = client.request(47, 0, OffsetDeleteRequest(group_id="", topics=[
            Topic(name="t", partitions=[Partition(partition_index=0)])]))
        unknown = client.request(47, 0, OffsetDeleteRequest(group_id="never-seen", topics=[]))
    assert (answer.error_code, answer.topics) == (ErrorCode.INVALID_GROUP_ID, [])
    # a named group asks for its coordinator, which a fresh broker (no __consumer_offsets yet)
    # is not, as Kafka's answers
    assert unknown.error_code == ErrorCode.NOT_COORDINATOR
