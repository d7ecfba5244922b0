"""The shape of a Produce answer: which partitions it lists, in which order, under which topics.

Kafka keys every partition of a Produce request by a TopicIdPartition (topic id, topic
name, partition index) and answers from maps of them, so a partition named twice in one
request is answered once (and appended once, with the records named last), and the order
of the answer is the order of those maps, not the request's:

- An answer of the partitions' own outcomes (KafkaApis.handleProduceRequest, then
  ReplicaManager): the partitions to append, the partitions the metadata lacks and the
  partitions whose records field is refused are three Scala `mutable.HashMap`s; their
  entries are added, in that order of maps and each map in its own order, to an immutable
  `Map`, which keeps the order added up to four entries and is a CHAMP trie from the fifth
  (protocol/scala_order.py). There the key is (the metadata's id of the topic, the zero id if
  it has none; the topic's name) for a request naming topics, (the id named; the
  metadata's name for it, "" if none) for one naming them by id (v13+).
- An answer failing the whole request (`ProduceRequest.getErrorResponse`): every partition
  named, as a `java.util.HashMap` filled with one `compute` per partition, in request
  order, iterates them (protocol/java_order.py), keyed by the request's own id and name (the
  zero id below v13, "" from v13).

Either way, partitions are grouped under topics in the order a topic (name and id) first
comes, as `ProduceResponse` builds its data.
"""

from __future__ import annotations

import uuid
from typing import NamedTuple

from protocol.error_codes import ErrorCode
from protocol.java_order import computed_bucket_order, spread, topic_id_partition_hash
from protocol.messages import ProduceResponse
from protocol.scala_order import SMALL_SET_MAX, champ_order, mutable_hash_set_order
from protocol.schema import ZERO_UUID

PartitionResponse = ProduceResponse.PartitionProduceResponse


class PartitionKey(NamedTuple):
    """Kafka's TopicIdPartition of a partition named in a Produce request."""

    topic_id: uuid.UUID
    topic: str
    index: int

    def java_hash(self) -> int:
        return topic_id_partition_hash(self.topic_id, self.topic, self.index)


def answer_order(*maps: dict[PartitionKey, PartitionResponse]) -> list[tuple[PartitionKey, PartitionResponse]]:
    """The entries of `maps` (Kafka's mutable maps, in the order they are merged; a key in a
    later map takes that map's answer) as the immutable `Map` merged from them iterates:
    the trie's order from the fifth key (whatever the maps' own orders), else the order
    added."""
    merged: dict[PartitionKey, PartitionResponse] = {}
    for entries in maps:
        merged.update(entries)
    if len(merged) <= 1:
        return list(merged.items())
    if len(merged) > SMALL_SET_MAX:
        ordered = champ_order(list(merged), [key.java_hash() for key in merged])
    else:
        added: list[PartitionKey] = []
        for entries in maps:
            added += mutable_hash_set_order(list(entries), [key.java_hash() for key in entries])
        ordered = list(dict.fromkeys(added))
    return [(key, merged[key]) for key in ordered]


def by_topic(entries: list[tuple[PartitionKey, PartitionResponse]]) -> list[ProduceResponse.TopicProduceResponse]:
    """The partitions' answers under their topics, each topic where it first comes."""
    topics: dict[tuple[str, uuid.UUID], ProduceResponse.TopicProduceResponse] = {}
    for key, response in entries:
        topic = topics.get((key.topic, key.topic_id))
        if topic is None:
            topic = topics[(key.topic, key.topic_id)] = ProduceResponse.TopicProduceResponse(
                name=key.topic, topic_id=key.topic_id, partition_responses=[])
        topic.partition_responses.append(response)
    return list(topics.values())


def whole_request_failure(request, code: ErrorCode, message: str | None) -> ProduceResponse:
    """`ProduceRequest.getErrorResponse`: every partition named, once, with `code`."""
    calls = [PartitionKey(topic_data.topic_id if topic_data.topic_id is not None else ZERO_UUID,
                          topic_data.name or "", data.index)
             for topic_data in request.topic_data for data in topic_data.partition_data]
    distinct = list(dict.fromkeys(calls))
    order = computed_bucket_order([spread(key.java_hash()) for key in calls], calls)
    return ProduceResponse(responses=by_topic([(distinct[i], failure(distinct[i].index, code, message=message))
                                               for i in order]))


def failure(index: int, code: ErrorCode, *, log_start_offset: int = -1, message: str | None = None,
            record_errors=()) -> PartitionResponse:
    return PartitionResponse(index=index, error_code=code, base_offset=-1, log_append_time_ms=-1,
                             log_start_offset=log_start_offset, error_message=message,
                             record_errors=[ProduceResponse.BatchIndexAndErrorMessage(
                                 batch_index=i, batch_index_error_message=m) for i, m in record_errors])
