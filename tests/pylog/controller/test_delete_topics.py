"""DeleteTopics at the controller: RemoveTopicRecords replayed into the image, by name and
by id, and Kafka's answers for what it refuses."""

from __future__ import annotations

import random
import uuid

import pytest

from protocol.error_codes import ErrorCode
from protocol.messages import CreateTopicsRequest, DeleteTopicsRequest

from pylog.controller.configuration_control import TopicSettings
from pylog.controller.replication_control import create_topics, delete_topics

from tests.pylog.controller.cluster_images import cluster, commit, record_names

ZERO = uuid.UUID(int=0)
State = DeleteTopicsRequest.DeleteTopicState
SETTINGS = TopicSettings()


def with_topics(*names):
    image = cluster(1, 2)
    topics = [CreateTopicsRequest.CreatableTopic(
        name=n, num_partitions=2, replication_factor=2, assignments=[],
        configs=[CreateTopicsRequest.CreatableTopicConfig(name="retention.ms", value="1")]) for n in names]
    commit(image, create_topics(image, CreateTopicsRequest(topics=topics, timeout_ms=30_000, validate_only=False),
                                SETTINGS, random.Random(0)))
    return image


def in_order(result):
    return [(r.name, r.topic_id, r.error_code, r.error_message) for r in result.response.responses]


def results(result):
    """The results, in an order of their own: Kafka's come shuffled."""
    return sorted(in_order(result), key=repr)


@pytest.mark.parametrize("version", range(0, 6))
def test_deleting_by_name_removes_the_topic_and_its_configs(version):
    image = with_topics("a", "b", "__consumer_offsets")
    a_id = image.topics_by_name["a"].topic_id
    offsets_id = image.topics_by_name["__consumer_offsets"].topic_id
    result = delete_topics(image, DeleteTopicsRequest(topic_names=["a", "__consumer_offsets"], timeout_ms=30_000),
                           version, SETTINGS, random.Random(0))
    assert record_names(result) == ["RemoveTopicRecord", "RemoveTopicRecord"]
    assert results(result) == sorted([("a", a_id, 0, None), ("__consumer_offsets", offsets_id, 0, None)], key=repr)
    commit(image, result)
    assert set(image.topics_by_name) == {"b"}
    assert image.topic_configs("a") == {} and image.topic_configs("b") == {"retention.ms": "1"}


def test_v6_deletes_by_id_or_by_name():
    image = with_topics("a", "b", "c")
    ids = {n: image.topics_by_name[n].topic_id for n in "abc"}
    request = DeleteTopicsRequest(topics=[State(name=None, topic_id=ids["a"]), State(name="b", topic_id=ZERO)],
                                  timeout_ms=30_000)
    result = delete_topics(image, request, 6, SETTINGS, random.Random(0))
    assert results(result) == sorted([("a", ids["a"], 0, None), ("b", ids["b"], 0, None)], key=repr)
    commit(image, result)
    assert set(image.topics_by_name) == {"c"}


def test_what_cannot_be_deleted_gets_kafkas_answers_and_the_rest_goes():
    image = with_topics("a", "b", "c", "d")
    ids = {n: image.topics_by_name[n].topic_id for n in "abcd"}
    unknown_id = uuid.UUID(int=0xBAD)
    request = DeleteTopicsRequest(topic_names=["dup", "dup", "missing", "a"], topics=[
        State(name=None, topic_id=ZERO),
        State(name="b", topic_id=ids["b"]),
        State(name=None, topic_id=ids["c"]), State(name=None, topic_id=ids["c"]),
        State(name=None, topic_id=unknown_id),
        State(name=None, topic_id=ids["d"]), State(name="d", topic_id=ZERO),
    ], timeout_ms=30_000)
    result = delete_topics(image, request, 6, SETTINGS, random.Random(0))
    assert results(result) == sorted([
        (None, ZERO, ErrorCode.INVALID_REQUEST, "Neither topic name nor id were specified."),
        ("b", ids["b"], ErrorCode.INVALID_REQUEST, "You may not specify both topic name and topic id."),
        ("dup", ZERO, ErrorCode.INVALID_REQUEST, "Duplicate topic name."),
        (None, ids["c"], ErrorCode.INVALID_REQUEST, "Duplicate topic id."),
        (None, unknown_id, ErrorCode.UNKNOWN_TOPIC_ID, ErrorCode.UNKNOWN_TOPIC_ID.message),
        ("missing", ZERO, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.message),
        ("d", ids["d"], ErrorCode.INVALID_REQUEST, "The provided topic name maps to an ID that was already "
                                                   "supplied."),
        ("a", ids["a"], ErrorCode.NONE, None),
    ], key=repr)
    commit(image, result)
    assert set(image.topics_by_name) == {"b", "c", "d"}


