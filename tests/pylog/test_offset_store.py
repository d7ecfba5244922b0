"""The committed-offsets store (`pylog.coordinator.offsets.OffsetStore`) and `__consumer_offsets`.

- Kafka's partition choice: Java's String.hashCode, recomputed here by the Java rule
  (independently of pylog's code) and checked against values Java gives, Utils.abs.
- What the store writes, decoded independently: the segment files are read with
  kafka-python's record parser and every key and value is taken apart with `struct`,
  field by field, in Kafka's layouts (OffsetCommitKey v1, OffsetCommitValue v3/v1,
  GroupMetadataKey v2, GroupMetadataValue v3, tombstones).
- Loading after a restart, including records in older Kafka layouts and transactional
  batches (applied on COMMIT, dropped on ABORT).
- Offset expiry with a fake clock (every `now_ms` is passed in), for each group kind:
  simple, Empty (counting from when it became Empty), Stable consumer group (only topics
  nobody subscribes to), rebalancing (never), explicit expire timestamps.

The store runs against a real broker (EmbeddedBroker, a temporary directory) through a
view that hides any group coordinator the broker may have, or shows a fake one.
"""

from __future__ import annotations

import struct
from pathlib import Path
from types import SimpleNamespace

import pytest
from kafka.record import MemoryRecords

from protocol import codec
from protocol.error_codes import ErrorCode
from protocol.internal.group_metadata_value import GroupMetadataValue, MemberMetadata
from protocol.messages.consumer_protocol_subscription import ConsumerProtocolSubscription
from protocol.records import ControlType, build_batch, build_control_batch
from pylog.coordinator.group import GroupState
from pylog.coordinator.offsets import (
    OFFSETS_TOPIC,
    CommittedOffset,
    OffsetStore,
    java_string_hashcode,
    kafka_abs,
    partition_for_group,
)
from pylog.errors import BrokerError
from pylog.testing import EmbeddedBroker

pytestmark = pytest.mark.timeout(60)

MINUTE = 60_000
T0 = 1_700_000_000_000
RETENTION_MINUTES = 10
RETENTION_MS = RETENTION_MINUTES * MINUTE


# ---------------------------------------------------------------------------------------
# Java's String.hashCode, by the rule (not pylog's code)


def java_hash(text: str) -> int:
    """s[0]*31^(n-1) + ... + s[n-1] over UTF-16 code units, wrapped to a signed int32."""
    units = []
    for ch in text:
        cp = ord(ch)
        if cp >= 0x10000:                      # a surrogate pair
            cp -= 0x10000
            units += [0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF)]
        else:
            units.append(cp)
    h = 0
    for unit in units:
        h = h * 31 + unit
    h %= 2 ** 32
    return h - 2 ** 32 if h >= 2 ** 31 else h


# Values String.hashCode() returns in Java.
JAVA_HASHES = {
    "": 0,
    "a": 97,
    "ab": 3105,
    "hello world": 1794106052,              # overflows int32 on the way
    "polygenelubricants": -2147483648,      # Integer.MIN_VALUE
}


@pytest.mark.parametrize("text,expected", sorted(JAVA_HASHES.items()))
def test_java_string_hashcode_known_values(text, expected):
    assert java_hash(text) == expected
    assert java_string_hashcode(text) == expected


@pytest.mark.parametrize("text", ["my-group", "console-consumer-12345", "ümlaut-grüppe", "emoji-😀-group",
                                  "x" * 300, "GROUP_WITH_CAPS.and.dots"])
def test_java_string_hashcode_matches_the_rule(text):
    assert java_string_hashcode(text) == java_hash(text)


