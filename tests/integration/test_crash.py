"""kill -9 of a `pylog serve` subprocess while a kafka-python acks=all producer streams.

A thread produces as fast as it can and records every acknowledged (partition, offset,
value) from the futures' callbacks. The broker is killed with SIGKILL mid-stream, then
started again on the same data directory (same port); the producer, still holding the
batches that were in flight or buffered at the kill, delivers them to the restarted
broker (kafka-python is idempotent by default: a batch the dead broker had appended but
not acknowledged is retried and must be recognised as a duplicate from the producer
state rebuilt by recovery). Then every acknowledged record must be there at its
acknowledged offset with its value, exactly once; the logs must read end to end
(offsets contiguous from 0, nothing but whole valid batches, `pylog dump-log` says
isvalid: true for every batch); and the broker must take and serve new records.
Two kill cycles: the second one recovers a log that was itself recovered.
"""

from __future__ import annotations

import re
import subprocess
import threading

import pytest
from kafka import KafkaProducer

from tests.integration.support import (
    PYTHON,
    ROOT,
    WireClient,
    assert_contiguous_batches,
    consume_all,
    end_offset,
    segment_files,
    stored_batches,
    wait_until,
)

TOPIC = "crash-stream"
PARTITIONS = 2
SMALL_SEGMENTS = {"internal.segment.bytes": str(64 * 1024)}   # Kafka's test-only segment size


class StreamingProducer:
    """A thread that sends value `crash-<cycle>-<n>` records round robin over the
    partitions until stopped; `acknowledged` collects (partition, offset, value)."""

    def __init__(self, bootstrap_servers: str, cycle: int):
        self.producer = KafkaProducer(bootstrap_servers=bootstrap_servers, acks="all", linger_ms=2,
                                      max_block_ms=2000, reconnect_backoff_max_ms=200)
        self.cycle = cycle
        self.acknowledged: list[tuple[int, int, bytes]] = []
        self.failed = 0
        self.sent = 0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, name="streaming-producer", daemon=True)

    def run(self) -> None:
        n = 0
        while not self.stopping.is_set():
            value = b"crash-%d-%08d" % (self.cycle, n)
            try:
                future = self.producer.send(TOPIC, value=value, key=b"%d" % n, partition=n % PARTITIONS)
            except Exception:
                self.failed += 1
                continue
            future.add_callback(lambda metadata, value=value: self.acknowledged.append(
                (metadata.partition, metadata.offset, value)))
            future.add_errback(self.on_error)
            n += 1
            self.sent = n

    def on_error(self, exc) -> None:
        self.failed += 1

    def start(self) -> StreamingProducer:
        self.thread.start()
        return self

    def stop_sending(self) -> None:
        self.stopping.set()
        self.thread.join(timeout=30)
        assert not self.thread.is_alive(), "the producer thread did not stop"

    def finish(self) -> list[tuple[int, int, bytes]]:
        """Deliver what is pending (the broker is back), close, return the acknowledged."""
        self.producer.flush(timeout=90)
        self.producer.close(timeout=10)
        assert self.failed == 0, f"{self.failed} records failed"
        assert len(self.acknowledged) == self.sent
        return list(self.acknowledged)


def check_log(serve, acknowledged: list[tuple[int, int, bytes]]) -> dict[int, int]:
    """Every acknowledged record at its offset; each partition readable from 0 to its end,
    holding only values the producers sent. Returns the end offset of each partition."""
    ends = {}
    for partition in range(PARTITIONS):
        end = end_offset(serve.bootstrap_servers, TOPIC, partition)
        records = consume_all(serve.bootstrap_servers, TOPIC, partition, end, timeout_s=90)
        assert [r.offset for r in records] == list(range(end)), f"partition {partition} has holes"
        by_offset = {r.offset: r.value for r in records}
        assert all(re.fullmatch(rb"crash-\d-\d{8}", value) for value in by_offset.values())
        assert len(set(by_offset.values())) == len(by_offset), f"partition {partition} holds a duplicate"
        for p, offset, value in acknowledged:
            if p == partition:
                assert by_offset.get(offset) == value, (
                    f"acknowledged record {value!r} at {p}/{offset} is {by_offset.get(offset)!r} after the crash")
        ends[partition] = end
    return ends


