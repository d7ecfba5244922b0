"""Helpers for the compat tests that send the same raw requests to pylog and to the reference
Kafka and compare the answers field by field."""

from __future__ import annotations

import time
from typing import Callable, Collection

from protocol.messages import CreateTopicsRequest, ProduceRequest
from tests.integration.support import WireClient


def plain(value, skipped: Collection[str] = ("throttle_time_ms",)):
    """A message as nested lists and dicts (record bytes as `bytes`), without the fields named
    in `skipped`: what differs by nature between two brokers (topic ids, ports, ...)."""
    if isinstance(value, list):
        return [plain(v, skipped) for v in value]
    if isinstance(value, memoryview):
        return bytes(value)
    if hasattr(value, "FIELDS"):
        return {f.name: plain(getattr(value, f.name), skipped) for f in value.FIELDS if f.name not in skipped}
    return value


def produce_to_every_partition(client: WireClient, names: list[str], partitions: int, records: bytes,
                               timeout_s: float = 30) -> None:
    """`records` into every partition of the topics `names`, once each: a partition whose
    leader is not ready yet (a new topic's, on Kafka) is asked again until the deadline."""
    left = {(name, index) for name in names for index in range(partitions)}
    deadline = time.monotonic() + timeout_s
    while left and time.monotonic() < deadline:
        answer = client.request(0, 9, ProduceRequest(acks=-1, timeout_ms=5000, topic_data=[
            ProduceRequest.TopicProduceData(name=name, partition_data=[
                ProduceRequest.PartitionProduceData(index=index, records=records)]) for name, index in sorted(left)]))
        left -= {(t.name, p.index) for t in answer.responses for p in t.partition_responses if p.error_code == 0}
        if left:
            time.sleep(0.1)
    assert not left, f"no leader in time for {sorted(left)}"


def topics_with_records(client: WireClient, names: list[str], partitions: int, *batches: bytes) -> dict:
    """Create the topics `names` with `partitions` partitions each, append `batches` to every
    partition, in order, and return the broker's topic ids by name."""
    answer = client.request(19, 5, CreateTopicsRequest(timeout_ms=30_000, topics=[CreateTopicsRequest.CreatableTopic(
        name=name, num_partitions=partitions, replication_factor=1) for name in names]))
    assert all(topic.error_code == 0 for topic in answer.topics), answer
    for batch in batches:
        produce_to_every_partition(client, names, partitions, batch)
    return {topic.name: topic.topic_id for topic in client.metadata(names).topics}


COORDINATOR_NOT_READY = (14, 15, 16)   # COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR


def while_coordinator_loads(call: Callable[[], tuple], timeout_s: float = 30, pause_s: float = 0.1):
    """`call()` again while a group coordinator is not ready yet (Kafka's loads its partition
    just after FindCoordinator answers): it returns an answer and its error code, or codes,
    and is called until none of them is in COORDINATOR_NOT_READY or the time is up. Returns
    the last answer."""
    deadline = time.monotonic() + timeout_s
    while True:
        answer, codes = call()
        if isinstance(codes, int):
            codes = (codes,)
        if not set(codes) & set(COORDINATOR_NOT_READY) or time.monotonic() > deadline:
            return answer
        time.sleep(pause_s)
