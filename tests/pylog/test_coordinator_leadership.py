"""The group coordinator follows the leadership of `__consumer_offsets` partitions.

One in-process broker (EmbeddedBroker), raw requests over its socket and kafka-python
(which retries a commit through NOT_COORDINATOR until the partition is led again). The
tests play the metadata publisher: they call
`Broker.on_offsets_partition_leadership(index, is_leader, leader_epoch)` for the partition
of a group and check what every group API answers (Kafka 4.1's errors per API and
version), that parked JoinGroups are answered NOT_COORDINATOR at a resignation, that a new
election brings the committed offsets and the group back from the log, and that stale
epochs change nothing.

A leader's high watermark lags its log end offset until the followers have fetched; on
one broker it never does, so `hold_high_watermark` turns the offsets partition into
pylog's own Partition with its high watermark held at a chosen offset (the replicas
that have not fetched yet). Writes then wait for it (`offsets.commit.timeout.ms`), and
so does a load.
"""

from __future__ import annotations

import threading
import time

import pytest
from kafka import KafkaConsumer, TopicPartition
from kafka.structs import OffsetAndMetadata

from protocol.error_codes import ErrorCode
from protocol.messages.delete_groups_request import DeleteGroupsRequest
from protocol.messages.describe_groups_request import DescribeGroupsRequest
from protocol.messages.find_coordinator_request import FindCoordinatorRequest
from protocol.messages.heartbeat_request import HeartbeatRequest
from protocol.messages.join_group_request import JoinGroupRequest, JoinGroupRequestProtocol
from protocol.messages.leave_group_request import LeaveGroupRequest, MemberIdentity
from protocol.messages.list_groups_request import ListGroupsRequest
from protocol.messages.offset_commit_request import (
    OffsetCommitRequest,
    OffsetCommitRequestPartition,
    OffsetCommitRequestTopic,
)
from protocol.messages.offset_delete_request import (
    OffsetDeleteRequest,
    OffsetDeleteRequestPartition,
    OffsetDeleteRequestTopic,
)
from protocol.messages.offset_fetch_request import (
    OffsetFetchRequest,
    OffsetFetchRequestGroup,
    OffsetFetchRequestTopic,
    OffsetFetchRequestTopics,
)
from protocol.messages.sync_group_request import SyncGroupRequest, SyncGroupRequestAssignment
from pylog.coordinator.group import GroupState
from pylog.coordinator import OFFSETS_TOPIC
from pylog.coordinator.offsets import partition_for_group
from pylog.coordinator.partitions import CoordinatorPartitions, LoadState
from pylog.partition import Partition
from pylog.testing import EmbeddedBroker
from tests.pylog.wire import RawClient

OFFSETS_PARTITIONS = 3
COMMIT_TIMEOUT_MS = 400
TOPIC = "t"
JOIN, SYNC, HEARTBEAT, LEAVE, DESCRIBE, LIST, DELETE = 11, 14, 12, 13, 15, 16, 42
COMMIT, FETCH, OFFSET_DELETE, FIND_COORDINATOR = 8, 9, 47, 10


def group_on(index: int, prefix: str = "g") -> str:
    """A group id whose `__consumer_offsets` partition is `index`."""
    n = 0
    while partition_for_group(f"{prefix}{n}", OFFSETS_PARTITIONS) != index:
        n += 1
    return f"{prefix}{n}"


GROUP = group_on(1)
OTHER_GROUP = group_on(2)
INDEX = 1


class HeldHighWatermark(Partition):
    """pylog's Partition whose high watermark stays at `held_at` (None: not held), as a
    leader's does while its followers have not fetched."""

    held_at: int | None = None

    @property
    def high_watermark(self) -> int:
        high_watermark = super().high_watermark
        return high_watermark if self.held_at is None else min(self.held_at, high_watermark)

    def release(self) -> None:
        self.held_at = None
        self.waiters.notify(self.key)   # what the partition does when its high watermark moves