def test_partition_for_is_kafkas_abs_hash_modulo():
    # Utils.abs maps Integer.MIN_VALUE to 0 (Math.abs would leave it negative).
    assert kafka_abs(-2147483648) == 0
    assert partition_for_group("polygenelubricants", 50) == 0
    assert partition_for_group("hello world", 50) == 1794106052 % 50
    negative = next(g for g in (f"group-{i}" for i in range(1000)) if java_hash(g) < 0)
    assert partition_for_group(negative, 50) == abs(java_hash(negative)) % 50
    for group in ("", "a", "my-group", "emoji-😀-group"):
        assert partition_for_group(group, 50) == abs(java_hash(group)) % 50
        assert partition_for_group(group, 7) == abs(java_hash(group)) % 7


# ---------------------------------------------------------------------------------------
# fixtures


class BrokerView:
    """The real broker, with `group_coordinator` replaced (by default one that knows no
    group: what the store sees of groups whose members are all gone)."""

    def __init__(self, broker, coordinator=None):
        self._broker = broker
        self.group_coordinator = FakeCoordinator({}) if coordinator is None else coordinator

    def __getattr__(self, name):
        return getattr(self._broker, name)


@pytest.fixture
def embedded(tmp_path):
    broker = EmbeddedBroker(tmp_path / "data", config={"offsets.topic.num.partitions": 5,
                                                       "offsets.retention.minutes": RETENTION_MINUTES})
    broker.start()
    yield broker
    broker.stop()


def new_store(embedded, coordinator=None, load: bool = True) -> OffsetStore:
    """A store of its own over the broker's `__consumer_offsets` (created first, through
    the controller, as a FindCoordinator would)."""
    embedded.call(lambda: embedded.broker.offset_store.ensure_topic())

    def make():
        store = OffsetStore(BrokerView(embedded.broker, coordinator))
        if load:
            store.load(T0)
        return store
    return embedded.call(make)


def metadata_partitions(embedded, topic):
    from protocol.messages import MetadataRequest
    from tests.pylog.wire import RawClient
    client = RawClient(embedded.bootstrap_servers)
    try:
        response = client.request(3, 12, MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name=topic)]))
    finally:
        client.close()
    return response.topics[0].partitions


def on_loop(embedded, fn, *args, **kwargs):
    return embedded.call(lambda: fn(*args, **kwargs))


# ---------------------------------------------------------------------------------------
# reading __consumer_offsets independently: kafka-python's record parser + struct


class Reader:
    def __init__(self, data: bytes):
        self.data, self.pos = data, 0

    def take(self, fmt: str):
        values = struct.unpack_from(">" + fmt, self.data, self.pos)
        self.pos += struct.calcsize(">" + fmt)
        return values[0] if len(values) == 1 else values

    def string(self, nullable: bool = False):
        length = self.take("h")
        if length == -1 and nullable:
            return None
        value = self.data[self.pos:self.pos + length].decode("utf-8")
        self.pos += length
        return value

    def compact_string(self):
        length = self.take("B") - 1     # an unsigned varint; one byte below 128
        assert length < 127
        value = self.data[self.pos:self.pos + length].decode("utf-8")
        self.pos += length
        return value

    def bytes_(self):
        length = self.take("i")
        value = self.data[self.pos:self.pos + length]
        self.pos += length
        return value

    def done(self):
        assert self.pos == len(self.data), f"{len(self.data) - self.pos} trailing bytes"


def decode_key(key: bytes):
    r = Reader(key)
    version = r.take("h")
    if version in (0, 1):
        decoded = ("offset", version, r.string(), r.string(), r.take("i"))
    else:
        assert version == 2
        decoded = ("group", version, r.string())
    r.done()
    return decoded


def decode_offset_value(value: bytes) -> dict:
    r = Reader(value)
    version = r.take("h")
    out = {"version": version, "offset": r.take("q")}
    if version >= 3:
        out["leader_epoch"] = r.take("i")
    out["metadata"] = r.compact_string() if version >= 4 else r.string()
    out["commit_timestamp"] = r.take("q")
    if version == 1:
        out["expire_timestamp"] = r.take("q")
    if version >= 4:
        assert r.take("B") == 0, "no tagged fields (the topic id is left out)"
    r.done()
    return out


