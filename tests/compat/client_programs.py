"""The clients of tests/compat/test_clients.py, each behind the same two calls.

The scenario (produce, consume in a group, commit, restart, resume) is driven from Python
one phase at a time; every client implements the two phases:

- `produce(bootstrap, topic, first, count)`: send records `key-<i>`/`value-<i>` for
  i in first..first+count-1, wait for every ack (acks=all), return what the client was
  told: one `Rec(key, value, partition, offset)` per record, in the order sent (offset
  None where the client does not say).
- `consume(bootstrap, topic, group, count)`: a new consumer joins `group`, subscribed to
  `topic` (a group without a committed offset starts at the earliest), reads `count`
  records, commits them, leaves the group; returns the records read, in order.

The clients of other languages are programs built by `make compat-clients`
(tests/compat/clients.mk) and run as subprocesses that print one JSON line per record:
the Go programs in tests/compat/go (sarama, franz-go), the kafkajs script in
tests/compat/js, and kcat's own command line. The Python clients (kafka-python, aiokafka,
confluent-kafka) run in this process. A program that is not built, or a command that is
not installed, fails the test with the command that builds it; it is never a skip.

`committed_offsets` reads a group's committed offsets with kafka-python's admin client,
an observer independent of the client under test.

To look into a failure by hand, each client logs what it does: the Go programs with
`-debug`, the kafkajs script with KAFKAJS_LOG_LEVEL=debug, kcat with `-d protocol,cgrp`.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import NamedTuple

import aiokafka
import confluent_kafka
import kafka
from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
from kafka.structs import OffsetAndMetadata

from tests.integration.support import KAFKA_PYTHON_GROUP_CONFIG, KAFKA_PYTHON_GROUP_POLL_MS

COMPAT = Path(__file__).resolve().parent
GO_DIR = COMPAT / "go"
GO_BIN = GO_DIR / "bin"
JS_DIR = COMPAT / "js"

# every phase of every client is bounded: the programs give up after PHASE_TIMEOUT_S,
# the subprocess is killed SUBPROCESS_GRACE_S after that
PHASE_TIMEOUT_S = 30
SUBPROCESS_GRACE_S = 10
BUILD_HINT = "`make compat-clients` installs and builds the clients"


class Rec(NamedTuple):
    key: str
    value: str
    partition: int
    offset: int | None


def key(i: int) -> str:
    return f"key-{i}"


def value(i: int) -> str:
    return f"value-{i}"


class ClientFailed(AssertionError):
    """A phase of a client failed; the message says which and what it printed."""


# ---------------------------------------------------------------------------------------
# subprocesses


def run_command(argv: list[str], *, what: str, stdin: str | None = None, env: dict | None = None,
                timeout_s: float = PHASE_TIMEOUT_S + SUBPROCESS_GRACE_S, cwd: Path | None = None):
    """Run a client's command; return the CompletedProcess, or raise ClientFailed."""
    executable = argv[0]
    if shutil.which(executable) is None:
        raise ClientFailed(f"{what}: {executable} is not installed or not built; {BUILD_HINT}")
    try:
        result = subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=timeout_s,
                                cwd=cwd, env={**os.environ, **(env or {})})
    except subprocess.TimeoutExpired as e:
        raise ClientFailed(f"{what}: no result after {timeout_s} s: {' '.join(argv)}\n"
                           f"stdout:\n{e.stdout}\nstderr:\n{(e.stderr or '')[-4000:]}") from None
    if result.returncode != 0:
        raise ClientFailed(f"{what}: exit status {result.returncode}: {' '.join(argv)}\n"
                           f"stdout:\n{result.stdout[-4000:]}\nstderr:\n{result.stderr[-4000:]}")
    return result


def json_lines(result, what: str) -> list[dict]:
    try:
        return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    except json.JSONDecodeError as e:
        raise ClientFailed(f"{what}: output is not JSON lines ({e}):\n{result.stdout[-4000:]}") from None


def records_of(lines: list[dict], event: str, count: int, what: str) -> list[Rec]:
    """The records of a program's JSON lines; its last line must be the `done` line."""
    if not lines or lines[-1].get("event") != "done" or lines[-1].get("count") != count:
        raise ClientFailed(f"{what}: no closing done line for {count} records: {lines[-3:]}")
    return [Rec(line["key"], line["value"], line["partition"], line["offset"])
            for line in lines if line.get("event") == event]


