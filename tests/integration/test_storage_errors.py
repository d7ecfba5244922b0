"""A disk that refuses writes (pylog/log_dir_failures.py), made real with the broker
process's file size limit (RLIMIT_FSIZE: a write past it fails with EFBIG, as one past a
full disk fails with ENOSPC; no hook in the broker): confluent-kafka and kafka-python get
KAFKA_STORAGE_ERROR, the broker stays up and logs a line per partition instead of a
traceback per request, and once the limit is lifted ("space freed") writes succeed and
every acknowledged record is read back."""

from __future__ import annotations

import resource
import time

import pytest
from confluent_kafka import KafkaError, Producer
from kafka import KafkaProducer
from kafka.admin import KafkaAdminClient, NewTopic
from kafka.errors import KafkaStorageError

from tests.integration.support import ServeProcess, consume_all

MiB = 1024 * 1024
TOPIC = "full-disk"
# above the 10 MiB each index file is preallocated to, below what the test writes
LIMIT_BYTES = 12 * MiB


def confluent_produce(bootstrap: str, values: list[bytes]) -> tuple[list[bytes], list[KafkaError]]:
    acked, errors = [], []

    def on_delivery(err, message):
        (errors.append(err) if err is not None else acked.append(message.value()))

    producer = Producer({"bootstrap.servers": bootstrap, "retries": 0, "enable.idempotence": False,
                         "linger.ms": 5, "message.max.bytes": 2 * MiB})
    for value in values:
        producer.produce(TOPIC, value=value, partition=0, on_delivery=on_delivery)
        producer.poll(0)
    assert producer.flush(60) == 0
    return acked, errors


def test_a_refused_write_is_a_storage_error_and_the_disk_recovers(tmp_path):
    server = ServeProcess(tmp_path / "data").start()
    try:
        admin = KafkaAdminClient(bootstrap_servers=server.bootstrap_servers)
        admin.create_topics([NewTopic(TOPIC, 1, 1)])
        admin.close()
        hard = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
        resource.prlimit(server.process.pid, resource.RLIMIT_FSIZE, (LIMIT_BYTES, hard))

        # 16 MiB in 256 KiB records: the log reaches the limit, the batches that do not fit are refused
        values = [b"%06d" % i + bytes(256 * 1024 - 6) for i in range(64)]
        acked, errors = confluent_produce(server.bootstrap_servers, values)
        assert acked and errors
        assert {e.code() for e in errors} == {KafkaError.KAFKA_STORAGE_ERROR}

        # the limit at the log's size: nothing more fits
        (log_file,) = (tmp_path / "data" / f"{TOPIC}-0").glob("*.log")
        resource.prlimit(server.process.pid, resource.RLIMIT_FSIZE, (log_file.stat().st_size, hard))
        failing_lines = server.log_path.read_text(encoding="utf-8").count(f"appends to {TOPIC}-0 fail:")
        producer = KafkaProducer(bootstrap_servers=server.bootstrap_servers, retries=0)
        for i in range(5):
            with pytest.raises(KafkaStorageError):
                producer.send(TOPIC, value=b"kafka-python %d" % i, partition=0).get(timeout=30)
        assert server.process.poll() is None
        # five refusals in a row, at most one line (none if the partition was failing already)
        assert server.log_path.read_text(encoding="utf-8").count(f"appends to {TOPIC}-0 fail:") - failing_lines <= 1

        resource.prlimit(server.process.pid, resource.RLIMIT_FSIZE, (hard, hard))    # space freed
        more = [b"again-%d" % i for i in range(10)]
        assert confluent_produce(server.bootstrap_servers, more) == (more, [])
        producer.send(TOPIC, value=b"kafka-python again", partition=0).get(timeout=30)
        producer.close()

        expected = acked + more + [b"kafka-python again"]
        records = consume_all(server.bootstrap_servers, TOPIC, 0, len(expected), max_partition_fetch_bytes=2 * MiB)
        assert [r.value for r in records] == expected
        assert [r.offset for r in records] == list(range(len(expected)))
    finally:
        server.stop()
    # a line when the partition starts failing and one when it appends again, no traceback
    log = server.log_path.read_text(encoding="utf-8")
    assert "Traceback" not in log
    assert 1 <= log.count(f"appends to {TOPIC}-0 fail:") == log.count(f"appends to {TOPIC}-0 succeed again")


BLOCKED_TOPIC = "blocked"


def test_a_log_that_cannot_be_created_is_a_storage_error_until_it_can(tmp_path):
    """A regular file where partition 1's directory goes: its log cannot be created (an
    OSError, as a full disk or exhausted descriptors give), so requests for it answer
    KAFKA_STORAGE_ERROR while the other partitions work; once the file is gone, the broker's
    next retry creates the log and every acknowledged record is read back."""
    server = ServeProcess(tmp_path / "data").start()
    try:
        blocker = tmp_path / "data" / f"{BLOCKED_TOPIC}-1"
        blocker.write_bytes(b"not a directory")
        admin = KafkaAdminClient(bootstrap_servers=server.bootstrap_servers)
        admin.create_topics([NewTopic(BLOCKED_TOPIC, 2, 1)])
        admin.close()

        producer = KafkaProducer(bootstrap_servers=server.bootstrap_servers, retries=0)
        producer.send(BLOCKED_TOPIC, value=b"to partition 0", partition=0).get(timeout=30)
        for i in range(3):
            with pytest.raises(KafkaStorageError):
                producer.send(BLOCKED_TOPIC, value=b"refused %d" % i, partition=1).get(timeout=30)
        errors = []
        confluent = Producer({"bootstrap.servers": server.bootstrap_servers, "retries": 0,
                              "enable.idempotence": False})
        confluent.produce(BLOCKED_TOPIC, value=b"refused", partition=1, on_delivery=lambda err, _: errors.append(err))
        assert confluent.flush(30) == 0
        assert [e.code() for e in errors] == [KafkaError.KAFKA_STORAGE_ERROR]
        assert server.process.poll() is None

        blocker.unlink()   # the cause gone: the broker's retry (once a second) creates the log
        deadline = time.monotonic() + 30
        while True:
            try:
                producer.send(BLOCKED_TOPIC, value=b"to partition 1", partition=1).get(timeout=30)
                break
            except KafkaStorageError:
                assert time.monotonic() < deadline, "the log was not created after its cause was gone"
                time.sleep(0.2)
        producer.close()
        assert [r.value for r in consume_all(server.bootstrap_servers, BLOCKED_TOPIC, 1, 1)] == [b"to partition 1"]
        assert [r.value for r in consume_all(server.bootstrap_servers, BLOCKED_TOPIC, 0, 1)] == [b"to partition 0"]
    finally:
        server.stop()
    log = server.log_path.read_text(encoding="utf-8")
    assert "Traceback" not in log
    assert log.count(f"cannot create the log of {BLOCKED_TOPIC}-1:") == 1
    assert log.count(f"the log of {BLOCKED_TOPIC}-1 is created") == 1
