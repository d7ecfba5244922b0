"""An OffsetCommit with generation -1 into an unknown group makes Kafka's "simple consumer
group". When every partition of the commit is refused (metadata too large), Kafka's
coordinator writes no record: the group exists in its in-memory state, which its writes see
(a later commit is validated against it), but not in what is committed, which its reads see
(DescribeGroups says Dead), until a record written to the group's `__consumer_offsets`
partition, any group's, commits it along. A commit naming no partition that exists does not
reach the coordinator at all."""

from protocol.error_codes import ErrorCode
from protocol.messages import CreateTopicsRequest, DescribeGroupsRequest, FindCoordinatorRequest, OffsetCommitRequest
from pylog.coordinator.offsets import partition_for_group
from tests.pylog.wire import RawClient

Topic, Partition = OffsetCommitRequest.OffsetCommitRequestTopic, OffsetCommitRequest.OffsetCommitRequestPartition


def commit(client, group: str, partition: int, metadata: str, generation: int = -1):
    answer = client.request(8, 8, OffsetCommitRequest(group_id=group, generation_id_or_member_epoch=generation, member_id="",
                                                      topics=[Topic(name="simple", partitions=[Partition(
                                                          partition_index=partition, committed_offset=5,
                                                          committed_metadata=metadata)])]))
    return answer.topics[0].partitions[0].error_code


def state(client, group: str) -> str:
    return client.request(15, 5, DescribeGroupsRequest(groups=[group])).groups[0].group_state


def test_a_simple_commit_that_stores_nothing_makes_a_group_only_writes_see(kafka_broker):
    client = RawClient(kafka_broker.bootstrap_servers)
    client.request(19, 5, CreateTopicsRequest(timeout_ms=10_000, topics=[CreateTopicsRequest.CreatableTopic(
        name="simple", num_partitions=1, replication_factor=1)]))
    assert client.request(10, 4, FindCoordinatorRequest(key_type=0, coordinator_keys=["s"])).coordinators[0].error_code == 0
    count = kafka_broker.call(lambda: kafka_broker.broker.offset_store.partition_count)
    sibling = next(f"sibling-{i}" for i in range(1000)
                   if partition_for_group(f"sibling-{i}", count) == partition_for_group("s", count))

    assert commit(client, "s", 7, "") == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION   # not the coordinator's
    assert commit(client, "s", 0, "", generation=5) == ErrorCode.ILLEGAL_GENERATION   # no such group
    assert commit(client, "s", 0, "m" * 5000) == ErrorCode.OFFSET_METADATA_TOO_LARGE
    assert state(client, "s") == "Dead"
    # a write sees the group: an Empty group's answer to a member it does not know
    assert commit(client, "s", 0, "", generation=5) == ErrorCode.UNKNOWN_MEMBER_ID
    assert state(client, "s") == "Dead"
    # another group's record on the same partition commits it
    assert commit(client, sibling, 0, "") == ErrorCode.NONE
    assert state(client, "s") == "Empty"
    # a group that exists keeps existing when a commit stores nothing
    assert commit(client, "s", 0, "m" * 5000) == ErrorCode.OFFSET_METADATA_TOO_LARGE
    assert state(client, "s") == "Empty"
