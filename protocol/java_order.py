"""The orders in which Java's hash collections hand back what they hold, where Kafka answers
in them: a group's members (a HashMap by member id: DescribeGroups, the leader's JoinGroup
answer, the member that becomes leader), the groups of a DescribeGroups or DeleteGroups (a
HashMap by `__consumer_offsets` partition, a HashSet of group ids), the topics of a
CreatePartitions (a HashSet of their names, in the controller), the `__consumer_offsets`
partitions a ListGroups goes through (the ConcurrentHashMap of the coordinator's shards), the
partition logs of a DescribeLogDirs (the LogManager's ConcurrentHashMap), the features of an
ApiVersions answer (HashMaps of their names, one a copy sized for what it copied), and where Kafka
writes in them: a producer snapshot's entries (a partition's HashMap of producers by id, also
DescribeProducers' order). Both the broker (pylog/) and the storage layer (storage/) follow
these orders, so they live here, below both.

java.util.HashMap (Java 17): a table of buckets, 16 on the first insertion, doubled when
it holds more than three quarters of its size; a key goes to bucket `spread(hash) & (size -
1)`, where `spread` folds the hash's high half into its low half; `put` links a new key at
its bucket's tail, `computeIfAbsent` at its head; a bucket that reaches eight or nine keys
(see each) while the table has fewer than 64 buckets doubles the table instead of becoming
a tree. Iteration goes bucket by bucket, each bucket's keys in link order, and doubling
keeps that order. A table never shrinks. Bigger crowded buckets become trees, whose order
none of this follows; no group has that many members on one bucket in practice.
"""

from __future__ import annotations

import functools
import itertools
import struct
from typing import Any, Iterable, Iterator

TREEIFY_CAPACITY = 64


def int32(value: int) -> int:
    """`value` wrapped to a Java int (signed 32 bits)."""
    return (value + 0x8000_0000) % 0x1_0000_0000 - 0x8000_0000


@functools.lru_cache(maxsize=65536)   # group ids and topic names, asked again by every request
def java_string_hashcode(text: str) -> int:
    """Java's `String.hashCode`: s[0]*31^(n-1) + ... + s[n-1] over UTF-16 code units, int32."""
    h = 0
    data = text.encode("utf-16-be", "surrogatepass")
    for (unit,) in struct.iter_unpack(">H", data):
        h = (31 * h + unit) & 0xFFFFFFFF
    return int32(h)


def java_long_hashcode(value: int) -> int:
    """Java's `Long.hashCode` (int32): the value's two 32-bit halves xor-ed."""
    bits = value & 0xFFFF_FFFF_FFFF_FFFF
    return int32((bits ^ (bits >> 32)) & 0xFFFF_FFFF)


def hash_map_capacity(size: int, capacity: int = 16) -> int:
    """The buckets of a HashMap of `capacity` buckets once it has held `size` keys: doubled
    while the keys are more than three quarters of it (a table never shrinks, so `size` is
    the most it ever held)."""
    while size > capacity * 3 // 4:
        capacity *= 2
    return capacity


def bucket_order(keys: Iterable[Any], spread_hashes, capacity: int) -> list:
    """`keys`, in the order they were put, as a HashMap of `capacity` buckets iterates them:
    bucket by bucket (`spread_hashes[key] & (capacity - 1)`), each bucket in the order put."""
    mask = capacity - 1
    return sorted(keys, key=lambda key: spread_hashes[key] & mask)


def grown_hash_map_order(keys: Iterable[Any], hash_code, most_held: int) -> list:
    """`keys`, in the order they were put, as a HashMap grown from 16 buckets iterates them
    once it has held at most `most_held` keys at a time (its table never shrinks);
    `hash_code(key)` is the key's Java hashCode."""
    spread_hashes = {key: spread(hash_code(key)) for key in keys}
    return bucket_order(spread_hashes, spread_hashes, hash_map_capacity(most_held))