class Program:
    """A round-trip program of tests/compat/go or tests/compat/js (same command line)."""

    def __init__(self, name: str, command: list[str], version: str, env: dict | None = None):
        self.name = name
        self.command = command
        self.version = version
        self.env = env

    def _run(self, *args: str, what: str) -> list[dict]:
        argv = [*self.command, *args, "--timeout-s", str(PHASE_TIMEOUT_S)]
        return json_lines(run_command(argv, what=what, env=self.env), what)

    def produce(self, bootstrap: str, topic: str, first: int, count: int) -> list[Rec]:
        what = f"{self.name} produce"
        lines = self._run("--brokers", bootstrap, "--topic", topic, "--phase", "produce",
                          "--first", str(first), "--count", str(count), what=what)
        return records_of(lines, "produced", count, what)

    def consume(self, bootstrap: str, topic: str, group: str, count: int) -> list[Rec]:
        what = f"{self.name} consume"
        lines = self._run("--brokers", bootstrap, "--topic", topic, "--group", group, "--phase", "consume",
                          "--count", str(count), what=what)
        return records_of(lines, "consumed", count, what)


def go_module_version(module: str) -> str:
    """The version of `module` that tests/compat/go/go.mod requires."""
    text = (GO_DIR / "go.mod").read_text(encoding="utf-8")
    match = re.search(rf"^\s*(?:require\s+)?{re.escape(module)}\s+v(\S+)", text, re.MULTILINE)
    assert match, f"{module} not required in {GO_DIR / 'go.mod'}"
    return match.group(1)


def installed_kafkajs_version() -> str:
    manifest = JS_DIR / "node_modules" / "kafkajs" / "package.json"
    if not manifest.is_file():
        raise ClientFailed(f"kafkajs is not installed in {JS_DIR}; {BUILD_HINT}")
    return json.loads(manifest.read_text(encoding="utf-8"))["version"]


def sarama() -> Program:
    return Program("sarama", [str(GO_BIN / "sarama-roundtrip")], go_module_version("github.com/IBM/sarama"))


def franz_go() -> Program:
    return Program("franz-go", [str(GO_BIN / "franz-roundtrip")], go_module_version("github.com/twmb/franz-go"))


def kafkajs() -> Program:
    # kafkajs warns on stderr, at every producer, that its default partitioner changed in 2.0
    return Program("kafkajs", ["node", str(JS_DIR / "roundtrip.js")], installed_kafkajs_version(),
                   env={"KAFKAJS_NO_PARTITIONER_WARNING": "1"})


# ---------------------------------------------------------------------------------------
# kcat


class Kcat:
    """kcat's command line: -P reads `key:value` lines from stdin; -G is librdkafka's
    balanced consumer (a consumer group), -J prints each record as a JSON envelope.

    kcat has no commit option of its own: in -G mode librdkafka's auto-commit is on
    (enable.auto.commit=true), offsets are stored as kcat is handed each record, and
    rd_kafka_consumer_close, when -c COUNT records have been printed, commits them and
    leaves the group. With -v -v kcat prints the partition and offset of each delivery
    report on stderr, in the order the records were sent (one partition here)."""

    name = "kcat"

    def __init__(self):
        if shutil.which("kcat") is None:
            raise ClientFailed(f"kcat is not installed; {BUILD_HINT}")
        banner = run_command(["kcat", "-V"], what="kcat -V", timeout_s=10).stdout
        match = re.search(r"Version (\S+) .*librdkafka (\S+)", banner)
        assert match, f"kcat -V printed {banner!r}"
        self.version = f"{match.group(1)} (librdkafka {match.group(2)})"

    def produce(self, bootstrap: str, topic: str, first: int, count: int) -> list[Rec]:
        what = "kcat -P"
        lines = "".join(f"{key(i)}:{value(i)}\n" for i in range(first, first + count))
        result = run_command(["kcat", "-b", bootstrap, "-P", "-t", topic, "-K", ":", "-X", "acks=all",
                              "-X", f"message.timeout.ms={PHASE_TIMEOUT_S * 1000}", "-v", "-v"],
                             what=what, stdin=lines)
        delivered = re.findall(r"Message delivered to partition (\d+) \(offset (-?\d+)\)", result.stderr)
        if len(delivered) != count:
            raise ClientFailed(f"{what}: {len(delivered)} delivery reports for {count} records:\n{result.stderr}")
        return [Rec(key(i), value(i), int(partition), int(offset))
                for i, (partition, offset) in zip(range(first, first + count), delivered)]

    def consume(self, bootstrap: str, topic: str, group: str, count: int) -> list[Rec]:
        what = "kcat -G"
        result = run_command(["kcat", "-b", bootstrap, "-G", group, "-X", "auto.offset.reset=earliest",
                              "-c", str(count), "-J", topic], what=what)
        return [Rec(r["key"], r["payload"], r["partition"], r["offset"]) for r in json_lines(result, what)]


