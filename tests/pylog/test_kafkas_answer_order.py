"""The order in which Kafka's group coordinator answers a DescribeGroups or DeleteGroups of
several groups: partition by partition of `__consumer_offsets`, in a Java HashMap's order (a
DeleteGroups: each partition's groups in a HashSet's order).
The expected orders were printed by Java 17 (a HashMap<TopicPartition, List<String>> filled
with computeIfAbsent, one call per group, as GroupCoordinatorService fills it, and
iterated); tests/compat/test_group_answer_order.py compares with the reference Kafka."""

import pytest

from pylog.coordinator.offsets import in_java_hash_set_order, in_kafkas_partition_order

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


def test_a_deletegroups_answers_a_partitions_groups_in_java_hash_set_order():
    """Kafka's DeleteGroups passes each partition's groups through a HashSet (Java 17 printed
    these orders); with one partition, the whole answer is that set's order."""
    groups = [f"order-{i}" for i in range(10, 30)]
    assert in_java_hash_set_order(groups) == (
        "order-20 order-11 order-22 order-10 order-21 order-13 order-24 order-12 order-23 order-15 order-26 "
        "order-14 order-25 order-17 order-28 order-16 order-27 order-19 order-18 order-29").split()
    assert in_java_hash_set_order("a b c group-1 group-2 x y z".split()) == "a b c x group-2 y z group-1".split()
    assert in_kafkas_partition_order(groups, 1, deleting=True) == in_java_hash_set_order(groups)
    assert in_kafkas_partition_order(groups, 1) == groups
