"""Topics across restarts: creation, deletion, stray logs (a topic's files left behind its
deletion), the broker epoch of the clean-shutdown marker, and when a new partition's
partition.metadata is written."""

import json
import logging
import shutil
import time
import uuid

from protocol.records import build_batch
from pylog.broker import Broker
from pylog.metadata import PARTITION_METADATA, read_partition_metadata, write_partition_metadata
from pylog.testing import EmbeddedBroker
from tests.integration.support import WireClient


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


# -- partition.metadata of a new partition (Kafka's "flush-metadata-file") ---------------

def _wait_for(condition, timeout_s: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_a_new_partition_names_its_topic_soon_after_it_is_created(tmp_path):
    """Written off the event loop, with no record appended."""
    with EmbeddedBroker(tmp_path) as embedded:
        topic = embedded.call(lambda: embedded.broker.create_topic("soon", 3))
        assert _wait_for(lambda: all(read_partition_metadata(tmp_path / f"soon-{i}") == topic.topic_id
                                     for i in range(3)))


def test_the_first_append_writes_a_partition_metadata_not_written_yet(tmp_path, monkeypatch):
    monkeypatch.setattr(Broker, "_write_soon", lambda self, metadata_file: None)   # the pool never gets to it
    with EmbeddedBroker(tmp_path) as embedded:
        topic = embedded.call(lambda: embedded.broker.create_topic("late", 2))
        assert not (tmp_path / "late-0" / PARTITION_METADATA).exists()
        produce(embedded, "late", 1)
        assert read_partition_metadata(tmp_path / "late-0") == topic.topic_id
        assert not (tmp_path / "late-1" / PARTITION_METADATA).exists()   # no record there yet
    # the clean shutdown wrote the other one, and the next start adopts both partitions
    assert read_partition_metadata(tmp_path / "late-1") == topic.topic_id
    with EmbeddedBroker(tmp_path) as embedded:
        assert embedded.call(lambda: embedded.broker.partition("late", 0).log.log_end_offset) == 1
    assert stray_dirs(tmp_path, "late-0") == stray_dirs(tmp_path, "late-1") == []


def test_a_partition_deleted_before_its_metadata_is_written_gets_none(tmp_path, monkeypatch):
    pending = []
    monkeypatch.setattr(Broker, "_write_soon", lambda self, metadata_file: pending.append(metadata_file))
    with EmbeddedBroker(tmp_path) as embedded:
        embedded.call(lambda: embedded.broker.create_topic("brief", 1))
        embedded.call(lambda: embedded.broker.delete_topic("brief"))
        [metadata_file] = pending
        metadata_file.maybe_flush()   # the pool's turn comes after the delete: nothing to write
    assert not (tmp_path / "brief-0").exists()
    assert not any(p.name.startswith("brief-0") for p in tmp_path.iterdir())
