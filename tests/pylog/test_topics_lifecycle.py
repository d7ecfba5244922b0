"""Topics across restarts: creation, deletion, stray logs (a topic's files left behind its
deletion), the broker epoch of the clean-shutdown marker, when a new partition's
partition.metadata is written, and new logs created and deleted logs removed off the
event loop."""

import json
import logging
import os
import shutil
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

from protocol.error_codes import ErrorCode
from protocol.messages import FindCoordinatorRequest
from protocol.records import build_batch
from pylog.metadata import read_partition_metadata, write_partition_metadata
from pylog.testing import EmbeddedBroker
from storage import files
from storage.manager import LogManager
from tests.integration.support import WireClient
from tests.pylog.log_close_spy import closing_threads


def test_topics_and_ids_survive_a_restart(tmp_path):
    with EmbeddedBroker(tmp_path) as embedded:
        topic = embedded.call(lambda: embedded.broker.create_topic("kept", 3, {"retention.ms": "1000"}))
        embedded.restart()
        again = embedded.call(lambda: embedded.broker.metadata.topics["kept"])
        assert (again.topic_id, again.num_partitions, again.configs) == (topic.topic_id, 3, {"retention.ms": "1000"})
        assert embedded.call(lambda: embedded.broker.partition("kept", 2).log.config.retention_ms) == 1000


def test_a_deleted_topic_is_gone_from_disk_and_stays_deleted_across_a_restart(tmp_path):
    with EmbeddedBroker(tmp_path) as embedded:
        embedded.call(lambda: embedded.broker.create_topic("doomed", 2))
        embedded.call(lambda: embedded.broker.create_topic("survivor", 1))
        embedded.call(lambda: embedded.broker.delete_topic("doomed"))
        assert embedded.call(lambda: embedded.broker.partition("doomed", 0)) is None
    assert not (tmp_path / "doomed-0").exists() and not (tmp_path / "doomed-1").exists()
    with EmbeddedBroker(tmp_path) as embedded:
        assert embedded.call(lambda: sorted(embedded.broker.metadata.topics)) == ["survivor"]


# -- stray logs (Kafka 4: LogManager.loadLog with isStrayKraftReplica) -------------------

def produce(embedded: EmbeddedBroker, topic: str, count: int) -> None:
    with WireClient(embedded.bootstrap_servers) as client:
        for i in range(count):
            batch = build_batch([(b"k", b"v%d" % i)], timestamp_ms=1_700_000_000_000 + i)
            assert client.produce(topic, 0, batch, acks=1).error_code == 0


def stray_dirs(data_dir, partition: str) -> list:
    return sorted(p for p in data_dir.iterdir() if p.name.startswith(partition + ".") and p.name.endswith("-stray"))


def stray_lines(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "storage.manager" and "stray" in r.getMessage()]


def test_a_directory_of_a_topic_the_broker_does_not_know_is_moved_aside_as_a_stray_log(tmp_path, caplog):
    with EmbeddedBroker(tmp_path) as embedded:
        embedded.call(lambda: embedded.broker.create_topic("ghost", 1))
        produce(embedded, "ghost", 3)
        kept = tmp_path.parent / "ghost-0.kept"
        shutil.copytree(tmp_path / "ghost-0", kept)
        # The topic goes from the metadata, its files stay (say, a crash after the
        # controller committed the RemoveTopicRecord, before this broker removed them).
        embedded.call(lambda: embedded.broker.delete_topic("ghost"))
    shutil.copytree(kept, tmp_path / "ghost-0")
    segment = (tmp_path / "ghost-0" / "00000000000000000000.log").read_bytes()
    with caplog.at_level(logging.WARNING, logger="storage.manager"):
        with EmbeddedBroker(tmp_path) as embedded:
            assert embedded.call(lambda: embedded.broker.partition("ghost", 0)) is None
            assert "ghost" not in embedded.call(lambda: embedded.broker.metadata.topics)
    assert not (tmp_path / "ghost-0").exists()
    [stray] = stray_dirs(tmp_path, "ghost-0")
    assert (stray / "00000000000000000000.log").read_bytes() == segment  # kept, not deleted
    [line] = stray_lines(caplog)
    assert "ghost-0" in line and "not in this broker's metadata" in line and stray.name in line
    # A stray log found at the next start is left alone, said in one line.
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="storage.manager"):
        with EmbeddedBroker(tmp_path):
            pass
    assert stray_dirs(tmp_path, "ghost-0") == [stray]
    [line] = stray_lines(caplog)
    assert stray.name in line