@pytest.mark.parametrize("version, code", [(0, ErrorCode.INVALID_REQUEST), (2, ErrorCode.INVALID_REQUEST),
                                           (3, ErrorCode.TOPIC_DELETION_DISABLED),
                                           (6, ErrorCode.TOPIC_DELETION_DISABLED)])
def test_with_deletion_disabled_every_topic_fails(version, code):
    image = with_topics("a")
    request = DeleteTopicsRequest(topic_names=["a", "missing"], timeout_ms=30_000)
    result = delete_topics(image, request, version, TopicSettings(delete_topic_enable=False),
                           random.Random(0))
    assert in_order(result) == [("a", ZERO, code, None), ("missing", ZERO, code, None)]
    assert result.records == []


def test_the_results_come_shuffled_as_kafkas_do():
    """Kafka shuffles them so that their places tell nothing of which topics exist."""
    names = [f"t{i}" for i in range(8)]
    image = with_topics(*names[:4])
    request = DeleteTopicsRequest(topic_names=names, timeout_ms=30_000)
    orders = {tuple(r[0] for r in in_order(delete_topics(image, request, 5, SETTINGS, random.Random(seed))))
              for seed in range(6)}
    assert len(orders) > 1 and all(sorted(order) == names for order in orders)


def test_a_past_deadline_fails_the_whole_request_unless_nothing_reaches_the_controller():
    """`timeout_ms` 0 or less: REQUEST_TIMED_OUT for each entry, in the request's order, no
    message, nothing deleted; but a request whose every entry is answered before the
    controller (names or ids given twice, neither or both of name and id) is answered."""
    image = with_topics("a")
    a_id = image.topics_by_name["a"].topic_id
    late = delete_topics(image, DeleteTopicsRequest(topics=[
        State(name="a", topic_id=ZERO), State(name=None, topic_id=a_id), State(name="x", topic_id=ZERO),
        State(name="x", topic_id=ZERO)], timeout_ms=0), 6, SETTINGS, random.Random(0))
    assert in_order(late) == [("a", ZERO, ErrorCode.REQUEST_TIMED_OUT, None),
                              (None, a_id, ErrorCode.REQUEST_TIMED_OUT, None),
                              ("x", ZERO, ErrorCode.REQUEST_TIMED_OUT, None),
                              ("x", ZERO, ErrorCode.REQUEST_TIMED_OUT, None)]
    assert late.records == []
    answered = delete_topics(image, DeleteTopicsRequest(topics=[
        State(name="a", topic_id=ZERO), State(name="a", topic_id=ZERO), State(name=None, topic_id=ZERO),
        State(name="a", topic_id=a_id)], timeout_ms=-1), 6, SETTINGS, random.Random(0))
    assert results(answered) == sorted([
        ("a", ZERO, ErrorCode.INVALID_REQUEST, "Duplicate topic name."),
        (None, ZERO, ErrorCode.INVALID_REQUEST, "Neither topic name nor id were specified."),
        ("a", a_id, ErrorCode.INVALID_REQUEST, "You may not specify both topic name and topic id.")], key=repr)
    assert answered.records == []
