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


def test_the_answer_lists_refusals_first_then_the_coordinators_as_kafka_builds_it(kafka_broker):
    """Kafka's KafkaApis answers partitions the metadata lacks itself (a topic unknown as a
    whole even with no partition), then merges the coordinator's answer in, which has a topic
    entry for each request entry; with nothing refused, that answer is sent as it is. The
    expected lists are what the reference Kafka 4.1.1 answered."""
    client = RawClient(kafka_broker.bootstrap_servers)
    client.request(19, 4, CreateTopicsRequest(topics=[CreateTopicsRequest.CreatableTopic(
        name="t", num_partitions=2, replication_factor=1)]))
    client.request(10, 3, FindCoordinatorRequest(key="ordered", key_type=0))

    def committed(*topics):
        answer = client.request(8, 8, OffsetCommitRequest(group_id="ordered", generation_id_or_member_epoch=-1, topics=[
            OffsetCommitRequest.OffsetCommitRequestTopic(name=name, partitions=[
                OffsetCommitRequest.OffsetCommitRequestPartition(partition_index=p, committed_offset=1)
                for p in partitions]) for name, partitions in topics]))
        return [(t.name, [(p.partition_index, p.error_code) for p in t.partitions]) for t in answer.topics]

    assert committed(("nope", []), ("t", [0, 5]), ("t", [1]), ("bad name", [0])) == [
        ("nope", []), ("t", [(5, 3), (0, 0), (1, 0)]), ("bad name", [(0, 3)])]
    assert committed(("t", [0]), ("t", [1])) == [("t", [(0, 0)]), ("t", [(1, 0)])]
    client.close()