@pytest.fixture
def embedded(tmp_path):
    broker = EmbeddedBroker(tmp_path / "data", config={
        "offsets.topic.num.partitions": OFFSETS_PARTITIONS,
        "offsets.commit.timeout.ms": COMMIT_TIMEOUT_MS,
        "group.min.session.timeout.ms": 100,
    })
    broker.start()
    broker.call(lambda: broker.broker.create_topic(TOPIC, 2))
    yield broker
    broker.stop()


@pytest.fixture
def client(embedded):
    raw = RawClient(embedded.bootstrap_servers)
    # FindCoordinator creates __consumer_offsets, as a client's first lookup does
    raw.request(FIND_COORDINATOR, 1, FindCoordinatorRequest(key=GROUP, key_type=0))
    yield raw
    raw.close()


# ---------------------------------------------------------------------------------------
# helpers


def leader_epoch(embedded, index: int = INDEX) -> int:
    return embedded.call(lambda: embedded.broker.partition(OFFSETS_TOPIC, index).leader_epoch)


def leadership(embedded, is_leader: bool, epoch: int, index: int = INDEX) -> None:
    embedded.call(embedded.broker.on_offsets_partition_leadership, index, is_leader, epoch)


def hold_high_watermark(embedded, at: int | None = None, index: int = INDEX) -> HeldHighWatermark:
    """The partition's high watermark held at offset `at` (None: where it is now)."""
    def hold():
        partition = embedded.broker.partition(OFFSETS_TOPIC, index)
        partition.__class__ = HeldHighWatermark
        partition.held_at = partition.log_end_offset if at is None else at
        return partition
    return embedded.call(hold)


def release(embedded, partition: HeldHighWatermark) -> None:
    embedded.call(partition.release)


def join(client, group: str, member_id: str = "", version: int = 5):
    return client.request(JOIN, version, join_request(group, member_id))


def join_request(group: str, member_id: str = "") -> JoinGroupRequest:
    return JoinGroupRequest(group_id=group, session_timeout_ms=10_000, rebalance_timeout_ms=10_000,
                            member_id=member_id, group_instance_id=None, protocol_type="consumer",
                            protocols=[JoinGroupRequestProtocol(name="range", metadata=b"sub")])


def sync_request(group: str, generation: int, member_id: str, assignment: bytes = b"a") -> SyncGroupRequest:
    return SyncGroupRequest(group_id=group, generation_id=generation, member_id=member_id,
                            group_instance_id=None, protocol_type="consumer", protocol_name="range",
                            assignments=[SyncGroupRequestAssignment(member_id=member_id, assignment=assignment)])


def stable_member(client, group: str) -> tuple[str, int]:
    """A group with one member, through JoinGroup v5 (MEMBER_ID_REQUIRED first) and the
    leader's SyncGroup; (member id, generation)."""
    first = join(client, group)
    assert first.error_code == ErrorCode.MEMBER_ID_REQUIRED
    joined = join(client, group, first.member_id)
    assert joined.error_code == ErrorCode.NONE
    synced = client.request(SYNC, 5, sync_request(group, joined.generation_id, joined.member_id))
    assert synced.error_code == ErrorCode.NONE and synced.assignment == b"a"
    return joined.member_id, joined.generation_id


def commit(client, group: str, offsets: dict[int, int], version: int = 2, generation: int = -1,
           member_id: str = ""):
    request = OffsetCommitRequest(group_id=group, generation_id_or_member_epoch=generation, member_id=member_id,
                                  retention_time_ms=-1, topics=[OffsetCommitRequestTopic(name=TOPIC, partitions=[
                                      OffsetCommitRequestPartition(partition_index=p, committed_offset=o,
                                                                   committed_metadata="m")
                                      for p, o in offsets.items()])])
    response = client.request(COMMIT, version, request)
    return {p.partition_index: p.error_code for t in response.topics for p in t.partitions}


def fetch_v5(client, group: str):
    return client.request(FETCH, 5, OffsetFetchRequest(group_id=group, topics=[
        OffsetFetchRequestTopic(name=TOPIC, partition_indexes=[0, 1])]))


def committed(client, group: str) -> dict[int, int]:
    response = fetch_v5(client, group)
    assert response.error_code == ErrorCode.NONE
    return {p.partition_index: p.committed_offset for t in response.topics for p in t.partitions}


