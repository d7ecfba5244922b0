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
    commit(image, create_topics(image, CreateTopicsRequest(topics=topics, timeout_ms=0, validate_only=False),
                                SETTINGS, random.Random(0)))
    return image


def results(result):
    return [(r.name, r.topic_id, r.error_code, r.error_message) for r in result.response.responses]


@pytest.mark.parametrize("version", range(0, 6))
def test_deleting_by_name_removes_the_topic_and_its_configs(version):
    image = with_topics("a", "b", "__consumer_offsets")
    a_id = image.topics_by_name["a"].topic_id
    offsets_id = image.topics_by_name["__consumer_offsets"].topic_id
    result = delete_topics(image, DeleteTopicsRequest(topic_names=["a", "__consumer_offsets"], timeout_ms=0),
                           version, SETTINGS)
    assert record_names(result) == ["RemoveTopicRecord", "RemoveTopicRecord"]
    assert results(result) == [("a", a_id, 0, None), ("__consumer_offsets", offsets_id, 0, None)]
    commit(image, result)
    assert set(image.topics_by_name) == {"b"}
    assert image.topic_configs("a") == {} and image.topic_configs("b") == {"retention.ms": "1"}


def test_v6_deletes_by_id_or_by_name():
    image = with_topics("a", "b", "c")
    ids = {n: image.topics_by_name[n].topic_id for n in "abc"}
    request = DeleteTopicsRequest(topics=[State(name=None, topic_id=ids["a"]), State(name="b", topic_id=ZERO)],
                                  timeout_ms=0)
    result = delete_topics(image, request, 6, SETTINGS)
    assert results(result) == [("a", ids["a"], 0, None), ("b", ids["b"], 0, None)]
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
    ], timeout_ms=0)
    result = delete_topics(image, request, 6, SETTINGS)
    assert results(result) == [
        (None, ZERO, ErrorCode.INVALID_REQUEST, "Neither topic name nor id were specified."),
        ("b", ids["b"], ErrorCode.INVALID_REQUEST, "You may not specify both topic name and topic id."),
        ("dup", ZERO, ErrorCode.INVALID_REQUEST, "Duplicate topic name."),
        (None, ids["c"], ErrorCode.INVALID_REQUEST, "Duplicate topic id."),
        (None, unknown_id, ErrorCode.UNKNOWN_TOPIC_ID, ErrorCode.UNKNOWN_TOPIC_ID.message),
        ("missing", ZERO, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.message),
        ("d", ids["d"], ErrorCode.INVALID_REQUEST, "The provided topic name maps to an ID that was already "
                                                   "supplied."),
        ("a", ids["a"], ErrorCode.NONE, None),
    ]
    commit(image, result)
    assert set(image.topics_by_name) == {"b", "c", "d"}


@pytest.mark.parametrize("version, code", [(0, ErrorCode.INVALID_REQUEST), (2, ErrorCode.INVALID_REQUEST),
                                           (3, ErrorCode.TOPIC_DELETION_DISABLED),
                                           (6, ErrorCode.TOPIC_DELETION_DISABLED)])
def test_with_deletion_disabled_every_topic_fails(version, code):
    image = with_topics("a")
    request = DeleteTopicsRequest(topic_names=["a", "missing"], timeout_ms=0)
    result = delete_topics(image, request, version, TopicSettings(delete_topic_enable=False))
    assert results(result) == [("a", ZERO, code, None), ("missing", ZERO, code, None)]
    assert result.records == []
