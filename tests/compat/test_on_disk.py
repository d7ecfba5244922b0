"""The same records on pylog's disk and on Kafka's: byte for byte, and read by each other's tools.

One pylog and one Kafka, fresh for this module, get the same Produce requests: the same
record batches, built here with `protocol.records.build_batch` and sent over a raw socket
(`WireClient`), so that no client's batching can make them differ. Explicit CreateTime
timestamps, no producer id except in the idempotent topic and in one written by seventeen
producers of forty ids (Kafka's snapshot lists them as its HashMap of them iterates, not by
id). A last topic is written by a real client (kafka-python, idempotence off, one record per
batch). Then both brokers stop
cleanly, which trims the indexes of the active segments, and the tests compare:

- every partition's `.log`, `.index` and `.timeindex` files, byte for byte (the rolled
  segments too);
- the producer snapshots (`.snapshot`), the checkpoint files (the recovery points and log
  start offsets byte for byte, the high watermarks entry for entry) and `partition.metadata`;
- `kafka-dump-log.sh` (`--print-data-log`, `--deep-iteration`, `--index-sanity-check`,
  `--verify-index-only`) on pylog's files against the same on Kafka's;
- `pylog dump-log` on Kafka's files against `kafka-dump-log.sh` on the same files.

Last, both brokers restart cleanly on their directories and get half as many batches
again (newer timestamps) to three topics: the `.index` and `.timeindex` files must still
be byte-identical (Kafka counts the bytes to the next index entry from zero in a reopened
segment). Then both start once more with two stray logs planted (a directory of an
unknown topic id, and a known partition whose partition.metadata names another topic
id) and one time index deleted: both must move the strays aside as
`<topic>-<p>.<uuid>-stray` and start the partition afresh, create the time index empty,
and answer ListOffsets by time alike (by the segment file's modification time).
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from kafka import KafkaProducer

from protocol.records import Compression, build_batch
from tests.compat.compare import first_difference
from tests.compat.reference import SAME_ON_BOTH, KafkaBroker
from tests.integration.support import ROOT, ServeProcess, WireClient

BASE_MS = 1_700_000_000_000
BROKERS = ("pylog", "kafka")
CODECS = (Compression.NONE, Compression.GZIP, Compression.SNAPPY, Compression.LZ4, Compression.ZSTD)
SEGMENT_BYTES = 1024 * 1024  # Kafka 4's smallest segment.bytes

# topic -> (partitions, topic configs)
TOPICS = {
    "single": (1, {}),
    "batched": (1, {}),
    "rolled": (1, {"segment.bytes": str(SEGMENT_BYTES)}),
    "idempotent": (1, {}),
    "producers": (1, {}),
    "client": (2, {}),
}
# of forty producer ids, those that write to "producers", in this order: seventeen, so that
# Kafka's HashMap of them has 32 buckets, and ids that share one
PRODUCERS_USED = [15, 17, 3, 33, 16, 1, 39, 20, 31, 14, 2, 5, 7, 9, 11, 13, 30]


def single_record_batches(start_ms: int = BASE_MS) -> list[bytes]:
    """One record per batch, values of 50-500 bytes: about 25 index entries."""
    rng = random.Random(11)
    return [build_batch([(b"k%d" % i, bytes(rng.randrange(256) for _ in range(rng.randrange(50, 500))))],
                        timestamp_ms=start_ms + i) for i in range(400)]


def mixed_batches(start_ms: int = BASE_MS) -> list[bytes]:
    """1-20 records a batch, every codec, headers, null keys and values, timestamps out of order."""
    rng = random.Random(12)
    batches = []
    for i in range(80):
        records = []
        for j in range(rng.randrange(1, 21)):
            key = None if j % 5 == 0 else b"key-%d-%d" % (i, j)
            value = None if j % 7 == 3 else b"v" * rng.randrange(0, 300)
            record_headers = [("h", b"x" * j)] if j % 3 == 0 else []
            records.append((key, value, record_headers, start_ms + 1000 * i + rng.randrange(-500, 500)))
        batches.append(build_batch(records, compression=CODECS[i % len(CODECS)]))
    return batches


def large_batches(start_ms: int = BASE_MS) -> list[bytes]:
    """~5.5 KiB batches, 1.6 MiB in all: two segments at segment.bytes 1 MiB."""
    rng = random.Random(13)
    return [build_batch([(None, rng.randbytes(5600))], timestamp_ms=start_ms + 10 * i) for i in range(300)]


def idempotent_batches(producer_id: int, producer_epoch: int) -> list[bytes]:
    batches, sequence = [], 0
    for i in range(30):
        count = 1 + i % 4
        batches.append(build_batch([(b"k", b"v%d" % j) for j in range(count)], timestamp_ms=BASE_MS + i,
                                   producer_id=producer_id, producer_epoch=producer_epoch, base_sequence=sequence))
        sequence += count
    return batches


def create_topics(client: WireClient) -> None:
    from protocol.messages import CreateTopicsRequest

    Topic = CreateTopicsRequest.CreatableTopic
    Config = CreateTopicsRequest.CreatableTopicConfig
    request = CreateTopicsRequest(timeout_ms=30_000, topics=[
        Topic(name=name, num_partitions=partitions, replication_factor=1,
              configs=[Config(name=key, value=value) for key, value in configs.items()])
        for name, (partitions, configs) in TOPICS.items()])
    response = client.request(19, 5, request)
    assert [(t.name, t.error_code) for t in response.topics] == [(name, 0) for name in TOPICS]


RETRIABLE = (3, 6)  # UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER: Kafka, while a new topic's leader starts


def produce_all(client: WireClient, topic: str, batches: list[bytes]) -> None:
    for batch in batches:
        deadline = time.monotonic() + 30
        while True:
            response = client.produce(topic, 0, batch, acks=-1)
            if response.error_code not in RETRIABLE or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert response.error_code == 0, (topic, response.error_code)


def init_producer_id(client: WireClient) -> tuple[int, int]:
    """Retried while Kafka's coordinator loads (COORDINATOR_LOAD_IN_PROGRESS, 14), as clients do."""
    from protocol.messages import InitProducerIdRequest

    deadline = time.monotonic() + 30
    while True:
        response = client.request(22, 1, InitProducerIdRequest(transactional_id=None, transaction_timeout_ms=60_000))
        if response.error_code not in (14, 15) or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert response.error_code == 0, response.error_code
    return response.producer_id, response.producer_epoch


