"""What pylog writes into `__consumer_offsets` against what Kafka writes, record by record.

One pylog and one Kafka, fresh for this module, get the same group operations:

- a simple commit (generation -1, no member: the admin client's or an `assign()`
  consumer's), with metadata and a leader epoch, and OffsetCommit v2 with a retention time
  (Kafka writes OffsetCommitValue v1 with an expire timestamp for it), once with a
  retention near Long.MAX_VALUE, whose expire timestamp wraps to a past time;
- a group formed by raw requests: JoinGroup v5 (MEMBER_ID_REQUIRED, then the join with
  the id), a pause, SyncGroup, a member commit, LeaveGroup;
- a kafka-python consumer that subscribes, commits what it read and closes;
- the deletion of a topic the groups committed offsets for (Kafka writes a tombstone for
  each such offset, `OffsetMetadataManager.onPartitionsDeleted`).

Both brokers stop cleanly; their `__consumer_offsets` segments are decoded (batch headers,
keys, values with `protocol.internal`) and compared line by line, a line per record with
the header fields of its batch. Where one batch ends and the next begins is not compared:
Kafka's coordinator gathers the writes it makes within `group.coordinator.append.linger.ms`
into one batch (a kafka-python join's two group records, sometimes), pylog writes a batch
per operation. Masked: member ids (named
by order of appearance), and timestamps, each replaced by its distance in whole seconds
from its record's timestamp (commit times, group state times) or from the commit time
(expire times). The raw requests pause a second between JoinGroup and SyncGroup, so a
group record stamped at the wrong transition shows. Each value Kafka wrote must also be the
bytes pylog's encoder makes of it.

Then both start again on their files: OffsetFetch of every group and ListGroups must give
the same answers, and the deleted topic, created again, has no committed offsets.
"""

from __future__ import annotations

import struct
import time
from pathlib import Path

import pytest
from kafka import KafkaConsumer, KafkaProducer
from kafka.structs import OffsetAndMetadata

from protocol import codec
from protocol.internal.group_metadata_key import GroupMetadataKey
from protocol.internal.group_metadata_value import GroupMetadataValue
from protocol.internal.offset_commit_key import OffsetCommitKey
from protocol.internal.offset_commit_value import OffsetCommitValue
from protocol.messages import (
    CreateTopicsRequest,
    DeleteTopicsRequest,
    FindCoordinatorRequest,
    JoinGroupRequest,
    LeaveGroupRequest,
    ListGroupsRequest,
    OffsetCommitRequest,
    OffsetFetchRequest,
    SyncGroupRequest,
)
from protocol.messages.consumer_protocol_assignment import ConsumerProtocolAssignment
from protocol.messages.consumer_protocol_subscription import ConsumerProtocolSubscription
from protocol.records import iter_records
from pylog.coordinator.offsets import (
    OFFSETS_TOPIC,
    CommittedOffset,
    decode_versioned,
    group_metadata_value,
    offset_commit_value,
)
from tests.compat.compare import first_difference
from tests.compat.conftest import fresh_pair
from tests.integration.support import (KAFKA_PYTHON_GROUP_CONFIG, KAFKA_PYTHON_GROUP_POLL_MS,
                                       WireClient, stored_batches)

pytestmark = pytest.mark.timeout(300)

BROKERS = ("pylog", "kafka")
GROUPS = ("simple", "retained", "joined", "client")
CLIENT_ID = "raw-member"
# Kafka answers these while a new topic or the coordinator comes up; clients retry them
RETRIABLE = {3, 14, 15, 16}   # UNKNOWN_TOPIC_OR_PARTITION, COORDINATOR_LOAD_IN_PROGRESS/NOT_AVAILABLE, NOT_COORDINATOR

CommitTopic = OffsetCommitRequest.OffsetCommitRequestTopic
CommitPartition = OffsetCommitRequest.OffsetCommitRequestPartition


def retried(send, error_of, what: str, timeout_s: float = 30):
    deadline = time.monotonic() + timeout_s
    while True:
        response = send()
        error = error_of(response)
        if error not in RETRIABLE or time.monotonic() > deadline:
            assert error == 0, f"{what}: error {error}"
            return response
        time.sleep(0.1)


def commit_errors(response) -> int:
    return max((p.error_code for t in response.topics for p in t.partitions), default=0)