def wait_until(condition, timeout_s: float = 10) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.02)


def loaded(client, group: str) -> bool:
    return fetch_v5(client, group).error_code != ErrorCode.COORDINATOR_LOAD_IN_PROGRESS


def group_state(embedded, group: str):
    return embedded.call(lambda: getattr(embedded.broker.group_coordinator.group(group), "state", None))


# ---------------------------------------------------------------------------------------
# resignation: NOT_COORDINATOR everywhere


def test_every_group_api_answers_not_coordinator_after_resignation(embedded, client):
    member_id, generation = stable_member(client, GROUP)
    assert commit(client, GROUP, {0: 5, 1: 7}, version=8, generation=generation, member_id=member_id) == \
        {0: ErrorCode.NONE, 1: ErrorCode.NONE}
    assert commit(client, OTHER_GROUP, {0: 3}) == {0: ErrorCode.NONE}

    leadership(embedded, False, leader_epoch(embedded) + 1)
    NOT_COORDINATOR = ErrorCode.NOT_COORDINATOR

    assert join(client, GROUP, member_id).error_code == NOT_COORDINATOR
    assert client.request(SYNC, 5, sync_request(GROUP, generation, member_id)).error_code == NOT_COORDINATOR
    heartbeat = HeartbeatRequest(group_id=GROUP, generation_id=generation, member_id=member_id,
                                 group_instance_id=None)
    assert client.request(HEARTBEAT, 4, heartbeat).error_code == NOT_COORDINATOR
    assert client.request(LEAVE, 0, LeaveGroupRequest(group_id=GROUP, member_id=member_id)).error_code == \
        NOT_COORDINATOR
    leave_v3 = client.request(LEAVE, 3, LeaveGroupRequest(group_id=GROUP, members=[
        MemberIdentity(member_id=member_id, group_instance_id=None)]))
    assert leave_v3.error_code == NOT_COORDINATOR and leave_v3.members == []

    # OffsetCommit: every partition of the request
    assert commit(client, GROUP, {0: 9, 1: 9}) == {0: NOT_COORDINATOR, 1: NOT_COORDINATOR}
    # OffsetFetch: v0-1 per partition (offset -1), v2-7 at the top without topics, v8 per group
    v1 = client.request(FETCH, 1, OffsetFetchRequest(group_id=GROUP, topics=[
        OffsetFetchRequestTopic(name=TOPIC, partition_indexes=[0, 1])]))
    assert [(p.partition_index, p.committed_offset, p.error_code) for t in v1.topics for p in t.partitions] == \
        [(0, -1, NOT_COORDINATOR), (1, -1, NOT_COORDINATOR)]
    v5 = fetch_v5(client, GROUP)
    assert v5.error_code == NOT_COORDINATOR and v5.topics == []
    v8 = client.request(FETCH, 8, OffsetFetchRequest(require_stable=False, groups=[
        OffsetFetchRequestGroup(group_id=GROUP, topics=None),
        OffsetFetchRequestGroup(group_id=OTHER_GROUP, topics=[OffsetFetchRequestTopics(name=TOPIC,
                                                                                       partition_indexes=[0])])]))
    by_group = {g.group_id: g for g in v8.groups}
    assert by_group[GROUP].error_code == NOT_COORDINATOR and by_group[GROUP].topics == []
    assert by_group[OTHER_GROUP].error_code == ErrorCode.NONE
    assert [p.committed_offset for t in by_group[OTHER_GROUP].topics for p in t.partitions] == [3]

    described = client.request(DESCRIBE, 5, DescribeGroupsRequest(groups=[GROUP, OTHER_GROUP],
                                                                   include_authorized_operations=False))
    assert [(g.group_id, g.error_code, g.group_state) for g in described.groups] == \
        [(GROUP, NOT_COORDINATOR, ""), (OTHER_GROUP, ErrorCode.NONE, "Empty")]
    listed = client.request(LIST, 4, ListGroupsRequest(states_filter=[]))
    assert listed.error_code == ErrorCode.NONE
    assert [g.group_id for g in listed.groups] == [OTHER_GROUP]
    offset_delete = client.request(OFFSET_DELETE, 0, OffsetDeleteRequest(group_id=GROUP, topics=[
        OffsetDeleteRequestTopic(name=TOPIC, partitions=[OffsetDeleteRequestPartition(partition_index=0)])]))
    assert offset_delete.error_code == NOT_COORDINATOR
    deleted = client.request(DELETE, 2, DeleteGroupsRequest(groups_names=[GROUP]))
    assert [(r.group_id, r.error_code) for r in deleted.results] == [(GROUP, NOT_COORDINATOR)]

    # nothing of the group is kept: no stale copy to serve
    assert group_state(embedded, GROUP) is None
    assert embedded.call(lambda: embedded.broker.offset_store.committed(GROUP)) == {}