def decode_group_value(value: bytes) -> dict:
    r = Reader(value)
    version = r.take("h")
    out = {"version": version, "protocol_type": r.string(), "generation": r.take("i"),
           "protocol": r.string(nullable=True), "leader": r.string(nullable=True)}
    if version >= 2:
        out["current_state_timestamp"] = r.take("q")
    members = []
    for _ in range(r.take("i")):
        member = {"member_id": r.string()}
        if version >= 3:
            member["group_instance_id"] = r.string(nullable=True)
        member["client_id"] = r.string()
        member["client_host"] = r.string()
        if version >= 1:
            member["rebalance_timeout"] = r.take("i")
        member["session_timeout"] = r.take("i")
        member["subscription"] = r.bytes_()
        member["assignment"] = r.bytes_()
        members.append(member)
    out["members"] = members
    r.done()
    return out


def stored_batches(data_dir: Path, partition: int):
    """[(batch info, [(offset, timestamp, key, value)])] of one __consumer_offsets partition."""
    batches = []
    for path in sorted((Path(data_dir) / f"{OFFSETS_TOPIC}-{partition}").glob("*.log")):
        records = MemoryRecords(path.read_bytes())
        while records.has_next():
            batch = records.next_batch()
            if batch is None:
                break
            info = SimpleNamespace(base_offset=batch.base_offset, magic=batch.magic,
                                   compression=batch.compression_type, producer_id=batch.producer_id,
                                   producer_epoch=batch.producer_epoch, base_sequence=batch.base_sequence,
                                   transactional=batch.is_transactional)
            batches.append((info, [(r.offset, r.timestamp, r.key, r.value) for r in batch]))
    return batches


def subscription(*topics: str) -> bytes:
    return struct.pack(">h", 1) + bytes(codec.encode(ConsumerProtocolSubscription(topics=list(topics)), 1))


# ---------------------------------------------------------------------------------------
# the topic, the records


def test_topic_is_created_lazily_with_kafkas_configs(embedded):
    assert OFFSETS_TOPIC not in embedded.broker.metadata.topics    # starting a broker stays cheap
    store = new_store(embedded)
    assert on_loop(embedded, store.committed, "g") == {}
    on_loop(embedded, store.commit, "g", {("t", 0): CommittedOffset(1, commit_timestamp_ms=T0)}, T0)
    topic = embedded.broker.metadata.topics[OFFSETS_TOPIC]
    assert topic.num_partitions == 5
    # offsets.topic.replication.factor 3, capped at the one broker registered
    assert {len(p.replica_nodes) for p in metadata_partitions(embedded, OFFSETS_TOPIC)} == {1}
    assert topic.is_internal
    assert topic.configs == {"cleanup.policy": "compact", "segment.bytes": str(100 * 1024 * 1024),
                             "compression.type": "producer"}


def test_commit_writes_one_batch_in_kafkas_format(embedded):
    embedded.call(lambda: embedded.broker.create_topic("orders", 3))
    store = new_store(embedded)
    offsets = {("orders", 0): CommittedOffset(42, leader_epoch=0, metadata="m0", commit_timestamp_ms=T0),
               ("orders", 2): CommittedOffset(7, leader_epoch=-1, metadata="", commit_timestamp_ms=T0 - 5)}
    on_loop(embedded, store.commit, "billing", offsets, T0 + 1)
    assert on_loop(embedded, store.committed, "billing") == offsets

    partition = abs(java_hash("billing")) % 5
    batches = stored_batches(embedded.data_dir, partition)
    assert len(batches) == 1
    info, records = batches[0]
    # as Kafka's coordinator runtime: no producer, base sequence 0
    assert (info.magic, info.compression, info.producer_id, info.producer_epoch, info.base_sequence,
            info.transactional) == (2, 0, -1, -1, 0, False)
    decoded = {decode_key(key): decode_offset_value(value) for _, _, key, value in records}
    assert decoded == {
        ("offset", 1, "billing", "orders", 0): {"version": 4, "offset": 42, "leader_epoch": 0, "metadata": "m0",
                                                "commit_timestamp": T0},
        ("offset", 1, "billing", "orders", 2): {"version": 4, "offset": 7, "leader_epoch": -1, "metadata": "",
                                                "commit_timestamp": T0 - 5},
    }
    assert {timestamp for _, timestamp, _, _ in records} == {T0 + 1}
    for other in set(range(5)) - {partition}:
        assert stored_batches(embedded.data_dir, other) == []


