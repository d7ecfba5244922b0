"""DeleteTopics v6 names topics by id (Kafka 4's `kafka-topics --delete` still sends names;
the Admin client's deleteTopics(TopicCollection.ofTopicIds) sends ids)."""

from __future__ import annotations

import uuid

from protocol.error_codes import ErrorCode
from protocol.messages import DeleteTopicsRequest

from tests.pylog.wire import RawClient


def test_delete_by_topic_id_and_an_unknown_id(kafka_broker):
    info = kafka_broker.call(kafka_broker.broker.create_topic, "deleted-by-id", 1)
    stranger = uuid.uuid4()
    client = RawClient(kafka_broker.bootstrap_servers)
    try:
        answer = client.request(20, 6, DeleteTopicsRequest(timeout_ms=10_000, topics=[
            DeleteTopicsRequest.DeleteTopicState(name=None, topic_id=info.topic_id),
            DeleteTopicsRequest.DeleteTopicState(name=None, topic_id=stranger)]))
    finally:
        client.close()
    results = {r.topic_id: (r.name, r.error_code) for r in answer.responses}
    assert results[info.topic_id] == ("deleted-by-id", ErrorCode.NONE)
    assert results[stranger] == (None, ErrorCode.UNKNOWN_TOPIC_ID)
    assert "deleted-by-id" not in kafka_broker.broker.metadata.topics