def test_parked_join_is_answered_not_coordinator_at_resignation(embedded, client):
    member_id, _ = stable_member(client, GROUP)
    second = RawClient(embedded.bootstrap_servers)
    try:
        # a second member makes the group rebalance; its JoinGroup waits for the first to rejoin
        second.send(JOIN, 0, join_request(GROUP))
        wait_until(lambda: group_state(embedded, GROUP) is GroupState.PREPARING_REBALANCE)
        leadership(embedded, False, leader_epoch(embedded) + 1)
        _, parked = second.receive(JOIN, 0)
        assert parked.error_code == ErrorCode.NOT_COORDINATOR
    finally:
        second.close()
    # its timers are gone with it: nothing is left of the group on this broker
    assert embedded.call(lambda: GROUP in embedded.broker.group_coordinator._timers) is False


# ---------------------------------------------------------------------------------------
# election: the offsets and the group come back from the log


def test_reelection_loads_offsets_and_group_back(embedded, client):
    member_id, generation = stable_member(client, GROUP)
    assert commit(client, GROUP, {0: 11, 1: 12}, version=8, generation=generation, member_id=member_id) == \
        {0: ErrorCode.NONE, 1: ErrorCode.NONE}
    epoch = leader_epoch(embedded)
    leadership(embedded, False, epoch + 1)
    assert fetch_v5(client, GROUP).error_code == ErrorCode.NOT_COORDINATOR

    leadership(embedded, True, epoch + 2)
    wait_until(lambda: loaded(client, GROUP))
    assert committed(client, GROUP) == {0: 11, 1: 12}
    described = client.request(DESCRIBE, 5, DescribeGroupsRequest(groups=[GROUP], include_authorized_operations=False))
    group = described.groups[0]
    assert (group.error_code, group.group_state, [m.member_id for m in group.members]) == \
        (ErrorCode.NONE, "Stable", [member_id])
    assert group.members[0].member_assignment == b"a"
    heartbeat = HeartbeatRequest(group_id=GROUP, generation_id=generation, member_id=member_id,
                                 group_instance_id=None)
    assert client.request(HEARTBEAT, 4, heartbeat).error_code == ErrorCode.NONE
    # and it takes writes again
    assert commit(client, GROUP, {0: 13}, version=8, generation=generation, member_id=member_id) == \
        {0: ErrorCode.NONE}
    assert committed(client, GROUP) == {0: 13, 1: 12}


def test_stale_or_repeated_epochs_are_ignored(embedded, client):
    assert commit(client, GROUP, {0: 4}) == {0: ErrorCode.NONE}
    epoch = leader_epoch(embedded)
    leadership(embedded, False, epoch + 2)
    for stale in (epoch + 1, epoch + 2):                # older, and the same again
        leadership(embedded, True, stale)
        assert fetch_v5(client, GROUP).error_code == ErrorCode.NOT_COORDINATOR
    leadership(embedded, True, epoch + 3)
    wait_until(lambda: loaded(client, GROUP))
    assert committed(client, GROUP) == {0: 4, 1: -1}
    for stale in (epoch + 2, epoch + 3):
        leadership(embedded, False, stale)
        assert committed(client, GROUP) == {0: 4, 1: -1}


