"""The orders in which Scala 2.13's sets and maps hand back what they hold, where Kafka
answers in them: a Metadata answer's partitions (a `mutable.HashSet` of the answer's
partition entries), its topics (the `Set` of the names asked, or a `mutable.HashSet` of
every name) and the topics it does not know; a DescribeConfigs answer's configs (a
`mutable.HashMap` by name, ordered as a `mutable.HashSet` of its keys); a DeleteRecords
answer's topics and partitions (immutable and mutable maps keyed by them); and the entries of
two checkpoint files Kafka writes from a `mutable.HashMap` (`recovery-point-offset-checkpoint`,
`log-start-offset-checkpoint`). The storage layer writes those, so these orders live here.

An element's place depends on its hash: Java's `hashCode` (`java_order.java_string_hashcode`
for a name; `list_hashcode` and `message_hashcode` for the answer entries, as Kafka's
generated message classes compute them).

scala.collection.mutable.HashSet: a table of buckets, 16 when built element by element
(a builder, `map`, `partition`), doubled before an element is added once the count would
reach three quarters of it; an element goes to bucket `improved & (size - 1)`, where
`improved = hash ^ (hash >>> 16)`, and each bucket is kept in ascending order of
`improved` (as a signed int). Iteration goes bucket by bucket. So the order depends only on
the elements and the table size, not on the order they were added in.

scala.collection.immutable.Set: up to four elements (`Set1` .. `Set4`) keep the order they
were added in; from the fifth, a `HashSet`: a CHAMP trie over `improve(hash)` (Scala's
`Hashing.improve`), five bits per level from the lowest, which is canonical (its shape
depends only on its elements). Iteration is depth first: a node's own elements in the order
of their five bits, then its sub-nodes in the same order. A `HashSet` built by `map` or
`partition` from a `HashSet` stays one however few it holds.

scala.collection.mutable.HashMap made by `mutable.Map.from`: as the HashSet, but when the
source tells its size (a `map` of a map) the table is sized for it up front:
`tableSizeFor((size + 1) / 0.75)`, the power of two above, at least 8.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence, TypeVar

from protocol.java_order import spread

T = TypeVar("T")

SMALL_SET_MAX = 4        # Set1 .. Set4
MUTABLE_TABLE_START = 16
CHAMP_BITS = 5


def list_hashcode(values: Iterable[int]) -> int:
    """`java.util.List.hashCode` of a list of Integers (1, then 31 * h + each), as an
    unsigned 32-bit value: the arithmetic wraps, so one mask at the end is enough."""
    h = 1
    for value in values:
        h = 31 * h + value
    return h & 0xFFFFFFFF


def message_hashcode(field_hashes: Iterable[int]) -> int:
    """A generated Kafka message's `hashCode` (0, then 31 * h + each field's hash: an int
    field is its own hash, a list its `list_hashcode`, a string its `hashCode`, null 0),
    as an unsigned 32-bit value."""
    h = 0
    for field_hash in field_hashes:
        h = 31 * h + field_hash
    return h & 0xFFFFFFFF


def mutable_hash_set_order(elements: Sequence[T], hashes: Sequence[int]) -> list[T]:
    """`elements` (distinct, with their Java hashes) as a `mutable.HashSet` built element by
    element iterates them."""
    return _mutable_table_order(elements, hashes, grown_table_size(len(elements)))


def mutable_hash_map_order(keys: Sequence[T], hashes: Sequence[int], *, size_known: bool) -> list[T]:
    """`keys` (distinct, with their Java hashes) as a `mutable.HashMap` made by
    `mutable.Map.from` iterates them: sized up front when its source tells its size (a
    `map` of a map: `size_known`), else grown from 16 as a set is."""
    if size_known:
        size = table_size_for(int((len(keys) + 1) / 0.75))
    else:
        size = grown_table_size(len(keys))
    return _mutable_table_order(keys, hashes, size)


def grown_table_size(count: int) -> int:
    """The buckets of a mutable table of 16 once `count` elements were added one by one:
    Scala grows it before adding the one that would reach three quarters."""
    size = MUTABLE_TABLE_START
    for added in range(1, count + 1):
        if added >= int(size * 0.75):
            size *= 2
    return size


def table_size_for(capacity: int) -> int:
    """Scala's `HashMap.tableSizeFor`: the buckets for `capacity` (at least 8)."""
    return min((1 << (max(capacity - 1, 4).bit_length() - 1)) * 2, 1 << 30)


def _mutable_table_order(elements: Sequence[T], hashes: Sequence[int], size: int) -> list[T]:
    if len(elements) < 2:
        return list(elements)
    mask = size - 1
    keyed = []
    for position, h in enumerate(hashes):
        improved = spread(h)   # Scala's `improveHash` is Java's HashMap spread
        # within a bucket, ascending as a signed int: flipping the sign bit orders unsigned alike
        keyed.append(((improved & mask) << 32 | (improved ^ 0x80000000), position))
    keyed.sort()
    return [elements[position] for _, position in keyed]


def improve(h: int) -> int:
    """Scala's `Hashing.improve`, the hash an immutable `HashSet` places an element by
    (int32). Worked on the unsigned 32-bit pattern, where Java's int arithmetic is the same
    arithmetic modulo 2^32, `~x` is `x ^ 0xFFFFFFFF` and `>>>` is `>>`."""
    h &= 0xFFFFFFFF
    x = (h + (((h << 9) & 0xFFFFFFFF) ^ 0xFFFFFFFF)) & 0xFFFFFFFF
    x ^= x >> 14
    x = (x + (x << 4)) & 0xFFFFFFFF
    x ^= x >> 10
    return x - ((x >> 31) << 32)


def champ_order(elements: Sequence[T], hashes: Sequence[int]) -> list[T]:
    """`elements` (distinct, with their Java hashes) as an immutable `HashSet` iterates them."""
    if len(elements) < 2:
        return list(elements)
    improved = [improve(h) & 0xFFFFFFFF for h in hashes]
    out: list[T] = []

    def visit(members: list[int], shift: int) -> None:
        if shift >= 32:   # equal hashes: a collision node, in the order added
            out.extend(elements[i] for i in members)
            return
        by_fragment: dict[int, list[int]] = {}
        for i in members:
            by_fragment.setdefault((improved[i] >> shift) & 0x1F, []).append(i)
        fragments = sorted(by_fragment)
        out.extend(elements[by_fragment[f][0]] for f in fragments if len(by_fragment[f]) == 1)
        for f in fragments:
            if len(by_fragment[f]) > 1:
                visit(by_fragment[f], shift + CHAMP_BITS)

    visit(list(range(len(elements))), 0)
    return out


def immutable_set_order(elements: Sequence[T], hashes: Sequence[int], *, hash_set: bool = False) -> list[T]:
    """The distinct `elements`, in the order added, as an immutable `Set` built from them
    iterates them: the order added for up to four (unless `hash_set`: a set built from a
    `HashSet`), the trie's order otherwise."""
    seen: dict[Any, int] = {}
    for element, h in zip(elements, hashes):
        seen.setdefault(element, h)
    if len(seen) <= SMALL_SET_MAX and not hash_set:
        return list(seen)
    return champ_order(list(seen), list(seen.values()))
