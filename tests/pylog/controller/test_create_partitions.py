"""CreatePartitions at the controller: new PartitionRecords with the topic's replication
factor, placed or as assigned, and Kafka's answers."""

from __future__ import annotations

import random
from collections import Counter

from protocol.error_codes import ErrorCode
from protocol.messages import CreatePartitionsRequest, CreateTopicsRequest
from protocol.metadata import FenceBrokerRecord

from pylog.controller.configuration_control import TopicSettings
from pylog.controller.replication_control import create_partitions, create_topics

from tests.pylog.controller.cluster_images import cluster, commit, record_names

Grow = CreatePartitionsRequest.CreatePartitionsTopic
Assignment = CreatePartitionsRequest.CreatePartitionsAssignment


def with_topic(image, name, partitions, replication_factor):
    topic = CreateTopicsRequest.CreatableTopic(name=name, num_partitions=partitions,
                                               replication_factor=replication_factor, assignments=[], configs=[])
    result = create_topics(image, CreateTopicsRequest(topics=[topic], timeout_ms=30_000, validate_only=False),
                           TopicSettings(), random.Random(0))
    assert result.response.topics[0].error_code == ErrorCode.NONE
    return commit(image, result)


def grow(*topics, validate_only=False):
    return CreatePartitionsRequest(topics=list(topics), timeout_ms=30_000, validate_only=validate_only)


def answers(result):
    return [(r.name, r.error_code, r.error_message) for r in result.response.results]


def test_new_partitions_take_the_topics_replication_factor_and_spread():
    image = with_topic(cluster(1, 2, 3, 4), "t", 2, 3)
    result = create_partitions(image, grow(Grow(name="t", count=10, assignments=None)), random.Random(3))
    assert answers(result) == [("t", ErrorCode.NONE, None)]
    assert record_names(result) == ["PartitionRecord"] * 8
    commit(image, result)
    partitions = image.topics_by_name["t"].partitions
    assert sorted(partitions) == list(range(10))
    for index in range(2, 10):
        p = partitions[index]
        assert len(p.replicas) == 3 == len(set(p.replicas))
        assert p.isr == p.replicas and p.leader == p.replicas[0]
        assert (p.leader_epoch, p.partition_epoch) == (0, 0)
    assert Counter(partitions[i].leader for i in range(2, 10)) == {1: 2, 2: 2, 3: 2, 4: 2}


def test_assigned_partitions_are_checked_like_create_topics():
    image = with_topic(cluster(1, 2, 3, fenced=(3,)), "t", 1, 2)
    ok = create_partitions(image, grow(Grow(name="t", count=3, assignments=[
        Assignment(broker_ids=[2, 3]), Assignment(broker_ids=[3, 1])])), random.Random(0))
    assert answers(ok) == [("t", ErrorCode.NONE, None)]
    commit(image, ok)
    partitions = image.topics_by_name["t"].partitions
    assert (partitions[1].replicas, partitions[1].isr, partitions[1].leader) == ((2, 3), (2,), 2)
    assert (partitions[2].replicas, partitions[2].isr, partitions[2].leader) == ((3, 1), (1,), 1)

    def refusal(count, *replica_lists):
        result = create_partitions(image, grow(Grow(name="t", count=count, assignments=[
            Assignment(broker_ids=b) for b in replica_lists])), random.Random(0))
        assert result.records == []
        [(_, code, message)] = answers(result)
        return code, message
    assert refusal(5, [1, 2]) == (ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                                  "Attempted to add 2 additional partition(s), but only 1 assignment(s) were "
                                  "specified.")
    assert refusal(4, [1]) == (ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                               "The manual partition assignment includes a partition with 1 replica(s), but this "
                               "is not consistent with previous partitions, which have 2 replica(s).")
    assert refusal(4, [1, 9]) == (ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                                  "The manual partition assignment includes broker 9, but no such broker is "
                                  "registered.")
    assert refusal(4, [2, 2]) == (ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                                  "The manual partition assignment includes the broker 2 more than once.")
    image.replay(image_fence(image, 2))
    assert refusal(4, [2, 3]) == (ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                                  "All brokers specified in the manual partition assignment for partition 3 are "
                                  "fenced or in controlled shutdown.")


def image_fence(image, broker_id):
    return FenceBrokerRecord(id=broker_id, epoch=image.brokers[broker_id].epoch)