def test_other_partitions_are_not_touched(embedded, client):
    assert commit(client, OTHER_GROUP, {1: 8}) == {1: ErrorCode.NONE}
    leadership(embedded, False, leader_epoch(embedded) + 1)
    assert committed(client, OTHER_GROUP) == {0: -1, 1: 8}
    assert commit(client, OTHER_GROUP, {0: 2}) == {0: ErrorCode.NONE}


# ---------------------------------------------------------------------------------------
# loading: COORDINATOR_LOAD_IN_PROGRESS until the partition is caught up and replayed


def test_groups_answer_load_in_progress_until_the_load_is_done(embedded, client):
    member_id, generation = stable_member(client, GROUP)
    assert commit(client, OTHER_GROUP, {0: 1}) == {0: ErrorCode.NONE}
    epoch = leader_epoch(embedded)
    leadership(embedded, False, epoch + 1)
    # written by "the previous leader" and not replicated yet: the new leader waits for it
    partition = hold_high_watermark(embedded, at=0)
    leadership(embedded, True, epoch + 2)

    IN_PROGRESS = ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
    assert fetch_v5(client, GROUP).error_code == IN_PROGRESS
    assert join(client, GROUP, member_id).error_code == IN_PROGRESS
    assert commit(client, GROUP, {0: 1}) == {0: IN_PROGRESS}
    heartbeat = HeartbeatRequest(group_id=GROUP, generation_id=generation, member_id=member_id,
                                 group_instance_id=None)
    assert client.request(HEARTBEAT, 4, heartbeat).error_code == ErrorCode.NONE   # Kafka answers it blindly
    assert client.request(LIST, 4, ListGroupsRequest(states_filter=[])).error_code == IN_PROGRESS
    assert committed(client, OTHER_GROUP) == {0: 1, 1: -1}                         # other partitions serve

    release(embedded, partition)
    wait_until(lambda: loaded(client, GROUP))
    assert group_state(embedded, GROUP) is GroupState.STABLE
    assert client.request(HEARTBEAT, 4, heartbeat).error_code == ErrorCode.NONE


# ---------------------------------------------------------------------------------------
# writes wait for the high watermark


def test_commit_waits_for_the_high_watermark(embedded, client):
    partition = hold_high_watermark(embedded)
    started = time.monotonic()
    assert commit(client, GROUP, {0: 21}) == {0: ErrorCode.COORDINATOR_NOT_AVAILABLE}   # Kafka's answer to a timeout
    assert time.monotonic() - started >= COMMIT_TIMEOUT_MS / 1000 * 0.9

    # a commit answered once the high watermark passes it
    second = RawClient(embedded.bootstrap_servers)
    try:
        request = OffsetCommitRequest(group_id=GROUP, generation_id_or_member_epoch=-1, member_id="",
                                      retention_time_ms=-1, topics=[OffsetCommitRequestTopic(name=TOPIC, partitions=[
                                          OffsetCommitRequestPartition(partition_index=1, committed_offset=22,
                                                                       committed_metadata="")])])
        second.send(COMMIT, 2, request)
        time.sleep(COMMIT_TIMEOUT_MS / 1000 / 4)
        release(embedded, partition)
        _, response = second.receive(COMMIT, 2)
        assert [p.error_code for t in response.topics for p in t.partitions] == [ErrorCode.NONE]
    finally:
        second.close()
    assert committed(client, GROUP)[1] == 22


def test_offset_fetch_shows_offsets_as_replicated(embedded, client):
    assert commit(client, GROUP, {0: 1, 1: 2}) == {0: ErrorCode.NONE, 1: ErrorCode.NONE}
    partition = hold_high_watermark(embedded)
    assert commit(client, GROUP, {0: 3}) == {0: ErrorCode.COORDINATOR_NOT_AVAILABLE}
    assert commit(client, GROUP, {0: 4, 1: 5}) == {0: ErrorCode.COORDINATOR_NOT_AVAILABLE,
                                                   1: ErrorCode.COORDINATOR_NOT_AVAILABLE}
    offset_delete = client.request(OFFSET_DELETE, 0, OffsetDeleteRequest(group_id=GROUP, topics=[
        OffsetDeleteRequestTopic(name=TOPIC, partitions=[OffsetDeleteRequestPartition(partition_index=1)])]))
    assert offset_delete.error_code == ErrorCode.COORDINATOR_NOT_AVAILABLE
    assert committed(client, GROUP) == {0: 1, 1: 2}         # none of it is replicated
    embedded.call(lambda: setattr(partition, "held_at", partition.held_at + 1))   # the first commit is
    assert committed(client, GROUP) == {0: 3, 1: 2}
    release(embedded, partition)                            # all of it is
    assert committed(client, GROUP) == {0: 4, 1: -1}