def test_explicit_expire_timestamp_is_written_as_value_v1(embedded):
    store = new_store(embedded)
    offsets = {("t", 0): CommittedOffset(9, leader_epoch=3, metadata="x", commit_timestamp_ms=T0,
                                         expire_timestamp_ms=T0 + 1000)}
    on_loop(embedded, store.commit, "old-client", offsets, T0)
    (_, records), = stored_batches(embedded.data_dir, abs(java_hash("old-client")) % 5)
    (_, _, key, value), = records
    assert decode_key(key) == ("offset", 1, "old-client", "t", 0)
    assert decode_offset_value(value) == {"version": 1, "offset": 9, "metadata": "x", "commit_timestamp": T0,
                                          "expire_timestamp": T0 + 1000}


def test_group_metadata_record_layout(embedded):
    store = new_store(embedded)
    value = GroupMetadataValue(
        protocol_type="consumer", generation=4, protocol="range", leader="m-1", current_state_timestamp=T0,
        members=[MemberMetadata(member_id="m-1", group_instance_id="i-1", client_id="c1", client_host="/127.0.0.1",
                                rebalance_timeout=300000, session_timeout=10000, subscription=subscription("a"),
                                assignment=b"\x00\x01")])
    on_loop(embedded, store.write_group_metadata, "grp", value, T0)
    on_loop(embedded, store.write_group_metadata, "grp", None, T0 + 1)
    batches = stored_batches(embedded.data_dir, abs(java_hash("grp")) % 5)
    assert len(batches) == 2
    (_, _, key, raw), = batches[0][1]
    assert decode_key(key) == ("group", 2, "grp")
    assert decode_group_value(raw) == {
        "version": 3, "protocol_type": "consumer", "generation": 4, "protocol": "range", "leader": "m-1",
        "current_state_timestamp": T0,
        "members": [{"member_id": "m-1", "group_instance_id": "i-1", "client_id": "c1", "client_host": "/127.0.0.1",
                     "rebalance_timeout": 300000, "session_timeout": 10000, "subscription": subscription("a"),
                     "assignment": b"\x00\x01"}]}
    (_, _, key, raw), = batches[1][1]
    assert decode_key(key) == ("group", 2, "grp") and raw is None           # tombstone
    assert on_loop(embedded, store.loaded_groups) == {}


def test_tombstones_for_deleted_offsets_and_groups(embedded):
    store = new_store(embedded)
    offsets = {("t", p): CommittedOffset(p * 10, commit_timestamp_ms=T0) for p in range(3)}
    on_loop(embedded, store.commit, "g", offsets, T0)
    assert on_loop(embedded, store.delete_offsets, "g", [("t", 1), ("t", 9)], T0 + 1) == [("t", 1)]
    assert set(on_loop(embedded, store.committed, "g")) == {("t", 0), ("t", 2)}
    on_loop(embedded, store.write_group_metadata, "g", GroupMetadataValue(protocol_type="consumer", generation=1,
                                                                           current_state_timestamp=T0), T0 + 2)
    assert on_loop(embedded, store.delete_group_offsets, "g", T0 + 3) == 2
    assert on_loop(embedded, store.committed, "g") == {}
    assert on_loop(embedded, store.group_ids) == set()

    batches = stored_batches(embedded.data_dir, abs(java_hash("g")) % 5)
    keys = [[(decode_key(k), v is None) for _, _, k, v in records] for _, records in batches]
    assert keys == [
        [(("offset", 1, "g", "t", 0), False), (("offset", 1, "g", "t", 1), False), (("offset", 1, "g", "t", 2), False)],
        [(("offset", 1, "g", "t", 1), True)],
        [(("group", 2, "g"), False)],
        [(("offset", 1, "g", "t", 0), True), (("offset", 1, "g", "t", 2), True), (("group", 2, "g"), True)],
    ]


