"""Committed offsets and persisted group metadata, kept in the compacted topic `__consumer_offsets`.

This is Kafka's "group metadata manager" storage half: every change is a record appended to
one partition of `__consumer_offsets`, and the in-memory view is what replaying those
records gives. Records use Kafka's own formats (`protocol.internal`), so anything that
reads `__consumer_offsets` (Burrow, `kafka-console-consumer --formatter
OffsetsMessageFormatter`, a test with `struct`) sees what a Kafka broker would have written.

Record layout (key and value each start with an int16 version):

    key version 0/1  OffsetCommitKey    (group, topic, partition)       -> an offset commit
    key version 2    GroupMetadataKey   (group)                         -> group metadata
    value None                          a tombstone: the key is deleted

What pylog writes, as Kafka 4.1's group coordinator does (GroupCoordinatorRecordHelpers):

    OffsetCommitKey v1, OffsetCommitValue v4 (offset, leader epoch, metadata, commit time;
    flexible, its tagged topic id left out as Kafka leaves out the zero id of commits by
    name), or v1 (no leader epoch, + expire timestamp) when the commit carried a retention
    time (OffsetCommit v2-v4 `retention_time_ms` != -1);
    GroupMetadataKey v2, GroupMetadataValue v3.

Each write (one commit request, one group-metadata change, one set of tombstones) is one
record batch (magic 2, uncompressed, CreateTime = the broker's clock, no producer id and
base sequence 0, as Kafka's coordinator runtime builds them) appended to partition
`partition_for(group_id)`; the in-memory view changes only after the append succeeded.
Kafka may also put the records of writes less than `group.coordinator.append.linger.ms`
apart into one batch; pylog does not wait.

Topic deletion (`delete_partitions`): tombstones for every group's offsets of the deleted
partitions, per `__consumer_offsets` partition, as Kafka's onPartitionsDeleted writes them.

Partition choice (`partition_for`): `Utils.abs(groupId.hashCode) % partitionCount`, with
Java's String.hashCode (over UTF-16 code units, int32 arithmetic) and Kafka's Utils.abs
(Integer.MIN_VALUE -> 0). The partition count is that of the existing topic, or
`offsets.topic.num.partitions` before it exists.

The topic is created lazily, on the first write (or `ensure_topic`), with
`offsets.topic.num.partitions` partitions and `cleanup.policy=compact`,
`segment.bytes=offsets.topic.segment.bytes`, `compression.type=producer`, so a broker that
never sees a group starts without 50 extra logs.

Replication: every write method returns `Written(index, end_offset)`, the end of its
batch; `wait_replicated(written, still_leading)` waits until the partition's high
watermark reaches it (replication_wait.py), at most `offsets.commit.timeout.ms`
(REQUEST_TIMED_OUT after that, NOT_COORDINATOR when `still_leading()` turns False);
`write_error` is the one mapping of a failed write to the answer. The view takes
a change at its append (later writes see it), but `committed` (what OffsetFetch serves)
shows an offset as the replicated log has it: each change still above the high watermark
is undone in what it returns (Kafka's reads at the last committed offset).

Leadership: only the partitions this broker leads are in the view. `load_partition(index)`
(an election; the group coordinator first waits with `wait_caught_up` until the high
watermark reaches the log end offset) replays one partition; `unload_partition(index)` (a
resignation) forgets its groups and wakes whatever waits on its high watermark.

Loading (`load`, the single-node start; `load_partition`, one partition): read from its
log start offset to its high watermark and its records applied in order -- the last value
of a key wins, a null value deletes the key. Transactional batches are held per producer
until their COMMIT marker (applied) or ABORT marker (dropped); records with unknown key
versions (KIP-848 consumer-group records, share groups) are skipped.

Expiry (`expire`, every `offsets.retention.check.interval.ms`), Kafka 2.1+ (KIP-211,
`GroupMetadata.removeExpiredOffsets` / `ClassicGroup.offsetExpirationCondition`), with
retention = `offsets.retention.minutes`:

    an offset committed with an explicit expire timestamp (v1 value) expires at that time;
    otherwise, by the group's state:
      simple group (no protocol type, e.g. assign() + commit)  commit time + retention
      Empty group with a protocol type                           time the group became Empty
                                                                 (its state timestamp; else
                                                                 the commit time) + retention
      Stable "consumer" group                                    commit time + retention, only
                                                                 for topics no member subscribes
      any other state (rebalancing)                              never
    A group left Empty (or simple) without offsets is then removed (Kafka: Dead): a
    tombstone for its group metadata key goes into the same batch, or, for a group the
    coordinator holds, `group_coordinator.maybe_remove_empty_group` drops it and writes
    the tombstone.

The orders Kafka answers in: OffsetFetch of all of a group's offsets lists them in the order
of the coordinator's maps of them (`in_kafkas_order`, pylog/coordinator/offsets_order.py),
ListGroups a partition's groups in the order of its map of them (`groups_in_kafkas_order`).
Those orders depend on every record, not only on the last of each key, so the view keeps
them through every write, and the load feeds them each record as it reads it.

What a group looks like (`group_facts`) comes from `broker.group_coordinator.group(id)`
(a ClassicGroup: state, protocol type, state timestamp, members' subscriptions) when the
coordinator holds the group; otherwise from its last group metadata record (Empty: a
group the coordinator does not hold has no members), or, with only offsets, a simple
Empty group.

Everything runs on the broker's event loop (the partitions' logs are not thread-safe).
"""

from __future__ import annotations

