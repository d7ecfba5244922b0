"""`leader-epoch-checkpoint` and OffsetForLeaderEpoch: pylog against the reference Kafka.

One fresh pylog and one fresh Kafka get the same requests: topics created, the same
record batches produced over a raw socket, DeleteRecords on two of them (which moves
the first epoch entry to the new log start: LeaderEpochFileCache.truncateFromStart).
Then, per partition, the `leader-epoch-checkpoint` files must be byte-identical while
both run and again after both stop cleanly, and OffsetForLeaderEpoch must answer the
same for epochs below, at and above the current one. (Kafka writes the file
synchronously when an epoch is assigned, which a new partition's leader does at once,
and from a scheduler thread after DeleteRecords: the test waits for that write.)

Not compared here: what a restart does. Kafka moves each partition of a single node
from leader epoch 0 to 2 across a clean restart; pylog keeps 0.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from protocol.messages import OffsetForLeaderEpochRequest
from protocol.records import build_batch
from tests.compat.conftest import fresh_pair
from tests.compat.test_delete_records_wire import create_topic, delete_records
from tests.integration.support import WireClient

OFFSET_FOR_LEADER_EPOCH = 23
RETRIABLE = (3, 6)  # UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER: Kafka, while a new topic's leader starts
# topic -> (partitions, batches of 3 records to each partition, DeleteRecords offset or None)
TOPICS = {
    "never-written": (1, 0, None),
    "written": (2, 7, None),
    "some-deleted": (1, 6, 10),
    "all-deleted": (1, 4, -1),  # -1: up to the high watermark
}
PARTITIONS = [f"{topic}-{p}" for topic, (count, _, _) in TOPICS.items() for p in range(count)]
ASKED_EPOCHS = (-5, -1, 0, 1, 2)


def produce(client: WireClient, topic: str, partition: int, batch: bytes) -> None:
    deadline = time.monotonic() + 30
    while True:
        response = client.produce(topic, partition, batch, acks=-1)
        if response.error_code not in RETRIABLE or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert response.error_code == 0, (topic, partition, response.error_code)


def write_the_same_workload(client: WireClient) -> None:
    for topic, (partitions, batches, _) in TOPICS.items():
        create_topic(client, topic, partitions)
    for topic, (partitions, batches, deleted_to) in TOPICS.items():
        for partition in range(partitions):
            for i in range(batches):
                produce(client, topic, partition, build_batch(
                    [(b"k%d" % j, b"v%d-%d" % (i, j)) for j in range(3)], timestamp_ms=1_700_000_000_000 + i))
        if deleted_to is not None:
            [(_, _, error_code, _)] = delete_records(client, topic, [(0, deleted_to)])
            assert error_code == 0


def end_offsets_for_epochs(client: WireClient) -> dict:
    Topic, Partition = OffsetForLeaderEpochRequest.OffsetForLeaderTopic, OffsetForLeaderEpochRequest.OffsetForLeaderPartition
    answers = {}
    for epoch in ASKED_EPOCHS:
        request = OffsetForLeaderEpochRequest(replica_id=-1, topics=[
            Topic(topic=topic, partitions=[Partition(partition=p, current_leader_epoch=-1, leader_epoch=epoch)
                                           for p in range(partitions)])
            for topic, (partitions, _, _) in TOPICS.items()])
        for topic in client.request(OFFSET_FOR_LEADER_EPOCH, 4, request).topics:
            for p in topic.partitions:
                answers[(topic.topic, p.partition, epoch)] = (p.error_code, p.leader_epoch, p.end_offset)
    return answers


def checkpoints(data_dir: Path) -> dict[str, bytes]:
    return {partition: (data_dir / partition / "leader-epoch-checkpoint").read_bytes() for partition in PARTITIONS}


def wait_for_flush(data_dir: Path, partition: str, expected_count_line: bytes, timeout_s: float = 15) -> None:
    """Kafka writes the file after DeleteRecords from its scheduler: wait until it did."""
    path = data_dir / partition / "leader-epoch-checkpoint"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        text = path.read_bytes()
        if text.startswith(b"0\n" + expected_count_line) and text != b"0\n1\n0 0\n":
            return
        time.sleep(0.1)


@pytest.fixture(scope="module")
def twin_checkpoints(tmp_path_factory):
    root = tmp_path_factory.mktemp("epoch-checkpoints")
    brokers = fresh_pair(root)
    running, answers = {}, {}
    try:
        for name, broker in brokers.items():
            broker.start()
            with WireClient(broker.bootstrap_servers, timeout_s=30) as client:
                write_the_same_workload(client)
                for partition in ("some-deleted-0", "all-deleted-0"):
                    wait_for_flush(broker.data_dir, partition, b"1\n")
                running[name] = checkpoints(broker.data_dir)
                answers[name] = end_offsets_for_epochs(client)
    finally:
        codes = {name: broker.stop() if broker.process is not None else None for name, broker in brokers.items()}
    assert codes["pylog"] == 0
    stopped = {name: checkpoints(broker.data_dir) for name, broker in brokers.items()}
    return {"running": running, "stopped": stopped, "answers": answers}


@pytest.mark.parametrize("when", ["running", "stopped"])
@pytest.mark.parametrize("partition", PARTITIONS)
def test_leader_epoch_checkpoints_are_byte_identical(twin_checkpoints, partition, when, compat_table):
    ours, theirs = twin_checkpoints[when]["pylog"][partition], twin_checkpoints[when]["kafka"][partition]
    compat_table.record("files", f"{partition}/leader-epoch-checkpoint ({when}): {theirs!r}", "written", "written",
                        "same bytes" if ours == theirs else f"differs: pylog {ours!r}")
    assert ours == theirs


def test_what_kafka_writes(twin_checkpoints):
    """The reference bytes themselves: a new partition at epoch 0, and the first entry
    moved to the new log start by DeleteRecords (truncateFromStart)."""
    kafka = twin_checkpoints["stopped"]["kafka"]
    assert kafka["never-written-0"] == kafka["written-0"] == kafka["written-1"] == b"0\n1\n0 0\n"
    assert kafka["some-deleted-0"] == b"0\n1\n0 10\n"
    assert kafka["all-deleted-0"] == b"0\n1\n0 12\n"


def test_offset_for_leader_epoch_answers_alike(twin_checkpoints, compat_table):
    ours, theirs = twin_checkpoints["answers"]["pylog"], twin_checkpoints["answers"]["kafka"]
    differing = {key: (ours.get(key), value) for key, value in theirs.items() if ours.get(key) != value}
    compat_table.record("client", f"OffsetForLeaderEpoch v4, epochs {ASKED_EPOCHS}", "answered", "answered",
                        "same" if not differing else f"differs: {differing}")
    assert differing == {}
    assert theirs[("some-deleted", 0, 0)] == (0, 0, 18)
    assert theirs[("some-deleted", 0, -5)] == (0, -5, 10)