def test_metadata_limit_counts_java_chars(embedded):
    store = new_store(embedded)
    assert not store.metadata_too_large(None)
    assert not store.metadata_too_large("x" * 4096)
    assert store.metadata_too_large("x" * 4097)
    assert store.metadata_too_large("😀" * 2049)        # two UTF-16 units each
    assert not store.metadata_too_large("é" * 4096)      # one unit, two UTF-8 bytes


def test_append_failure_maps_to_kafkas_coordinator_errors(embedded):
    store = new_store(embedded)
    embedded.call(store.ensure_topic)
    embedded.call(lambda: embedded.broker.log_manager.set_topic_config(
        OFFSETS_TOPIC, embedded.broker.topic_log_config({"max.message.bytes": "200"})))
    too_big = {("t", p): CommittedOffset(p, metadata="m" * 50, commit_timestamp_ms=T0) for p in range(10)}
    with pytest.raises(BrokerError) as caught:
        on_loop(embedded, store.commit, "g", too_big, T0)
    assert caught.value.code == ErrorCode.UNKNOWN_SERVER_ERROR   # Kafka 4.1's coordinator runtime
    assert on_loop(embedded, store.committed, "g") == {}


def test_deleted_partitions_get_tombstones_in_batches_within_max_message_bytes(embedded):
    store = new_store(embedded)
    groups = [f"g{i}" for i in range(40)]
    for group in groups:
        on_loop(embedded, store.commit, group, {("gone", 0): CommittedOffset(1, commit_timestamp_ms=T0),
                                                ("gone", 1): CommittedOffset(2, commit_timestamp_ms=T0),
                                                ("kept", 0): CommittedOffset(3, commit_timestamp_ms=T0)}, T0)
    embedded.call(lambda: embedded.broker.log_manager.set_topic_config(
        OFFSETS_TOPIC, embedded.broker.topic_log_config({"max.message.bytes": "300"})))
    removed = on_loop(embedded, store.delete_partitions, [("gone", 0), ("gone", 1), ("never", 0)], T0 + 1)
    assert removed == {group: [("gone", 0), ("gone", 1)] for group in groups}
    assert all(on_loop(embedded, store.committed, g) == {("kept", 0): CommittedOffset(3, commit_timestamp_ms=T0)}
               for g in groups)
    from tests.integration.support import stored_batches as raw_batches

    tombstones = 0
    for index in range(5):
        later = [b for b in stored_batches(embedded.data_dir, index) if {t for _, t, _, _ in b[1]} == {T0 + 1}]
        in_partition = [g for g in groups if abs(java_hash(g)) % 5 == index]
        assert bool(later) == bool(in_partition)
        sizes = [header.size_bytes for _, _, header, _ in raw_batches(embedded.data_dir, OFFSETS_TOPIC, index)]
        assert all(size <= 300 for size in sizes[len(sizes) - len(later):])
        for _, records in later:
            assert all(value is None for _, _, _, value in records)
            tombstones += len(records)
    assert tombstones == 80
    assert on_loop(embedded, new_store(embedded).committed, "g7") == {("kept", 0): CommittedOffset(3, commit_timestamp_ms=T0)}


# ---------------------------------------------------------------------------------------
# loading