import logging
import struct
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from protocol import codec
from protocol.error_codes import ErrorCode
from protocol.errors import ProtocolError
from protocol.internal.group_metadata_key import GroupMetadataKey
from protocol.internal.group_metadata_value import GroupMetadataValue
from protocol.internal.offset_commit_key import OffsetCommitKey
from protocol.internal.offset_commit_value import OffsetCommitValue
from protocol.java_order import (
    computed_bucket_order,
    concurrent_hash_map_order,
    hash_set_order,
    java_string_hashcode,
    spread,
    topic_partition_hash,
)
from protocol.messages.consumer_protocol_subscription import ConsumerProtocolSubscription
from protocol.records import (
    ControlType,
    build_batch,
    iter_batch_headers,
    iter_key_values,
    iter_records,
    read_control_record,
)
from storage.log_validator import AppendOrigin

from pylog.clock import now_ms as wall_clock_ms
from pylog.coordinator import OFFSETS_TOPIC
from pylog.coordinator.group import GroupState
from pylog.coordinator.offsets_order import OffsetsOrder
from pylog.coordinator.replication_wait import wait_for_high_watermark
from pylog.errors import BrokerError, error_code_for
from pylog.timeline_order import TimelineHashOrder

log = logging.getLogger("pylog.offsets")


# Record key versions in __consumer_offsets.
OFFSET_COMMIT_KEY_VERSIONS = (0, 1)
GROUP_METADATA_KEY_VERSION = 2
# What pylog writes (Kafka 4.1).
OFFSET_COMMIT_KEY_WRITE_VERSION = 1
OFFSET_COMMIT_VALUE_WRITE_VERSION = 4
OFFSET_COMMIT_VALUE_WITH_EXPIRY_VERSION = 1
GROUP_METADATA_VALUE_WRITE_VERSION = 3
# Kafka's coordinator runtime builds its batches with base sequence 0 (and no producer id).
COORDINATOR_BASE_SEQUENCE = 0

CONSUMER_PROTOCOL_TYPE = "consumer"
NO_TIMESTAMP = -1
READ_CHUNK_BYTES = 1 << 20
INT16 = struct.Struct(">h")

TopicPartition = tuple[str, int]


@dataclass(frozen=True)
class CommittedOffset:
    """One committed offset (Kafka's OffsetAndMetadata). -1 = none, for the epoch and expiry."""

    offset: int
    leader_epoch: int = -1
    metadata: str = ""
    commit_timestamp_ms: int = NO_TIMESTAMP
    expire_timestamp_ms: int = NO_TIMESTAMP


@dataclass(frozen=True)
class GroupFacts:
    """What offset expiry and OffsetDelete need to know about a group.

    `state` is never Dead (a Dead group has no facts); `protocol_type` None = a simple
    group (offsets only); `subscribed_topics` None = unknown; `live` = from the group
    coordinator."""

    state: GroupState
    protocol_type: str | None
    state_timestamp_ms: int
    subscribed_topics: set[str] | None
    live: bool


@dataclass
class ExpiryResult:
    """What one `expire` pass removed."""

    expired: dict[str, list[TopicPartition]] = field(default_factory=dict)   # group -> partitions
    dead_groups: list[str] = field(default_factory=list)                     # groups removed


# ---------------------------------------------------------------------------------------
# Kafka's partition choice


def kafka_abs(n: int) -> int:
    """Kafka's `Utils.abs`: like Math.abs, but Integer.MIN_VALUE maps to 0 (not to itself)."""
    return 0 if n == -0x8000_0000 else abs(n)


def partition_for_group(group_id: str, partition_count: int) -> int:
    return kafka_abs(java_string_hashcode(group_id)) % partition_count


def in_kafkas_partition_order(group_ids: Iterable[str], partition_count: int, deleting: bool = False) -> list[str]:
    """`group_ids` in the order Kafka's group coordinator answers a request naming several
    (DescribeGroups, DeleteGroups): it buckets them by `__consumer_offsets` partition, one
    `computeIfAbsent` per group on a HashMap keyed by TopicPartition, then answers partition
    after partition in that map's order (protocol/java_order.py), each partition's groups in
    request order; but a DeleteGroups (`deleting`) answers a partition's groups in the order
    of a HashSet of them, which it passes them through."""
    by_partition: dict[int, list[str]] = {}
    calls = []
    for group_id in group_ids:
        partition = partition_for_group(group_id, partition_count)
        by_partition.setdefault(partition, []).append(group_id)
        calls.append(spread(topic_partition_hash(OFFSETS_TOPIC, partition)))
    groups = list(by_partition.values())
    if deleting:
        groups = [hash_set_order(partition_groups) for partition_groups in groups]
    return [group_id for i in computed_bucket_order(calls) for group_id in groups[i]]