# ---------------------------------------------------------------------------------------
# the Python clients, in this process


def _next_offsets(records: list[Rec]) -> dict[int, int]:
    """Per partition, the offset to commit after `records`: the last one's + 1."""
    offsets: dict[int, int] = {}
    for record in records:
        offsets[record.partition] = max(offsets.get(record.partition, 0), record.offset + 1)
    return offsets


def _fail_after(deadline: float, what: str, have: int, want: int) -> None:
    if time.monotonic() > deadline:
        raise ClientFailed(f"{what}: read {have} of {want} records in {PHASE_TIMEOUT_S} s")


class KafkaPython:
    name = "kafka-python"
    version = kafka.__version__

    def produce(self, bootstrap: str, topic: str, first: int, count: int) -> list[Rec]:
        producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", client_id="kafka-python-roundtrip")
        try:
            futures = [(i, producer.send(topic, key=key(i).encode(), value=value(i).encode()))
                       for i in range(first, first + count)]
            producer.flush(timeout=PHASE_TIMEOUT_S)
            sent = [(i, future.get(timeout=PHASE_TIMEOUT_S)) for i, future in futures]
        finally:
            producer.close(timeout=10)
        return [Rec(key(i), value(i), meta.partition, meta.offset) for i, meta in sent]

    def consume(self, bootstrap: str, topic: str, group: str, count: int) -> list[Rec]:
        # 1 s polls and a short metadata max age: see KAFKA_PYTHON_GROUP_POLL_MS
        consumer = KafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=group, client_id="kafka-python-roundtrip",
                                 auto_offset_reset="earliest", enable_auto_commit=False,
                                 **KAFKA_PYTHON_GROUP_CONFIG)
        try:
            records: list[Rec] = []
            deadline = time.monotonic() + PHASE_TIMEOUT_S
            while len(records) < count:
                _fail_after(deadline, "kafka-python consume", len(records), count)
                for batch in consumer.poll(timeout_ms=KAFKA_PYTHON_GROUP_POLL_MS).values():
                    records += [Rec(r.key.decode(), r.value.decode(), r.partition, r.offset) for r in batch]
            records = records[:count]
            consumer.commit({TopicPartition(topic, partition): OffsetAndMetadata(offset, "", -1)
                             for partition, offset in _next_offsets(records).items()})
        finally:
            consumer.close()   # LeaveGroup (auto-commit is off: nothing more is committed)
        return records


