"""ElectLeaders, the leader rebalance, unclean elections and their config, over an image
fed by the controller's own records."""

from protocol.error_codes import ErrorCode
from protocol.messages.elect_leaders_request import ElectLeadersRequest, TopicPartitions
from protocol.metadata import ConfigRecord, PartitionChangeRecord
from pylog.controller.leadership import (
    auto_leader_rebalance, elect_leaders, unclean_elections, unclean_leader_election_enabled,
)
from pylog.metadata_image import BROKER_RESOURCE, RECOVERING, TOPIC_RESOURCE
from tests.pylog.controller.harness import Controller


def cluster(*broker_ids):
    c = Controller()
    for broker_id in broker_ids:
        c.start_broker(broker_id)
    return c


def results(response):
    return {(t.topic, p.partition_id): (p.error_code, p.error_message)
            for t in response.replica_election_results for p in t.partition_result}


def test_preferred_election_moves_leadership_back_to_the_first_replica():
    c = cluster(1, 2)
    c.create_topic("t", [[1, 2], [2, 1]])
    c.heartbeat(1, want_fence=True)
    c.heartbeat(1)
    assert c.partition("t").leader == 2 and c.partition("t").isr == (2,)
    request = ElectLeadersRequest(election_type=0, topic_partitions=[TopicPartitions(topic="t", partitions=[0, 1])])
    # 1 is not back in the ISR yet: not available
    response = c.commit(elect_leaders(c.image, request, 2))
    assert results(response)[("t", 0)][0] == ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE
    assert results(response)[("t", 1)] == (ErrorCode.ELECTION_NOT_NEEDED, ErrorCode.ELECTION_NOT_NEEDED.message)
    # the leader adds 1 back to the ISR
    topic_id = c.image.topics_by_name["t"].topic_id
    c.commit_records([(PartitionChangeRecord(topic_id=topic_id, partition_id=0, isr=[2, 1]), 2)])
    response = c.commit(elect_leaders(c.image, request, 2))
    assert results(response)[("t", 0)] == (ErrorCode.NONE, None)
    partition = c.partition("t")
    assert partition.leader == 1 and partition.leader_epoch == 2


def test_a_null_topic_list_elects_everywhere_and_omits_partitions_that_need_nothing():
    c = cluster(1, 2)
    c.create_topic("a", [[1, 2], [2, 1]])
    response = c.commit(elect_leaders(c.image, ElectLeadersRequest(election_type=0, topic_partitions=None), 2))
    assert [(t.topic, t.partition_result) for t in response.replica_election_results] == [("a", [])]


def test_unknown_topics_and_partitions():
    c = cluster(1)
    c.create_topic("t", [[1]])
    request = ElectLeadersRequest(election_type=1, topic_partitions=[
        TopicPartitions(topic="nope", partitions=[0]), TopicPartitions(topic="t", partitions=[3, 0])])
    got = results(elect_leaders(c.image, request, 2).response)
    assert got[("nope", 0)] == (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "No such topic as nope")
    assert got[("t", 3)] == (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "No such partition as t-3")
    assert got[("t", 0)][0] == ErrorCode.ELECTION_NOT_NEEDED


def test_unclean_election_on_request_picks_a_live_replica_outside_the_isr():
    c = cluster(1, 2)
    c.create_topic("t", [[1, 2]])
    topic_id = c.image.topics_by_name["t"].topic_id
    c.commit_records([(PartitionChangeRecord(topic_id=topic_id, partition_id=0, isr=[1]), 2)])
    c.heartbeat(1, want_fence=True)
    assert c.partition("t").leader == -1
    request = ElectLeadersRequest(election_type=1, topic_partitions=[TopicPartitions(topic="t", partitions=[0])])
    c.heartbeat(2, want_fence=True)
    assert results(elect_leaders(c.image, request, 2).response)[("t", 0)][0] == ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE
    c.heartbeat(2)
    response = c.commit(elect_leaders(c.image, request, 2))
    assert results(response)[("t", 0)] == (ErrorCode.NONE, None)
    partition = c.partition("t")
    assert (partition.leader, partition.isr, partition.leader_recovery_state) == (2, (2,), RECOVERING)


def test_an_unknown_election_type_fails_the_request_whole():
    """Kafka's controller throws InvalidRequestException: every partition named carries it."""
    c = cluster(1)
    response = elect_leaders(c.image, ElectLeadersRequest(election_type=7, topic_partitions=None), 2).response
    assert (response.error_code, response.replica_election_results) == (ErrorCode.INVALID_REQUEST, [])
    named = elect_leaders(c.image, ElectLeadersRequest(election_type=2, topic_partitions=[
        TopicPartitions(topic="t", partitions=[0, 3]), TopicPartitions(topic="u", partitions=[])]), 2).response
    assert [(t.topic, [(p.partition_id, p.error_code, p.error_message) for p in t.partition_result])
            for t in named.replica_election_results] == [
        ("t", [(0, ErrorCode.INVALID_REQUEST, "Unknown election type 2"),
               (3, ErrorCode.INVALID_REQUEST, "Unknown election type 2")]), ("u", [])]