def write_the_same_records(bootstrap_servers: str) -> dict:
    with WireClient(bootstrap_servers, timeout_s=30) as client:
        create_topics(client)
        for topic, batches in (("single", single_record_batches()), ("batched", mixed_batches()),
                               ("rolled", large_batches())):
            produce_all(client, topic, batches)
        producer_id, producer_epoch = init_producer_id(client)
        produce_all(client, "idempotent", idempotent_batches(producer_id, producer_epoch))
        more_ids = [init_producer_id(client) for _ in range(40)]
        produce_all(client, "producers", [
            build_batch([(b"p", b"%d" % k)], producer_id=more_ids[k][0], producer_epoch=more_ids[k][1],
                        base_sequence=0, timestamp_ms=BASE_MS + k) for k in PRODUCERS_USED])
    producer = KafkaProducer(bootstrap_servers=bootstrap_servers, enable_idempotence=False, acks="all",
                             linger_ms=0, max_in_flight_requests_per_connection=1)
    try:
        for i in range(200):
            producer.send("client", key=b"c%d" % i, value=b"x" * (i % 97), partition=i % 2,
                          timestamp_ms=BASE_MS + i, headers=[("n", b"%d" % i)]).get(timeout=30)
    finally:
        producer.close(timeout=10)
    return {"producer_id": producer_id}


@pytest.fixture(scope="module")
def twin_logs(tmp_path_factory):
    """{"pylog": data dir, "kafka": data dir, "producer_ids": {...}} after a clean stop of both."""
    root = tmp_path_factory.mktemp("twin-logs")
    (root / "pylog").mkdir()
    pylog_server = ServeProcess(root / "pylog" / "data", overrides=SAME_ON_BOTH)
    kafka = KafkaBroker(root / "kafka" / "data")
    try:
        pylog_server.start()
        kafka.start()
        produced = {name: write_the_same_records(broker.bootstrap_servers)
                    for name, broker in (("pylog", pylog_server), ("kafka", kafka))}
    finally:
        stopped = pylog_server.stop() if pylog_server.process else None
        kafka.stop()
    assert stopped == 0
    return {"pylog": pylog_server.data_dir, "kafka": kafka.data_dir,
            "producer_ids": {name: p["producer_id"] for name, p in produced.items()},
            "servers": {"pylog": pylog_server, "kafka": kafka}}


