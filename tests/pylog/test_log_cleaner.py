"""The broker's log cleaner (pylog/log_cleaner.py): a deletion or a truncation of a log
whose cleaning is under way aborts it and waits for its copy to stop (Kafka's
abortAndPauseCleaning), the cleaner's checkpoint follows (a deleted partition's entry
goes, a truncation brings it back), `log.cleaner.threads` passes run at once, the
broker's retention task leaves alone a log a pass holds, the checkpoint is created
empty at start when the cleaner is enabled, and a log a pass fails on is marked
uncleanable while the others are still cleaned.

The logs are filled in-process (Partition.append of keyed batches, as a producer's would
be stamped) with enough data that a pass takes a good part of a second, so that the
tests catch one under way: they wait until the cleaner's `in_progress` names the log.
"""

from __future__ import annotations

import time

import pytest

from protocol.compression import Compression
from protocol.records import build_batch
from pylog.log_retention import retention_pass
from storage.log_validator import AppendOrigin
from tests.integration.support import wait_until
from tests.pylog.batch_shapes import raw_batch, record_bytes
from tests.storage.cleaner.support import log_records

pytestmark = pytest.mark.timeout(120)

KEYS = 500
BATCHES = 400          # of 50 records of ~100 bytes: ~2 MB, 16 segments of 128 KiB
ROWS_PER_BATCH = 50
TOPIC_CONFIG = {"cleanup.policy": "compact", "internal.segment.bytes": str(128 * 1024),
                "min.cleanable.dirty.ratio": "0.01"}


def row(i: int) -> tuple[bytes, bytes]:
    return b"key-%04d" % (i % KEYS), b"value-%07d-" % i + b"x" * 80


def fill(broker, topic: str, index: int = 0) -> dict[int, tuple[bytes, bytes]]:
    """Append BATCHES batches with the cleaner paused on the partition, roll, resume;
    return offset -> (key, value) of everything appended."""
    produced = {}

    def append_all():
        cleaner = broker.broker.log_cleaner
        cleaner.abort_and_pause(topic, index)
        partition = broker.broker.partition(topic, index)
        now = int(time.time() * 1000)
        for b in range(BATCHES):
            rows = [row(b * ROWS_PER_BATCH + i) for i in range(ROWS_PER_BATCH)]
            batch = bytearray(build_batch([(k, v, (), now) for k, v in rows], timestamp_ms=now))
            info = partition.append(batch, now, AppendOrigin.CLIENT)
            for i, kv in enumerate(rows):
                produced[info.first_offset + i] = kv
        partition.log.roll(now_ms=now)
        cleaner.resume(topic, index)

    broker.call(append_all)
    return produced


def last_values(produced, below: int) -> dict[int, tuple[bytes, bytes]]:
    last = {}
    for offset in sorted(produced):
        if offset < below:
            last[produced[offset][0]] = offset
    return {offset: produced[offset] for offset in last.values()}


def wait_in_progress(broker, topic: str, index: int = 0) -> None:
    wait_until(lambda: broker.call(lambda: (topic, index) in broker.broker.log_cleaner.in_progress),
               30, f"a cleaning pass of {topic}-{index} to start", interval_s=0.002)


def checkpoint_entries(broker) -> dict[tuple[str, int], int]:
    return broker.call(lambda: broker.broker.log_cleaner.checkpoint.read())


def test_deleting_a_topic_aborts_its_cleaning_and_drops_its_checkpoint(kafka_broker_factory):
    broker = kafka_broker_factory(config={"log.cleaner.backoff.ms": 20})
    broker.call(lambda: broker.broker.create_topic("doomed", 1, TOPIC_CONFIG))
    fill(broker, "doomed")
    wait_in_progress(broker, "doomed")

    broker.call(lambda: broker.broker.delete_topic("doomed"))

    # The copy stopped before the delete went on: nothing of the pass is left anywhere.
    cleaner = broker.broker.log_cleaner
    assert broker.call(lambda: dict(cleaner.in_progress)) == {}
    assert broker.call(lambda: cleaner.passes) == 0
    assert not (broker.data_dir / "doomed-0").exists()
    # the renamed directory's files are removed on a thread, soon after
    wait_until(lambda: not list(broker.data_dir.glob("doomed-*")), 10, "the deleted log's files removed")
    assert not list(broker.data_dir.rglob("*.cleaned"))
    assert ("doomed", 0) not in checkpoint_entries(broker)

    # The cleaner goes on: a topic created again under the name is cleaned from its start.
    broker.call(lambda: broker.broker.create_topic("doomed", 1, TOPIC_CONFIG))
    produced = fill(broker, "doomed")
    wait_until(lambda: broker.call(lambda: cleaner.passes) >= 1, 60, "the new topic to be cleaned")
    partition_log = broker.call(lambda: broker.broker.partition("doomed", 0).log)
    end = broker.call(lambda: partition_log.active_segment.base_offset)
    assert checkpoint_entries(broker)[("doomed", 0)] == end
    assert broker.call(lambda: log_records(partition_log)) == last_values(produced, end)


