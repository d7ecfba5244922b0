"""The order in which Kafka's `TimelineHashMap` hands back its keys, where Kafka answers in it:
the committed offsets of a group that OffsetFetch lists when asked for all of them (the
group coordinator's `OffsetMetadataManager` keeps them as a map of topic names, each a map
of partition numbers: pylog/coordinator/offsets_order.py), and the groups of each
`__consumer_offsets` partition that ListGroups lists (`GroupMetadataManager`'s map of group
ids: pylog/coordinator/offsets.py).

A `TimelineHashMap` is a hash table of Kafka's own (`org.apache.kafka.timeline.BaseHashTable`):

- an array of slots, 2 to begin with (a map made for 0 or 1 entries), doubled before any
  put, a new key's or a replacing one's, once `(size + 1) * 0.75` would exceed it; never
  shrunk, so a map that held n entries and had one of them replaced is as large as one
  that held n + 1;
- an entry goes to the slot given by the top bits of `hashCode * 0x9E3779B97F4A7C15` (Knuth's
  multiplicative hashing on 64 bits; as many bits as the array's size needs);
- entries that share a slot are kept in an array in the order they were added, and doubling
  keeps that order; a replaced value keeps its entry's place, a removed entry leaves the
  others in order, and an entry added again after its removal goes last;
- iteration goes slot by slot, and within a slot from the last added to the first.

So the order depends on the keys present, the order they were added in, and the table's
size. `TimelineHashOrder` follows one map through its puts and removes. (Reading at an
older snapshot, which Kafka does until its last write is committed, adds what that write
replaced or removed before the slot's current entries; the steady state is modelled.)
"""

from __future__ import annotations

from typing import Iterable

from protocol.java_order import java_string_hashcode

FIBONACCI_MULTIPLIER = 0x9E3779B97F4A7C15   # -7046029254386353131 as a Java long
MIN_CAPACITY = 2
MAX_CAPACITY = 1 << 30
MAX_LOAD_FACTOR = 0.75
LONG_MASK = (1 << 64) - 1


def slot_of(java_hash: int, capacity: int) -> int:
    """`BaseHashTable.findSlot`: the top bits of the 64-bit product, one per power of two of
    `capacity`. `java_hash` may be given signed or as its unsigned 32-bit pattern."""
    signed = ((java_hash + 0x80000000) & 0xFFFFFFFF) - 0x80000000
    return ((signed * FIBONACCI_MULTIPLIER) & LONG_MASK) >> (65 - capacity.bit_length())


class TimelineHashOrder:
    """The keys of one `TimelineHashMap`, Integers or Strings (Python ints and strs), in the
    order added, and the size of its table."""

    __slots__ = ("keys", "capacity")

    def __init__(self) -> None:
        self.keys: dict[int | str, None] = {}   # in the order added
        self.capacity = MIN_CAPACITY

    def __len__(self) -> int:
        return len(self.keys)

    def put(self, key: int | str) -> None:
        """Put `key`; a replaced key keeps its place, but the table grows as for an add."""
        if (len(self.keys) + 1) * MAX_LOAD_FACTOR > self.capacity and self.capacity < MAX_CAPACITY:
            self.capacity *= 2
        self.keys.setdefault(key)

    def remove(self, key: int | str) -> None:
        self.keys.pop(key, None)

    def ordered(self, keys: Iterable[int | str] | None = None) -> list:
        """The keys as the map iterates them; `keys`: only these (a key not in the map, such
        as one a write not yet committed removed, comes first in its slot)."""
        places = {key: index for index, key in enumerate(self.keys)}
        not_added = len(places)
        capacity = self.capacity

        def place(key) -> tuple[int, int]:
            return slot_of(java_hash(key), capacity), -places.get(key, not_added)

        return sorted(self.keys if keys is None else keys, key=place)


def java_hash(key: int | str) -> int:
    """`hashCode` of an Integer (its value) or a String."""
    return key if isinstance(key, int) else java_string_hashcode(key)
