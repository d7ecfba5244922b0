"""kill -9 of `pylog serve` while its log cleaner compacts a topic: nothing to keep is lost.

A compacted topic of 32 KiB segments (`min.cleanable.dirty.ratio` 0.01) gets 12,000
records over the wire from a broker whose cleaner is off: 10-record batches, mostly of
400 keys written over and over, 8 % of keys written once (so that every cleaned segment
keeps some records and a later pass merges non-empty segments), 5 % tombstones.
`delete.retention.ms` is a day, so no tombstone reaches its delete horizon: compaction
removes exactly the records that a later record of their key supersedes, and the model
is exact.

Then, eight times: a broker with the cleaner on starts on the data directory and its
first pass begins at once (on 2 cores the first takes about 0.3 s of offset map, 0.5 s
of copy into `.cleaned` files and 0.2 s of swap; later ones, over less dirty data, a
few hundred ms). It is killed with SIGKILL a random time after one of four points
(KILL_POINTS says how many cycles aim at each): its ready line (the map or the copy),
the first `.cleaned` file (the copy), the first `.swap` or `.deleted` file (the swap:
renames and a directory fsync per old segment), the checkpoint's new offset (after the
pass). The seed, the point, the delay and what the kill left on disk are printed. A
broker with the cleaner off then starts on the same directory, and after its recovery
the log must hold to the model:

- no `.cleaned`, `.swap` or `.deleted` file is left, each `.log` has its two indexes,
  and nothing else is in the partition directory;
- offsets strictly increase over the whole log (so none appears twice), every record
  stored is the one produced at its offset with its key and value, the log ends at the
  produced count, every key's last record is there at its offset, and a record is
  missing only if it lies below the active segment's base when the cleaner started
  (the cleaner never reaches the active segment) and so does a later record of its key;
- Fetch serves exactly the stored bytes; ListOffsets answers 0 and the produced count.

That broker appends 4,000 more records (always when nothing dirty is left, so that the
next kill meets a pass, and before the last pass; otherwise at random) and goes down by
SIGKILL or, at random, SIGTERM. Last, a broker with the cleaner on runs its pass to the
end: the log is then exactly the last record of each key below the checkpointed offset
(the active segment's base) and every record from there on, read by kafka-python, and
on disk after a clean restart.

The seed is random; PYLOG_CRASH_SEED=<n> replays a run's choices (not its timing).
"""

from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass, field

import pytest
from kafka import KafkaConsumer, TopicPartition

from protocol.messages import CreateTopicsRequest, ProduceRequest
from protocol.records import build_batch, iter_records
from tests.integration.support import (
    WireClient,
    consume_all,
    fetch_raw,
    partition_dir,
    stored_batches,
    wait_until,
)

pytestmark = pytest.mark.timeout(180)

TOPIC = "compacted"
KEYS = 400
FIRST_RECORDS, MORE_RECORDS = 12_000, 4_000
RECORDS_PER_BATCH = 10
TOMBSTONE_CHANCE = 0.05
ONCE_CHANCE = 0.08   # a key written once: every cleaned segment keeps some records
DAY_MS = 24 * 3600 * 1000
TOPIC_CONFIGS = {"cleanup.policy": "compact", "internal.segment.bytes": str(32 * 1024),
                 "min.cleanable.dirty.ratio": "0.01", "delete.retention.ms": str(DAY_MS)}
CLEANING = {"log.cleaner.backoff.ms": 50, "auto.create.topics.enable": "false"}
NOT_CLEANING = {**CLEANING, "log.cleaner.enable": "false"}
# Where a kill is aimed: a random time, up to the number of seconds given, after a point;
# and how many of the cycles aim there.
KILL_POINTS = {"ready": (0.6, 2), "copying": (0.3, 2), "swapping": (0.03, 3), "checkpointed": (0.2, 1)}
IN_TRANSIT = (".cleaned", ".swap", ".deleted")
SEGMENT_SUFFIXES = (".log", ".index", ".timeindex", ".snapshot")


