"""The orders of Scala 2.13's sets in which Kafka's Metadata answers (protocol/scala_order.py),
and the Metadata handler that uses them. The expected orders were printed by the JVM with
Kafka 4.1's own jars: the generated `MetadataResponsePartition` entries mapped from a Java
HashMap's entry set into a Scala set (as KRaftMetadataCache does), a Scala immutable `Set`
built from a list of names (`toSet`), and a mutable `HashSet` built by `partition` of a
wrapped Java set (the every-topic request). tests/compat/test_metadata_order.py compares
whole answers with the reference Kafka."""

from __future__ import annotations

import uuid

import pytest

from protocol.java_order import java_string_hashcode, uuid_hash
from protocol.messages import MetadataRequest
from protocol.scala_order import (
    immutable_set_order,
    list_hashcode,
    message_hashcode,
    mutable_hash_set_order,
)

from pylog.handlers.metadata import known_and_unknown

from tests.integration.support import WireClient


def partition_order(partitions) -> list[int]:
    """(index, leader, leader epoch, replicas, isr) with no error and no offline replica."""
    hashes = [message_hashcode((0, index, leader, epoch, list_hashcode(replicas), list_hashcode(isr),
                                list_hashcode([])))
              for index, leader, epoch, replicas, isr in partitions]
    return [p[0] for p in mutable_hash_set_order(partitions, hashes)]


@pytest.mark.parametrize("partitions, expected", [
    ([(i, 1, 0, [1], [1]) for i in range(3)], [1, 2, 0]),
    ([(i, 1, -1, [1], [1]) for i in range(2)], [1, 0]),
    ([(i, 1, 0, [1], [1]) for i in range(30)],   # past 12 entries the table grows to 32, then 64
     [17, 20, 11, 26, 23, 14, 5, 0, 29, 8, 7, 4, 1, 27, 10, 13, 24, 21, 16, 28, 3, 9, 15, 18, 19, 22, 6, 2, 12, 25]),
    ([(i, 1, 0, [1, 2, 3], [1, 2]) for i in range(13)], [8, 11, 2, 5, 1, 3, 0, 6, 10, 9, 4, 12, 7]),
    ([(0, 2, 4, [2, 1], [2]), (1, -1, 3, [1, 2], []), (2, 1, 0, [1], [1])], [0, 2, 1]),
], ids=["3", "2 at epoch -1", "30", "13 with 3 replicas", "mixed"])
def test_a_topics_partitions_come_in_the_order_of_kafkas_scala_set_of_their_entries(partitions, expected):
    assert partition_order(partitions) == expected


def test_the_names_asked_come_in_the_order_of_a_scala_set_of_them():
    def asked_order(names):
        return immutable_set_order(names, [java_string_hashcode(n) for n in names])

    assert asked_order("orders payments t1 t2".split()) == "orders payments t1 t2".split()   # up to four
    assert asked_order("t2 t1 t2 orders".split()) == "t2 t1 orders".split()                   # once each
    assert asked_order("b a c d e f g topic-1 topic-2 __consumer_offsets".split()) == (
        "f topic-2 a __consumer_offsets b g c d topic-1 e".split())


def test_every_topic_comes_in_the_order_of_a_scala_mutable_hash_set_of_the_names():
    def all_order(names):
        return mutable_hash_set_order(names, [java_string_hashcode(n) for n in names])

    assert all_order("orders payments t1 t2".split()) == "payments orders t1 t2".split()
    assert all_order([f"topic-{i}" for i in range(1, 31)]) == [f"topic-{i}" for i in (
        6, 7, 8, 9, 1, 30, 2, 3, 10, 4, 11, 5, 12, 24, 25, 26, 27, 28, 29, 20, 21, 22, 23, 13, 14, 15, 16, 17, 18,
        19)]


def test_unknown_names_of_a_large_set_take_the_order_of_their_own_subset():
    """A Scala HashSet's subset is a trie of its own: its order is not the whole set's order
    with the others left out. In the set of ten, f comes before a and e; a HashSet of the
    three iterates e f a (printed by the JVM, `immutable.HashSet.from`)."""
    names = "b a c d e f g topic-1 topic-2 __consumer_offsets".split()
    known, unknown = known_and_unknown(names, lambda n: n not in ("a", "e", "f"), java_string_hashcode)
    assert known == "topic-2 __consumer_offsets b g c d topic-1".split()
    assert [n for n in immutable_set_order(names, [java_string_hashcode(n) for n in names])
            if n in "aef"] == ["f", "a", "e"]
    assert unknown == ["e", "f", "a"]


# Kafka 4.1.1's DescribeConfigs of a topic, every config and six asked for
KAFKAS_TOPIC_CONFIGS = (
    "compression.type remote.log.delete.on.disable leader.replication.throttled.replicas remote.storage.enable "
    "min.insync.replicas segment.jitter.ms remote.log.copy.disable local.retention.ms cleanup.policy flush.ms "
    "follower.replication.throttled.replicas compression.lz4.level segment.bytes retention.ms "
    "compression.gzip.level flush.messages compression.zstd.level max.compaction.lag.ms file.delete.delay.ms "
    "max.message.bytes min.compaction.lag.ms message.timestamp.type local.retention.bytes preallocate "
    "min.cleanable.dirty.ratio index.interval.bytes unclean.leader.election.enable retention.bytes "
    "delete.retention.ms message.timestamp.after.max.ms message.timestamp.before.max.ms segment.ms "
    "segment.index.bytes").split()
KAFKAS_SIX = "compression.type cleanup.policy max.message.bytes min.insync.replicas segment.bytes retention.ms".split()


@pytest.mark.parametrize("expected", [KAFKAS_TOPIC_CONFIGS, KAFKAS_SIX], ids=["all", "six"])
def test_described_configs_come_in_the_order_of_kafkas_scala_hash_map_of_their_names(expected):
    """Printed by the reference Kafka: its `allConfigs` is a Scala mutable.HashMap by name,
    and the keys asked filter it into another."""
    names = sorted(expected)
    assert mutable_hash_set_order(names, [java_string_hashcode(n) for n in names]) == expected


def test_a_topic_id_hashes_as_kafkas_uuid():
    """Uuid.hashCode: the xor of its two longs, then of that long's two ints."""
    topic_id = uuid.UUID("00000001-0000-0002-0000-000300000004")
    assert uuid_hash(topic_id) == 1 ^ 2 ^ 3 ^ 4


def test_the_handler_answers_each_name_once_known_ones_first(kafka_broker):
    with WireClient(kafka_broker.bootstrap_servers) as client:
        client.create_topics(["known-a"], 3)
        client.create_topics(["known-b"], 1)
        answer = client.request(3, 12, MetadataRequest(topics=[
            MetadataRequest.MetadataRequestTopic(name=n) for n in ("nope", "known-b", "known-a", "nope", "known-b")],
            allow_auto_topic_creation=False))
    assert [(t.name, t.error_code) for t in answer.topics] == [("known-b", 0), ("known-a", 0), ("nope", 3)]
    assert [p.partition_index for p in answer.topics[1].partitions] == [1, 2, 0]
