"""CreateTopics, DeleteTopics and CreatePartitions with a `timeout_ms` of 0 or less, against
the reference Kafka: its controller runs them by a deadline of now plus the timeout, already
past, so every topic gets REQUEST_TIMED_OUT with no message and nothing is done, not even
the checks of a bad name. A positive timeout the controller meets is enough; the test gives
1 s, as Kafka times out even a positive one its controller does not meet (a 1 ms one, on a
slow day). CreatePartitions of an unknown topic carries no message either, and one naming
several topics answers in the order of Kafka's HashSets of their names (the duplicated ones
first). A request all of whose entries are answered before the controller is reached
(names given twice, `__cluster_metadata`, a DeleteTopics entry with neither or both of name
and id) is answered, whatever its deadline. DeleteTopics results are compared as sets:
Kafka shuffles them."""

from __future__ import annotations

import time
import uuid

import pytest

from protocol.messages import CreatePartitionsRequest, CreateTopicsRequest, DeleteTopicsRequest, MetadataRequest
from tests.compat.conftest import unique
from tests.integration.support import WireClient

Topic = CreateTopicsRequest.CreatableTopic
Grow = CreatePartitionsRequest.CreatePartitionsTopic
State = DeleteTopicsRequest.DeleteTopicState
ID = uuid.UUID("6a1b2c3d-4e5f-4071-8293-a4b5c6d7e8f9")   # no topic's


def scenario(client, late: str, kept: str, unknown: str) -> list:
    def create(name, timeout_ms, validate_only=False):
        (answer,) = client.request(19, 6, CreateTopicsRequest(timeout_ms=timeout_ms, validate_only=validate_only, topics=[
            Topic(name=name, num_partitions=1, replication_factor=1)])).topics
        return answer.error_code, answer.error_message

    def grow(name, count, timeout_ms):
        return [(r.error_code, r.error_message) for r in client.request(37, 3, CreatePartitionsRequest(
            timeout_ms=timeout_ms, topics=[Grow(name=name, count=count, assignments=None)])).results]

    def partitions(name):
        time.sleep(0.5)   # what a request did is in the metadata by then
        (topic,) = client.request(3, 12, MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name=name)],
                                                         allow_auto_topic_creation=False)).topics
        return topic.error_code, len(topic.partitions)

    return [
        create(late, 0), create(late, -5), create("bad name", 0), create(late, 0, validate_only=True),
        partitions(late),
        create(kept, 1000), partitions(kept),
        grow(kept, 3, 0), grow(kept, 3, -1), partitions(kept),
        grow(unknown, 3, 30_000),
        # several names: answered in the order of the controller's HashSets of them
        [(r.name, r.error_code, r.error_message) for r in client.request(37, 3, CreatePartitionsRequest(
            timeout_ms=30_000, topics=[Grow(name=name, count=1, assignments=None) for name in (
                unknown + "-z", kept, unknown + "-a", "", unknown + "-a", unknown + "-m", kept + "-x")])).results],
        [(r.error_code, r.error_message) for r in client.request(20, 6, DeleteTopicsRequest(
            timeout_ms=0, topics=[DeleteTopicsRequest.DeleteTopicState(name=kept)])).responses],
        partitions(kept),
        # what is answered before the controller is reached is answered, whatever the deadline;
        # once anything would reach it, every entry times out, duplicates and all
        [(r.name, r.error_code, r.error_message) for r in client.request(19, 6, CreateTopicsRequest(
            timeout_ms=0, validate_only=False, topics=[Topic(name=n, num_partitions=1, replication_factor=1)
                                                       for n in ("dup", "dup", "__cluster_metadata")])).topics],
        [(r.name, r.error_code, r.error_message) for r in client.request(19, 6, CreateTopicsRequest(
            timeout_ms=0, validate_only=False, topics=[Topic(name=n, num_partitions=1, replication_factor=1)
                                                       for n in ("dup", late, "dup")])).topics],
        [(r.name, r.error_code, r.error_message) for r in client.request(37, 3, CreatePartitionsRequest(
            timeout_ms=0, topics=[Grow(name=kept, count=n, assignments=None) for n in (2, 3)])).results],
        [(r.name, r.error_code, r.error_message) for r in client.request(37, 3, CreatePartitionsRequest(
            timeout_ms=0, topics=[Grow(name=n, count=2, assignments=None) for n in (kept, kept, unknown)])).results],
        sorted((str(r.name), r.error_code, str(r.error_message)) for r in client.request(20, 6, DeleteTopicsRequest(
            timeout_ms=0, topics=[State(name=kept), State(name=kept), State(name=None), State(name=kept, topic_id=ID)]
        )).responses),
        [(r.name, str(r.topic_id), r.error_code, r.error_message) for r in client.request(20, 6, DeleteTopicsRequest(
            timeout_ms=0, topics=[State(name=None, topic_id=ID), State(name=unknown)])).responses],
        partitions(kept),
    ]


@pytest.fixture(scope="module")
def answers(both):
    names = unique("late"), unique("kept"), unique("unknown")
    found = {}
    for name, broker in both.items():
        with WireClient(broker.bootstrap_servers, timeout_s=30) as client:
            found[name] = scenario(client, *names)
    return found


def test_a_deadline_already_past_as_kafka(answers, compat_table):
    compat_table.assert_same("admin requests with timeout_ms <= 0", answers)
    assert answers["kafka"][0] == (7, None) and answers["kafka"][4][0] == 3   # REQUEST_TIMED_OUT, not created