def test_a_partition_metadata_naming_another_topic_id_is_not_adopted(tmp_path, caplog):
    with EmbeddedBroker(tmp_path) as embedded:
        topic = embedded.call(lambda: embedded.broker.create_topic("orders", 1))
        produce(embedded, "orders", 5)
    other_id = uuid.uuid4()
    write_partition_metadata(tmp_path / "orders-0", other_id)
    with caplog.at_level(logging.WARNING, logger="storage.manager"):
        with EmbeddedBroker(tmp_path) as embedded:
            partition_log = embedded.call(lambda: embedded.broker.partition("orders", 0).log)
            # The topic's partition starts afresh, with the topic's own id.
            assert embedded.call(lambda: partition_log.log_end_offset) == 0
            produce(embedded, "orders", 1)
    assert read_partition_metadata(tmp_path / "orders-0") == topic.topic_id
    [stray] = stray_dirs(tmp_path, "orders-0")
    assert read_partition_metadata(stray) == other_id
    assert (stray / "00000000000000000000.log").stat().st_size > 0
    [line] = stray_lines(caplog)
    assert "names topic id" in line and "orders-0" in line


def test_the_clean_shutdown_marker_carries_a_broker_epoch_that_grows_at_every_start(tmp_path):
    """Kafka writes {"version":0,"brokerEpoch":N}, N its registration's offset in the
    metadata log: positive, and larger after every restart."""
    epochs = []
    for _ in range(3):
        with EmbeddedBroker(tmp_path) as embedded:
            epoch = embedded.call(lambda: embedded.broker.metadata.broker_epoch)
        marker = (tmp_path / ".kafka_cleanshutdown").read_text()
        assert marker == f'{{"version":0,"brokerEpoch":{epoch}}}'
        epochs.append(json.loads(marker)["brokerEpoch"])
    assert epochs[0] > 0 and epochs[0] < epochs[1] < epochs[2]


# -- partition.metadata of a new partition ---------------------------------------------