def commit(client, version: int, group: str, offsets: dict, *, generation=-1, member_id="", retention_ms=-1):
    topics: dict[str, list] = {}
    for (topic, partition), (offset, metadata, epoch) in offsets.items():
        topics.setdefault(topic, []).append(CommitPartition(
            partition_index=partition, committed_offset=offset, committed_leader_epoch=epoch,
            committed_metadata=metadata))
    request = OffsetCommitRequest(group_id=group, generation_id_or_member_epoch=generation, member_id=member_id,
                                  group_instance_id=None, retention_time_ms=retention_ms,
                                  topics=[CommitTopic(name=t, partitions=ps) for t, ps in topics.items()])
    retried(lambda: client.request(8, version, request), commit_errors, f"commit of {group}")


def fetch_all(client, group: str) -> dict:
    response = retried(lambda: client.request(9, 7, OffsetFetchRequest(group_id=group, topics=None)),
                       lambda r: r.error_code, f"offset fetch of {group}")
    return {(t.name, p.partition_index): (p.committed_offset, p.committed_leader_epoch, p.metadata, p.error_code)
            for t in response.topics for p in t.partitions}


def fetch(client, group: str, topic: str, partitions: list[int]) -> dict:
    request = OffsetFetchRequest(group_id=group, topics=[
        OffsetFetchRequest.OffsetFetchRequestTopic(name=topic, partition_indexes=partitions)])
    response = retried(lambda: client.request(9, 7, request), lambda r: r.error_code, f"offset fetch of {group}")
    return {(t.name, p.partition_index): p.committed_offset for t in response.topics for p in t.partitions}


def create_topic(client, name: str, partitions: int) -> None:
    request = CreateTopicsRequest(timeout_ms=30_000, topics=[CreateTopicsRequest.CreatableTopic(
        name=name, num_partitions=partitions, replication_factor=1)])
    (result,) = client.request(19, 5, request).topics
    assert result.error_code == 0, (name, result.error_code)


def delete_topic(client, name: str) -> None:
    (result,) = client.request(20, 4, DeleteTopicsRequest(topic_names=[name], timeout_ms=30_000)).responses
    assert result.error_code == 0, (name, result.error_code)


def find_coordinator(client, group: str) -> None:
    retried(lambda: client.request(10, 3, FindCoordinatorRequest(key=group, key_type=0)),
            lambda r: r.error_code, f"coordinator of {group}")


def subscription(*topics: str) -> bytes:
    return struct.pack(">h", 1) + bytes(codec.encode(ConsumerProtocolSubscription(topics=list(topics)), 1))


def assignment(topic: str, partitions: list[int]) -> bytes:
    Topic = ConsumerProtocolAssignment.TopicPartition
    value = ConsumerProtocolAssignment(assigned_partitions=[Topic(topic=topic, partitions=partitions)])
    return struct.pack(">h", 1) + bytes(codec.encode(value, 1))


class MemberClient(WireClient):
    """A WireClient whose requests carry a client id of its own (member ids start with it)."""

    def encode(self, api_key, version, body, client_id=CLIENT_ID):
        return super().encode(api_key, version, body, client_id)


def form_group_and_leave(client, group: str) -> None:
    """JoinGroup v5 twice (MEMBER_ID_REQUIRED first), a second's pause, SyncGroup, a commit
    of this generation, LeaveGroup."""
    find_coordinator(client, group)

    def join(member_id: str):
        return client.request(11, 5, JoinGroupRequest(
            group_id=group, session_timeout_ms=30_000, rebalance_timeout_ms=60_000, member_id=member_id,
            group_instance_id=None, protocol_type="consumer",
            protocols=[JoinGroupRequest.JoinGroupRequestProtocol(name="range", metadata=subscription("orders"))]))

    first = join("")
    assert first.error_code == 79, first.error_code           # MEMBER_ID_REQUIRED
    joined = join(first.member_id)
    assert joined.error_code == 0 and joined.leader == joined.member_id
    time.sleep(1.2)
    synced = client.request(14, 3, SyncGroupRequest(
        group_id=group, generation_id=joined.generation_id, member_id=joined.member_id, group_instance_id=None,
        assignments=[SyncGroupRequest.SyncGroupRequestAssignment(member_id=joined.member_id,
                                                                 assignment=assignment("orders", [0, 1]))]))
    assert synced.error_code == 0
    commit(client, 8, group, {("doomed", 0): (11, "d", 0), ("orders", 1): (12, "", 0)},
           generation=joined.generation_id, member_id=joined.member_id)
    left = client.request(13, 3, LeaveGroupRequest(group_id=group, members=[
        LeaveGroupRequest.MemberIdentity(member_id=joined.member_id, group_instance_id=None)]))
    assert left.error_code == 0 and [m.error_code for m in left.members] == [0]