def test_load_after_restart_gives_the_same_view(embedded):
    store = new_store(embedded)
    on_loop(embedded, store.commit, "a", {("t", 0): CommittedOffset(1, 0, "first", T0)}, T0)
    on_loop(embedded, store.commit, "a", {("t", 0): CommittedOffset(5, 0, "second", T0 + 1),
                                          ("t", 1): CommittedOffset(6, 2, "", T0 + 1)}, T0 + 1)
    on_loop(embedded, store.commit, "b", {("u", 3): CommittedOffset(9, -1, "b", T0 + 2, T0 + 99)}, T0 + 2)
    on_loop(embedded, store.delete_offsets, "a", [("t", 1)], T0 + 3)
    on_loop(embedded, store.commit, "gone", {("t", 0): CommittedOffset(1, -1, "", T0)}, T0 + 4)
    on_loop(embedded, store.delete_group_offsets, "gone", T0 + 5)
    metadata = GroupMetadataValue(protocol_type="consumer", generation=2, protocol="range", leader="m",
                                  current_state_timestamp=T0, members=[])
    on_loop(embedded, store.write_group_metadata, "a", metadata, T0 + 6)

    embedded.restart()
    reloaded = new_store(embedded)
    assert on_loop(embedded, reloaded.committed, "a") == {("t", 0): CommittedOffset(5, 0, "second", T0 + 1)}
    assert on_loop(embedded, reloaded.committed, "b") == {("u", 3): CommittedOffset(9, -1, "b", T0 + 2, T0 + 99)}
    assert on_loop(embedded, reloaded.group_ids) == {"a", "b"}
    loaded = on_loop(embedded, reloaded.loaded_groups)
    assert list(loaded) == ["a"]
    assert (loaded["a"].protocol, loaded["a"].generation, loaded["a"].current_state_timestamp) == ("range", 2, T0)


def key_v0(group, topic, partition):
    return struct.pack(">hh", 0, len(group)) + group.encode() + struct.pack(">h", len(topic)) + topic.encode() + \
        struct.pack(">i", partition)


def test_load_reads_older_kafka_layouts(embedded):
    """Records as older Kafka versions wrote them: key v0, values v0, v1, v2, group value v0."""
    store = new_store(embedded)
    embedded.call(store.ensure_topic)
    group = "legacy"
    index = abs(java_hash(group)) % 5
    value_v0 = struct.pack(">hq", 0, 11) + struct.pack(">h", 2) + b"m0" + struct.pack(">q", T0)
    value_v1 = struct.pack(">hq", 1, 12) + struct.pack(">h", 0) + struct.pack(">qq", T0, T0 + 5000)
    value_v2 = struct.pack(">hq", 2, 13) + struct.pack(">h", 0) + struct.pack(">q", T0 + 1)
    group_v0 = (struct.pack(">h", 0) + struct.pack(">h", 8) + b"consumer" + struct.pack(">i", 3)
                + struct.pack(">h", 5) + b"range" + struct.pack(">h", -1) + struct.pack(">i", 0))
    group_key = struct.pack(">hh", 2, len(group)) + group.encode()
    batch = build_batch([(key_v0(group, "t", 0), value_v0), (key_v0(group, "t", 1), value_v1),
                         (key_v0(group, "t", 2), value_v2), (group_key, group_v0),
                         (b"\x00\x07junk", b"unknown key version: skipped")], timestamp_ms=T0)
    embedded.call(lambda: embedded.broker.partition(OFFSETS_TOPIC, index).append(batch, T0))
    reloaded = new_store(embedded)
    assert on_loop(embedded, reloaded.committed, group) == {
        ("t", 0): CommittedOffset(11, -1, "m0", T0, -1),
        ("t", 1): CommittedOffset(12, -1, "", T0, T0 + 5000),
        ("t", 2): CommittedOffset(13, -1, "", T0 + 1, -1),
    }
    value = on_loop(embedded, reloaded.loaded_groups)[group]
    assert (value.protocol_type, value.generation, value.protocol, value.leader, value.members) == \
        ("consumer", 3, "range", None, [])