def _wait_for(condition, timeout_s: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_a_new_partition_names_its_topic_once_it_is_created(tmp_path):
    """With no record appended."""
    with EmbeddedBroker(tmp_path) as embedded:
        topic = embedded.call(lambda: embedded.broker.create_topic("soon", 3))
        assert all(read_partition_metadata(tmp_path / f"soon-{i}") == topic.topic_id for i in range(3))


# -- new logs are created off the event loop ------------------------------------------------

class GatedCreation:
    """LogManager.create_log held at a gate for `topic`, to look at the broker meanwhile."""

    def __init__(self, monkeypatch, topic: str):
        self.entered, self.gate = threading.Event(), threading.Event()
        self.threads: set[str] = set()
        create_log = LogManager.create_log

        def gated(manager, name, partition, *, now_ms):
            if name == topic:
                self.threads.add(threading.current_thread().name)
                self.entered.set()
                assert self.gate.wait(20), "the gate was never opened"
            return create_log(manager, name, partition, now_ms=now_ms)

        monkeypatch.setattr(LogManager, "create_log", gated)


def in_background(fn):
    """Run `fn()` on a thread of its own; the concurrent.futures.Future of its result."""
    executor = ThreadPoolExecutor(1)
    future = executor.submit(fn)
    executor.shutdown(wait=False)
    return future


def test_other_requests_are_answered_while_a_new_topics_logs_are_created(tmp_path, monkeypatch):
    creation = GatedCreation(monkeypatch, "wide")
    with EmbeddedBroker(tmp_path) as embedded:
        created = in_background(lambda: embedded.call(lambda: embedded.broker.create_topic("wide", 3)))
        assert creation.entered.wait(20)
        assert "pylog-broker" not in creation.threads   # not the event loop's thread
        with WireClient(embedded.bootstrap_servers) as client:
            (topic,) = client.metadata(["wide"]).topics
            assert (topic.error_code, len(topic.partitions)) == (0, 3)   # the metadata has it
            batch = build_batch([(b"k", b"v")], timestamp_ms=1_700_000_000_000)
            # ... this broker does not host it yet: a retriable error, as Kafka's before its publisher ran
            assert client.produce("wide", 0, batch, acks=1).error_code == ErrorCode.NOT_LEADER_OR_FOLLOWER
            assert not created.done()   # CreateTopics is answered once the logs exist
            creation.gate.set()
            assert created.result(20).num_partitions == 3
            assert client.produce("wide", 0, batch, acks=1).error_code == ErrorCode.NONE


def test_a_second_group_lookup_while_the_offsets_topic_is_created_waits_for_it_too(tmp_path, monkeypatch):
    """The first FindCoordinator creates __consumer_offsets; one from another client that
    finds the topic already in the metadata is answered once the partitions are hosted too,
    not sent ahead to a coordinator that would answer NOT_COORDINATOR."""
    creation = GatedCreation(monkeypatch, "__consumer_offsets")

    def find_coordinator(group: str):
        with WireClient(embedded.bootstrap_servers) as client:
            return client.request(10, 1, FindCoordinatorRequest(key=group, key_type=0))

    with EmbeddedBroker(tmp_path) as embedded:
        first = in_background(lambda: find_coordinator("g1"))
        assert creation.entered.wait(20)
        assert _wait_for(lambda: embedded.call(lambda: "__consumer_offsets" in embedded.broker.metadata.topics))
        second = in_background(lambda: find_coordinator("g2"))
        time.sleep(0.3)
        assert not second.done() and not first.done()
        creation.gate.set()
        assert first.result(20).error_code == second.result(20).error_code == ErrorCode.NONE
        hosted = embedded.call(lambda: sum(1 for topic, _ in embedded.broker.partitions
                                           if topic == "__consumer_offsets"))
        assert hosted == 5   # the test brokers' offsets.topic.num.partitions


def test_a_new_partitions_files_are_written_and_fsynced_off_the_event_loop(tmp_path, monkeypatch):
    fsynced: list[tuple[str, str]] = []   # (thread, path)
    fsync = os.fsync

    def recording_fsync(fd):
        fsynced.append((threading.current_thread().name, os.readlink(f"/proc/self/fd/{fd}")))
        return fsync(fd)

    with EmbeddedBroker(tmp_path) as embedded:
        monkeypatch.setattr(os, "fsync", recording_fsync)
        topic = embedded.call(lambda: embedded.broker.create_topic("quiet", 3))
        epoch = embedded.call(lambda: embedded.broker.partition("quiet", 0).leader_epoch)
        monkeypatch.setattr(os, "fsync", fsync)
        partition_dirs = {str(tmp_path / f"quiet-{i}") for i in range(3)}
        of_partitions = [(thread, path) for thread, path in fsynced
                         if path in partition_dirs or os.path.dirname(path) in partition_dirs]
        assert {os.path.basename(path) for _, path in of_partitions} >= \
            {"quiet-0", "leader-epoch-checkpoint.tmp", "partition.metadata.tmp"}
        assert [path for thread, path in of_partitions if thread == "pylog-broker"] == []
        for i in range(3):
            assert (tmp_path / f"quiet-{i}" / "leader-epoch-checkpoint").read_text() == f"0\n1\n{epoch} 0\n"
            assert read_partition_metadata(tmp_path / f"quiet-{i}") == topic.topic_id


def test_the_logs_of_a_new_topic_are_created_on_several_threads_at_once(tmp_path, monkeypatch):
    from pylog.metadata_publisher import CREATE_THREADS
    created_on: dict[int, str] = {}   # partition -> thread
    with EmbeddedBroker(tmp_path) as embedded:
        real_create_log = type(embedded.broker.log_manager).create_log

        def create_log(manager, topic, partition, *, now_ms):
            if topic == "wide":
                created_on[partition] = threading.current_thread().name
            return real_create_log(manager, topic, partition, now_ms=now_ms)

        monkeypatch.setattr(type(embedded.broker.log_manager), "create_log", create_log)
        topic = embedded.call(lambda: embedded.broker.create_topic("wide", 12))
        assert sorted(created_on) == list(range(12))
        assert 1 < len(set(created_on.values())) <= CREATE_THREADS
        assert all(name.startswith("log-create") for name in created_on.values())
        for i in range(12):   # each one whole: its files written, the leader's epoch in its checkpoint
            assert read_partition_metadata(tmp_path / f"wide-{i}") == topic.topic_id
            assert embedded.call(lambda i=i: embedded.broker.partition("wide", i).is_leader)


def test_a_topic_deleted_while_its_logs_are_created_leaves_nothing_behind(tmp_path, monkeypatch):
    creation = GatedCreation(monkeypatch, "brief")
    with EmbeddedBroker(tmp_path) as embedded:
        created = in_background(lambda: embedded.call(lambda: embedded.broker.create_topic("brief", 2)))
        assert creation.entered.wait(20)
        deleted = in_background(lambda: embedded.call(lambda: embedded.broker.delete_topic("brief")))
        assert _wait_for(lambda: embedded.call(lambda: "brief" not in embedded.broker.metadata.topics))
        creation.gate.set()
        deleted.result(20)
        assert "was not created" in str(created.exception(20))   # it was gone by the time its logs were
        assert embedded.call(lambda: embedded.broker.partition("brief", 0)) is None
        assert embedded.call(lambda: embedded.broker.log_manager.get_log("brief", 0)) is None
        assert _wait_for(lambda: not any(p.name.startswith("brief-") for p in tmp_path.iterdir()))
        embedded.call(lambda: embedded.broker.create_topic("brief", 1))   # the name can be used again
        produce(embedded, "brief", 2)


def test_a_broker_stopped_while_logs_are_created_adopts_them_at_its_next_start(tmp_path, monkeypatch):
    creation = GatedCreation(monkeypatch, "cut")
    embedded = EmbeddedBroker(tmp_path).start()
    try:
        created = in_background(lambda: embedded.call(lambda: embedded.broker.create_topic("cut", 2)))
        assert creation.entered.wait(20)
        stopped = in_background(embedded.stop)
        time.sleep(0.2)
        creation.gate.set()
        stopped.result(20)
        created.exception(20)   # CreateTopics is answered (the topic or an error), not left hanging
    finally:
        embedded.stop()
    with EmbeddedBroker(tmp_path) as embedded:
        produce(embedded, "cut", 2)
        assert embedded.call(lambda: embedded.broker.partition("cut", 1).log.log_end_offset) == 0
    assert stray_dirs(tmp_path, "cut-0") == stray_dirs(tmp_path, "cut-1") == []


def test_a_deleted_topics_files_are_removed_off_the_event_loop(tmp_path, monkeypatch):
    entered, gate, threads = threading.Event(), threading.Event(), set()
    remove_dir = files.remove_dir

    def gated(path):
        threads.add(threading.current_thread().name)
        entered.set()
        assert gate.wait(20), "the gate was never opened"
        remove_dir(path)

    monkeypatch.setattr(files, "remove_dir", gated)
    with EmbeddedBroker(tmp_path) as embedded:
        embedded.call(lambda: embedded.broker.create_topic("gone", 1))
        produce(embedded, "gone", 3)
        embedded.call(lambda: embedded.broker.delete_topic("gone"))   # answered with the files still there
        assert entered.wait(20) and "pylog-broker" not in threads
        [renamed] = [p for p in tmp_path.iterdir() if p.name.startswith("gone-0.")]
        assert renamed.name.endswith("-delete") and not (tmp_path / "gone-0").exists()
        with WireClient(embedded.bootstrap_servers) as client:   # served meanwhile
            assert client.metadata(["gone"]).topics[0].error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
        gate.set()
        assert _wait_for(lambda: not renamed.exists())
    assert not any(p.name.startswith("gone-") for p in tmp_path.iterdir())


def test_a_broker_stopping_waits_for_the_removal_of_deleted_logs(tmp_path, monkeypatch):
    remove_dir = files.remove_dir

    def slow(path):
        time.sleep(0.3)
        remove_dir(path)

    monkeypatch.setattr(files, "remove_dir", slow)
    with EmbeddedBroker(tmp_path) as embedded:
        embedded.call(lambda: embedded.broker.create_topic("gone", 2))
        embedded.call(lambda: embedded.broker.delete_topic("gone"))
    assert not any(p.name.startswith("gone-") for p in tmp_path.iterdir())


def test_expired_segment_files_are_removed_off_the_event_loop(tmp_path, monkeypatch):
    threads: list[str] = []
    unlink_paths = files.unlink_paths

    def recording(paths):
        threads.append(threading.current_thread().name)
        unlink_paths(paths)

    monkeypatch.setattr(files, "unlink_paths", recording)
    with EmbeddedBroker(tmp_path) as embedded:
        embedded.call(lambda: embedded.broker.create_topic("rolled", 1, {"internal.segment.bytes": "1024",
                                                                         "file.delete.delay.ms": "0"}))
        produce(embedded, "rolled", 30)
        partition_log = embedded.call(lambda: embedded.broker.partition("rolled", 0).log)
        base = embedded.call(lambda: partition_log.segments[2].base_offset)
        embedded.call(lambda: partition_log.delete_segments_below(base))
        assert _wait_for(lambda: len(threads) == 2)
        assert "pylog-broker" not in threads
        assert _wait_for(lambda: not any(p.name.endswith(".deleted") for p in (tmp_path / "rolled-0").iterdir()))


def test_a_restart_writes_no_leader_epoch_checkpoint_until_the_first_append(tmp_path):
    """The controller elects the restarted broker leader again at a higher epoch; the file
    takes that epoch with the partition's first batch of it, not one fsync per partition
    while the broker starts, nor while it stops."""
    with EmbeddedBroker(tmp_path) as embedded:
        embedded.call(lambda: embedded.broker.create_topic("kept", 2))
        first = embedded.call(lambda: embedded.broker.partition("kept", 0).leader_epoch)
        assert (tmp_path / "kept-0" / "leader-epoch-checkpoint").read_text() == f"0\n1\n{first} 0\n"
        embedded.restart()
        again = embedded.call(lambda: embedded.broker.partition("kept", 0).leader_epoch)
        assert again > first
        for i in (0, 1):
            assert (tmp_path / f"kept-{i}" / "leader-epoch-checkpoint").read_text() == f"0\n1\n{first} 0\n"
        produce(embedded, "kept", 1)
        assert (tmp_path / "kept-0" / "leader-epoch-checkpoint").read_text() == f"0\n1\n{again} 0\n"
        assert (tmp_path / "kept-1" / "leader-epoch-checkpoint").read_text() == f"0\n1\n{first} 0\n"
    # the stop does not write the epoch kept-1 wrote nothing in
    assert (tmp_path / "kept-1" / "leader-epoch-checkpoint").read_text() == f"0\n1\n{first} 0\n"
    with EmbeddedBroker(tmp_path) as embedded:   # and the next start elects it higher still
        latest = embedded.call(lambda: embedded.broker.partition("kept", 1).leader_epoch)
        assert latest > again
        assert embedded.call(lambda: embedded.broker.partition("kept", 1).log.epoch_entries) == [(latest, 0)]


def test_a_clean_stop_closes_the_logs_on_num_recovery_threads_per_data_dir_threads(tmp_path, monkeypatch):
    with EmbeddedBroker(tmp_path) as embedded:   # the default: 2 threads
        embedded.call(lambda: embedded.broker.create_topic("many", 8))
        for partition in range(8):
            with WireClient(embedded.bootstrap_servers) as client:
                batch = build_batch([(b"k", b"v%d" % partition)], timestamp_ms=1_700_000_000_000)
                assert client.produce("many", partition, batch, acks=1).error_code == 0
        closed_on = closing_threads(monkeypatch)
    many = {name: thread for name, thread in closed_on.items() if name.startswith("many-")}
    assert len(many) == 8 and all(thread.startswith("log-close") for thread in many.values())
    assert len(set(many.values())) <= 2
    # a clean stop all the same: the marker was written, and every record is there
    with EmbeddedBroker(tmp_path) as embedded:
        assert embedded.call(lambda: embedded.broker.log_manager.had_clean_shutdown)
        assert [embedded.call(lambda p=p: embedded.broker.partition("many", p).log.log_end_offset)
                for p in range(8)] == [1] * 8