def partition_dirs() -> list[str]:
    return [f"{topic}-{p}" for topic, (partitions, _) in TOPICS.items() for p in range(partitions)]


def segment_file_names(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.suffix in (".log", ".index", ".timeindex"))


# ---------------------------------------------------------------------------------------
# byte for byte


@pytest.mark.parametrize("partition", partition_dirs())
def test_segments_and_indexes_are_byte_identical(twin_logs, partition, compat_table):
    ours, theirs = twin_logs["pylog"] / partition, twin_logs["kafka"] / partition
    names = segment_file_names(theirs)
    assert segment_file_names(ours) == names
    assert any(name.endswith(".index") for name in names)
    differing = [name for name in names if (ours / name).read_bytes() != (theirs / name).read_bytes()]
    sizes = ", ".join(f"{name} {(theirs / name).stat().st_size} B" for name in names)
    compat_table.record("files", f"{partition}: {sizes}", "written", "written",
                        "same bytes" if not differing else f"differs: {differing}")
    assert differing == []
    if partition == "rolled-0":
        assert sum(name.endswith(".log") for name in names) == 2


def test_the_idempotent_topic_has_the_same_producer_id(twin_logs):
    """Kafka's first producer id block starts at 0, like pylog's: the batches need no mask."""
    assert twin_logs["producer_ids"]["pylog"] == twin_logs["producer_ids"]["kafka"]


# ---------------------------------------------------------------------------------------
# producer snapshots, checkpoints, the small files


def snapshot_names(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.glob("*.snapshot"))


@pytest.mark.parametrize("partition", ["idempotent-0", "producers-0", "rolled-0", "single-0"])
def test_producer_snapshots_are_byte_identical(twin_logs, partition, compat_table):
    """Same names (the offsets they were taken at) and same bytes: the producer id is the same."""
    ours, theirs = twin_logs["pylog"] / partition, twin_logs["kafka"] / partition
    names = snapshot_names(theirs)
    assert snapshot_names(ours) == names and names
    differing = [name for name in names if (ours / name).read_bytes() != (theirs / name).read_bytes()]
    compat_table.record("files", f"{partition}: {', '.join(names)}", "written", "written",
                        "same bytes" if not differing else f"differs: {differing}")
    assert differing == []


# the checkpoints pylog writes in Kafka's order (a Scala HashMap's), and those it sorts where
# Kafka's order depends on the order its partitions came in (storage/manager.py)
IN_KAFKAS_ORDER = ("recovery-point-offset-checkpoint", "log-start-offset-checkpoint")


def checkpoint(path: Path, *, ordered: bool) -> tuple[list[str], list[str]]:
    """(header lines, entry lines, sorted unless `ordered`)."""
    lines = path.read_text(encoding="utf-8").split("\n")
    assert lines[-1] == "", f"{path.name} must end with a newline"
    version, count, *entries = lines[:-1]
    assert int(count) == len(entries)
    return [version, count], entries if ordered else sorted(entries)


@pytest.mark.parametrize("name", [*IN_KAFKAS_ORDER, "replication-offset-checkpoint"])
def test_checkpoint_files_have_the_same_format_and_entries(twin_logs, name, compat_table):
    ordered = name in IN_KAFKAS_ORDER
    ours = checkpoint(twin_logs["pylog"] / name, ordered=ordered)
    theirs = checkpoint(twin_logs["kafka"] / name, ordered=ordered)
    compat_table.record("files", name + (" (entries in order)" if ordered else " (entries sorted)"),
                        f"{len(ours[1])} entries", f"{len(theirs[1])} entries",
                        "same" if ours == theirs else f"differs: {ours} / {theirs}")
    assert ours == theirs
    if ordered:
        assert (twin_logs["pylog"] / name).read_bytes() == (twin_logs["kafka"] / name).read_bytes()
    if name in ("recovery-point-offset-checkpoint", "replication-offset-checkpoint"):
        assert "single 0 400" in ours[1] and "rolled 0 300" in ours[1]


def test_partition_metadata_and_clean_shutdown_marker_have_kafkas_format(twin_logs):
    for partition in partition_dirs():
        texts = {broker: (twin_logs[broker] / partition / "partition.metadata").read_text() for broker in BROKERS}
        shapes = {broker: re.sub(r"topic_id: [A-Za-z0-9_-]{22}", "topic_id: <id>", text) for broker, text in texts.items()}
        assert shapes["pylog"] == shapes["kafka"] == "version: 0\ntopic_id: <id>"
    markers = {broker: (twin_logs[broker] / ".kafka_cleanshutdown").read_text() for broker in BROKERS}
    shapes = {broker: re.sub(r'"brokerEpoch":-?\d+', '"brokerEpoch":<n>', text) for broker, text in markers.items()}
    assert shapes["pylog"] == shapes["kafka"] == '{"version":0,"brokerEpoch":<n>}'