def table_size_for(wanted: int) -> int:
    """Java's HashMap.tableSizeFor: the buckets of a table asked for `wanted`, the power of
    two at or above it."""
    return 1 << max(wanted - 1, 0).bit_length()


def spread(h: int) -> int:
    """Java's HashMap.hash: the key's hash with its high half folded into the low (as a
    non-negative 32-bit pattern)."""
    h &= 0xFFFFFFFF
    return h ^ (h >> 16)


def topic_partition_hash(topic: str, partition: int) -> int:
    """Java's TopicPartition.hashCode (int32)."""
    return int32(31 * (31 + partition) + java_string_hashcode(topic))


def uuid_hash(topic_id) -> int:
    """Kafka's `Uuid.hashCode` (as a non-negative 32-bit pattern): the two halves of its bits
    xor-ed, then the two halves of that."""
    bits = topic_id.int
    folded = (bits >> 64) ^ (bits & 0xFFFF_FFFF_FFFF_FFFF)
    return ((folded >> 32) ^ folded) & 0xFFFF_FFFF


@functools.lru_cache(maxsize=65536)   # a producer names the same partitions request after request
def topic_id_partition_hash(topic_id, topic: str, partition: int) -> int:
    """Kafka's TopicIdPartition.hashCode (int32): 31 * (31 + the id's hash) + the
    TopicPartition's."""
    return int32(31 * (31 + uuid_hash(topic_id)) + topic_partition_hash(topic, partition))


def hash_set_order(texts: Iterable[str]) -> list[str]:
    """The distinct `texts` as `new HashSet<>(texts)` iterates them: a HashMap whose table is
    sized for them up front (the power of two at or above size / 0.75 + 1, at least 16),
    each added with `put`."""
    distinct = list(dict.fromkeys(texts))
    table = JavaHashMap(table_size_for(max(int(len(distinct) / 0.75) + 1, 16)))
    for text in distinct:
        table[text] = True
    return list(table)


def computed_bucket_order(key_hashes_per_call: Iterable[int], keys: Iterable[Any] | None = None) -> list[int]:
    """The order in which a HashMap filled with one `computeIfAbsent` (or `compute`) per
    element (the same key's hash again for a key it holds) iterates its distinct keys, as
    indexes in order of first appearance: the table doubles at the start of a call once it
    holds more than three quarters of its size (a call for a key it holds too), and after
    linking a new key at its bucket's head, when that bucket had seven or more, if it has
    fewer than 64. `keys`, the key of each call, tells keys apart that share a hash;
    without them a hash stands for its key."""
    hashes: list[int] = []
    seen: set[Any] = set()
    capacity = 16
    for key_hash, key in zip(key_hashes_per_call, keys if keys is not None else itertools.repeat(None)):
        if len(hashes) > capacity * 3 // 4:
            capacity *= 2
        identity = key_hash if keys is None else key
        if identity in seen:
            continue
        already = _in_bucket(hashes, key_hash, capacity)
        hashes.append(key_hash)
        seen.add(identity)
        if already >= 7 and capacity < TREEIFY_CAPACITY:
            capacity *= 2
    return sorted(range(len(hashes)), key=lambda i: (hashes[i] & (capacity - 1), -i))