def consume_and_commit(bootstrap: str, group: str) -> None:
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all")
    for i in range(6):
        producer.send("orders", b"v%d" % i, partition=i % 2).get(timeout=30)
    producer.close(timeout=10)
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=group, client_id="kp", enable_auto_commit=False,
                             auto_offset_reset="earliest", **KAFKA_PYTHON_GROUP_CONFIG)
    try:
        consumer.subscribe(["orders"])
        # The leader rejoins when the topic's partitions change after it assigned; a
        # metadata answer after the subscription and before the join makes the client
        # start from the partitions it will keep, whichever broker answers faster.
        assert "orders" in consumer.topics()
        seen = 0
        deadline = time.monotonic() + 60
        while seen < 6 and time.monotonic() < deadline:
            seen += sum(len(records) for records in consumer.poll(timeout_ms=KAFKA_PYTHON_GROUP_POLL_MS).values())
        assert seen == 6
        # commit() alone lists the partitions in a set's order; the records follow the request
        consumer.commit({tp: OffsetAndMetadata(consumer.position(tp), "read", -1)
                         for tp in sorted(consumer.assignment())})
    finally:
        consumer.close()


def same_operations(broker) -> None:
    with WireClient(broker.bootstrap_servers, timeout_s=30) as client:
        create_topic(client, "orders", 2)
        create_topic(client, "doomed", 1)
        find_coordinator(client, "simple")
        commit(client, 8, "simple", {("orders", 0): (5, "m", 3), ("orders", 1): (6, None, -1),
                                     ("doomed", 0): (7, "", -1)})
        commit(client, 2, "retained", {("orders", 0): (8, "kept an hour", -1)}, retention_ms=3_600_000)
        # a retention near Long.MAX_VALUE: the expire timestamp wraps, as Java's long sum does
        commit(client, 2, "wrapped", {("orders", 1): (9, "", -1)}, retention_ms=(1 << 63) - 2)
    with MemberClient(broker.bootstrap_servers, timeout_s=90) as client:
        form_group_and_leave(client, "joined")
    # before the deletion: a consumer whose metadata changes while it is the leader rejoins
    consume_and_commit(broker.bootstrap_servers, "client")
    with WireClient(broker.bootstrap_servers, timeout_s=30) as client:
        delete_topic(client, "doomed")
        deadline = time.monotonic() + 30      # Kafka's broker applies the deletion after the answer
        while fetch(client, "joined", "doomed", [0]) != {("doomed", 0): -1} and time.monotonic() < deadline:
            time.sleep(0.1)


# ---------------------------------------------------------------------------------------
# the records, as lines to compare


class Masks:
    """Member ids in order of appearance; timestamps as whole seconds from a reference."""

    def __init__(self):
        self.members: dict[str, str] = {}

    def member(self, member_id: str | None) -> str | None:
        if member_id is None:
            return None
        return self.members.setdefault(member_id, f"<member {len(self.members) + 1}>")

    @staticmethod
    def seconds_before(reference_ms: int, timestamp_ms: int) -> str:
        return "-1" if timestamp_ms == -1 else f"{round((reference_ms - timestamp_ms) / 1000)} s before"


def record_lines(data_dir: Path) -> tuple[list[str], list[tuple[str, bytes, bytes]]]:
    """Lines for every batch and record of every __consumer_offsets partition; and the raw
    (kind, key, value) of every non-tombstone record."""
    masks = Masks()
    lines, raw = [], []
    for index in range(50):
        for _, _, header, batch in stored_batches(data_dir, OFFSETS_TOPIC, index):
            records = list(iter_records(batch))
            assert header.last_offset_delta == len(records) - 1
            batch_fields = (f"partition {index} batch: magic {header.magic} attributes {header.attributes} "
                            f"producer {header.producer_id}/{header.producer_epoch} base sequence "
                            f"{header.base_sequence} leader epoch {header.partition_leader_epoch}")
            for record in records:
                lines.append(f"{batch_fields} | {describe(record, masks)}")
                if record.value is not None:
                    key_version, = struct.unpack_from(">h", record.key)
                    raw.append(("offset" if key_version < 2 else "group", record.key, record.value))
    return lines, raw


