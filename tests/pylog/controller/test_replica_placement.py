"""Kafka's striped replica placement: distinct replicas, leaders spread, unfenced leaders,
fenced brokers only as followers, racks honoured, Kafka's refusals, determinism."""

from __future__ import annotations

import random
import uuid
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pylog.controller.replica_placement import (
    MIGRATING_DIRECTORY,
    UNASSIGNED_DIRECTORY,
    PlacementError,
    UsableBroker,
    default_directory,
    is_active,
    place_replicas,
    usable_brokers,
)

from tests.pylog.controller.cluster_images import cluster


def brokers(*ids, fenced=(), racks=None) -> list[UsableBroker]:
    return [UsableBroker(i, (racks or {}).get(i), i in fenced) for i in ids]


def test_every_partition_gets_distinct_replicas_and_leaders_spread_evenly():
    placed = place_replicas(brokers(1, 2, 3, 4), 12, 3, random.Random(7))
    assert len(placed) == 12
    assert all(len(r) == 3 and len(set(r)) == 3 for r in placed)
    assert Counter(r[0] for r in placed) == {1: 3, 2: 3, 3: 3, 4: 3}
    # every broker holds the same number of replicas too
    assert Counter(b for r in placed for b in r) == {1: 9, 2: 9, 3: 9, 4: 9}


def test_the_same_seed_places_the_same_way_and_another_seed_may_not():
    first = place_replicas(brokers(1, 2, 3, 4, 5), 20, 3, random.Random(42))
    again = place_replicas(brokers(1, 2, 3, 4, 5), 20, 3, random.Random(42))
    assert first == again
    others = {tuple(map(tuple, place_replicas(brokers(1, 2, 3, 4, 5), 20, 3, random.Random(seed))))
              for seed in range(10)}
    assert len(others) > 1


def test_without_racks_the_first_round_is_a_rotation_with_shifted_followers():
    # One rack (none): the brokers in id order from a random start, each partition one on;
    # followers follow the leader's successor, shifted by one each round.
    placed = place_replicas(brokers(1, 2, 3), 3, 2, random.Random(3))
    leaders = [r[0] for r in placed]
    assert sorted(leaders) == [1, 2, 3]
    start = leaders[0]
    assert leaders == [(start - 1 + k) % 3 + 1 for k in range(3)]


def test_fenced_brokers_are_never_leaders_but_fill_in_as_followers():
    placed = place_replicas(brokers(1, 2, 3, fenced=(3,)), 10, 3, random.Random(1))
    assert all(r[0] in (1, 2) for r in placed)
    assert all(sorted(r) == [1, 2, 3] for r in placed)
    two = place_replicas(brokers(1, 2, 3, fenced=(3,)), 10, 2, random.Random(1))
    assert all(3 not in r for r in two)   # unfenced brokers first


def test_with_racks_each_partition_spans_racks():
    racks = {1: "a", 2: "a", 3: "b", 4: "b", 5: "c", 6: "c"}
    placed = place_replicas(brokers(1, 2, 3, 4, 5, 6, racks=racks), 30, 3, random.Random(5))
    assert all(len({racks[b] for b in r}) == 3 for r in placed)
    assert Counter(racks[r[0]] for r in placed) == {"a": 10, "b": 10, "c": 10}


@pytest.mark.parametrize("usable, replication_factor, message", [
    (brokers(1, 2), 0, "Invalid replication factor 0: the replication factor must be positive."),
    (brokers(1, 2, fenced=(1, 2)), 1, "All brokers are currently fenced."),
    ([], 1, "All brokers are currently fenced."),
    (brokers(1, 2), 3, "The target replication factor of 3 cannot be reached because only 2 broker(s) "
                       "are registered."),
])
def test_kafkas_refusals(usable, replication_factor, message):
    with pytest.raises(PlacementError) as e:
        place_replicas(usable, 1, replication_factor, random.Random(0))
    assert str(e.value) == message


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 8), st.integers(0, 8), st.integers(1, 40), st.integers(1, 8), st.integers(0, 2**32),
       st.booleans())
