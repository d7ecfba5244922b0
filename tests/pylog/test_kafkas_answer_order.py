"""The orders of Java's hash collections in which Kafka's group coordinator answers
(protocol/java_order.py): the groups of a DescribeGroups or DeleteGroups
(partition by partition of `__consumer_offsets` in a HashMap's order; a DeleteGroups, each
partition's groups in a HashSet's order) and a group's members (a HashMap by member id).
The expected orders were printed by Java 17 (a HashMap<TopicPartition, List<String>> filled
with computeIfAbsent, one call per group, as GroupCoordinatorService fills it; a HashSet; a
HashMap<String, ?> with puts and removes); tests/compat/test_group_answer_order.py compares
with the reference Kafka."""

import pytest

from protocol.java_order import JavaHashMap, hash_set_order
from pylog.coordinator.offsets import in_kafkas_partition_order

CASES = [
    (50, [f"group-{i}" for i in range(1, 21)],
     "group-1 group-16 group-17 group-2 group-14 group-15 group-12 group-13 group-10 group-11 group-9 group-7 "
     "group-8 group-20 group-5 group-6 group-18 group-3 group-19 group-4"),
    # a group named twice is answered twice; the 5-partition topic of pylog's default
    (5, list("abcdefga"), "d b g c e a f a"),
    # 40 groups over more than 12 partitions: the table grows to 32 and 64 buckets
    (50, [f"g{i}" for i in range(1, 41)],
     "g33 g7 g31 g5 g3 g19 g1 g39 g37 g35 g21 g17 g29 g15 g27 g13 g25 g11 g23 g6 g34 g4 g32 g2 g40 g30 g38 g8 g36 "
     "g20 g9 g10 g28 g18 g26 g16 g24 g14 g22 g12"),
]


@pytest.mark.parametrize("partitions, groups, expected", CASES, ids=["20 groups", "twice", "40 groups"])
def test_the_order_java_iterates_the_coordinators_map_in(partitions, groups, expected):
    assert in_kafkas_partition_order(groups, partitions) == expected.split()


def test_a_deletegroups_answers_a_partitions_groups_hash_set_order():
    """Kafka's DeleteGroups passes each partition's groups through a HashSet (Java 17 printed
    these orders); with one partition, the whole answer is that set's order."""
    groups = [f"order-{i}" for i in range(10, 30)]
    assert hash_set_order(groups) == (
        "order-20 order-11 order-22 order-10 order-21 order-13 order-24 order-12 order-23 order-15 order-26 "
        "order-14 order-25 order-17 order-28 order-16 order-27 order-19 order-18 order-29").split()
    assert hash_set_order("a b c group-1 group-2 x y z".split()) == "a b c x group-2 y z group-1".split()
    assert in_kafkas_partition_order(groups, 1, deleting=True) == hash_set_order(groups)
    assert in_kafkas_partition_order(groups, 1) == groups


def test_a_groups_members_iterate_in_java_hash_map_order():
    """ClassicGroup keeps its members in a JavaHashMap: the order Java 17 printed for a
    HashMap<String, ?> with the same puts and removes (a removed key put again goes to its
    bucket's tail; 18 keys double the table to 32 buckets)."""
    members = JavaHashMap()
    for key in ("consumer-1-aaa", "consumer-2-bbb", "consumer-3-ccc", "consumer-4-ddd"):
        members[key] = key.upper()
    assert list(members) == "consumer-4-ddd consumer-1-aaa consumer-2-bbb consumer-3-ccc".split()
    assert members.values()[0] == "CONSUMER-4-DDD"
    del members["consumer-2-bbb"]
    members["consumer-2-bbb"] = "again"
    for i in range(1, 15):
        members[f"m-{i}"] = i
    assert list(members) == ("consumer-4-ddd consumer-1-aaa consumer-2-bbb m-10 m-1 m-13 m-14 m-3 m-11 m-2 m-12 m-5 "
                             "m-4 m-7 consumer-3-ccc m-6 m-9 m-8").split()
    assert members.pop("m-10") == 10 and "m-10" not in list(members)
    with pytest.raises(TypeError):
        members.update({"x": 1})
