"""pylog/timeline_order.py: the iteration order of Kafka's TimelineHashMap. Each expected order
is what Kafka 4.1.1 answered to OffsetFetch of all of a group's offsets after the same
commits (`c`) and OffsetDeletes (`d`) of one topic's partitions; tests/compat's
test_offset_fetch_order.py draws such histories against the reference itself."""

from __future__ import annotations

import pytest

from protocol.java_order import java_string_hashcode
from pylog.timeline_order import TimelineHashOrder, slot_of


def replayed(history: str) -> TimelineHashOrder:
    """'c:0,1,2/d:1/...': puts and removes of partition numbers, in order."""
    order = TimelineHashOrder()
    for step in history.split("/"):
        kind, numbers = step.split(":")
        for number in map(int, numbers.split(",")):
            if kind == "c":
                order.put(number)
            else:
                order.remove(number)
    return order


@pytest.mark.parametrize("history, kafkas", [
    ("c:0,1,2", [2, 0, 1]),
    ("c:5,3,9,12,0,7,1", [0, 5, 7, 12, 1, 9, 3]),
    ("c:" + ",".join(map(str, range(21))),
     [13, 0, 18, 5, 10, 2, 15, 20, 7, 12, 4, 17, 9, 1, 14, 19, 6, 11, 3, 16, 8]),
    ("c:0,1,2/c:0,1,2", [2, 0, 1]),
    ("c:0/c:1/c:2", [2, 0, 1]),
    ("c:2,3/c:4,5", [5, 2, 4, 3]),
    ("c:0,1,2,3,4,5/d:1,2/c:2,1", [5, 0, 2, 4, 1, 3]),   # removed and put again: last in its slot
    # 21 keys, then a put replacing one of them: the table grows to 32 as if a key were added
    ("c:23,21,9,8,19,6/c:12,16,11,17,14,22,8,1,0,5,7,19,6,21,20,2,9,18,10,15,23",
     [0, 5, 18, 10, 23, 2, 15, 7, 20, 12, 17, 9, 1, 22, 14, 6, 19, 11, 16, 8, 21]),
])
def test_the_order_kafka_answered(history, kafkas):
    assert replayed(history).ordered() == kafkas


def test_a_replacing_put_grows_the_table_as_an_add_would():
    order = replayed("c:0")
    order.put(0)
    assert order.capacity == 2      # (1 + 1) * 0.75 <= 2
    order.put(1)
    assert order.capacity == 2
    order.put(1)                    # a replacement, (2 + 1) * 0.75 > 2
    assert order.capacity == 4 and len(order) == 2
    grown = replayed("c:" + ",".join(map(str, range(21))))
    assert grown.capacity == 16
    grown.put(3)
    assert grown.capacity == 32 and len(grown) == 21


def test_a_negative_hash_places_as_its_unsigned_pattern_does():
    name = "orders-x2"
    signed = java_string_hashcode(name)
    assert signed < 0
    for capacity in (2, 4, 8, 1024):
        assert slot_of(signed, capacity) == slot_of(signed & 0xFFFFFFFF, capacity)
        assert 0 <= slot_of(signed, capacity) < capacity


def test_only_the_keys_asked_for_and_a_missing_key_first_in_its_slot():
    order = replayed("c:0,1,2")                  # slots of 4: 0 and 2 share slot 0
    assert order.ordered([1, 0]) == [0, 1]
    order.remove(0)
    assert order.ordered([0, 1, 2]) == [0, 2, 1]   # 0 (removed) before 2 in their slot