def concurrent_hash_map_order(key_hashes: Iterable[int]) -> list[int]:
    """The order in which a `java.util.concurrent.ConcurrentHashMap` iterates the keys put
    into it (distinct, none removed), as indexes in the order put. Its table has 16 bins
    from the first put and doubles once it holds three quarters of its size; a key goes to
    bin `spread(hash) & 0x7fffffff & (size - 1)`, at the bin's tail. Doubling splits each bin
    in two: the run of keys at its end that go to the same half stays in order, and each key
    before that run goes to the front of its half, so those come last first. Iteration goes
    bin by bin."""
    hashes = [spread(h) & 0x7FFF_FFFF for h in key_hashes]
    size = 16
    bins: list[list[int]] = [[] for _ in range(size)]
    for index, h in enumerate(hashes):
        bins[h & (size - 1)].append(index)
        if index + 1 >= size - (size >> 2):
            doubled: list[list[int]] = [[] for _ in range(2 * size)]
            for number, keys in enumerate(bins):
                if not keys:
                    continue
                run_start = 0
                for position in range(1, len(keys)):
                    if hashes[keys[position]] & size != hashes[keys[run_start]] & size:
                        run_start = position
                low, high = doubled[number], doubled[number + size]
                (high if hashes[keys[run_start]] & size else low).extend(keys[run_start:])
                for key in keys[:run_start]:
                    (high if hashes[key] & size else low).insert(0, key)
            bins, size = doubled, 2 * size
    return [index for keys in bins for index in keys]


def _in_bucket(hashes: list[int], key_hash: int, capacity: int) -> int:
    return sum(1 for h in hashes if (h ^ key_hash) & (capacity - 1) == 0)


class JavaHashMap(dict):
    """A dict of string keys that iterates (`iter`, `keys`, `values`, `items`) in the order
    a java.util.HashMap<String, V> filled with `put` and emptied with `remove` in the same
    sequence would. Only item assignment, `del`, `pop`, `get`, `in` and `len` are meant to
    be used on it; the others are refused rather than left to break the order."""

    __slots__ = ("_hash", "_capacity")

    def __init__(self, capacity: int = 16) -> None:
        super().__init__()
        self._hash: dict[str, int] = {}     # key -> spread hash
        self._capacity = capacity

    def __setitem__(self, key: str, value: Any) -> None:
        if key not in self._hash:
            key_hash = spread(java_string_hashcode(key))
            if _in_bucket(list(self._hash.values()), key_hash, self._capacity) >= 8 and \
                    self._capacity < TREEIFY_CAPACITY:
                self._capacity *= 2
            self._hash[key] = key_hash
            self._capacity = hash_map_capacity(len(self._hash), self._capacity)
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        super().__delitem__(key)
        del self._hash[key]

    def pop(self, key: str, *default: Any) -> Any:
        self._hash.pop(key, None)
        return super().pop(key, *default)

    def _ordered(self) -> list[str]:
        """Bucket by bucket; within one, the dict's own order, which is Java's link order: a
        new key goes last, a key put again keeps its place, one removed and put again goes
        last."""
        return bucket_order(dict.keys(self), self._hash, self._capacity)

    def __iter__(self) -> Iterator[str]:
        return iter(self._ordered())

    def keys(self) -> list[str]:   # type: ignore[override]
        return self._ordered()

    def values(self) -> list[Any]:   # type: ignore[override]
        return [dict.__getitem__(self, k) for k in self._ordered()]

    def items(self) -> list[tuple[str, Any]]:   # type: ignore[override]
        return [(k, dict.__getitem__(self, k)) for k in self._ordered()]

    def _refused(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("JavaHashMap keeps Java's order only through item assignment, del and pop")

    setdefault = update = popitem = clear = copy = __ior__ = _refused   # type: ignore[assignment]


def hash_map_order(keys: Iterable[str]) -> list[str]:
    """The distinct `keys` as a `new HashMap<>()` filled by `put` in their order iterates
    them."""
    table = JavaHashMap()
    for key in keys:
        table[key] = True
    return list(table)


def copied_hash_map(items: Iterable[tuple[str, Any]]) -> JavaHashMap:
    """`new HashMap<>(map)` of a map that iterates as `items`: its table is sized for them
    up front, to the power of two at or above size / 0.75 + 1 (with no floor of 16: three
    keys get 8 buckets), and each is put in the source's order. A copy of an empty map gets
    the default 16 buckets at its first put."""
    items = list(items)
    table = JavaHashMap(table_size_for(int(len(items) / 0.75 + 1)) if items else 16)
    for key, value in items:
        table[key] = value
    return table