def check_files(serve) -> None:
    """Segments hold whole valid batches, offsets contiguous; dump-log agrees."""
    paths = []
    for partition in range(PARTITIONS):
        batches = stored_batches(serve.data_dir, TOPIC, partition)   # CRC-checked
        assert_contiguous_batches(batches)
        files = segment_files(serve.data_dir, TOPIC, partition)
        assert sum(len(path.read_bytes()) for path in files) == sum(len(raw) for _, _, _, raw in batches), \
            f"partition {partition}: bytes after the last whole batch"
        paths += [str(path) for path in files]
    result = subprocess.run([PYTHON, "-m", "pylog", "dump-log", *paths], cwd=ROOT, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    flags = re.findall(r"isvalid: (\w+)", result.stdout)
    total = sum(len(stored_batches(serve.data_dir, TOPIC, p)) for p in range(PARTITIONS))
    assert flags and set(flags) == {"true"}, f"dump-log found invalid batches: {flags.count('false')}"
    assert len(flags) == total


@pytest.mark.timeout(180)
@pytest.mark.parametrize("how", ["sigkill", "sigterm"])
def test_stop_while_streaming(serve_factory, how):
    """kill -9 (the crash), and for comparison SIGTERM (a clean stop while requests are
    in flight: those are answered or not, but nothing acknowledged may be lost)."""
    serve = serve_factory().start()
    with WireClient(serve.bootstrap_servers) as wire:
        wire.create_topics([TOPIC], PARTITIONS, SMALL_SEGMENTS)
    acknowledged: list[tuple[int, int, bytes]] = []
    for cycle in range(2):
        producer = StreamingProducer(serve.bootstrap_servers, cycle).start()
        wait_until(lambda: len(producer.acknowledged) >= 8000, 90, "8000 acknowledged records")
        if how == "sigkill":
            serve.kill()
        else:
            assert serve.stop() == 0, serve.log_text()
        producer.stop_sending()
        serve.start()   # same data directory, same port
        acknowledged += producer.finish()
        check_log(serve, acknowledged)

    # The recovered log takes new records and serves them after the old ones.
    ends = check_log(serve, acknowledged)
    producer = KafkaProducer(bootstrap_servers=serve.bootstrap_servers)
    offsets = [producer.send(TOPIC, value=b"crash-9-%08d" % i, partition=0).get(timeout=30).offset
               for i in range(100)]
    producer.close(timeout=10)
    assert offsets == list(range(ends[0], ends[0] + 100))
    tail = consume_all(serve.bootstrap_servers, TOPIC, 0, 100, start_offset=ends[0])
    assert [r.value for r in tail] == [b"crash-9-%08d" % i for i in range(100)]

    assert serve.stop() == 0, serve.log_text()
    check_files(serve)
    assert len(segment_files(serve.data_dir, TOPIC, 0)) > 1, "expected the log to have rolled"


@pytest.mark.timeout(90)
def test_torn_write_at_the_tail_is_cut_on_restart(serve_factory):
    """What a crash in the middle of a write leaves (a partial batch at the end of the
    active segment) is truncated by recovery; every acknowledged record stays; the log
    goes on at the right offset with no junk in the file."""
    serve = serve_factory().start()
    with WireClient(serve.bootstrap_servers) as wire:
        wire.create_topics([TOPIC], PARTITIONS, SMALL_SEGMENTS)
    producer = KafkaProducer(bootstrap_servers=serve.bootstrap_servers)
    futures = [producer.send(TOPIC, value=b"crash-0-%08d" % i, partition=0) for i in range(1000)]
    producer.flush(timeout=60)
    acknowledged = [(0, f.get(timeout=10).offset, b"crash-0-%08d" % i) for i, f in enumerate(futures)]
    producer.close(timeout=10)
    serve.kill()

    active = segment_files(serve.data_dir, TOPIC, 0)[-1]
    whole = active.read_bytes()
    _, _, _, last_batch = stored_batches(serve.data_dir, TOPIC, 0)[-1]
    with open(active, "ab") as f:
        f.write(last_batch[:len(last_batch) // 2])       # half of a batch: a torn append
    serve.start()
    assert check_log(serve, acknowledged)[0] == 1000
    producer = KafkaProducer(bootstrap_servers=serve.bootstrap_servers)
    assert producer.send(TOPIC, value=b"crash-1-00000000", partition=0).get(timeout=30).offset == 1000
    producer.close(timeout=10)
    assert serve.stop() == 0, serve.log_text()
    assert active.read_bytes()[:len(whole)] == whole
    check_files(serve)