@dataclass
class ProducedLog:
    """Every record produced, by offset: (key, value); a None value is a tombstone."""

    records: list[tuple[bytes, bytes | None]] = field(default_factory=list)

    def produce(self, bootstrap_servers: str, rng: random.Random, count: int) -> None:
        """`count` records in batches of RECORDS_PER_BATCH, one Produce request per batch, pipelined."""
        now_ms = int(time.time() * 1000)
        batches = []
        for start in range(len(self.records), len(self.records) + count, RECORDS_PER_BATCH):
            rows = []
            for offset in range(start, start + RECORDS_PER_BATCH):
                key = b"once-%07d" % offset if rng.random() < ONCE_CHANCE else b"key-%04d" % rng.randrange(KEYS)
                rows.append((key, None if rng.random() < TOMBSTONE_CHANCE else b"value-%07d-" % offset + b"x" * 60))
            batches.append((start, rows))
        with WireClient(bootstrap_servers) as client:
            for _, rows in batches:
                client.send(0, 7, ProduceRequest(transactional_id=None, acks=1, timeout_ms=30_000, topic_data=[
                    ProduceRequest.TopicProduceData(name=TOPIC, partition_data=[
                        ProduceRequest.PartitionProduceData(
                            index=0, records=build_batch(rows, timestamp_ms=now_ms))])]))
            for start, rows in batches:
                _, response = client.receive(0, 7)
                answer = response.responses[0].partition_responses[0]
                assert (answer.error_code, answer.base_offset) == (0, start)
                self.records.extend(rows)

    def last_offsets(self, below: int) -> dict[bytes, int]:
        """key -> the offset of its last record below `below`."""
        return {key: offset for offset, (key, _) in enumerate(self.records[:below])}


def create_topic(bootstrap_servers: str) -> None:
    Topic, Config = CreateTopicsRequest.CreatableTopic, CreateTopicsRequest.CreatableTopicConfig
    with WireClient(bootstrap_servers) as client:
        response = client.request(19, 4, CreateTopicsRequest(topics=[Topic(
            name=TOPIC, num_partitions=1, replication_factor=1,
            configs=[Config(name=name, value=value) for name, value in TOPIC_CONFIGS.items()])]))
        assert response.topics[0].error_code == 0


def checkpointed_offset(data_dir) -> int | None:
    """The topic's first dirty offset in `cleaner-offset-checkpoint` (None if not there)."""
    try:
        lines = (data_dir / "cleaner-offset-checkpoint").read_text().splitlines()
    except FileNotFoundError:
        return None
    for line in lines[2:]:
        topic, partition, offset = line.split()
        if (topic, partition) == (TOPIC, "0"):
            return int(offset)
    return None


def active_base(data_dir) -> int:
    return max(int(path.stem) for path in partition_dir(data_dir, TOPIC, 0).glob("*.log"))


def names_in_transit(data_dir) -> list[str]:
    return sorted(name for name in os.listdir(partition_dir(data_dir, TOPIC, 0)) if name.endswith(IN_TRANSIT))


def reached(point: str, data_dir, checkpoint_before: int | None) -> bool:
    if point == "ready":
        return True
    if point == "checkpointed":
        return checkpointed_offset(data_dir) != checkpoint_before
    names = names_in_transit(data_dir)
    if point == "copying":
        return any(name.endswith(".cleaned") for name in names)
    return any(name.endswith((".swap", ".deleted")) for name in names)


def what_the_kill_left(data_dir, checkpoint_before: int | None) -> str:
    names = names_in_transit(data_dir)
    if checkpointed_offset(data_dir) != checkpoint_before:
        return "a finished pass"
    segments = {suffix: sum(name.endswith(".log" + suffix) for name in names) for suffix in IN_TRANSIT}
    if segments[".swap"] or segments[".deleted"]:
        return "a swap under way (segments: {swap} .swap, {deleted} .deleted, {cleaned} .cleaned)".format(
            swap=segments[".swap"], deleted=segments[".deleted"], cleaned=segments[".cleaned"])
    if names:
        return f"a copy under way ({segments['.cleaned']} .cleaned segments)"
    return "no file of a pass yet"


def listed_offsets(bootstrap_servers: str) -> tuple[int, int]:
    """ListOffsets earliest and latest, asked by kafka-python."""
    consumer = KafkaConsumer(bootstrap_servers=bootstrap_servers, enable_auto_commit=False)
    try:
        tp = TopicPartition(TOPIC, 0)
        return consumer.beginning_offsets([tp])[tp], consumer.end_offsets([tp])[tp]
    finally:
        consumer.close()


def check_files(data_dir, where: str) -> None:
    names = os.listdir(partition_dir(data_dir, TOPIC, 0))
    assert not [name for name in names if name.endswith(IN_TRANSIT)], f"{where}: files left in transit: {sorted(names)}"
    odd = [name for name in names if name not in ("partition.metadata", "leader-epoch-checkpoint")
           and not name.endswith(SEGMENT_SUFFIXES)]
    assert not odd, f"{where}: unexpected files {odd}"
    for name in names:
        if name.endswith(".log"):
            stem = name[:-len(".log")]
            assert {stem + ".index", stem + ".timeindex"} <= set(names), f"{where}: {name} lacks its indexes"


