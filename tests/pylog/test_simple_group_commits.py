"""An OffsetCommit with generation -1 into an unknown group makes Kafka's "simple consumer
group" only when it stores an offset: a commit whose every partition is refused (metadata
too large, an unknown partition) leaves no group that DescribeGroups or ListGroups sees, as
Kafka's coordinator leaves such a creation uncommitted (its OffsetMetadataManager writes no
record then)."""

from protocol.error_codes import ErrorCode
from protocol.messages import CreateTopicsRequest, DescribeGroupsRequest, FindCoordinatorRequest, OffsetCommitRequest
from tests.pylog.wire import RawClient

Topic, Partition = OffsetCommitRequest.OffsetCommitRequestTopic, OffsetCommitRequest.OffsetCommitRequestPartition


def commit(client, group: str, partition: int, metadata: str):
    answer = client.request(8, 8, OffsetCommitRequest(group_id=group, generation_id_or_member_epoch=-1, member_id="",
                                                      topics=[Topic(name="simple", partitions=[Partition(
                                                          partition_index=partition, committed_offset=5,
                                                          committed_metadata=metadata)])]))
    return answer.topics[0].partitions[0].error_code


def state(client, group: str) -> str:
    return client.request(15, 5, DescribeGroupsRequest(groups=[group])).groups[0].group_state


def test_a_simple_commit_that_stores_nothing_leaves_no_group(kafka_broker):
    client = RawClient(kafka_broker.bootstrap_servers)
    client.request(19, 5, CreateTopicsRequest(timeout_ms=10_000, topics=[CreateTopicsRequest.CreatableTopic(
        name="simple", num_partitions=1, replication_factor=1)]))
    assert client.request(10, 4, FindCoordinatorRequest(key_type=0, coordinator_keys=["s"])).coordinators[0].error_code == 0

    assert commit(client, "s", 0, "m" * 5000) == ErrorCode.OFFSET_METADATA_TOO_LARGE
    assert commit(client, "s", 7, "") == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    assert state(client, "s") == "Dead"
    assert commit(client, "s", 0, "") == ErrorCode.NONE
    assert state(client, "s") == "Empty"
    # a group that exists keeps existing when a commit stores nothing
    assert commit(client, "s", 0, "m" * 5000) == ErrorCode.OFFSET_METADATA_TOO_LARGE
    assert state(client, "s") == "Empty"