def test_refusals_and_duplicates():
    image = with_topic(cluster(1, 2), "t", 3, 2)
    result = create_partitions(image, grow(
        Grow(name="t", count=3, assignments=None), Grow(name="dup", count=4, assignments=None),
        Grow(name="missing", count=2, assignments=None), Grow(name="dup", count=5, assignments=None)),
        random.Random(0))
    assert answers(result) == [
        ("dup", ErrorCode.INVALID_REQUEST, "Duplicate topic name."),
        ("t", ErrorCode.INVALID_PARTITIONS, "Topic already has 3 partition(s)."),
        ("missing", ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, None),   # Kafka's answer has no message
    ]
    shrink = create_partitions(image, grow(Grow(name="t", count=2, assignments=None)), random.Random(0))
    assert answers(shrink) == [("t", ErrorCode.INVALID_PARTITIONS,
                                "The topic t currently has 3 partition(s); 2 would not be an increase.")]
    assert result.records == shrink.records == []


def test_placement_refusals_when_brokers_went_away():
    image = with_topic(cluster(1, 2, 3), "t", 1, 3)
    image.replay(image_fence(image, 1))
    image.replay(image_fence(image, 2))
    image.replay(image_fence(image, 3))
    result = create_partitions(image, grow(Grow(name="t", count=2, assignments=None)), random.Random(0))
    assert answers(result) == [("t", ErrorCode.INVALID_REPLICATION_FACTOR,
                                "Unable to replicate the partition 3 time(s): All brokers are currently fenced.")]


def test_validate_only_and_the_per_request_budget():
    image = with_topic(cluster(1), "a", 1, 1)
    image = with_topic(image, "b", 1, 1)
    checked = create_partitions(image, grow(Grow(name="a", count=5, assignments=None), validate_only=True),
                                random.Random(0))
    assert answers(checked) == [("a", ErrorCode.NONE, None)] and checked.records == []
    big = create_partitions(image, grow(Grow(name="a", count=6_001, assignments=None),
                                        Grow(name="b", count=6_001, assignments=None)), random.Random(0))
    # Kafka 4.1: the topic past the budget of 10,000 records gets UNKNOWN_SERVER_ERROR with no
    # message, and yet keeps the partitions placed before the budget ran out
    assert answers(big) == [("a", ErrorCode.NONE, None), ("b", ErrorCode.UNKNOWN_SERVER_ERROR, None)]
    assert len(big.records) == 10_000
    commit(image, big)
    assert len(image.topics_by_name["a"].partitions) == 6_001 and len(image.topics_by_name["b"].partitions) == 4_001
    checked = create_partitions(image, grow(Grow(name="a", count=30_000, assignments=None), validate_only=True),
                                random.Random(0))
    assert answers(checked) == [("a", ErrorCode.UNKNOWN_SERVER_ERROR, None)] and checked.records == []


def test_a_count_far_beyond_the_budget_places_no_more_than_it(monkeypatch):
    # CreatePartitions' count is any int32: 2^31 - 1 new partitions must cost no more than
    # the request's budget of records (10,000) plus one, whose placement shows it is over;
    # the budget's worth are kept, as Kafka keeps them
    from pylog.controller import replication_control
    asked = []
    place = replication_control.place_replicas

    def placing(brokers, count, replication_factor, rng):
        asked.append(count)
        assert count <= 10_001, f"asked to place {count} partitions"
        return place(brokers, count, replication_factor, rng)

    image = with_topic(cluster(1), "a", 1, 1)
    monkeypatch.setattr(replication_control, "place_replicas", placing)
    result = create_partitions(image, grow(Grow(name="a", count=2**31 - 1, assignments=None)), random.Random(0))
    assert answers(result) == [("a", ErrorCode.UNKNOWN_SERVER_ERROR, None)]
    assert len(result.records) == 10_000 and asked == [10_001]


def test_a_past_deadline_fails_every_entry_unless_all_are_names_given_twice():
    image = with_topic(cluster(1), "t", 1, 1)
    late = create_partitions(image, CreatePartitionsRequest(topics=[
        Grow(name="t", count=2, assignments=None), Grow(name="d", count=2, assignments=None),
        Grow(name="d", count=3, assignments=None)], timeout_ms=0, validate_only=False), random.Random(0))
    assert answers(late) == [(name, ErrorCode.REQUEST_TIMED_OUT, None) for name in ("t", "d", "d")]
    assert late.records == []
    answered = create_partitions(image, CreatePartitionsRequest(topics=[
        Grow(name="t", count=2, assignments=None), Grow(name="t", count=3, assignments=None)],
        timeout_ms=-1, validate_only=False), random.Random(0))
    assert answers(answered) == [("t", ErrorCode.INVALID_REQUEST, "Duplicate topic name.")]
