"""Client workloads for the broker benchmarks: produce, consume and latency runs with
confluent-kafka (librdkafka) and kafka-python, each bounded by a record count and a time limit.

Every function takes a bootstrap address and returns a `Run` (records, payload bytes,
seconds, first error). A run that hits its time limit returns what it managed, with
`error` saying so, rather than raising. Everything uses partition 0 of its topic, so that
the topic's partition count (which differs between brokers' auto-creation defaults) does
not matter. Consumers use no group: assign + offset "beginning".
"""

from __future__ import annotations

import logging
import resource
import struct
import threading
import time
from dataclasses import dataclass

PARTITION = 0
MB = 1_000_000

for _noisy in ("kafka", "aiokafka"):
    logging.getLogger(_noisy).setLevel(logging.CRITICAL)


@dataclass
class Run:
    records: int
    payload_bytes: int
    seconds: float
    error: str | None = None
    extra: dict | None = None  # client-side diagnostics (e.g. kafka-python's request latency)

    @property
    def rate(self) -> float:
        return self.records / self.seconds if self.seconds > 0 else 0.0

    @property
    def mb_per_s(self) -> float:
        return self.payload_bytes / MB / self.seconds if self.seconds > 0 else 0.0


def _payload(size: int, seed: int = 0) -> bytes:
    pattern = bytes((i * 31 + seed) & 0xFF for i in range(256))
    return (pattern * (size // 256 + 1))[:size]


# ---------------------------------------------------------------------------------------------
# confluent-kafka


def _confluent_base(bootstrap: str) -> dict:
    return {"bootstrap.servers": bootstrap, "log_level": 0, "socket.nagle.disable": True,
            "broker.address.family": "v4"}


def confluent_warmup(bootstrap: str, topic: str, timeout: float = 8.0) -> str | None:
    """Produce one record (acks=all) and wait for its delivery: creates the topic if the broker
    auto-creates, and proves that the broker serves Metadata and Produce. Returns an error or None."""
    from confluent_kafka import Producer

    errors: list[str] = []
    delivered: list[bool] = []

    def on_delivery(err, msg) -> None:
        if err is not None:
            errors.append(str(err))
        else:
            delivered.append(True)

    conf = _confluent_base(bootstrap)
    conf.update({"acks": "all", "message.timeout.ms": int(timeout * 1000), "linger.ms": 0})
    producer = Producer(conf)
    producer.produce(topic, b"warm-up", partition=PARTITION, on_delivery=on_delivery)
    producer.flush(timeout + 1)
    if errors:
        return errors[0]
    if not delivered:
        return f"no delivery report in {timeout:.0f} s"
    return None


def confluent_produce(bootstrap: str, topic: str, count: int, size: int, time_limit: float = 20.0) -> Run:
    """`count` records of `size` bytes, linger.ms 5, batch.size ~1 MiB, acks=all; timed from the
    first produce() to the end of flush(), every delivery report in."""
    from confluent_kafka import Producer

    errors: list[str] = []

    def on_delivery(err, msg) -> None:  # called for failures only (delivery.report.only.error)
        errors.append(str(err))

    conf = _confluent_base(bootstrap)
    conf.update({
        "acks": "all",
        "linger.ms": 5,
        "batch.size": 1_000_000,
        "queue.buffering.max.messages": max(count, 100_000),
        "queue.buffering.max.kbytes": 524_288,
        "message.timeout.ms": int(time_limit * 1000),
        "delivery.report.only.error": True,
        "on_delivery": on_delivery,
    })
    producer = Producer(conf)
    producer.list_topics(topic, timeout=5)  # connected, metadata known, before the clock starts
    value = _payload(size)
    produce = producer.produce
    started = time.perf_counter()
    deadline = started + time_limit
    sent = 0
    error = None
    while sent < count:
        try:
            produce(topic, value, partition=PARTITION)
            sent += 1
        except BufferError:
            producer.poll(0.001)
            if time.perf_counter() > deadline:
                error = f"time limit {time_limit:.0f} s hit after {sent} records queued"
                break
    remaining = producer.flush(max(deadline - time.perf_counter(), 0.1))
    seconds = time.perf_counter() - started
    delivered = sent - remaining - len(errors)
    if errors:
        error = f"{len(errors)} delivery errors, first: {errors[0]}"
    elif remaining:
        error = f"{remaining} records undelivered at the time limit ({time_limit:.0f} s)"
    return Run(delivered, delivered * size, seconds, error)


def _process_usage() -> tuple[float, int]:
    """CPU seconds (user + system) and minor page faults of this whole process so far: every
    thread, librdkafka's too."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime, usage.ru_minflt


def confluent_consume(bootstrap: str, topic: str, count: int, time_limit: float = 20.0,
                      settings: dict | None = None) -> Run:
    """Read `count` records from the beginning of partition 0 without a group (default
    isolation: read_committed), with the consumer `settings` on top of the bench's own.
    Timed from assign() to the last record, after a metadata round trip so that the
    connection is up. `extra["client_cpu_ms"]` and
    `extra["client_minor_faults"]`: the CPU this process (the client's threads, and any broker
    living in it) used over the timed part, and the page faults it took (memory it touched for
    the first time)."""
    from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, TopicPartition

    conf = _confluent_base(bootstrap)
    conf.update({"group.id": "bench-unused", "enable.auto.commit": False, "enable.auto.offset.store": False,
                 "enable.partition.eof": False,
                 # librdkafka stops fetching once its local queue holds queued.min.messages (100k) or
                 # queued.max.messages.kbytes (64 MiB) and then sleeps fetch.queue.backoff.ms (1 s)
                 # even if the application drains the queue at once: against a broker that answers
                 # fast that adds a whole second to a run now and then. The queue keeps its default
                 # bounds and only the sleep is shortened: a queue with room for a whole run lets
                 # the client's memory grow with the broker's speed, and the page faults of that
                 # growth cost the client more CPU per record the faster the broker answers.
                 "fetch.queue.backoff.ms": 10})
    conf.update(settings or {})
    consumer = Consumer(conf)
    try:
        consumer.list_topics(topic, timeout=5)
        received = 0
        payload = 0
        error = None
        first_offset = next_offset = None
        first_at = None  # seconds from assign() to the first batch of records
        longest = 0.0  # longest wait for a later batch: a stall shows here
        cpu_before, faults_before = _process_usage()
        started = time.perf_counter()
        deadline = started + time_limit
        consumer.assign([TopicPartition(topic, PARTITION, OFFSET_BEGINNING)])
        last = started
        while received < count:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                error = f"time limit {time_limit:.0f} s hit after {received} records"
                break
            # consume(n, timeout) waits for n messages or the timeout: never ask for more than are left
            before = time.perf_counter()
            msgs = consumer.consume(min(10_000, count - received), min(remaining, 0.5))
            if msgs and first_at is None:
                first_at = time.perf_counter() - started
            elif msgs:
                longest = max(longest, time.perf_counter() - before)
            for msg in msgs:
                err = msg.error()
                if err is not None:
                    if err.code() != KafkaError._PARTITION_EOF and error is None:
                        error = str(err)
                    continue
                received += 1
                payload += len(msg.value())
            if msgs and msgs[-1].error() is None:
                if first_offset is None:
                    first_offset = msgs[0].offset()
                next_offset = msgs[-1].offset() + 1
            last = time.perf_counter()
        cpu_after, faults_after = _process_usage()
        # offsets of one partition, read in order: no gap and no duplicate iff they span `received`
        if error is None and first_offset is not None and next_offset - first_offset != received:
            error = f"offsets {first_offset}..{next_offset - 1} but {received} records: gaps or duplicates"
        return Run(received, payload, last - started, error,
                   {"first_batch_ms": (first_at or 0) * 1000, "longest_wait_ms": longest * 1000,
                    "client_cpu_ms": (cpu_after - cpu_before) * 1000,
                    "client_minor_faults": faults_after - faults_before})
    finally:
        consumer.close()


def confluent_latency(bootstrap: str, topic: str, count: int, time_limit: float = 15.0,
                      mean_gap_ms: float = 2.0) -> tuple[list[float], str | None]:
    """Produce-to-consume latency in milliseconds: a consumer thread long-polls partition 0
    (fetch.wait.max.ms 500, fetch.min.bytes 1) while the main thread produces `count` single
    100-byte records (linger.ms 0, acks=all), flushing after each and then pausing a random
    0..2*mean_gap_ms, so that the records land at every phase of a parked fetch (without
    the pause the whole run takes less time than one fetch wait and every record sees the
    same delay). Each payload carries its send time (perf_counter_ns, same process)."""
    import random

    rng = random.Random(4)
    from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition

    latencies: list[float] = []
    warm = threading.Event()
    stop = threading.Event()
    failure: list[str] = []
    marker = b"LAT!"

    def consume() -> None:
        conf = _confluent_base(bootstrap)
        conf.update({"group.id": "bench-unused", "enable.auto.commit": False, "enable.auto.offset.store": False,
                     "fetch.wait.max.ms": 500, "fetch.min.bytes": 1})
        consumer = Consumer(conf)
        try:
            consumer.assign([TopicPartition(topic, PARTITION, OFFSET_BEGINNING)])
            while not stop.is_set():
                msg = consumer.poll(0.2)
                now = time.perf_counter_ns()
                if msg is None:
                    continue
                if msg.error() is not None:
                    if not failure and msg.error().code() != -191:  # _PARTITION_EOF
                        failure.append(str(msg.error()))
                    continue
                value = msg.value()
                if value.startswith(marker):
                    (sent,) = struct.unpack_from(">q", value, len(marker))
                    latencies.append((now - sent) / 1e6)
                else:
                    warm.set()
        except Exception as exc:
            failure.append(f"{type(exc).__name__}: {exc}")
        finally:
            consumer.close()

    conf = _confluent_base(bootstrap)
    conf.update({"acks": "all", "linger.ms": 0, "message.timeout.ms": 5000})
    producer = Producer(conf)
    producer.produce(topic, b"warm-up", partition=PARTITION)
    producer.flush(5)
    thread = threading.Thread(target=consume, name="latency-consumer", daemon=True)
    thread.start()
    error = None
    try:
        if not warm.wait(10):
            return [], failure[0] if failure else "consumer did not see the warm-up record in 10 s"
        padding = b"\0" * (100 - len(marker) - 8)
        deadline = time.perf_counter() + time_limit
        sent = 0
        while sent < count and time.perf_counter() < deadline:
            producer.produce(topic, marker + struct.pack(">q", time.perf_counter_ns()) + padding,
                             partition=PARTITION)
            producer.flush(5)
            sent += 1
            gap = rng.uniform(0, 2 * mean_gap_ms) / 1000
            if gap:
                time.sleep(gap)
        wait_until = time.perf_counter() + 2
        while len(latencies) < sent and time.perf_counter() < wait_until:
            time.sleep(0.005)
        if sent < count:
            error = f"time limit {time_limit:.0f} s hit after {sent} records"
        elif len(latencies) < sent:
            error = f"{sent - len(latencies)} of {sent} records not consumed"
    finally:
        stop.set()
        thread.join(5)
    if failure and error is None:
        error = failure[0]
    return list(latencies), error


# ---------------------------------------------------------------------------------------------
# kafka-python


def kp_produce(bootstrap: str, topic: str, count: int, size: int, time_limit: float = 20.0,
               api_version: tuple | None = None) -> Run:
    """kafka-python 3.x KafkaProducer, defaults except acks=all, linger_ms 5, batch_size ~1 MiB
    (idempotent by default in 3.x). Timed from the first send() to the end of flush()."""
    from kafka import KafkaProducer

    kwargs = dict(bootstrap_servers=bootstrap, acks="all", linger_ms=5, batch_size=1_000_000,
                  max_block_ms=10_000, request_timeout_ms=10_000)
    if api_version is not None:
        kwargs["api_version"] = api_version
    producer = KafkaProducer(**kwargs)
    try:
        producer.partitions_for(topic)  # metadata (and auto-creation) before the clock starts
        value = _payload(size, 1)
        send = producer.send
        futures = []
        started = time.perf_counter()
        deadline = started + time_limit
        error = None
        for i in range(count):
            futures.append(send(topic, value, partition=PARTITION))
            if (i & 1023) == 0 and time.perf_counter() > deadline:
                error = f"time limit {time_limit:.0f} s hit after {i + 1} records sent"
                break
        try:
            producer.flush(max(deadline - time.perf_counter(), 0.1))
        except Exception as exc:
            error = f"flush: {type(exc).__name__}: {exc}"
        seconds = time.perf_counter() - started
        ok = sum(1 for f in futures if f.succeeded())
        failed = [f for f in futures if f.failed()]
        if failed:
            error = f"{len(failed)} failed, first: {failed[0].exception!r}"
        elif ok < len(futures) and error is None:
            error = f"{len(futures) - ok} not acknowledged in time"
        extra = {}
        try:
            metrics = producer.metrics().get("producer-metrics", {})
            for key in ("request-latency-avg", "records-per-request-avg"):
                if key in metrics:
                    extra[key] = metrics[key]
        except Exception:
            pass
        return Run(ok, ok * size, seconds, error, extra)
    finally:
        producer.close(timeout=2)


def kp_consume(bootstrap: str, topic: str, count: int, time_limit: float = 20.0,
               api_version: tuple | None = None) -> Run:
    """kafka-python KafkaConsumer, no group, assign + seek_to_beginning; timed from assign()."""
    from kafka import KafkaConsumer, TopicPartition

    kwargs = dict(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False,
                  auto_offset_reset="earliest", request_timeout_ms=10_000)
    if api_version is not None:
        kwargs["api_version"] = api_version
    consumer = KafkaConsumer(**kwargs)
    try:
        consumer.partitions_for_topic(topic)
        tp = TopicPartition(topic, PARTITION)
        received = 0
        payload = 0
        error = None
        started = time.perf_counter()
        deadline = started + time_limit
        consumer.assign([tp])
        consumer.seek_to_beginning(tp)
        last = started
        while received < count:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                error = f"time limit {time_limit:.0f} s hit after {received} records"
                break
            batches = consumer.poll(timeout_ms=int(min(remaining, 0.5) * 1000),
                                    max_records=min(10_000, count - received))
            for records in batches.values():
                received += len(records)
                payload += sum(len(r.value) for r in records)
            last = time.perf_counter()
        return Run(received, payload, last - started, error)
    finally:
        consumer.close()


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, int(round(fraction * (len(ordered) - 1)))))
    return ordered[index]