def describe(record, masks: Masks) -> str:
    key_version, = struct.unpack_from(">h", record.key)
    if key_version in (0, 1):
        key = codec.decode(OffsetCommitKey, record.key, key_version, 2)
        head = f"offset key v{key_version} {key.group} {key.topic}-{key.partition}"
        if record.value is None:
            return head + ": tombstone"
        version, value = decode_versioned(OffsetCommitValue, record.value)
        expire = ("-1" if value.expire_timestamp == -1
                  else f"commit time + {value.expire_timestamp - value.commit_timestamp} ms")
        return (f"{head}: value v{version} offset {value.offset} leader epoch {value.leader_epoch} metadata "
                f"{value.metadata!r} committed {masks.seconds_before(record.timestamp, value.commit_timestamp)} "
                f"expires {expire}")
    assert key_version == 2, key_version
    key = codec.decode(GroupMetadataKey, record.key, key_version, 2)
    head = f"group key v{key_version} {key.group}"
    if record.value is None:
        return head + ": tombstone"
    version, value = decode_versioned(GroupMetadataValue, record.value)
    members = "; ".join(
        f"{masks.member(m.member_id)} instance {m.group_instance_id} client {m.client_id!r} host {m.client_host!r} "
        f"rebalance {m.rebalance_timeout} session {m.session_timeout} subscription {bytes(m.subscription).hex()} "
        f"assignment {bytes(m.assignment).hex()}" for m in value.members)
    return (f"{head}: value v{version} protocol type {value.protocol_type!r} generation {value.generation} "
            f"protocol {value.protocol!r} leader {masks.member(value.leader)} state since "
            f"{masks.seconds_before(record.timestamp, value.current_state_timestamp)} members [{members}]")


def answers_after_a_restart(broker) -> dict:
    with WireClient(broker.bootstrap_servers, timeout_s=30) as client:
        for group in GROUPS:
            find_coordinator(client, group)
        offsets = {group: fetch_all(client, group) for group in GROUPS}
        listed = retried(lambda: client.request(16, 4, ListGroupsRequest(states_filter=[])),
                         lambda r: r.error_code, "list groups")
        create_topic(client, "doomed", 1)
        recreated = {group: fetch(client, group, "doomed", [0]) for group in GROUPS}
    return {"offsets": offsets, "recreated": recreated,
            "groups": sorted((g.group_id, g.protocol_type, g.group_state) for g in listed.groups)}


@pytest.fixture(scope="module")
def twin_offsets(tmp_path_factory):
    root = tmp_path_factory.mktemp("twin-offsets")
    brokers = fresh_pair(root)
    files, after = {}, {}
    try:
        for name in BROKERS:
            brokers[name].start()
            same_operations(brokers[name])
            brokers[name].stop()
            files[name] = record_lines(brokers[name].data_dir)
            brokers[name].start()
            after[name] = answers_after_a_restart(brokers[name])
            brokers[name].stop()
    finally:
        for broker in brokers.values():
            if getattr(broker, "process", None) is not None and broker.process.poll() is None:
                broker.stop()
    return {"files": files, "after": after}


def test_consumer_offsets_records_are_kafkas(twin_offsets, compat_table):
    ours, theirs = (twin_offsets["files"][name][0] for name in BROKERS)
    difference = first_difference(ours, theirs)
    compat_table.record("files", "__consumer_offsets records (simple, v2 retention, joined, deleted topic, "
                        "kafka-python)", f"{len(ours)} lines", f"{len(theirs)} lines",
                        "same" if difference is None else f"differs: {difference}")
    assert difference is None, "\n".join(["pylog:", *ours, "kafka:", *theirs])
    text = "\n".join(theirs)
    # what the scenario is meant to show is there
    assert "offset key v1 joined doomed-0: tombstone" in text and "offset key v1 simple doomed-0: tombstone" in text
    assert "value v4" in text and "value v1" in text
    assert "group key v2 joined: value v3 protocol type '' generation 0" in text
    wrapped = (1 << 63) - 2 - (1 << 64)   # the retention near Long.MAX_VALUE, as Java's long sum leaves it
    assert "offset key v1 wrapped orders-1: value v1 offset 9" in text and f"expires commit time + {wrapped} ms" in text


def test_pylogs_encoder_makes_the_bytes_kafka_wrote(twin_offsets):
    _, raw = twin_offsets["files"]["kafka"]
    assert raw
    for kind, key, value in raw:
        version, decoded = decode_versioned(OffsetCommitValue if kind == "offset" else GroupMetadataValue, value)
        if kind == "offset":
            ours = offset_commit_value(CommittedOffset(
                offset=decoded.offset, leader_epoch=decoded.leader_epoch, metadata=decoded.metadata,
                commit_timestamp_ms=decoded.commit_timestamp, expire_timestamp_ms=decoded.expire_timestamp))
        else:
            ours = group_metadata_value(decoded)
        assert ours == value, (kind, version, key)


def test_the_same_offsets_and_groups_after_a_restart(twin_offsets):
    ours, theirs = twin_offsets["after"]["pylog"], twin_offsets["after"]["kafka"]
    assert ours == theirs
    assert theirs["recreated"] == {group: {("doomed", 0): -1} for group in GROUPS}
    assert ("doomed", 0) not in theirs["offsets"]["simple"] and ("orders", 0) in theirs["offsets"]["simple"]