def test_any_cluster_gets_distinct_replicas_and_an_unfenced_leader(unfenced, fenced, partitions,
                                                                   replication_factor, seed, with_racks):
    ids = list(range(1, unfenced + fenced + 1))
    fenced_ids = set(ids[unfenced:])
    racks = {i: f"r{i % 3}" for i in ids} if with_racks else None
    usable = brokers(*ids, fenced=fenced_ids, racks=racks)
    if replication_factor > len(ids):
        with pytest.raises(PlacementError):
            place_replicas(usable, partitions, replication_factor, random.Random(seed))
        return
    placed = place_replicas(usable, partitions, replication_factor, random.Random(seed))
    assert len(placed) == partitions
    for replicas in placed:
        assert len(replicas) == replication_factor == len(set(replicas))
        assert set(replicas) <= set(ids)
        assert replicas[0] not in fenced_ids
    if not with_racks and partitions == unfenced:   # one round: each unfenced broker leads once
        assert sorted(r[0] for r in placed) == ids[:unfenced]


def test_usable_brokers_leave_out_controlled_shutdown_and_keep_fenced_ones():
    image = cluster(1, 2, 3, 4, fenced=(3,), shutting_down=(4,), racks={1: "x"})
    assert usable_brokers(image) == [UsableBroker(1, "x", False), UsableBroker(2, None, False),
                                     UsableBroker(3, None, True)]
    assert [b for b in (1, 2, 3, 4, 5) if is_active(image, b)] == [1, 2]


def test_a_replicas_default_directory_is_the_brokers_only_one():
    one, two = uuid.UUID(int=0xA1), uuid.UUID(int=0xA2)
    image = cluster(1, 2, 3, log_dirs={1: [one], 2: [one, two]})
    assert default_directory(image, 1) == one
    assert default_directory(image, 2) == UNASSIGNED_DIRECTORY
    assert default_directory(image, 3) == MIGRATING_DIRECTORY
    assert default_directory(image, 9) == UNASSIGNED_DIRECTORY


class JavaRandom:
    """java.util.Random, drawing as Kafka's placer draws: nextInt(bound) for `randrange`,
    Collections.shuffle's swaps for `shuffle`."""

    MASK = (1 << 48) - 1

    def __init__(self, seed: int):
        self.seed = (seed ^ 0x5DEECE66D) & self.MASK

    def _next31(self) -> int:
        self.seed = (self.seed * 0x5DEECE66D + 0xB) & self.MASK
        return self.seed >> 17

    def randrange(self, bound: int) -> int:
        r, m = self._next31(), bound - 1
        if bound & m == 0:
            return (bound * r) >> 31
        u = r
        while True:
            r = u % bound
            if u - r + m < 1 << 31:   # Java's int overflow test
                return r
            u = self._next31()

    def shuffle(self, items: list) -> None:
        for i in range(len(items), 1, -1):
            j = self.randrange(i)
            items[i - 1], items[j] = items[j], items[i - 1]


# Kafka 4.1.1's StripedReplicaPlacer with new java.util.Random(seed) (printed by a Java
# program against kafka-metadata-4.1.1.jar). With racks, Kafka visits them in its hash
# map's order, which for one-letter names is their sorted order, pylog's.
@pytest.mark.parametrize("seed, usable, partitions, replication_factor, expected", [
    (1, brokers(1, 2, 3, 4), 12, 3,
     [[3, 4, 1], [4, 1, 2], [1, 2, 3], [2, 3, 4], [1, 2, 4], [2, 4, 3], [4, 3, 1], [3, 1, 2], [1, 4, 2],
      [4, 2, 3], [2, 3, 1], [3, 1, 4]]),
    (42, brokers(3, 1, 2, fenced=(2,)), 10, 2,
     [[1, 3], [3, 1], [3, 1], [1, 3], [1, 3], [3, 1], [1, 3], [3, 1], [3, 1], [1, 3]]),
    (7, brokers(1, 2, 3, 4, 5, 6, racks={1: "a", 2: "a", 3: "b", 4: "b", 5: "c", 6: "c"}), 9, 3,
     [[4, 6, 2], [5, 1, 3], [2, 4, 6], [3, 5, 1], [6, 2, 4], [1, 3, 5], [2, 4, 6], [3, 5, 1], [6, 2, 4]]),
    (1234, brokers(5, 1, 4, 2, 3, fenced=(1,), racks={5: "x", 1: "y", 4: "x", 2: "y", 3: "z"}), 14, 3,
     [[3, 5, 2], [4, 2, 3], [2, 3, 5], [3, 4, 2], [2, 3, 5], [3, 4, 2], [5, 2, 3], [2, 3, 4], [4, 2, 3],
      [2, 3, 5], [3, 4, 2], [5, 2, 3], [2, 5, 3], [4, 3, 2]]),
])
def test_with_javas_random_the_placement_is_exactly_kafkas(seed, usable, partitions, replication_factor,
                                                           expected):
    assert place_replicas(usable, partitions, replication_factor, JavaRandom(seed)) == expected
