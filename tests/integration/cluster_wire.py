"""What the cluster tests look at, over the wire and on disk, without a client library.

Requests (each one connection, one request, one response; tests/pylog/wire.py RawClient):

    partition_view(cluster, topic, index)         Metadata v12: leader, leader epoch, replicas, isr
    produce(port, topic, index, values, acks)     Produce v9 of one batch to one broker: (error, base offset)
    fetch(port, topic, index, offset, ...)        Fetch v12: a consumer (replica_id -1) or a follower
    latest_offset(port, topic, index, isolation)  ListOffsets v7 timestamp -1: the HW (or the LSO)

Files (read while the node runs or after it stopped; a torn tail batch is left out):

    partition_records(partition_dir)   [(offset, partition leader epoch, value)] over every segment
    epoch_checkpoint(partition_dir)    the `leader-epoch-checkpoint` entries [(epoch, start offset)]
    metadata_records(metadata_dir)     every record of a `__cluster_metadata-0` directory, in order
    fence_count(cluster, broker_id)    how many times the controller's log fenced the broker

Nothing here is shared state; every call opens and closes what it uses.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from protocol.messages import FetchRequest, ListOffsetsRequest, ProduceRequest
from protocol.metadata import BrokerRegistrationChangeRecord, FenceBrokerRecord
from protocol.metadata_log import read_metadata_batch
from protocol.records import build_batch, iter_batch_headers, iter_batches, iter_records
from pylog.cluster import _metadata
from tests.pylog.wire import RawClient

PRODUCE_VERSION = 9
FETCH_VERSION = 12
LIST_OFFSETS_VERSION = 7


@dataclass(frozen=True)
class PartitionView:
    leader: int
    leader_epoch: int
    replicas: list[int]
    isr: list[int]


def partition_view(cluster, topic: str, index: int, via: int | None = None) -> PartitionView | None:
    """The partition as broker `via`'s (else the first live broker's) Metadata shows it."""
    nodes = [via] if via is not None else cluster.running_brokers()
    for node_id in nodes:
        try:
            response = _metadata(cluster.brokers[node_id].port, topic)
        except OSError:
            continue
        for found in response.topics:
            for p in found.partitions:
                if found.name == topic and found.error_code == 0 and p.partition_index == index:
                    return PartitionView(p.leader_id, p.leader_epoch, list(p.replica_nodes), list(p.isr_nodes))
    return None



def produce(port: int, topic: str, index: int, values: list[bytes], acks: int) -> tuple[int, int]:
    """One Produce v9 of `values` as one batch to the broker at `port` (no retry): (error code, base offset)."""
    batch = build_batch([(None, value) for value in values], timestamp_ms=int(time.time() * 1000))
    request = ProduceRequest(transactional_id=None, acks=acks, timeout_ms=30_000, topic_data=[
        ProduceRequest.TopicProduceData(name=topic, partition_data=[
            ProduceRequest.PartitionProduceData(index=index, records=batch)])])
    client = RawClient(f"127.0.0.1:{port}", timeout_s=60)
    try:
        response = client.request(0, PRODUCE_VERSION, request)
    finally:
        client.close()
    p = response.responses[0].partition_responses[0]
    return p.error_code, p.base_offset


def fetch(port: int, topic: str, index: int, offset: int, *, replica_id: int = -1, isolation_level: int = 0,
          current_leader_epoch: int = -1, last_fetched_epoch: int = -1, max_wait_ms: int = 0):
    """One Fetch v12 for one partition; the partition's answer (FetchResponse.PartitionData)."""
    request = FetchRequest(
        replica_id=replica_id, max_wait_ms=max_wait_ms, min_bytes=1, max_bytes=1 << 20,
        isolation_level=isolation_level, session_id=0, session_epoch=-1,
        topics=[FetchRequest.FetchTopic(topic=topic, partitions=[FetchRequest.FetchPartition(
            partition=index, current_leader_epoch=current_leader_epoch, fetch_offset=offset,
            last_fetched_epoch=last_fetched_epoch, log_start_offset=-1, partition_max_bytes=1 << 20)])],
        forgotten_topics_data=[], rack_id="")
    client = RawClient(f"127.0.0.1:{port}", timeout_s=30)
    try:
        response = client.request(1, FETCH_VERSION, request)
    finally:
        client.close()
    assert response.error_code == 0, response
    return response.responses[0].partitions[0]


def record_values(records: bytes) -> list[tuple[int, bytes]]:
    """(offset, value) of every record in a Fetch answer's record bytes."""
    out = []
    for batch in iter_batches(records):
        out += [(r.offset, r.value) for r in iter_records(batch)]
    return out


def latest_offset(port: int, topic: str, index: int, isolation_level: int = 0) -> tuple[int, int]:
    """ListOffsets v7 with timestamp -1 (latest): (error code, offset)."""
    request = ListOffsetsRequest(replica_id=-1, isolation_level=isolation_level, topics=[
        ListOffsetsRequest.ListOffsetsTopic(name=topic, partitions=[
            ListOffsetsRequest.ListOffsetsPartition(partition_index=index, timestamp=-1)])])
    client = RawClient(f"127.0.0.1:{port}", timeout_s=30)
    try:
        response = client.request(2, LIST_OFFSETS_VERSION, request)
    finally:
        client.close()
    p = response.topics[0].partitions[0]
    return p.error_code, p.offset


def _segment_bytes(directory: Path) -> list[bytes]:
    return [path.read_bytes() for path in sorted(directory.glob("*.log"))]


def partition_records(partition_dir: Path) -> list[tuple[int, int, bytes | None]]:
    """(offset, the batch's partition leader epoch, value) of every data record on disk."""
    out = []
    for data in _segment_bytes(partition_dir):
        for position, header in iter_batch_headers(data):
            if header.is_control:
                continue
            batch = memoryview(data)[position:position + header.size_bytes]
            out += [(r.offset, header.partition_leader_epoch, r.value) for r in iter_records(batch)]
    return out


def epoch_checkpoint(partition_dir: Path) -> list[tuple[int, int]]:
    """`leader-epoch-checkpoint`: version line, count line, then "epoch start_offset" lines."""
    lines = (partition_dir / "leader-epoch-checkpoint").read_text().split("\n")
    count = int(lines[1])
    return [tuple(int(x) for x in line.split()) for line in lines[2:2 + count]]


def metadata_records(metadata_dir: Path) -> list:
    """Every metadata record (not the Raft control records) of a `__cluster_metadata-0` directory."""
    out = []
    for data in _segment_bytes(metadata_dir):
        for batch in iter_batches(data):
            header, entries = read_metadata_batch(batch)
            if not header.is_control:
                out += [entry.record for entry in entries]
    return out


def fence_count(cluster, broker_id: int) -> int:
    """Fencings of `broker_id` in the controller's metadata log (FenceBrokerRecord, or a
    BrokerRegistrationChangeRecord with fenced = 1)."""
    return sum(1 for r in metadata_records(cluster.data_dir / "controller" / "__cluster_metadata-0")
               if (isinstance(r, FenceBrokerRecord) and r.id == broker_id)
               or (isinstance(r, BrokerRegistrationChangeRecord) and r.broker_id == broker_id and r.fenced == 1))