def test_load_applies_transactional_offsets_on_commit_only(embedded):
    from pylog.coordinator.offsets import offset_commit_key, offset_commit_value

    store = new_store(embedded)
    embedded.call(store.ensure_topic)
    group = "txn-group"
    index = abs(java_hash(group)) % 5

    def txn_batch(producer_id, offset, sequence):
        return build_batch([(offset_commit_key(group, "t", producer_id),
                             offset_commit_value(CommittedOffset(offset, commit_timestamp_ms=T0)))],
                           producer_id=producer_id, producer_epoch=0, base_sequence=sequence,
                           is_transactional=True, timestamp_ms=T0)

    def append_all():
        log = embedded.broker.partition(OFFSETS_TOPIC, index).log
        log.append(txn_batch(1, 100, 0), now_ms=T0)
        log.append(txn_batch(2, 200, 0), now_ms=T0)
        log.append(build_control_batch(ControlType.COMMIT, producer_id=1, producer_epoch=0, timestamp_ms=T0),
                   now_ms=T0)
        log.append(build_control_batch(ControlType.ABORT, producer_id=2, producer_epoch=0, timestamp_ms=T0),
                   now_ms=T0)
        log.append(txn_batch(1, 300, 1), now_ms=T0)          # still open at the end: not applied

    embedded.call(append_all)
    reloaded = new_store(embedded)
    assert on_loop(embedded, reloaded.committed, group) == {("t", 1): CommittedOffset(100, commit_timestamp_ms=T0)}


# ---------------------------------------------------------------------------------------
# expiry, with a fake clock


class FakeGroup:
    def __init__(self, state, protocol_type="consumer", protocol_name="range", subscriptions=(), state_ts=T0):
        self.state = state
        self.protocol_type = protocol_type
        self.protocol_name = protocol_name
        self.state_timestamp_ms = state_ts
        self.members = {f"m{i}": SimpleNamespace(metadata=lambda name, s=s: s if name == protocol_name else b"")
                        for i, s in enumerate(subscriptions)}


class FakeCoordinator:
    def __init__(self, groups):
        self.groups = dict(groups)
        self.removed = []

    def group(self, group_id):
        return self.groups.get(group_id)

    def maybe_remove_empty_group(self, group_id):
        self.removed.append(group_id)
        self.groups.pop(group_id, None)
        return True

    def on_partition_written(self, index):
        pass


def commit_at(embedded, store, group, tps, at_ms, expire_ms=-1):
    on_loop(embedded, store.commit, group, {tp: CommittedOffset(1, commit_timestamp_ms=at_ms,
                                                                expire_timestamp_ms=expire_ms) for tp in tps}, at_ms)


def test_simple_group_offsets_expire_from_their_commit_time(embedded):
    store = new_store(embedded)
    commit_at(embedded, store, "simple", [("t", 0)], T0)
    commit_at(embedded, store, "simple", [("t", 1)], T0 + MINUTE)
    assert on_loop(embedded, store.expire, T0 + RETENTION_MS - 1).expired == {}
    result = on_loop(embedded, store.expire, T0 + RETENTION_MS)
    assert result.expired == {"simple": [("t", 0)]} and result.dead_groups == []
    result = on_loop(embedded, store.expire, T0 + MINUTE + RETENTION_MS)
    assert result.expired == {"simple": [("t", 1)]} and result.dead_groups == ["simple"]
    assert on_loop(embedded, store.group_ids) == set()

    # the tombstones (and the group's) are in the log: a reload agrees
    records = [r for _, rs in stored_batches(embedded.data_dir, abs(java_hash("simple")) % 5) for r in rs]
    assert [(decode_key(k), v) for _, _, k, v in records[-2:]] == [(("offset", 1, "simple", "t", 1), None),
                                                                     (("group", 2, "simple"), None)]
    assert on_loop(embedded, new_store(embedded).group_ids) == set()