def test_meta_properties_have_kafkas_keys(twin_logs):
    keys = {}
    for broker in BROKERS:
        text = (twin_logs[broker] / "meta.properties").read_text()
        keys[broker] = sorted(line.split("=", 1)[0] for line in text.splitlines() if "=" in line and line[0] != "#")
    assert keys["pylog"] == keys["kafka"] == ["cluster.id", "directory.id", "node.id", "version"]


# ---------------------------------------------------------------------------------------
# kafka-dump-log.sh and pylog dump-log, each on the other's files

DUMPS = [
    ("single-0", "00000000000000000000.log", ("--print-data-log",)),
    ("batched-0", "00000000000000000000.log", ("--print-data-log", "--deep-iteration")),
    ("batched-0", "00000000000000000000.log", ()),
    ("idempotent-0", "00000000000000000000.log", ("--print-data-log",)),
    ("client-1", "00000000000000000000.log", ("--print-data-log",)),
    ("rolled-0", "00000000000000000184.log", ()),
    ("single-0", "00000000000000000000.index", ()),
    ("single-0", "00000000000000000000.index", ("--index-sanity-check",)),
    ("single-0", "00000000000000000000.index", ("--verify-index-only",)),
    ("rolled-0", "00000000000000000000.index", ("--index-sanity-check",)),
    ("single-0", "00000000000000000000.timeindex", ()),
    ("single-0", "00000000000000000000.timeindex", ("--index-sanity-check",)),
    ("batched-0", "00000000000000000000.timeindex", ("--verify-index-only",)),
    ("idempotent-0", "00000000000000000073.snapshot", ()),
]
DUMP_IDS = [f"{p}/{f.split('.')[-1]}{''.join(o)}" for p, f, o in DUMPS]


def dump_lines(text: str, data_dir: Path) -> list[str]:
    return [line.replace(str(data_dir), "<data>") for line in text.splitlines()]


def kafka_dump(kafka_tools, path: Path, options) -> list[str]:
    result = kafka_tools.run("kafka-dump-log.sh", "--files", str(path), *options)
    assert result.code == 0, result.stdout + result.stderr
    return result.stdout.splitlines() + [f"stderr: {line}" for line in result.stderr.splitlines()]


@pytest.mark.parametrize("partition,name,options", DUMPS, ids=DUMP_IDS)
def test_kafka_dump_log_reads_pylogs_files_as_kafkas(twin_logs, kafka_tools, partition, name, options, compat_table):
    dumps = {broker: dump_lines("\n".join(kafka_dump(kafka_tools, twin_logs[broker] / partition / name, options)),
                                twin_logs[broker]) for broker in BROKERS}
    # complaints of the tool (index mismatches, corrupt batches), outside the records' own data
    complaints = [line for line in dumps["pylog"] if not line.startswith(("| offset:", "baseOffset:", "offset:"))
                  and any(word in line for word in ("rror", "xception", "ismatch", "insane", "corrupt"))]
    assert complaints == []
    same = dumps["pylog"] == dumps["kafka"]
    compat_table.record("files", f"kafka-dump-log.sh {' '.join(options)} {partition}/{name}",
                        f"{len(dumps['pylog'])} lines", f"{len(dumps['kafka'])} lines", "same" if same else "differs")
    assert dumps["pylog"] == dumps["kafka"]