def test_offset_fetch_requiring_stable_offsets_waits_for_replication(embedded, client):
    assert commit(client, GROUP, {0: 1}) == {0: ErrorCode.NONE}
    partition = hold_high_watermark(embedded)
    assert commit(client, GROUP, {0: 2}) == {0: ErrorCode.COORDINATOR_NOT_AVAILABLE}

    def stable_fetch(raw):
        return raw.send(FETCH, 7, OffsetFetchRequest(group_id=GROUP, require_stable=True, topics=[
            OffsetFetchRequestTopic(name=TOPIC, partition_indexes=[0])]))

    stable_fetch(client)
    _, timed_out = client.receive(FETCH, 7)
    assert (timed_out.error_code, timed_out.topics) == (ErrorCode.NOT_COORDINATOR, [])   # Kafka's answer
    stable_fetch(client)
    time.sleep(COMMIT_TIMEOUT_MS / 1000 / 4)
    release(embedded, partition)
    _, fetched = client.receive(FETCH, 7)
    assert fetched.error_code == ErrorCode.NONE
    assert [p.committed_offset for t in fetched.topics for p in t.partitions] == [2]


def test_commit_waiting_at_resignation_answers_not_coordinator(embedded, client):
    partition = hold_high_watermark(embedded)
    second = RawClient(embedded.bootstrap_servers)
    try:
        second.send(COMMIT, 2, OffsetCommitRequest(
            group_id=GROUP, generation_id_or_member_epoch=-1, member_id="", retention_time_ms=-1,
            topics=[OffsetCommitRequestTopic(name=TOPIC, partitions=[
                OffsetCommitRequestPartition(partition_index=0, committed_offset=1, committed_metadata="")])]))
        wait_until(lambda: embedded.call(lambda: partition.log_end_offset) > partition.held_at)   # appended
        leadership(embedded, False, leader_epoch(embedded) + 1)
        _, response = second.receive(COMMIT, 2)
        assert [p.error_code for t in response.topics for p in t.partitions] == [ErrorCode.NOT_COORDINATOR]
    finally:
        second.close()


def test_leaders_sync_is_answered_once_the_assignment_is_replicated(embedded, client):
    first = join(client, GROUP)
    joined = join(client, GROUP, first.member_id)
    partition = hold_high_watermark(embedded)
    # not replicated within offsets.commit.timeout.ms: Kafka answers COORDINATOR_NOT_AVAILABLE
    synced = client.request(SYNC, 5, sync_request(GROUP, joined.generation_id, joined.member_id))
    assert synced.error_code == ErrorCode.COORDINATOR_NOT_AVAILABLE

    # a new generation, its assignment replicated while the SyncGroup waits
    rejoined = join(client, GROUP, joined.member_id)
    assert rejoined.error_code == ErrorCode.NONE and rejoined.generation_id == joined.generation_id + 1
    second = RawClient(embedded.bootstrap_servers)
    try:
        second.send(SYNC, 5, sync_request(GROUP, rejoined.generation_id, rejoined.member_id, b"b"))
        time.sleep(COMMIT_TIMEOUT_MS / 1000 / 4)
        release(embedded, partition)
        _, response = second.receive(SYNC, 5)
        assert (response.error_code, response.assignment) == (ErrorCode.NONE, b"b")
    finally:
        second.close()


def test_delete_groups_waits_for_its_tombstones(embedded, client):
    assert commit(client, GROUP, {0: 1}) == {0: ErrorCode.NONE}
    hold_high_watermark(embedded)
    deleted = client.request(DELETE, 2, DeleteGroupsRequest(groups_names=[GROUP]))
    assert [(r.group_id, r.error_code) for r in deleted.results] == [(GROUP, ErrorCode.COORDINATOR_NOT_AVAILABLE)]