def test_explicit_expire_timestamp_wins_over_retention(embedded):
    store = new_store(embedded)
    commit_at(embedded, store, "g", [("t", 0)], T0, expire_ms=T0 + 1000)
    assert on_loop(embedded, store.expire, T0 + 999).expired == {}
    assert on_loop(embedded, store.expire, T0 + 1000).expired == {"g": [("t", 0)]}


def test_a_past_explicit_expire_timestamp_is_written_as_value_v1_and_expires_at_once(embedded):
    # what an OffsetCommit v2-4 retention near Long.MAX_VALUE wraps to (Kafka's long sum)
    store = new_store(embedded)
    commit_at(embedded, store, "g", [("t", 0)], T0, expire_ms=-(1 << 62))
    (_, records), = stored_batches(embedded.data_dir, abs(java_hash("g")) % 5)
    assert decode_offset_value(records[0][3])["version"] == 1
    assert on_loop(embedded, store.expire, T0).expired == {"g": [("t", 0)]}


def test_empty_group_expires_counting_from_when_it_became_empty(embedded):
    store = new_store(embedded)
    commit_at(embedded, store, "g", [("t", 0)], T0)
    emptied = T0 + 30 * MINUTE
    on_loop(embedded, store.write_group_metadata, "g",
            GroupMetadataValue(protocol_type="consumer", generation=3, current_state_timestamp=emptied), emptied)
    assert on_loop(embedded, store.expire, emptied + RETENTION_MS - 1).expired == {}
    result = on_loop(embedded, store.expire, emptied + RETENTION_MS)
    assert result.expired == {"g": [("t", 0)]} and result.dead_groups == ["g"]
    assert on_loop(embedded, store.loaded_groups) == {}


def test_live_empty_group_is_handed_to_the_coordinator_when_its_offsets_expire(embedded):
    coordinator = FakeCoordinator({"g": FakeGroup(GroupState.EMPTY, state_ts=T0 + MINUTE)})
    store = new_store(embedded, coordinator)
    commit_at(embedded, store, "g", [("t", 0)], T0)
    assert on_loop(embedded, store.expire, T0 + RETENTION_MS).expired == {}          # counts from T0 + 1 min
    result = on_loop(embedded, store.expire, T0 + MINUTE + RETENTION_MS)
    assert result.expired == {"g": [("t", 0)]} and result.dead_groups == ["g"]
    assert coordinator.removed == ["g"]


def test_stable_consumer_group_keeps_offsets_of_subscribed_topics(embedded):
    coordinator = FakeCoordinator({"g": FakeGroup(GroupState.STABLE, subscriptions=[subscription("a"), subscription("a", "b")])})
    store = new_store(embedded, coordinator)
    commit_at(embedded, store, "g", [("a", 0), ("b", 0), ("c", 0)], T0)
    result = on_loop(embedded, store.expire, T0 + 100 * RETENTION_MS)
    assert result.expired == {"g": [("c", 0)]} and result.dead_groups == []
    assert set(on_loop(embedded, store.committed, "g")) == {("a", 0), ("b", 0)}
    assert coordinator.removed == []


@pytest.mark.parametrize("state", [GroupState.PREPARING_REBALANCE, GroupState.COMPLETING_REBALANCE])
def test_rebalancing_group_keeps_every_offset(embedded, state):
    coordinator = FakeCoordinator({"g": FakeGroup(state)})
    store = new_store(embedded, coordinator)
    commit_at(embedded, store, "g", [("a", 0)], T0)
    assert on_loop(embedded, store.expire, T0 + 100 * RETENTION_MS).expired == {}


def test_stable_group_with_undecodable_subscriptions_keeps_every_offset(embedded):
    coordinator = FakeCoordinator({"g": FakeGroup(GroupState.STABLE, subscriptions=[b"\x00"])})
    store = new_store(embedded, coordinator)
    commit_at(embedded, store, "g", [("a", 0)], T0)
    assert on_loop(embedded, store.expire, T0 + 100 * RETENTION_MS).expired == {}