def test_a_truncation_aborts_the_pass_pauses_the_cleaner_and_moves_its_checkpoint_back(kafka_broker_factory):
    broker = kafka_broker_factory(config={"log.cleaner.backoff.ms": 20})
    broker.call(lambda: broker.broker.create_topic("cut", 1, TOPIC_CONFIG))
    first = fill(broker, "cut")
    cleaner = broker.broker.log_cleaner
    partition_log = broker.call(lambda: broker.broker.partition("cut", 0).log)
    # A first pass, so that the checkpoint names an offset the truncation reaches below.
    wait_until(lambda: broker.call(lambda: cleaner.passes) >= 1, 60, "a first pass")
    assert checkpoint_entries(broker)[("cut", 0)] == len(first)
    fill(broker, "cut")
    wait_in_progress(broker, "cut")

    cut_at = len(first) - KEYS // 2   # among the live records the first pass kept

    def truncate():
        copying_before = cleaner.is_copying("cut", 0)
        truncated = broker.broker.truncate_log("cut", 0, cut_at)
        return copying_before, truncated, cleaner.is_copying("cut", 0)

    # A copy was reading the log; truncate_log returned only once it had stopped.
    assert broker.call(truncate) == (True, True, False)
    assert broker.call(lambda: cleaner.passes) == 1    # the aborted pass swapped nothing in
    assert broker.call(lambda: cleaner.is_paused("cut", 0)) is False
    assert not list(partition_log.dir.glob("*.cleaned"))
    active_base = broker.call(lambda: partition_log.active_segment.base_offset)
    assert active_base <= cut_at
    assert checkpoint_entries(broker)[("cut", 0)] == active_base   # was len(first), past the cut

    # Resumed: new data after the cut gets the next pass, which cleans from the checkpoint.
    after_cut = broker.call(lambda: log_records(partition_log))
    log_end_offset = broker.call(lambda: partition_log.log_end_offset)
    assert after_cut and max(after_cut) < log_end_offset <= cut_at
    third = fill(broker, "cut")
    assert min(third) == log_end_offset
    wait_until(lambda: broker.call(lambda: cleaner.passes) >= 2, 60, "a pass after the truncation")
    end = checkpoint_entries(broker)[("cut", 0)]
    everything = {**after_cut, **third}
    expected = {**last_values(everything, end), **{o: kv for o, kv in everything.items() if o >= end}}
    assert broker.call(lambda: log_records(partition_log)) == expected


def test_log_cleaner_threads_passes_run_at_once(kafka_broker_factory):
    broker = kafka_broker_factory(config={"log.cleaner.backoff.ms": 20, "log.cleaner.threads": 2})
    cleaner = broker.broker.log_cleaner
    for topic in ("left", "right"):
        broker.call(lambda: broker.broker.create_topic(topic, 1, TOPIC_CONFIG))
    broker.call(lambda: [cleaner.abort_and_pause(topic, 0) for topic in ("left", "right")])
    produced = {topic: fill(broker, topic) for topic in ("left", "right")}
    broker.call(lambda: [cleaner.resume(topic, 0) for topic in ("left", "right")])

    wait_until(lambda: broker.call(lambda: len(cleaner.in_progress)) == 2, 30, "two passes at once",
               interval_s=0.002)
    wait_until(lambda: broker.call(lambda: cleaner.passes) >= 2, 60, "both passes to finish")
    for topic in ("left", "right"):
        partition_log = broker.call(lambda: broker.broker.partition(topic, 0).log)
        end = checkpoint_entries(broker)[(topic, 0)]
        assert broker.call(lambda: log_records(partition_log)) == last_values(produced[topic], end)


