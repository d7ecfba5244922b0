"""pylog's cleaner against Kafka's: the same batches compacted, byte for byte.

A Kafka broker of its own (its cleaner backing off 200 ms) gets a compacted topic with
`segment.ms` 1000 and four batches sent over a raw socket: keys a and b with a
tombstone for a; an idempotent producer's batch for b; then, a timestamp 2 s later
(which rolls the segment), c and b again; 2 s later d (another roll). Kafka's cleaner
compacts [0, 6) into one segment, checkpointing 6: b's first records go, the tombstone
stays with a delete horizon, the producer's batch stays empty.

pylog then writes the same batches to a Log (rolled at the same offsets, leader epoch
0 as Kafka stamps), cleans it with storage/cleaner at the time that gives the same
delete horizon (read from Kafka's file: horizon - delete.retention.ms), and the cleaned
`.log`, `.index` and `.timeindex`, and the cleaner-offset-checkpoint, must equal
Kafka's byte for byte. Last, `pylog dump-log` must print Kafka's compacted segment (its
holes, the delete horizon, the empty batch) as `kafka-dump-log.sh` does.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from protocol.records import build_batch, iter_batch_headers
from storage.cleaner import CleanerCheckpoint, clean_log
from storage.config import LogConfig
from storage.log import Log
from tests.compat.reference import KafkaBroker
from tests.compat.test_on_disk import dump_lines, init_producer_id, kafka_dump, produce_all, pylog_dump
from tests.integration.support import WireClient

BASE_MS = 1_700_000_000_000
RETENTION_MS = 86_400_000
TOPIC_CONFIGS = {"cleanup.policy": "compact", "segment.ms": "1000", "min.cleanable.dirty.ratio": "0.01",
                 "delete.retention.ms": str(RETENTION_MS)}


def batches(producer_id: int, producer_epoch: int) -> list[bytes]:
    return [
        build_batch([(b"a", b"1", (), BASE_MS), (b"b", b"2", (), BASE_MS), (b"a", None, (), BASE_MS)]),
        build_batch([(b"b", b"3", (), BASE_MS + 1)], producer_id=producer_id, producer_epoch=producer_epoch,
                    base_sequence=0),
        build_batch([(b"c", b"4", (), BASE_MS + 2000), (b"b", b"5", (), BASE_MS + 2000)]),
        build_batch([(b"d", b"6", (), BASE_MS + 4000)]),
    ]


def compact_on_kafka(data_dir: Path) -> tuple[Path, int, int]:
    """Kafka's partition directory after its cleaner ran, and the producer id and epoch."""
    from protocol.messages import CreateTopicsRequest

    kafka = KafkaBroker(data_dir, config={"log.cleaner.backoff.ms": "200"})
    kafka.start()
    try:
        with WireClient(kafka.bootstrap_servers, timeout_s=30) as client:
            topic = CreateTopicsRequest.CreatableTopic(
                name="compacted", num_partitions=1, replication_factor=1,
                configs=[CreateTopicsRequest.CreatableTopicConfig(name=k, value=v) for k, v in TOPIC_CONFIGS.items()])
            response = client.request(19, 5, CreateTopicsRequest(timeout_ms=30_000, topics=[topic]))
            assert response.topics[0].error_code == 0
            producer_id, producer_epoch = init_producer_id(client)
            produce_all(client, "compacted", batches(producer_id, producer_epoch))
        checkpoint = CleanerCheckpoint(data_dir)
        deadline = time.monotonic() + 60
        while checkpoint.get("compacted", 0) != 6:
            assert time.monotonic() < deadline, "Kafka's cleaner did not clean [0, 6) within 60 s"
            time.sleep(0.2)
    finally:
        kafka.stop()
    return data_dir / "compacted-0", producer_id, producer_epoch


@pytest.fixture(scope="module")
def kafka_compacted(tmp_path_factory):
    return compact_on_kafka(tmp_path_factory.mktemp("compaction") / "kafka")


def test_pylog_cleans_the_same_batches_into_the_same_bytes_as_kafka(tmp_path, kafka_compacted):
    kafka_dir, producer_id, producer_epoch = kafka_compacted
    kafka_log = (kafka_dir / "00000000000000000000.log").read_bytes()
    horizon_ms = next(h.base_timestamp for _, h in iter_batch_headers(kafka_log) if h.has_delete_horizon)

    config = LogConfig.from_properties(TOPIC_CONFIGS)
    log = Log.open(tmp_path / "pylog" / "compacted-0", config, now_ms=BASE_MS)
    for index, batch in enumerate(batches(producer_id, producer_epoch)):
        if index in (2, 3):
            log.roll(now_ms=BASE_MS)
        log.append(batch, now_ms=BASE_MS, leader_epoch=0)
    result = clean_log(log, checkpoint_offset=None, now_ms=horizon_ms - RETENTION_MS)
    CleanerCheckpoint(tmp_path / "pylog").update("compacted", 0, result.end_offset)
    log.close()

    ours = tmp_path / "pylog" / "compacted-0"
    assert [s for s in sorted(p.name for p in ours.iterdir()) if s.endswith((".log", ".index", ".timeindex"))] == [
        s for s in sorted(p.name for p in kafka_dir.iterdir()) if s.endswith((".log", ".index", ".timeindex"))]
    for name in ("00000000000000000000.log", "00000000000000000000.index", "00000000000000000000.timeindex"):
        assert (ours / name).read_bytes() == (kafka_dir / name).read_bytes(), name
    assert (tmp_path / "pylog" / "cleaner-offset-checkpoint").read_bytes() == (
        kafka_dir.parent / "cleaner-offset-checkpoint").read_bytes()


@pytest.mark.parametrize("options", [(), ("--deep-iteration",), ("--print-data-log",)])
def test_pylog_dump_log_prints_a_compacted_segment_as_kafka_dump_log(kafka_compacted, kafka_tools, options,
                                                                    compat_table):
    path = kafka_compacted[0] / "00000000000000000000.log"
    ours = dump_lines("\n".join(pylog_dump(path, options)), path.parent)
    theirs = dump_lines("\n".join(kafka_dump(kafka_tools, path, options)), path.parent)
    compat_table.record("files", f"pylog dump-log {' '.join(options)} compacted segment (Kafka's file)",
                        f"{len(ours)} lines", f"{len(theirs)} lines (kafka-dump-log.sh)",
                        "same" if ours == theirs else "differs")
    assert ours == theirs
