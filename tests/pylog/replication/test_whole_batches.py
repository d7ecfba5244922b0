"""A follower appends only the whole batches of a fetched answer.

A leader's read stops at `partition_max_bytes` wherever that falls, possibly inside a
batch (as Kafka's does); the follower keeps the complete batches before it and leaves
the rest to its next fetch (`replica_fetcher.whole_batches`).
"""

from __future__ import annotations

from protocol.records import build_batch
from pylog.replication.replica_fetcher import whole_batches


def test_a_partial_last_batch_is_left_out():
    first = build_batch([(None, b"a" * 100)], base_offset=0, timestamp_ms=1)
    second = build_batch([(None, b"b" * 100)], base_offset=1, timestamp_ms=1)
    both = first + second
    assert bytes(whole_batches(both)) == both
    for cut in (len(first), len(first) + 1, len(first) + 60, len(both) - 1):
        assert bytes(whole_batches(both[:cut])) == first
    assert bytes(whole_batches(first[:10])) == b""
    assert bytes(whole_batches(b"")) == b""