def test_no_cleaner_thread_cleans_nothing(kafka_broker_factory):
    broker = kafka_broker_factory(config={"log.cleaner.backoff.ms": 20, "log.cleaner.threads": 0})
    broker.call(lambda: broker.broker.create_topic("idle", 1, TOPIC_CONFIG))
    produced = fill(broker, "idle")
    time.sleep(1.0)
    partition_log = broker.call(lambda: broker.broker.partition("idle", 0).log)
    assert broker.call(lambda: broker.broker.log_cleaner.passes) == 0
    assert broker.call(lambda: log_records(partition_log)) == produced


def test_retention_leaves_a_log_a_pass_holds(kafka_broker_factory):
    """A retention pass leaves out the partitions it is told a cleaning holds, and
    applies retention to them once they are free (the broker's retention task is given
    the cleaner's `in_progress`: Kafka's pauseCleaningForNonCompactedPartitions, for a
    log whose `cleanup.policy` changed from compact during a pass). The pass itself is
    not run here: the skip is given by hand."""
    broker = kafka_broker_factory()
    broker.call(lambda: broker.broker.create_topic("aging", 1, {"internal.segment.bytes": str(128 * 1024),
                                                               "retention.bytes": "0"}))
    fill(broker, "aging")
    partition = broker.call(lambda: broker.broker.partition("aging", 0))
    segments = broker.call(lambda: len(partition.log.segments))
    assert segments > 2
    now = int(time.time() * 1000)
    assert broker.call(lambda: retention_pass([partition], now, skip={("aging", 0)})) == 0
    assert broker.call(lambda: len(partition.log.segments)) == segments
    assert broker.call(lambda: retention_pass([partition], now, skip={})) == segments - 1


@pytest.mark.parametrize("enabled", [True, False])
def test_the_checkpoint_is_created_empty_at_start_only_with_the_cleaner_enabled(kafka_broker_factory, enabled):
    """As Kafka's LogCleaner, made only when `log.cleaner.enable`, whose CheckpointFile
    creates the file empty (nothing written, nothing synced) if there is none."""
    broker = kafka_broker_factory(config={"log.cleaner.enable": str(enabled).lower()})
    path = broker.data_dir / "cleaner-offset-checkpoint"
    assert path.exists() == enabled
    if enabled:
        assert path.read_bytes() == b""


def test_a_log_a_pass_fails_on_is_marked_uncleanable_and_the_others_are_still_cleaned(kafka_broker_factory,
                                                                                       caplog):
    # a compressed batch kept as it came, whose first record's length prefix is wrong: the
    # append's lenient reading lets it pass, the cleaner's whole reading cannot
    broker = kafka_broker_factory(config={"log.cleaner.backoff.ms": 20})
    cleaner = broker.broker.log_cleaner
    for topic in ("unreadable", "readable"):
        broker.call(lambda: broker.broker.create_topic(topic, 1, TOPIC_CONFIG))
    now = int(time.time() * 1000)
    kept = raw_batch(record_bytes(0, length_adjust=-9) + record_bytes(1), records_count=2, last_offset_delta=1,
                     base_timestamp=now, compression=Compression.GZIP)
    broker.call(lambda: broker.broker.partition("unreadable", 0).append(bytearray(kept), now, AppendOrigin.CLIENT))
    with caplog.at_level("WARNING", logger="pylog.log_cleaner"):
        fill(broker, "unreadable")
        produced = fill(broker, "readable")
        wait_until(lambda: broker.call(lambda: cleaner.passes) >= 1, 60, "a pass over the readable log")
        time.sleep(0.2)   # ten more backoffs: the unreadable log is not tried again
    assert broker.call(lambda: cleaner.uncleanable) == {("unreadable", 0)}
    marks = [r for r in caplog.records if "Marking its partition (unreadable-0) as uncleanable" in r.getMessage()]
    assert len(marks) == 1 and marks[0].exc_info is not None
    assert not [r for r in caplog.records if r.levelname == "ERROR"]
    partition_log = broker.call(lambda: broker.broker.partition("readable", 0).log)
    end = checkpoint_entries(broker)[("readable", 0)]
    assert broker.call(lambda: log_records(partition_log)) == last_values(produced, end)
    # deleting the partition clears its mark
    broker.call(lambda: broker.broker.delete_topic("unreadable"))
    assert broker.call(lambda: cleaner.uncleanable) == set()