def test_answers_held_for_replication_get_not_coordinator_at_shutdown(embedded, client):
    first = join(client, GROUP)
    joined = join(client, GROUP, first.member_id)
    hold_high_watermark(embedded)
    second = RawClient(embedded.bootstrap_servers)
    try:
        second.send(SYNC, 5, sync_request(GROUP, joined.generation_id, joined.member_id))
        wait_until(lambda: embedded.call(lambda: len(embedded.broker.group_coordinator._held)) == 1)
        embedded.call(embedded.broker.group_coordinator.shutdown)
        _, response = second.receive(SYNC, 5)
        assert response.error_code == ErrorCode.NOT_COORDINATOR
    finally:
        second.close()


def test_election_of_a_loaded_partition_keeps_its_groups(embedded, client):
    member_id, generation = stable_member(client, GROUP)
    before = embedded.call(embedded.broker.group_coordinator.group, GROUP)
    leadership(embedded, True, leader_epoch(embedded) + 1)      # e.g. a new epoch, still the leader
    assert fetch_v5(client, GROUP).error_code == ErrorCode.NONE  # no load: served at once
    assert embedded.call(embedded.broker.group_coordinator.group, GROUP) is before
    assert commit(client, GROUP, {0: 1}, version=8, generation=generation, member_id=member_id) == \
        {0: ErrorCode.NONE}


def test_kafka_python_commit_retries_until_the_partition_is_led_again(embedded, client):
    """kafka-python takes NOT_COORDINATOR as "look for the coordinator again" and retries;
    its commit goes through once this broker leads the partition again."""
    tp = TopicPartition(TOPIC, 0)
    consumer = KafkaConsumer(bootstrap_servers=embedded.bootstrap_servers, group_id=GROUP,
                             enable_auto_commit=False, retry_backoff_ms=50)
    try:
        consumer.assign([tp])
        consumer.commit({tp: OffsetAndMetadata(5, "", -1)})
        epoch = leader_epoch(embedded)
        leadership(embedded, False, epoch + 1)
        elect_again = threading.Timer(1.0, leadership, (embedded, True, epoch + 2))
        elect_again.start()
        try:
            started = time.monotonic()
            consumer.commit({tp: OffsetAndMetadata(6, "", -1)})
            assert time.monotonic() - started >= 0.9          # it waited for the election
        finally:
            elect_again.join()
        assert consumer.committed(tp) == 6
    finally:
        consumer.close()
    assert committed(client, GROUP)[0] == 6


# ---------------------------------------------------------------------------------------
# the bookkeeping alone


def test_partition_states_and_terms():
    partitions = CoordinatorPartitions(leads_every_partition=False)
    assert partitions.error(0) == ErrorCode.NOT_COORDINATOR
    assert partitions.elect(0, 3) is LoadState.NOT_COORDINATOR
    assert partitions.error(0) == ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
    term = partitions.get(0).term
    assert partitions.loaded(0, 2) is False                       # not the epoch being loaded
    assert partitions.loaded(0, 3) is True and partitions.error(0) == ErrorCode.NONE
    assert partitions.elect(0, 3) is None                         # a repeat
    assert partitions.elect(0, 4) is LoadState.ACTIVE             # kept, at the new epoch, same term
    assert partitions.is_active(0, term) and partitions.get(0).leader_epoch == 4
    assert partitions.resign(0, 4) is False                       # not above the epoch seen
    assert partitions.resign(0, 5) is True and not partitions.is_active(0)
    assert partitions.elect(0, 6) is LoadState.NOT_COORDINATOR and partitions.get(0).term != term
    assert partitions.failed(0, 6) is True and partitions.error(0) == ErrorCode.NOT_COORDINATOR

    single_node = CoordinatorPartitions(leads_every_partition=True)
    assert single_node.error(7) == ErrorCode.NONE                 # never named: led
    assert single_node.resign(7, 0) is True and single_node.error(7) == ErrorCode.NOT_COORDINATOR