class AioKafka:
    name = "aiokafka"
    version = aiokafka.__version__

    def produce(self, bootstrap: str, topic: str, first: int, count: int) -> list[Rec]:
        return asyncio.run(asyncio.wait_for(self._produce(bootstrap, topic, first, count), PHASE_TIMEOUT_S))

    def consume(self, bootstrap: str, topic: str, group: str, count: int) -> list[Rec]:
        return asyncio.run(asyncio.wait_for(self._consume(bootstrap, topic, group, count), PHASE_TIMEOUT_S))

    async def _produce(self, bootstrap, topic, first, count):
        producer = aiokafka.AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", client_id="aiokafka-roundtrip")
        await producer.start()
        try:
            futures = [(i, await producer.send(topic, key=key(i).encode(), value=value(i).encode()))
                       for i in range(first, first + count)]
            sent = [(i, await future) for i, future in futures]
        finally:
            await producer.stop()
        return [Rec(key(i), value(i), meta.partition, meta.offset) for i, meta in sent]

    async def _consume(self, bootstrap, topic, group, count):
        consumer = aiokafka.AIOKafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=group,
                                             client_id="aiokafka-roundtrip", auto_offset_reset="earliest",
                                             enable_auto_commit=False)
        await consumer.start()
        try:
            records: list[Rec] = []
            while len(records) < count:
                for batch in (await consumer.getmany(timeout_ms=500)).values():
                    records += [Rec(r.key.decode(), r.value.decode(), r.partition, r.offset) for r in batch]
            records = records[:count]
            await consumer.commit({aiokafka.TopicPartition(topic, partition): offset
                                   for partition, offset in _next_offsets(records).items()})
        finally:
            await consumer.stop()   # LeaveGroup
        return records


class ConfluentKafka:
    name = "confluent-kafka"
    version = f"{confluent_kafka.__version__} (librdkafka {confluent_kafka.libversion()[0]})"

    def produce(self, bootstrap: str, topic: str, first: int, count: int) -> list[Rec]:
        delivered: dict[int, Rec] = {}
        errors = []

        def on_delivery(i):
            def callback(err, message):
                if err is not None:
                    errors.append((i, err))
                else:
                    delivered[i] = Rec(message.key().decode(), message.value().decode(), message.partition(),
                                       message.offset())
            return callback

        producer = confluent_kafka.Producer({"bootstrap.servers": bootstrap, "acks": "all",
                                             "client.id": "confluent-kafka-roundtrip",
                                             "message.timeout.ms": PHASE_TIMEOUT_S * 1000})
        for i in range(first, first + count):
            producer.produce(topic, key=key(i).encode(), value=value(i).encode(), on_delivery=on_delivery(i))
        remaining = producer.flush(PHASE_TIMEOUT_S)
        if remaining or errors:
            raise ClientFailed(f"confluent-kafka produce: {remaining} not delivered, errors {errors[:5]}")
        return [delivered[i] for i in range(first, first + count)]

    def consume(self, bootstrap: str, topic: str, group: str, count: int) -> list[Rec]:
        consumer = confluent_kafka.Consumer({"bootstrap.servers": bootstrap, "group.id": group,
                                             "client.id": "confluent-kafka-roundtrip",
                                             "auto.offset.reset": "earliest", "enable.auto.commit": False})
        try:
            consumer.subscribe([topic])
            records: list[Rec] = []
            deadline = time.monotonic() + PHASE_TIMEOUT_S
            while len(records) < count:
                _fail_after(deadline, "confluent-kafka consume", len(records), count)
                message = consumer.poll(0.5)
                if message is None:
                    continue
                if message.error() is not None:
                    raise ClientFailed(f"confluent-kafka consume: {message.error()}")
                records.append(Rec(message.key().decode(), message.value().decode(), message.partition(),
                                   message.offset()))
            consumer.commit(offsets=[confluent_kafka.TopicPartition(topic, partition, offset)
                                     for partition, offset in _next_offsets(records).items()],
                            asynchronous=False)
        finally:
            consumer.close()   # LeaveGroup
        return records


# ---------------------------------------------------------------------------------------
# the observer


def committed_offsets(bootstrap: str, group: str, topic: str) -> dict[int, int]:
    """{partition: committed offset} of `group` on `topic`, read with kafka-python's admin
    client (OffsetFetch to the group's coordinator)."""
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, client_id="compat-observer",
                             request_timeout_ms=PHASE_TIMEOUT_S * 1000)
    try:
        offsets = admin.list_group_offsets({group: None})[group]
    finally:
        admin.close()
    return {tp.partition: meta.offset for tp, meta in offsets.items() if tp.topic == topic}


CLIENTS = {
    "kcat": Kcat,
    "kafkajs": kafkajs,
    "sarama": sarama,
    "franz-go": franz_go,
    "kafka-python": KafkaPython,
    "aiokafka": AioKafka,
    "confluent-kafka": ConfluentKafka,
}