def pylog_dump(path: Path, options) -> list[str]:
    result = subprocess.run([sys.executable, "-m", "pylog", "dump-log", "--files", str(path), *options],
                            cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.splitlines() + [f"stderr: {line}" for line in result.stderr.splitlines()]


@pytest.mark.parametrize("partition,name,options", DUMPS, ids=DUMP_IDS)
def test_pylog_dump_log_prints_kafkas_files_as_kafka_dump_log(twin_logs, kafka_tools, partition, name, options,
                                                             compat_table):
    path = twin_logs["kafka"] / partition / name
    ours = dump_lines("\n".join(pylog_dump(path, options)), twin_logs["kafka"])
    theirs = dump_lines("\n".join(kafka_dump(kafka_tools, path, options)), twin_logs["kafka"])
    difference = first_difference(ours, theirs)
    compat_table.record("files", f"pylog dump-log {' '.join(options)} {partition}/{name} (Kafka's file)",
                        f"{len(ours)} lines", f"{len(theirs)} lines (kafka-dump-log.sh)",
                        "same" if difference is None else f"differs: {difference}")
    assert difference is None


# ---------------------------------------------------------------------------------------
# after a clean restart (last in this module: it writes to the twin logs)

LATER_MS = BASE_MS + 1_000_000  # the second half's records are newer: the time indexes grow


@pytest.fixture(scope="module")
def restarted_twin_logs(twin_logs):
    """The twin logs after a clean restart of each broker on its directory, half as many
    batches again to three topics (newer timestamps), and a clean stop."""
    for name in BROKERS:
        server = twin_logs["servers"][name]
        server.start()
        try:
            with WireClient(server.bootstrap_servers, timeout_s=30) as client:
                produce_all(client, "single", single_record_batches(LATER_MS)[:200])
                produce_all(client, "batched", mixed_batches(LATER_MS)[:40])
                produce_all(client, "rolled", large_batches(LATER_MS)[:150])
        finally:
            server.stop()
    return twin_logs


@pytest.mark.parametrize("partition", ["single-0", "batched-0", "rolled-0"])
def test_indexes_stay_byte_identical_after_a_clean_restart(restarted_twin_logs, partition, compat_table):
    """Kafka counts the bytes to the next index entry from zero in a segment it reopens
    (LogSegment.bytesSinceLastIndexEntry), so the entries after a restart sit where
    pylog's must."""
    ours, theirs = restarted_twin_logs["pylog"] / partition, restarted_twin_logs["kafka"] / partition
    names = sorted(p.name for p in theirs.iterdir() if p.suffix in (".index", ".timeindex"))
    assert sorted(p.name for p in ours.iterdir() if p.suffix in (".index", ".timeindex")) == names
    differing = [name for name in names if (ours / name).read_bytes() != (theirs / name).read_bytes()]
    sizes = ", ".join(f"{name} {(theirs / name).stat().st_size} B" for name in names)
    compat_table.record("files", f"{partition} after a clean restart and more batches: {sizes}", "written",
                        "written", "same bytes" if not differing else f"differs: {differing}")
    assert differing == []


def test_segments_stay_identical_after_a_clean_restart(restarted_twin_logs, compat_table):
    """Both brokers move the leader epoch from 0 to 2 at the restart: the new batches carry
    it and leader-epoch-checkpoint records where it began."""
    ours, theirs = restarted_twin_logs["pylog"] / "single-0", restarted_twin_logs["kafka"] / "single-0"
    names = sorted(p.name for p in theirs.iterdir() if p.name != "partition.metadata")
    differing = [name for name in names if not (ours / name).exists()
                 or (ours / name).read_bytes() != (theirs / name).read_bytes()]
    compat_table.record("files", "single-0 after a clean restart and more batches", "written", "written",
                        "same bytes" if not differing else f"differs: {differing}")
    assert differing == []


# ---------------------------------------------------------------------------------------
# a third start with damage planted (after the restart tests: it changes the directories)

STRAY_NAME = re.compile(r"^(?P<partition>.+-\d+)\.[0-9a-f]{32}-stray$")
FOREIGN_TOPIC_ID = "AAAAAAAAAAAAAAAAAAAAAQ"  # a topic id neither broker ever handed out
ROLLED_FIRST_TIME_INDEX = "rolled-0/00000000000000000000.timeindex"
# ListOffsets targets on "rolled": inside its first segment, and past it (in the second)
TIME_TARGETS_MS = (BASE_MS + 10 * 100, BASE_MS + 10 * 250)


def list_offsets_by_time(client: WireClient, topic: str, timestamp_ms: int) -> tuple[int, int, int]:
    from protocol.messages import ListOffsetsRequest

    request = ListOffsetsRequest(replica_id=-1, isolation_level=0, topics=[ListOffsetsRequest.ListOffsetsTopic(
        name=topic, partitions=[ListOffsetsRequest.ListOffsetsPartition(partition_index=0, timestamp=timestamp_ms)])])
    deadline = time.monotonic() + 30
    while True:  # Kafka answers NOT_LEADER_OR_FOLLOWER for a moment after a restart
        answer = client.request(2, 7, request).topics[0].partitions[0]
        if answer.error_code not in RETRIABLE or time.monotonic() > deadline:
            return answer.error_code, answer.offset, answer.timestamp
        time.sleep(0.1)


@pytest.fixture(scope="module")
def damaged_twin_logs(restarted_twin_logs):
    """Both data directories get two stray logs (a directory of an unknown topic id, and a
    known partition whose partition.metadata names another id) and lose the time index of
    a rolled segment; each broker starts, answers ListOffsets by time, and stops."""
    answers: dict[str, list] = {}
    before: dict[str, bytes] = {}
    for name in BROKERS:
        data = restarted_twin_logs[name]
        (data / "ghost-0").mkdir()
        (data / "ghost-0" / "00000000000000000000.log").write_bytes(
            (data / "single-0" / "00000000000000000000.log").read_bytes())
        (data / "ghost-0" / "partition.metadata").write_text(f"version: 0\ntopic_id: {FOREIGN_TOPIC_ID}")
        (data / "client-1" / "partition.metadata").write_text(f"version: 0\ntopic_id: {FOREIGN_TOPIC_ID}")
        before[name] = (data / "client-1" / "00000000000000000000.log").read_bytes()
        (data / ROLLED_FIRST_TIME_INDEX).unlink()
        server = restarted_twin_logs["servers"][name]
        server.start()
        try:
            deadline = time.monotonic() + 30  # the partition's fresh log, once its leader is elected
            while not (data / "client-1" / "partition.metadata").exists() and time.monotonic() < deadline:
                time.sleep(0.1)
            with WireClient(server.bootstrap_servers, timeout_s=30) as client:
                answers[name] = [list_offsets_by_time(client, "rolled", t) for t in TIME_TARGETS_MS]
        finally:
            server.stop()
    return {**restarted_twin_logs, "client-1 before": before, "answers": answers}


def test_stray_logs_are_moved_aside_as_kafka_moves_them(damaged_twin_logs, compat_table):
    """At start Kafka 4 renames a log whose topic id (partition.metadata) its metadata does
    not have to `<topic>-<p>.<uuid>-stray` and keeps it (LogManager.loadLog with
    isStrayKraftReplica); a partition of a known topic then starts afresh."""
    found = {}
    for name in BROKERS:
        data = damaged_twin_logs[name]
        strays = {STRAY_NAME.match(p.name)["partition"]: p for p in data.iterdir() if STRAY_NAME.match(p.name)}
        fresh = data / "client-1"
        topic_id = (data / "client-0" / "partition.metadata").read_text().split("topic_id: ")[1]
        found[name] = (sorted(strays), (data / "ghost-0").exists(),
                       (fresh / "partition.metadata").read_text() == f"version: 0\ntopic_id: {topic_id}",
                       (fresh / "00000000000000000000.log").stat().st_size,
                       (strays["client-1"] / "00000000000000000000.log").read_bytes()
                       == damaged_twin_logs["client-1 before"][name])
    compat_table.record("files", "stray logs at start (unknown topic id, other topic id)", str(found["pylog"]),
                        str(found["kafka"]), "same" if found["pylog"] == found["kafka"] else "differs")
    assert found["pylog"] == found["kafka"] == (["client-1", "ghost-0"], False, True, 0, True)


def test_a_missing_time_index_is_created_empty_and_lookups_use_the_file_time(damaged_twin_logs, compat_table):
    """Kafka creates a missing time index empty without reading the segment
    (LogSegment.sanityCheck); ListOffsets by time then takes the segment's modification
    time as its largest timestamp (LogSegment.largestTimestamp) and searches only the
    first segment that reaches the target (UnifiedLog.searchOffsetInLocalLog): a target
    past the first segment's records finds nothing, although the second holds one."""
    sizes = {name: (damaged_twin_logs[name] / ROLLED_FIRST_TIME_INDEX).stat().st_size for name in BROKERS}
    answers = damaged_twin_logs["answers"]
    compat_table.record("files", f"{ROLLED_FIRST_TIME_INDEX} deleted, then ListOffsets by time",
                        f"{sizes['pylog']} B, {answers['pylog']}", f"{sizes['kafka']} B, {answers['kafka']}",
                        "same" if (sizes["pylog"], answers["pylog"]) == (sizes["kafka"], answers["kafka"]) else "differs")
    assert sizes["pylog"] == sizes["kafka"] == 0
    assert answers["pylog"] == answers["kafka"]
    assert answers["kafka"] == [(0, 100, TIME_TARGETS_MS[0]), (0, -1, -1)]