def java_string_length(text: str) -> int:
    """Java's `String.length()`: UTF-16 code units (offset.metadata.max.bytes counts these)."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


# ---------------------------------------------------------------------------------------
# Record encoding (Kafka's formats, version-prefixed)


def offset_commit_key(group_id: str, topic: str, partition: int) -> bytes:
    key = OffsetCommitKey(group=group_id, topic=topic, partition=partition)
    return INT16.pack(OFFSET_COMMIT_KEY_WRITE_VERSION) + bytes(codec.encode(key, OFFSET_COMMIT_KEY_WRITE_VERSION))


def offset_key_fields(key: bytes) -> tuple[str, str, int] | None:
    """(group, topic, partition) of an offset commit record's key (at least 2 bytes); None
    for another kind of key. Raises ProtocolError for a key that cannot be read."""
    key_version, = INT16.unpack_from(key)
    if key_version not in OFFSET_COMMIT_KEY_VERSIONS:
        return None
    decoded = codec.decode(OffsetCommitKey, key, key_version, 2)
    return decoded.group, decoded.topic, decoded.partition


def group_key_id(key: bytes) -> str | None:
    """The group id of a group metadata record's key (at least 2 bytes); None for another
    kind of key. Raises ProtocolError for a key that cannot be read."""
    key_version, = INT16.unpack_from(key)
    if key_version != GROUP_METADATA_KEY_VERSION:
        return None
    return codec.decode(GroupMetadataKey, key, key_version, 2).group


def offset_commit_value(committed: CommittedOffset) -> bytes:
    version = (OFFSET_COMMIT_VALUE_WITH_EXPIRY_VERSION if committed.expire_timestamp_ms != NO_TIMESTAMP
               else OFFSET_COMMIT_VALUE_WRITE_VERSION)
    value = OffsetCommitValue(offset=committed.offset, leader_epoch=committed.leader_epoch,
                              metadata=committed.metadata, commit_timestamp=committed.commit_timestamp_ms,
                              expire_timestamp=committed.expire_timestamp_ms)
    return INT16.pack(version) + bytes(codec.encode(value, version))


def group_metadata_key(group_id: str) -> bytes:
    return INT16.pack(GROUP_METADATA_KEY_VERSION) + bytes(
        codec.encode(GroupMetadataKey(group=group_id), GROUP_METADATA_KEY_VERSION))


def group_metadata_value(value: GroupMetadataValue) -> bytes:
    version = GROUP_METADATA_VALUE_WRITE_VERSION
    return INT16.pack(version) + bytes(codec.encode(value, version))


def decode_versioned(cls, data: bytes):
    """(version, message) of a version-prefixed record key or value."""
    if data is None or len(data) < 2:
        raise ProtocolError(f"a {cls.__name__} record needs an int16 version")
    version, = INT16.unpack_from(data)
    low, high = cls.valid_versions
    if not low <= version <= high:
        raise ProtocolError(f"{cls.__name__} version {version} is not one of {low}-{high}")
    return version, codec.decode(cls, data, version, 2)


def subscribed_topics(value: GroupMetadataValue | None) -> set[str] | None:
    """Topics the members of a "consumer" group subscribe to, from their subscription
    bytes (ConsumerProtocolSubscription); None if unknown (other protocol, undecodable)."""
    if value is None or value.protocol_type != CONSUMER_PROTOCOL_TYPE:
        return None
    return _union_of_subscriptions(member.subscription for member in value.members)


def _union_of_subscriptions(subscriptions: Iterable[bytes]) -> set[str] | None:
    topics: set[str] = set()
    for data in subscriptions:
        decoded = decode_subscription(data)
        if decoded is None:
            return None
        topics.update(decoded)
    return topics


def decode_subscription(data) -> list[str] | None:
    """Topic names of a ConsumerProtocolSubscription (any version, newer read as the newest)."""
    if not data or len(data) < 2:
        return None
    version, = INT16.unpack_from(data)
    if version < 0:
        return None
    version = min(version, ConsumerProtocolSubscription.valid_versions[1])
    try:
        return list(codec.decode(ConsumerProtocolSubscription, bytes(data), version, 2).topics)
    except ProtocolError:
        return None


BATCH_HEADER_BYTES = 61
RECORD_OVERHEAD_BYTES = 30     # a v2 record's varints and attributes, at most (with no headers)


def _tombstone_bytes(key: bytes) -> int:
    return RECORD_OVERHEAD_BYTES + len(key)


def _chunks_within(items: list, size_of, limit_bytes: int) -> list[list]:
    """`items` cut into runs whose records (`size_of` each) fit in one batch of `limit_bytes`;
    an item too large on its own is a run by itself."""
    chunks: list[list] = []
    current: list = []
    used = BATCH_HEADER_BYTES
    for item in items:
        size = size_of(item)
        if current and used + size > limit_bytes:
            chunks.append(current)
            current, used = [], BATCH_HEADER_BYTES
        current.append(item)
        used += size
    if current:
        chunks.append(current)
    return chunks


def _append_error(exc: BaseException) -> ErrorCode:
    """Kafka's mapping of an append failure to the coordinator's answer (appendForGroup)."""
    return write_error(error_code_for(exc))


def write_error(code: ErrorCode) -> ErrorCode:
    """The answer of a coordinator write that failed with `code`, at the append or while it
    waited for its replication (Kafka 4.1's CoordinatorOperationExceptionHelper: a write that
    timed out, REQUEST_TIMED_OUT, is answered COORDINATOR_NOT_AVAILABLE; a batch too large
    for `__consumer_offsets`, UNKNOWN_SERVER_ERROR, where Kafka's older coordinator answered
    INVALID_COMMIT_OFFSET_SIZE)."""
    if code in (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.NOT_ENOUGH_REPLICAS,
                ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND, ErrorCode.REQUEST_TIMED_OUT):
        return ErrorCode.COORDINATOR_NOT_AVAILABLE
    if code in (ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.KAFKA_STORAGE_ERROR):
        return ErrorCode.NOT_COORDINATOR
    if code in (ErrorCode.MESSAGE_TOO_LARGE, ErrorCode.RECORD_LIST_TOO_LARGE, ErrorCode.INVALID_FETCH_SIZE):
        return ErrorCode.UNKNOWN_SERVER_ERROR
    return code


@dataclass(frozen=True)
class Written:
    """Where one write of the store ended: its `__consumer_offsets` partition and the offset
    after its batch (the high watermark must reach it for the write to count)."""

    index: int
    end_offset: int


# ---------------------------------------------------------------------------------------
# The store


class OffsetStore:
    """Committed offsets and group metadata of every group, backed by `__consumer_offsets`.

    `broker` provides `config`, `metadata.topics`, `create_topic`, `partition` and
    (optionally) `group_coordinator`, told of every record written to a partition
    (`on_partition_written`). Methods that write take `now_ms` (the broker's clock by
    default) and raise `BrokerError` with the code Kafka's coordinator answers when the
    append fails.
    """

    def __init__(self, broker):
        self.broker = broker
        config = broker.config
        self.num_partitions_config = config.offsets_topic_num_partitions
        self.segment_bytes = config.offsets_topic_segment_bytes
        self.retention_ms = config.offsets_retention_minutes * 60_000
        self.metadata_max_bytes = config.offset_metadata_max_bytes
        self.commit_timeout_ms = config.offsets_commit_timeout_ms
        self._offsets: dict[str, dict[TopicPartition, CommittedOffset]] = {}
        self._orders: dict[str, OffsetsOrder] = {}   # the order Kafka's maps of them keep
        # partition index -> Kafka's map of the groups of that partition (its shard), for
        # the order ListGroups lists them in: a group is put when a commit or a join makes
        # it and when its metadata is written, and goes with its tombstone
        self._group_orders: dict[int, TimelineHashOrder] = {}
        self._groups: dict[str, GroupMetadataValue] = {}
        # partition index -> [(end offset of the batch, group, partition, offset before)]
        # for changes of the view not replicated yet, oldest first
        self._unreplicated: dict[int, list[tuple[int, str, TopicPartition, CommittedOffset | None]]] = {}

    # -- the topic ---------------------------------------------------------------------

    @property
    def partition_count(self) -> int:
        topic = self.broker.metadata.topics.get(OFFSETS_TOPIC)
        return topic.num_partitions if topic is not None else self.num_partitions_config

    def partition_for(self, group_id: str) -> int:
        return partition_for_group(group_id, self.partition_count)

    def topic_configs(self) -> dict[str, str]:
        return {"cleanup.policy": "compact", "segment.bytes": str(self.segment_bytes),
                "compression.type": "producer"}

    async def ensure_topic(self) -> None:
        """Create `__consumer_offsets` if it does not exist yet, through the controller,
        with `offsets.topic.replication.factor` capped at the brokers registered; return
        once this broker hosts its partitions (another request may be creating them)."""
        await self.broker.create_internal_topic(OFFSETS_TOPIC, self.num_partitions_config,
                                                self.broker.config.offsets_topic_replication_factor,
                                                self.topic_configs())

    def _append(self, group_id: str, records: list[tuple[bytes, bytes | None]], now_ms: int) -> Written | None:
        """One batch with `records` on the group's partition (BrokerError on failure); where
        it ended (None: no records, nothing written)."""
        return self._append_to(self.partition_for(group_id), records, now_ms, f"group {group_id!r}")

    def _append_to(self, index: int, records: list[tuple[bytes, bytes | None]], now_ms: int,
                   owner: str) -> Written | None:
        if not records:
            return None
        try:
            partition = self.broker.partition(OFFSETS_TOPIC, index)
            if partition is None:
                raise BrokerError(ErrorCode.COORDINATOR_NOT_AVAILABLE, f"partition {index} of {OFFSETS_TOPIC} is missing")
            batch = build_batch([(key, value, (), now_ms) for key, value in records], timestamp_ms=now_ms,
                                base_sequence=COORDINATOR_BASE_SEQUENCE)
            info = partition.append(batch, now_ms, AppendOrigin.COORDINATOR)
        except Exception as exc:
            code = _append_error(exc)
            log.warning("writing %d record(s) of %s to %s-%d failed: %s (%s)", len(records), owner,
                        OFFSETS_TOPIC, index, exc, code.name)
            raise BrokerError(code, str(exc)) from exc
        coordinator = getattr(self.broker, "group_coordinator", None)
        if coordinator is not None:
            coordinator.on_partition_written(index)
        return Written(index, info.last_offset + 1)

    # -- replication of the writes -------------------------------------------------------

    def written_so_far(self, group_id: str) -> Written | None:
        """The end of the group's partition now: once replicated up to there, every write
        made so far for the group is (None: the partition is not here)."""
        index = self.partition_for(group_id)
        partition = self.broker.partition(OFFSETS_TOPIC, index)
        return None if partition is None else Written(index, partition.log_end_offset)

    def is_replicated(self, written: Written | None) -> bool:
        """The write is below the high watermark of its partition already."""
        if written is None:
            return True
        partition = self.broker.partition(OFFSETS_TOPIC, written.index)
        return partition is not None and partition.high_watermark >= written.end_offset

    async def wait_replicated(self, written: Written | None, still_leading: Callable[[], bool]) -> ErrorCode:
        """Wait until the high watermark passes `written` (NONE), this broker stops leading
        its partition (NOT_COORDINATOR) or `offsets.commit.timeout.ms` passes
        (REQUEST_TIMED_OUT; `write_error` turns it into a write's answer)."""
        if written is None:
            return ErrorCode.NONE
        partition = self.broker.partition(OFFSETS_TOPIC, written.index)
        if partition is None:
            return ErrorCode.NOT_COORDINATOR
        code = await wait_for_high_watermark(
            partition, self.broker.waiters, written.end_offset, self.commit_timeout_ms,
            lambda: still_leading() and self.broker.partition(OFFSETS_TOPIC, written.index) is partition)
        if code:
            log.warning("a write to %s-%d (up to offset %d) was not replicated: %s", OFFSETS_TOPIC,
                        written.index, written.end_offset, code.name)
        return code

    # -- offsets -----------------------------------------------------------------------

    def committed(self, group_id: str) -> dict[TopicPartition, CommittedOffset]:
        """The committed offsets of a group as replicated (a copy; empty for an unknown
        group): a change whose batch the high watermark has not passed yet is not shown,
        the value before it is (Kafka reads at the last committed offset)."""
        offsets = dict(self._offsets.get(group_id, {}))
        index = self.partition_for(group_id)
        changes = self._unreplicated_changes(index)
        for _, group, tp, before in reversed(changes):
            if group == group_id:
                if before is None:
                    offsets.pop(tp, None)
                else:
                    offsets[tp] = before
        return offsets

    def in_kafkas_order(self, group_id: str, offsets: Iterable[TopicPartition]) -> list[tuple[str, list[int]]]:
        """`offsets` of the group by topic, in the order Kafka lists all of a group's offsets
        (pylog/coordinator/offsets_order.py)."""
        return self._orders.get(group_id, OffsetsOrder()).ordered(offsets)

    def _unreplicated_changes(self, index: int) -> list:
        """The changes of partition `index` still above its high watermark (the others are
        dropped now), oldest first."""
        changes = self._unreplicated.get(index)
        if not changes:
            return []
        partition = self.broker.partition(OFFSETS_TOPIC, index)
        high_watermark = partition.high_watermark if partition is not None else changes[-1][0]
        changes[:] = [change for change in changes if change[0] > high_watermark]
        if not changes:
            del self._unreplicated[index]
        return changes

    def _before_change(self, written: Written | None, group_id: str, partitions: Iterable[TopicPartition]) -> None:
        """Every write of offsets calls this after its append and before the view takes the
        change: what the view had for those offsets is kept until the batch is replicated,
        for `committed`."""
        if written is None or self.is_replicated(written):
            return
        current = self._offsets.get(group_id, {})
        self._unreplicated.setdefault(written.index, []).extend(
            (written.end_offset, group_id, tp, current.get(tp)) for tp in partitions)

    def commit(self, group_id: str,
               offsets: Mapping[TopicPartition, CommittedOffset] | Iterable[tuple[TopicPartition, CommittedOffset]],
               now_ms: int | None = None) -> Written | None:
        """Store `offsets` for the group: one batch on the group's partition, a record per
        entry (a partition given twice is written twice, as Kafka's coordinator does, and the
        last one counts), then the view. Returns where the batch ended, for the wait for its
        replication."""
        entries = list(offsets.items()) if isinstance(offsets, Mapping) else list(offsets)
        if not entries:
            return None
        now = wall_clock_ms() if now_ms is None else now_ms
        records = [(offset_commit_key(group_id, topic, partition), offset_commit_value(committed))
                   for (topic, partition), committed in entries]
        written = self._append(group_id, records, now)
        self._before_change(written, group_id, dict.fromkeys(tp for tp, _ in entries))
        current = self._offsets.setdefault(group_id, {})
        for tp, committed in entries:
            current[tp] = committed
            self._offset_put(group_id, *tp)
        self._group_made(group_id)
        return written

    def delete_offsets(self, group_id: str, partitions: Iterable[TopicPartition],
                       now_ms: int | None = None) -> list[TopicPartition]:
        """Remove these partitions' committed offsets (tombstones); return those that had one."""
        current = self._offsets.get(group_id, {})
        removed = list(dict.fromkeys(tp for tp in partitions if tp in current))
        now = wall_clock_ms() if now_ms is None else now_ms
        written = self._append(group_id, [(offset_commit_key(group_id, t, p), None) for t, p in removed], now)
        self._before_change(written, group_id, removed)
        self._forget_offsets(group_id, removed)
        return removed

    def delete_group_offsets(self, group_id: str, now_ms: int | None = None, *,
                             group_tombstone: bool = True) -> int:
        """DeleteGroups: tombstones for every committed offset of the group and (by default)
        for its group metadata, in one batch, as Kafka's cleanupGroupMetadata writes them.
        Returns the number of offsets removed."""
        removed = list(self._offsets.get(group_id, {}))
        records = [(offset_commit_key(group_id, t, p), None) for t, p in removed]
        if group_tombstone:
            records.append((group_metadata_key(group_id), None))
        now = wall_clock_ms() if now_ms is None else now_ms
        written = self._append(group_id, records, now)
        self._before_change(written, group_id, removed)
        self._offsets.pop(group_id, None)
        self._orders.pop(group_id, None)
        if group_tombstone:
            self._groups.pop(group_id, None)
            self._group_gone(group_id)
        return len(removed)

    def delete_partitions(self, partitions: Iterable[TopicPartition],
                          now_ms: int | None = None) -> dict[str, list[TopicPartition]]:
        """Topic deletion: tombstones for every group's committed offsets of `partitions`
        (Kafka's onPartitionsDeleted), so that a topic created again under the same name
        does not resume at them. The tombstones of the groups of one `__consumer_offsets`
        partition go into as few batches as `max.message.bytes` allows; groups in the
        order they first committed, each group's partitions in the order given. Returns
        what was removed, per group; a failed append raises BrokerError, with the view
        keeping what the log still has."""
        deleted = list(dict.fromkeys(partitions))
        now = wall_clock_ms() if now_ms is None else now_ms
        by_index: dict[int, list[tuple[str, TopicPartition, bytes]]] = {}
        for group_id, offsets in self._offsets.items():
            for tp in deleted:
                if tp in offsets:
                    by_index.setdefault(self.partition_for(group_id), []).append(
                        (group_id, tp, offset_commit_key(group_id, *tp)))
        removed: dict[str, list[TopicPartition]] = {}
        for index, doomed in sorted(by_index.items()):
            for chunk in _chunks_within(doomed, lambda item: _tombstone_bytes(item[2]), self._max_batch_bytes(index)):
                written = self._append_to(index, [(key, None) for _, _, key in chunk], now,
                                          f"deleted partitions ({len(chunk)} offsets)")
                for group_id, tp, _ in chunk:
                    self._before_change(written, group_id, [tp])
                    self._forget_offsets(group_id, [tp])
                    removed.setdefault(group_id, []).append(tp)
        return removed

    def _max_batch_bytes(self, index: int) -> int:
        partition = self.broker.partition(OFFSETS_TOPIC, index)
        return partition.log.config.max_message_bytes if partition is not None else 1 << 20

    def _forget_offsets(self, group_id: str, partitions: Iterable[TopicPartition]) -> None:
        current = self._offsets.get(group_id)
        if current is None:
            return
        for tp in partitions:
            if current.pop(tp, None) is not None:
                self._offset_removed(group_id, *tp)
        if not current:
            del self._offsets[group_id]

    def metadata_too_large(self, metadata: str | None) -> bool:
        return metadata is not None and java_string_length(metadata) > self.metadata_max_bytes

    # -- group metadata ----------------------------------------------------------------

    def write_group_metadata(self, group_id: str, value: GroupMetadataValue | None,
                             now_ms: int | None = None) -> Written | None:
        """Persist a group's metadata (GroupMetadataValue v3), or a tombstone for None;
        returns where the batch ended."""
        now = wall_clock_ms() if now_ms is None else now_ms
        encoded = None if value is None else group_metadata_value(value)
        written = self._append(group_id, [(group_metadata_key(group_id), encoded)], now)
        if value is None:
            self._groups.pop(group_id, None)
            self._group_gone(group_id)
        else:
            self._groups[group_id] = value
            self._group_put(group_id)
        return written

    # -- the orders of Kafka's maps: a group's offsets (OffsetFetch), a partition's groups (ListGroups)

    def _offset_put(self, group_id: str, topic: str, partition: int) -> TimelineHashOrder:
        """An offset committed (written, or read at load), in Kafka's maps of the group's
        offsets; returns its partition map."""
        order = self._orders.get(group_id)
        if order is None:
            order = self._orders[group_id] = OffsetsOrder()
        return order.put(topic, partition)

    def _offset_removed(self, group_id: str, topic: str, partition: int) -> None:
        """An offset's tombstone (written, or read at load), in Kafka's maps: the group's
        go with its last offset."""
        order = self._orders.get(group_id)
        if order is not None and order.remove(topic, partition):
            del self._orders[group_id]

    def _group_put(self, group_id: str) -> None:
        """Kafka's `groups.put`: a group made, or its metadata written (a replacing put)."""
        index = self.partition_for(group_id)
        order = self._group_orders.get(index)
        if order is None:
            order = self._group_orders[index] = TimelineHashOrder()
        order.put(group_id)

    def _group_made(self, group_id: str) -> None:
        """A commit's group: Kafka makes a group it does not have (a put), and only then."""
        order = self._group_orders.get(self.partition_for(group_id))
        if order is None or group_id not in order.keys:
            self._group_put(group_id)

    def _group_gone(self, group_id: str) -> None:
        order = self._group_orders.get(self.partition_for(group_id))
        if order is not None:
            order.remove(group_id)

    def groups_in_kafkas_order(self, group_ids: Iterable[str], shards: list[int]) -> list[str]:
        """`group_ids` as Kafka's ListGroups lists them: shard after shard, in the order of
        the coordinator runtime's ConcurrentHashMap of `__consumer_offsets` partitions
        (`shards`, taken as put in ascending order), each shard's groups in the order of
        its map of them. A group of no shard named comes last."""
        by_shard: dict[int, list[str]] = {}
        for group_id in group_ids:
            by_shard.setdefault(self.partition_for(group_id), []).append(group_id)
        ordered: list[str] = []
        for position in concurrent_hash_map_order(topic_partition_hash(OFFSETS_TOPIC, index) for index in shards):
            groups = by_shard.pop(shards[position], None)
            if groups:
                ordered += self._group_orders.get(shards[position], TimelineHashOrder()).ordered(groups)
        for groups in by_shard.values():
            ordered += groups
        return ordered

    def loaded_groups(self) -> dict[str, GroupMetadataValue]:
        """The last persisted metadata of every group that has some (no tombstone after it)."""
        return dict(self._groups)

    def group_metadata(self, group_id: str) -> GroupMetadataValue | None:
        return self._groups.get(group_id)

    def group_ids(self) -> set[str]:
        """Groups with committed offsets or persisted metadata (Kafka loads both as groups)."""
        return set(self._offsets) | set(self._groups)

    def has_group(self, group_id: str) -> bool:
        return group_id in self._offsets or group_id in self._groups

    # -- loading -----------------------------------------------------------------------

    def load(self, now_ms: int | None = None) -> None:
        """Rebuild the view from `__consumer_offsets` (if it exists): every partition, from
        its log start to its high watermark, records applied in order."""
        self._offsets.clear()
        self._orders.clear()
        self._group_orders.clear()
        self._groups.clear()
        self._unreplicated.clear()
        topic = self.broker.metadata.topics.get(OFFSETS_TOPIC)
        if topic is None:
            return
        records = 0
        for index in range(topic.num_partitions):
            partition = self.broker.partition(OFFSETS_TOPIC, index)
            if partition is not None:
                records += self._load_partition(partition)
        log.info("loaded %d record(s) of %s: %d group(s) with offsets, %d with metadata", records, OFFSETS_TOPIC,
                 len(self._offsets), len(self._groups))

    def load_partition(self, index: int) -> int:
        """Rebuild the view of one partition (this broker became its leader): what the view
        had of its groups is dropped, then its records are replayed from its log start to
        its high watermark. Returns the number of records read (0: the partition is not
        here)."""
        self.unload_partition(index)
        partition = self.broker.partition(OFFSETS_TOPIC, index)
        if partition is None:
            return 0
        read = self._load_partition(partition)
        log.info("loaded %d record(s) of %s-%d", read, OFFSETS_TOPIC, index)
        return read

    async def wait_caught_up(self, index: int, still_current: Callable[[], bool]) -> ErrorCode:
        """Before a load: wait until the high watermark of partition `index` reaches its log
        end offset as it is now (NONE), without a time limit; NOT_COORDINATOR if the
        partition is not here or `still_current()` turns False first."""
        partition = self.broker.partition(OFFSETS_TOPIC, index)
        if partition is None:
            return ErrorCode.NOT_COORDINATOR
        return await wait_for_high_watermark(
            partition, self.broker.waiters, partition.log_end_offset, None,
            lambda: still_current() and self.broker.partition(OFFSETS_TOPIC, index) is partition)

    def unload_partition(self, index: int) -> None:
        """Forget the offsets and group metadata of every group of partition `index` (this
        broker no longer leads it: another broker's copy is the one that counts), and wake
        whatever waits on that partition's high watermark so that it sees the change."""
        for groups in (self._offsets, self._orders, self._groups):
            for group_id in [g for g in groups if self.partition_for(g) == index]:
                del groups[group_id]
        self._unreplicated.pop(index, None)
        self._group_orders.pop(index, None)
        self.broker.waiters.notify((OFFSETS_TOPIC, index))

    def _load_partition(self, partition) -> int:
        """Replay one partition; return how many records it read.

        Each key (a group's offset for one partition, or a group's metadata) ends up with
        its last record, whatever came before, so the replay keeps the last value of each
        key by its raw bytes first and decodes only those: a partition that saw a million
        commits of a few thousand offsets decodes a few thousand. Keys are independent, and
        they are applied in the order of their last records, so the view is the one applying
        every record in order would give. The order Kafka's maps keep the offsets in depends
        on every record, though: each offset record goes to its group's `OffsetsOrder` as it
        is read (its key decoded once per distinct key)."""
        partition_log = partition.log
        offset = partition_log.log_start_offset
        end = partition.high_watermark
        pending: dict[int, list] = {}     # producer id -> records of its open transaction
        latest: dict[bytes, bytes | None] = {}   # raw key -> its last value (None: tombstone)
        # raw key -> ("offset", (group, topic, partition)) or ("group", group), None for another
        kinds: dict[bytes, tuple[str, Any] | None] = {}
        placed: dict[bytes, tuple[TimelineHashOrder, int]] = {}   # raw key -> its partition map, partition
        read = 0

        def keep(key, value) -> None:
            if key is None or len(key) < 2:
                log.warning("%s-%d: a record without a versioned key is ignored", OFFSETS_TOPIC,
                            partition.index)
                return
            latest.pop(key, None)
            latest[key] = value
            spot = placed.get(key)
            if spot is not None and value is not None:   # a commit again: its map may grow
                spot[0].put(spot[1])
                return
            if key not in kinds:
                try:
                    fields = offset_key_fields(key)
                    group_id = group_key_id(key) if fields is None else None
                except ProtocolError:   # logged when the last value is applied
                    fields = group_id = None
                kinds[key] = ("offset", fields) if fields else ("group", group_id) if group_id is not None else None
            kind = kinds[key]
            if kind is None:
                return
            if kind[0] == "group":
                if value is None:
                    placed.clear()   # the group goes: its next commit makes it again
                    self._group_gone(kind[1])
                else:
                    self._group_put(kind[1])
            elif value is None:
                placed.clear()   # maps may go with this offset, and be made anew
                self._offset_removed(*kind[1])
            else:
                placed[key] = self._offset_put(*kind[1]), kind[1][2]
                self._group_made(kind[1][0])

        while offset < end:
            data = partition_log.read(offset, READ_CHUNK_BYTES, max_offset=end).read_bytes()
            if not data:
                break
            progressed = False
            for position, header in iter_batch_headers(data):
                progressed = True
                next_offset = header.next_offset
                if next_offset <= offset:
                    continue
                if header.is_control:
                    for record in iter_records(data, position):
                        kind, _ = read_control_record(record)
                        held = pending.pop(header.producer_id, [])
                        if kind is ControlType.COMMIT:
                            for key, value in held:
                                keep(key, value)
                elif header.is_transactional:
                    held = pending.setdefault(header.producer_id, [])
                    held.extend((key, value) for record_offset, key, value in iter_key_values(data, position)
                                if record_offset >= offset)
                else:
                    for record_offset, key, value in iter_key_values(data, position):
                        if record_offset >= offset:
                            read += 1
                            keep(key, value)
                offset = next_offset
            if not progressed:
                log.warning("%s-%d: no complete batch at offset %d; stopping the load of this partition",
                            OFFSETS_TOPIC, partition.index, offset)
                break
        for key, value in latest.items():
            self._apply(key, value, partition.index)
        return read

    def _apply(self, key: bytes | None, value: bytes | None, partition_index: int) -> int:
        """Apply one record to the view; 1 if it was an offset or group record, else 0."""
        if key is None or len(key) < 2:
            log.warning("%s-%d: a record without a versioned key is ignored", OFFSETS_TOPIC, partition_index)
            return 0
        key_version, = INT16.unpack_from(key)
        try:
            fields = offset_key_fields(key)
            if fields is not None:
                group, tp = fields[0], fields[1:]
                if value is None:
                    self._forget_offsets(group, [tp])
                else:
                    _, decoded = decode_versioned(OffsetCommitValue, value)
                    self._offsets.setdefault(group, {})[tp] = CommittedOffset(
                        offset=decoded.offset, leader_epoch=decoded.leader_epoch, metadata=decoded.metadata,
                        commit_timestamp_ms=decoded.commit_timestamp, expire_timestamp_ms=decoded.expire_timestamp)
                return 1
            group = group_key_id(key)
            if group is not None:
                if value is None:
                    self._groups.pop(group, None)
                else:
                    self._groups[group] = decode_versioned(GroupMetadataValue, value)[1]
                return 1
        except ProtocolError as exc:
            log.warning("%s-%d: undecodable record (key version %d) ignored: %s", OFFSETS_TOPIC, partition_index,
                        key_version, exc)
            return 0
        return 0   # KIP-848 / share-group record types: not pylog's

    # -- what the group looks like ------------------------------------------------------

    def group_facts(self, group_id: str) -> GroupFacts | None:
        """State, protocol type, state timestamp and subscribed topics of a group, from the
        group coordinator when it knows the group, else from the stored metadata; None if
        neither knows it (see the module docstring)."""
        group = self.broker.group_coordinator.group(group_id)
        if group is not None and group.state is not GroupState.DEAD:
            protocol_type = group.protocol_type or None
            subscribed = None
            if protocol_type == CONSUMER_PROTOCOL_TYPE and group.protocol_name:
                subscribed = _union_of_subscriptions(m.metadata(group.protocol_name) for m in group.members.values())
            return GroupFacts(group.state, protocol_type, group.state_timestamp_ms,
                              subscribed, live=True)
        value = self._groups.get(group_id)
        if value is None and group_id not in self._offsets:
            return None
        if value is None:
            return GroupFacts(GroupState.EMPTY, None, NO_TIMESTAMP, None, live=False)
        # A coordinator that does not know a stored group has no members in it.
        return GroupFacts(GroupState.EMPTY, value.protocol_type or None, value.current_state_timestamp,
                          subscribed_topics(value), live=False)

    # -- expiry ------------------------------------------------------------------------

    def expire(self, now_ms: int | None = None) -> ExpiryResult:
        """Remove the offsets that `offsets.retention.minutes` lets go (Kafka's rules), and
        the groups left Empty without offsets. One batch of tombstones per group."""
        now = wall_clock_ms() if now_ms is None else now_ms
        result = ExpiryResult()
        coordinator = self.broker.group_coordinator
        live_groups = coordinator.groups
        for group_id in sorted(self.group_ids() | set(live_groups)):
            facts = self.group_facts(group_id)
            if facts is None:
                continue
            offsets = self._offsets.get(group_id, {})
            excluded: set[str] = set()
            if facts.protocol_type is None:                      # simple consumer
                base = None
            elif facts.state is GroupState.EMPTY:
                base = facts.state_timestamp_ms if facts.state_timestamp_ms >= 0 else None
            elif (facts.state is GroupState.STABLE and facts.protocol_type == CONSUMER_PROTOCOL_TYPE
                  and facts.subscribed_topics is not None):
                base, excluded = None, facts.subscribed_topics
            else:
                continue                                         # rebalancing: nothing expires
            expired = [tp for tp, c in offsets.items()
                       if tp[0] not in excluded
                       and self._is_expired(c, c.commit_timestamp_ms if base is None else base, now)]
            dead = facts.state is GroupState.EMPTY and len(expired) == len(offsets)
            coordinator_owns = dead and facts.live
            records = [(offset_commit_key(group_id, t, p), None) for t, p in expired]
            if dead and not coordinator_owns:
                records.append((group_metadata_key(group_id), None))
            try:
                written = self._append(group_id, records, now)
            except BrokerError:
                continue   # logged; tried again at the next check
            if expired:
                self._before_change(written, group_id, expired)
                self._forget_offsets(group_id, expired)
                result.expired[group_id] = expired
                log.info("expired %d offset(s) of group %r", len(expired), group_id)
            if dead:
                if coordinator_owns:
                    # The coordinator makes the group Dead and writes its tombstone if it
                    # ever wrote metadata; anything still stored gets one here.
                    coordinator.maybe_remove_empty_group(group_id)
                    if group_id in self._groups:
                        self.write_group_metadata(group_id, None, now)
                else:
                    self._groups.pop(group_id, None)
                self._group_gone(group_id)
                result.dead_groups.append(group_id)
                log.info("group %r is Empty without offsets: removed", group_id)
        return result

    def _is_expired(self, committed: CommittedOffset, base_timestamp_ms: int, now_ms: int) -> bool:
        if committed.expire_timestamp_ms != NO_TIMESTAMP:   # an explicit expire timestamp (v1 value)
            return now_ms >= committed.expire_timestamp_ms
        return now_ms - base_timestamp_ms >= self.retention_ms