def check_against_the_model(serve, produced: ProducedLog, kept_from: int, where: str) -> dict[int, tuple]:
    """The log on disk and as served, after a recovery (module docstring); offset -> (key, value)."""
    check_files(serve.data_dir, where)
    batches = stored_batches(serve.data_dir, TOPIC, 0)   # every batch's CRC checks out
    stored: dict[int, tuple] = {}
    previous = -1
    for path, position, header, raw in batches:
        for record in iter_records(raw):
            assert record.offset > previous, f"{where}: {path.name}@{position}: offset {record.offset} after {previous}"
            previous = record.offset
            assert record.offset < len(produced.records), f"{where}: offset {record.offset} was never produced"
            assert (record.key, record.value) == produced.records[record.offset], (
                f"{where}: offset {record.offset} is not the record produced there")
            stored[record.offset] = (record.key, record.value)
    end = len(produced.records)
    log_end_offset = batches[-1][2].next_offset
    assert log_end_offset == end, f"{where}: the log ends at {log_end_offset}, {end} were produced"
    last = produced.last_offsets(end)
    lost = sorted(offset for offset in last.values() if offset not in stored)
    assert not lost, f"{where}: the last record of a key is gone at offsets {lost[:10]}"
    below = produced.last_offsets(kept_from)
    for offset, (key, _) in enumerate(produced.records):
        if offset not in stored:
            assert offset < kept_from and below[key] > offset, (
                f"{where}: offset {offset} ({key!r}) is gone, though no later record of its key lies below {kept_from}")
    assert fetch_raw(serve.bootstrap_servers, TOPIC) == b"".join(raw for _, _, _, raw in batches), (
        f"{where}: Fetch served other bytes than stored")
    assert listed_offsets(serve.bootstrap_servers) == (0, end), f"{where}: ListOffsets earliest/latest"
    return stored


def kill_during_a_pass(serve, rng: random.Random, point: str, where: str) -> None:
    """Start the broker with its cleaner on and kill it a random time after `point`."""
    data_dir = serve.data_dir
    checkpoint_before = checkpointed_offset(data_dir)
    delay_s = rng.uniform(0, KILL_POINTS[point][0])
    serve.overrides = CLEANING
    serve.start()
    deadline = time.monotonic() + 10
    while not reached(point, data_dir, checkpoint_before) and time.monotonic() < deadline:
        time.sleep(0.001)
    seen = reached(point, data_dir, checkpoint_before)
    time.sleep(delay_s)
    serve.kill()
    print(f"{where}: killed {delay_s * 1000:.0f} ms after {point if seen else f'10 s without {point}'}; "
          f"left {what_the_kill_left(data_dir, checkpoint_before)}")


def test_a_kill_during_cleaning_loses_nothing_to_keep(tmp_path, serve_factory):
    seed = int(os.environ.get("PYLOG_CRASH_SEED", random.randrange(2**32)))
    print(f"seed {seed} (PYLOG_CRASH_SEED={seed} replays it)")
    rng = random.Random(seed)                 # the kills, the stops, whether to append
    contents = random.Random(seed ^ 0x5EED)   # the records, round after round
    serve = serve_factory(tmp_path / "data", overrides=NOT_CLEANING).start()
    create_topic(serve.bootstrap_servers)
    produced = ProducedLog()
    produced.produce(serve.bootstrap_servers, contents, FIRST_RECORDS)
    serve.kill()
    points = [point for point, (_, cycles) in KILL_POINTS.items() for _ in range(cycles)]
    rng.shuffle(points)
    for cycle, point in enumerate(points):
        where = f"seed {seed} cycle {cycle}"
        kept_from = active_base(serve.data_dir)   # the cleaner never reaches the active segment
        kill_during_a_pass(serve, rng, point, where)
        serve.overrides = NOT_CLEANING
        serve.start()
        check_against_the_model(serve, produced, kept_from, where)
        append_anyway, clean_stop = rng.random() < 0.5, rng.random() < 0.3
        nothing_dirty = checkpointed_offset(serve.data_dir) == active_base(serve.data_dir)
        if nothing_dirty or append_anyway or cycle == len(points) - 1:
            produced.produce(serve.bootstrap_servers, contents, MORE_RECORDS)
            print(f"{where}: appended up to offset {len(produced.records)}")
        if clean_stop:
            assert serve.stop() == 0
        else:
            serve.kill()

    where = f"seed {seed} last pass"
    kept_from = active_base(serve.data_dir)
    serve.overrides = CLEANING
    serve.start()
    wait_until(lambda: checkpointed_offset(serve.data_dir) == kept_from, 30, "the last pass to finish")
    last = produced.last_offsets(kept_from)
    expected = {offset: row for offset, row in enumerate(produced.records)
                if offset >= kept_from or last[row[0]] == offset}
    records = consume_all(serve.bootstrap_servers, TOPIC, 0, len(expected), timeout_s=30)
    assert {r.offset: (r.key, r.value) for r in records} == expected, where
    assert [r.offset for r in records] == sorted(expected), where
    assert serve.stop() == 0
    serve.overrides = NOT_CLEANING
    assert check_against_the_model(serve.start(), produced, kept_from, where) == expected