def test_a_past_deadline_fails_the_request_unless_its_topic_list_is_empty():
    c = cluster(1)
    late = elect_leaders(c.image, ElectLeadersRequest(election_type=0, timeout_ms=0, topic_partitions=[
        TopicPartitions(topic="t", partitions=[1])]), 2).response
    assert (late.error_code, [(p.partition_id, p.error_code, p.error_message)
                              for p in late.replica_election_results[0].partition_result]) == (
        ErrorCode.REQUEST_TIMED_OUT, [(1, ErrorCode.REQUEST_TIMED_OUT, None)])
    empty = elect_leaders(c.image, ElectLeadersRequest(election_type=0, timeout_ms=0, topic_partitions=[]), 2).response
    assert (empty.error_code, empty.replica_election_results) == (ErrorCode.NONE, [])


def test_auto_rebalance_moves_leaders_to_preferred_replicas_in_the_isr():
    c = cluster(1, 2, 3)
    c.create_topic("t", [[1, 2], [2, 3], [3, 1]])
    c.heartbeat(1, want_fence=True)
    c.heartbeat(1)
    topic_id = c.image.topics_by_name["t"].topic_id
    c.commit_records([(PartitionChangeRecord(topic_id=topic_id, partition_id=0, isr=[2, 1]), 2)])
    assert [c.partition("t", i).leader for i in range(3)] == [2, 2, 3]
    result = auto_leader_rebalance(c.image)
    assert result.response is False and len(result.records) == 1
    c.commit(result)
    assert [c.partition("t", i).leader for i in range(3)] == [1, 2, 3]
    assert auto_leader_rebalance(c.image).records == []


def test_auto_rebalance_stops_at_its_limit():
    c = cluster(1, 2)
    c.create_topic("t", [[1, 2]] * 3)
    topic_id = c.image.topics_by_name["t"].topic_id
    c.commit_records([(PartitionChangeRecord(topic_id=topic_id, partition_id=i, leader=2), 2) for i in range(3)])
    result = auto_leader_rebalance(c.image, max_elections=2)
    assert result.response is True and len(result.records) == 2


def test_unclean_leader_election_config_topic_then_cluster_default_then_static():
    c = cluster(1)
    c.create_topic("t", [[1]])
    assert not unclean_leader_election_enabled(c.image, "t")
    assert unclean_leader_election_enabled(c.image, "t", unclean_default=True)
    c.commit_records([(ConfigRecord(resource_type=BROKER_RESOURCE, resource_name="",
                                    name="unclean.leader.election.enable", value="true"), 0)])
    assert unclean_leader_election_enabled(c.image, "t")
    c.commit_records([(ConfigRecord(resource_type=TOPIC_RESOURCE, resource_name="t",
                                    name="unclean.leader.election.enable", value="false"), 0)])
    assert not unclean_leader_election_enabled(c.image, "t", unclean_default=True)


def test_fencing_with_unclean_election_enabled_keeps_the_partition_online():
    c = cluster(1, 2)
    c.create_topic("t", [[1, 2]])
    topic_id = c.image.topics_by_name["t"].topic_id
    c.commit_records([(PartitionChangeRecord(topic_id=topic_id, partition_id=0, isr=[1]), 2),
                      (ConfigRecord(resource_type=TOPIC_RESOURCE, resource_name="t",
                                    name="unclean.leader.election.enable", value="true"), 0)])
    c.heartbeat(1, want_fence=True)
    partition = c.partition("t")
    assert (partition.leader, partition.isr, partition.leader_recovery_state) == (2, (2,), RECOVERING)


def test_periodic_unclean_elections_only_where_the_topic_allows_them():
    c = cluster(1, 2)
    c.create_topic("strict", [[1, 2]])
    c.create_topic("loose", [[1, 2]])
    c.commit_records([(PartitionChangeRecord(topic_id=c.image.topics_by_name[name].topic_id, partition_id=0,
                                             isr=[1]), 2) for name in ("strict", "loose")])
    c.heartbeat(1, want_fence=True)
    assert c.partition("strict").leader == -1 and c.partition("loose").leader == -1
    c.commit_records([(ConfigRecord(resource_type=TOPIC_RESOURCE, resource_name="loose",
                                    name="unclean.leader.election.enable", value="true"), 0)])
    c.commit(unclean_elections(c.image))
    assert c.partition("strict").leader == -1 and c.partition("loose").leader == 2
