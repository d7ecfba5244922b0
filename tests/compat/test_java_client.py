"""Kafka's own Java client (4.1.1, the reference implementation of the protocol) against pylog
and against the reference Kafka, answer by answer.

Three programs in tests/compat/kafka/src/main/java/dev/pylog/compat/ drive the client and
print what it got as JSON lines (JsonLine.java); they run in the session's tool JVM
(`kafka_tools`), once against each broker, with names of their own (`unique`; the
name given to a run reads NAME in its answers, so that the two runs compare):

- ProducerRoundTrip: an idempotent-by-default KafkaProducer (acks=all) for each compression
  codec: keys, headers, explicit timestamps; the RecordMetadata; a KafkaConsumer reading it
  all back (assign + seekToBeginning). The batches on each broker's disk are read too (they
  are in Kafka's format on both) to check the producer really was idempotent and the codec.
- ConsumerGroupCheck: two KafkaConsumers of one classic group: the rebalance when the second
  joins and when it leaves, commitSync / committed, seek, offsetsForTimes,
  beginningOffsets / endOffsets.
- AdminCheck: the Admin client, one step per run (topics, configs, offsets, groups,
  cluster, deleteRecords), each with topics of its own so that one step pylog cannot serve
  fails alone.

Every test checks the answers against what they must be (so that both brokers being wrong
the same way still fails) and compares pylog's with Kafka's, leaving out only what must
differ between two brokers (ids, hosts, ports, the cluster id) and the text of error
messages, which are reported in the table but not asserted. What differs because pylog
lacks an API or an API version, or because pylog's answer is not Kafka 4.1's, has its own
strict xfail test saying why, so it turns red the day pylog answers as Kafka does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pytest

from protocol.records import Compression
from tests.compat.conftest import unique
from tests.integration.support import stored_batches

PRODUCER = "dev.pylog.compat.ProducerRoundTrip"
CONSUMER_GROUP = "dev.pylog.compat.ConsumerGroupCheck"
ADMIN = "dev.pylog.compat.AdminCheck"

BASE_TIMESTAMP = 1_700_000_000_000  # the programs' BASE_TIMESTAMP
BROKERS = ("kafka", "pylog")


# ---------------------------------------------------------------------------------------
# running a program and comparing what it printed


@dataclass
class JavaRun:
    broker: str
    command: str
    code: int
    events: list[dict]
    stderr: str
    other_output: list[str] = field(default_factory=list)

    @property
    def status(self) -> str:
        if self.code == 0:
            return "ok"
        return f"failed: {self.exception_line()}"

    def exception_line(self) -> str:
        """The first line of the stack trace the program died with."""
        for line in self.stderr.splitlines():
            if "Exception" in line or "Error" in line:
                return line.strip()[:160]
        return f"exit code {self.code}"

    def check(self) -> JavaRun:
        assert self.code == 0, f"{self.command} against {self.broker} failed:\n{self.stderr[-4000:]}"
        return self

    def named(self, event: str) -> list[dict]:
        return [e for e in self.events if e["event"] == event]

    def one(self, event: str) -> dict:
        found = self.named(event)
        assert len(found) == 1, f"{self.broker}: expected one {event!r} line, got {found}"
        return found[0]


def run_java(kafka_tools, broker_name: str, broker, main_class: str, name: str, *args: str,
             timeout_s: float = 90) -> JavaRun:
    """`main_class BOOTSTRAP name args` in the tool JVM; `name` (the topic or the prefix of the
    names the program makes) reads NAME in the events, so that runs with different names compare."""
    result = kafka_tools.run(main_class, broker.bootstrap_servers, name, *args, timeout_s=timeout_s)
    events, other = [], []
    for line in result.stdout.splitlines():
        if line.startswith("{"):
            events.append(_named(json.loads(line), name))
        elif line.strip():
            other.append(line)
    return JavaRun(broker_name, result.command, result.code, events, result.stderr, other)


def _named(value, name: str):
    if isinstance(value, str):
        return value.replace(name, "NAME")
    if isinstance(value, list):
        return [_named(item, name) for item in value]
    if isinstance(value, dict):
        return {_named(key, name): _named(item, name) for key, item in value.items()}
    return value


def run_on_both(kafka_tools, both, main_class: str, prefix: str, *args: str) -> dict[str, JavaRun]:
    """The program once against each broker, with fresh names on each."""
    return {name: run_java(kafka_tools, name, both[name], main_class, unique(prefix), *args) for name in BROKERS}


def without(event: dict, keys) -> dict:
    return {k: v for k, v in event.items() if k not in keys}


def differences(kafka: list[dict], pylog: list[dict], ignore=("message",)) -> list[str]:
    """What differs between the two event lists, one line per event, `ignore` keys left out."""
    found = []
    if len(kafka) != len(pylog):
        found.append(f"{len(kafka)} lines from kafka, {len(pylog)} from pylog")
    for k, p in zip(kafka, pylog):
        k, p = without(k, ignore), without(p, ignore)
        if k != p:
            keys = sorted(key for key in set(k) | set(p) if k.get(key) != p.get(key))
            found.append(f"{k.get('event')}: " + "; ".join(
                f"{key}: kafka {_short(k.get(key))} / pylog {_short(p.get(key))}" for key in keys))
    return found


def message_differences(kafka: list[dict], pylog: list[dict]) -> list[str]:
    """The error messages that are worded differently (reported, never asserted)."""
    return [f"{k['event']}: kafka {k.get('message')!r} / pylog {p.get('message')!r}"
            for k, p in zip(kafka, pylog)
            if ("message" in k or "message" in p) and k.get("message") != p.get("message")]


def _short(value, limit: int = 200) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= limit else text[:limit] + "..."


def outcome(found: list[str], messages: list[str] = (), notes: list[str] = ()) -> str:
    parts = []
    if found:
        parts.append("differs: " + " | ".join(found))
    else:
        parts.append("same")
    if notes:
        parts.append("known: " + " | ".join(notes))
    if messages:
        parts.append(f"{len(messages)} error message(s) worded differently: " + " | ".join(messages))
    return "; ".join(parts)


def record_row(compat_table, name: str, runs: dict[str, JavaRun], found: list[str], messages=(), notes=()):
    if runs["kafka"].code != 0:
        result = f"fails on kafka: {runs['kafka'].exception_line()}"
    elif runs["pylog"].code != 0:
        result = f"fails on pylog: {runs['pylog'].exception_line()}" + (f" ({'; '.join(notes)})" if notes else "")
    else:
        result = outcome(found, messages, notes)
    compat_table.record("client", name, on_pylog=runs["pylog"].status, on_kafka=runs["kafka"].status,
                        outcome=result)


def record_failure_and_check(compat_table, name: str, runs: dict[str, JavaRun]) -> None:
    """For the tests that need both runs' answers before their row can be written: a run
    that failed gets its row now, and fails the test."""
    if any(run.code != 0 for run in runs.values()):
        record_row(compat_table, name, runs, [])
        for run in runs.values():
            run.check()


# ---------------------------------------------------------------------------------------
# KafkaProducer (idempotent by default, acks=all) and a KafkaConsumer reading back

CODECS = {"none": Compression.NONE, "gzip": Compression.GZIP, "snappy": Compression.SNAPPY,
          "lz4": Compression.LZ4, "zstd": Compression.ZSTD}

# Where the Java client's default partitioner (murmur2 of the key, 2 partitions) puts
# records 0-9; record 6 has no key and names partition 1 itself.
EXPECTED_PARTITIONS = {0: 1, 1: 0, 2: 0, 3: 1, 4: 1, 5: 0, 6: 1, 7: 1, 8: 1, 9: 1}


def expected_record(i: int) -> dict:
    """Record i as ProducerRoundTrip.record(topic, i) builds it."""
    headers = []
    if i != 5:
        headers.append(["index", str(i)])
    if i % 3 == 0:
        headers += [["dup", "first"], ["dup", "second"]]
    if i % 2 == 0:
        headers.append(["nothing", None])
    return {
        "key": None if i == 6 else f"key-{i}",
        "value": None if i == 7 else f"value-{i} " + "compressible text " * 40,
        "headers": headers,
        "timestamp": BASE_TIMESTAMP + i * 1000,
    }


def check_producer_run(run: JavaRun, broker, topic: str, codec: str) -> None:
    run.check()
    sent = run.named("sent")
    assert [e["index"] for e in sent] == list(range(10))
    next_offset = {0: 0, 1: 0}
    where = {}
    for e in sent:
        i = e["index"]
        expected = expected_record(i)
        assert e["partition"] == EXPECTED_PARTITIONS[i], e
        assert e["offset"] == next_offset[e["partition"]], f"{run.broker}: offsets in send order: {e}"
        next_offset[e["partition"]] += 1
        assert e["timestamp"] == expected["timestamp"], f"{run.broker}: CreateTime echoed: {e}"
        assert e["serializedKeySize"] == (-1 if expected["key"] is None else len(expected["key"]))
        assert e["serializedValueSize"] == (-1 if expected["value"] is None else len(expected["value"]))
        where[(e["partition"], e["offset"])] = i

    consumed = run.named("consumed")
    assert sorted((e["partition"], e["offset"]) for e in consumed) == sorted(where), run.broker
    for e in consumed:
        expected = expected_record(where[(e["partition"], e["offset"])])
        for key in ("key", "value", "headers", "timestamp"):
            assert e[key] == expected[key], f"{run.broker}: {key} of {e['partition']}@{e['offset']}"
        assert e["timestampType"] == "CREATE_TIME"
        assert e["leaderEpoch"] == 0
    assert run.one("endOffsets") == {"event": "endOffsets", "0": next_offset[0], "1": next_offset[1]}

    # the batches as stored: compressed with the codec, idempotent (one producer id, epoch 0,
    # sequence numbers from 0 with no gap), offsets contiguous
    producer_ids = set()
    for partition in (0, 1):
        batches = stored_batches(broker.data_dir, topic, partition)
        assert batches, f"{run.broker}: nothing stored in {topic}-{partition}"
        expected_offset = 0
        for _, _, header, _ in batches:
            assert header.compression == CODECS[codec], f"{run.broker}: {header}"
            assert header.producer_id >= 0 and header.producer_epoch == 0, f"{run.broker}: not idempotent: {header}"
            assert header.base_sequence == header.base_offset == expected_offset, f"{run.broker}: {header}"
            expected_offset = header.next_offset
            producer_ids.add(header.producer_id)
        assert expected_offset == next_offset[partition]
    assert len(producer_ids) == 1, f"{run.broker}: one producer, ids {producer_ids}"


def _producer_event_order(event: dict) -> tuple:
    """Sent in send order, then consumed by partition and offset, then the end offsets."""
    if event["event"] == "sent":
        return (0, event["index"])
    if event["event"] == "consumed":
        return (1, event["partition"], event["offset"])
    return (2,)


@pytest.mark.parametrize("codec", list(CODECS))
def test_java_producer_round_trip(codec, both, kafka_tools, compat_table):
    """Idempotent producer, acks=all, the codec: metadata, records read back, batches stored."""
    topics = {name: unique(f"jc-produce-{codec}") for name in BROKERS}
    runs = {name: run_java(kafka_tools, name, both[name], PRODUCER, topics[name], codec) for name in BROKERS}
    # the consumer's polls may return either partition first
    in_order = {name: sorted(run.events, key=_producer_event_order) for name, run in runs.items()}
    found = differences(in_order["kafka"], in_order["pylog"])
    record_row(compat_table, f"Java KafkaProducer idempotent acks=all ({codec}) + KafkaConsumer", runs, found)
    for name in BROKERS:
        check_producer_run(runs[name], both[name], topics[name], codec)
    assert found == []


# ---------------------------------------------------------------------------------------
# KafkaConsumer in a classic group: rebalance, commits, seek, offsetsForTimes

ALL = [0, 1, 2, 3]
# the rebalance callbacks each member sees, in order (the members' lines interleave)
EXPECTED_CALLBACKS = {
    "a": [("assigned", ALL), ("revoked", ALL), ("assigned", [0, 1]),
          ("revoked", [0, 1]), ("assigned", ALL), ("revoked", ALL)],
    "b": [("assigned", [2, 3]), ("revoked", [2, 3])],
}
COMMITTED_BY_A = {"0": {"leaderEpoch": "none", "metadata": "meta-a0", "offset": 2},
                  "1": {"leaderEpoch": "0", "metadata": "meta-a1", "offset": 3}}
COMMITTED_BY_B = {"2": {"leaderEpoch": "none", "metadata": "", "offset": 4},
                  "3": {"leaderEpoch": "none", "metadata": "", "offset": 5}}


def expected_group_events() -> list[dict]:
    def assignment(phase, member, partitions, generation):
        return {"event": "assignment", "phase": phase, "member": member, "partitions": partitions,
                "generation": generation, "memberIdStartsWithClientId": True}

    return [
        assignment("alone", "a", ALL, 1),
        assignment("split", "a", [0, 1], 2),
        assignment("split", "b", [2, 3], 2),
        {"event": "committed", "member": "a", "when": "after a committed",
         "partitions": {**COMMITTED_BY_A, "2": None, "3": None}},
        {"event": "committed", "member": "b", "when": "after b committed",
         "partitions": {**COMMITTED_BY_A, **COMMITTED_BY_B}},
        {"event": "positionAfterSeek", "partition": 0, "position": 3},
        {"event": "firstAfterSeek", "partition": 0, "offset": 3, "key": "k3", "value": "p0-v3",
         "timestamp": BASE_TIMESTAMP + 3000},
        {"event": "offsetsForTimes", "partitions": {
            "0": {"leaderEpoch": "0", "offset": 2, "query": BASE_TIMESTAMP + 1500, "timestamp": BASE_TIMESTAMP + 2000},
            "1": {"leaderEpoch": "0", "offset": 4, "query": BASE_TIMESTAMP + 4000, "timestamp": BASE_TIMESTAMP + 4000},
            "2": None,
            "3": {"leaderEpoch": "0", "offset": 0, "query": BASE_TIMESTAMP - 1, "timestamp": BASE_TIMESTAMP}}},
        {"event": "beginningOffsets", "partitions": {"0": 0, "1": 0, "2": 0, "3": 0}},
        {"event": "endOffsets", "partitions": {"0": 5, "1": 5, "2": 5, "3": 5}},
        {"event": "closed", "member": "b"},
        assignment("after b left", "a", ALL, 3),
    ]


def callbacks(run: JavaRun) -> dict[str, list]:
    seen = {"a": [], "b": []}
    for e in run.events:
        if e["event"] in ("assigned", "revoked"):
            seen[e["member"]].append((e["event"], e["partitions"]))
    return seen


def test_java_consumer_classic_group(both, kafka_tools, compat_table):
    """Two members of one group (4 partitions): split 2 + 2 (range), back to 4 when one leaves;
    commitSync / committed, seek, offsetsForTimes between records, beginning/end offsets."""
    runs = run_on_both(kafka_tools, both, CONSUMER_GROUP, "jc-group")
    main_events = {name: [e for e in run.events if e["event"] not in ("assigned", "revoked")]
                   for name, run in runs.items()}
    found = differences(main_events["kafka"], main_events["pylog"])
    if callbacks(runs["kafka"]) != callbacks(runs["pylog"]):
        found.append(f"rebalance callbacks: kafka {callbacks(runs['kafka'])} / pylog {callbacks(runs['pylog'])}")
    record_row(compat_table, "Java KafkaConsumer group.protocol=classic (2 members)", runs, found)
    for name, run in runs.items():
        run.check()
        assert main_events[name] == expected_group_events(), name
        assert callbacks(run) == EXPECTED_CALLBACKS, name
    assert found == []


# ---------------------------------------------------------------------------------------
# Admin


class AdminRuns:
    """AdminCheck's steps, each run once per broker and kept for the tests that share it."""

    def __init__(self, both, kafka_tools):
        self.both = both
        self.kafka_tools = kafka_tools
        self.runs: dict[str, dict[str, JavaRun]] = {}

    def __call__(self, step: str) -> dict[str, JavaRun]:
        if step not in self.runs:
            self.runs[step] = run_on_both(self.kafka_tools, self.both, ADMIN, f"jc-admin-{step.lower()}", step)
        return self.runs[step]


@pytest.fixture(scope="module")
def admin_runs(both, kafka_tools):
    return AdminRuns(both, kafka_tools)


def error_of(run: JavaRun, event: str) -> str | None:
    line = run.one(event)
    return None if line["ok"] else line["error"]


def test_java_admin_topics(admin_runs, compat_table):
    """createTopics (and its errors), listTopics, describeTopics, createPartitions, deleteTopics."""
    runs = admin_runs("topics")
    found = differences(runs["kafka"].events, runs["pylog"].events)
    messages = message_differences(runs["kafka"].events, runs["pylog"].events)
    record_row(compat_table, "Java Admin topics: create/list/describe/createPartitions/delete", runs, found,
               messages)
    for name, run in runs.items():
        run.check()
        assert run.one("createTopics") == {"event": "createTopics", "numPartitions": 2, "replicationFactor": 1,
                                           "hasTopicId": True}
        assert error_of(run, "createTopics existing") == "TopicExistsException"
        assert error_of(run, "createTopics zero partitions") == "InvalidPartitionsException"
        assert error_of(run, "createTopics replication factor 3") == "InvalidReplicationFactorException"
        assert error_of(run, "createTopics invalid name") == "InvalidTopicException"
        assert without(run.one("listTopics"), ["event"]) == {"contains": True, "internal": False,
                                                             "containsMissing": False}
        for event, count in (("describeTopics", 2), ("describeTopics after createPartitions", 4)):
            described = run.one(event)
            assert (described["internal"], described["hasTopicId"], described["authorizedOperations"]) == \
                (False, True, None)
            assert described["partitions"] == [{"partition": p, "leader": 1, "replicas": [1], "isr": [1],
                                                "elr": [], "lastKnownElr": []} for p in range(count)], name
        assert error_of(run, "describeTopics missing") == "UnknownTopicOrPartitionException"
        assert error_of(run, "createPartitions decrease") == "InvalidPartitionsException"
        assert error_of(run, "createPartitions same count") == "InvalidPartitionsException"
        assert error_of(run, "createPartitions missing topic") == "UnknownTopicOrPartitionException"
        assert error_of(run, "deleteTopics again") == "UnknownTopicOrPartitionException"
        assert run.one("listTopics after deleteTopics")["contains"] is False
        assert error_of(run, "describeTopics after deleteTopics") == "UnknownTopicOrPartitionException"
    assert found == []


# The topic configs Kafka 4 removed: neither broker lists them.
REMOVED_IN_KAFKA_4 = {"message.downconversion.enable", "message.format.version",
                      "message.timestamp.difference.max.ms"}
MIN_INSYNC = "min.insync.replicas"
SAME_NAME_SYNONYMS = {"compression.gzip.level", "compression.lz4.level", "compression.zstd.level",
                      "local.retention.bytes", "local.retention.ms"}
CONFIG_EVENTS = ("createTopics config", "describeConfigs", "describeConfigs with synonyms",
                 "describeConfigs after incrementalAlterConfigs")


def config_entries(run: JavaRun, event: str) -> dict[str, dict]:
    return run.one(event)["entries"]


def test_java_admin_configs(admin_runs, compat_table):
    """createTopics with configs, describeConfigs (with synonyms), incrementalAlterConfigs
    (SET, DELETE, APPEND, SUBTRACT, validateOnly) and their errors."""
    runs = admin_runs("configs")
    row = "Java Admin configs: createTopics+configs/describeConfigs/incrementalAlterConfigs"
    record_failure_and_check(compat_table, row, runs)
    kafka, pylog = runs["kafka"], runs["pylog"]
    found = differences(kafka.events, pylog.events)
    record_row(compat_table, row, runs, found, message_differences(kafka.events, pylog.events))

    for name, run in runs.items():
        for event in CONFIG_EVENTS:
            entries = config_entries(run, event)
            assert {n: entries[n]["value"] for n in ("retention.ms", "cleanup.policy", "segment.bytes")} == (
                {"retention.ms": "7200000", "cleanup.policy": "compact,delete", "segment.bytes": "10485760"}
                if event == "describeConfigs after incrementalAlterConfigs" else
                {"retention.ms": "3600000", "cleanup.policy": "compact", "segment.bytes": "1073741824"}), (name, event)
            given = "DYNAMIC_TOPIC_CONFIG"
            assert entries["retention.ms"]["source"] == given
            assert entries["max.message.bytes"] == (
                {**entries["max.message.bytes"], "value": "1048588", "source": "DEFAULT_CONFIG"}
                if event == "describeConfigs after incrementalAlterConfigs" else
                {**entries["max.message.bytes"], "value": "200000", "source": given}), (name, event)
        synonyms = config_entries(run, "describeConfigs with synonyms")["retention.ms"]["synonyms"]
        assert synonyms[0] == ["retention.ms", "3600000", "DYNAMIC_TOPIC_CONFIG"], name
        assert error_of(run, "createTopics bad value") == "InvalidConfigurationException"
        assert error_of(run, "createTopics unknown config") == "InvalidConfigurationException"
        assert error_of(run, "describeConfigs missing topic") == "UnknownTopicOrPartitionException"
        assert error_of(run, "incrementalAlterConfigs subtract") is None
        assert run.one("cleanup.policy after subtract")["value"] == "delete"
        assert error_of(run, "incrementalAlterConfigs validateOnly") is None
        assert run.one("retention.ms after validateOnly")["value"] == "7200000"
        assert error_of(run, "incrementalAlterConfigs unknown config") == "InvalidConfigurationException"
        assert error_of(run, "incrementalAlterConfigs bad value") == "InvalidConfigurationException"
        assert error_of(run, "incrementalAlterConfigs missing topic") == "UnknownTopicOrPartitionException"

    # Kafka 4.1's topic configs: the removed ones absent, the cluster default min.insync.replicas,
    # the broker synonyms of the codec levels and of local retention
    for run in runs.values():
        entries = config_entries(run, "describeConfigs with synonyms")
        assert not REMOVED_IN_KAFKA_4 & set(entries), run
        assert entries[MIN_INSYNC]["source"] == "DYNAMIC_DEFAULT_BROKER_CONFIG", run
        for name in SAME_NAME_SYNONYMS:
            assert entries[name]["synonyms"], (run, name)
    assert found == []


def test_java_admin_list_offsets(admin_runs, compat_table):
    """listOffsets earliest / latest / max-timestamp / by timestamp, on a partition with records
    whose timestamps are out of order and on an empty one."""
    runs = admin_runs("offsets")
    found = differences(runs["kafka"].events, runs["pylog"].events)
    record_row(compat_table, "Java Admin listOffsets (earliest/latest/max-timestamp/timestamp)", runs, found)

    def at(offset, timestamp=-1, epoch=0):
        return {"offset": offset, "timestamp": timestamp, "leaderEpoch": epoch}

    none = at(-1, -1, None)
    expected = {  # partition 0's timestamps: BASE + [0, 3000, 1000, 4000, 2000]; partition 1 empty
        "earliest": {"0": at(0), "1": at(0)},
        "latest": {"0": at(5), "1": at(0)},
        "maxTimestamp": {"0": at(3, BASE_TIMESTAMP + 4000), "1": none},
        "forTimestamp +1500": {"0": at(1, BASE_TIMESTAMP + 3000), "1": none},
        "forTimestamp +1000": {"0": at(1, BASE_TIMESTAMP + 3000), "1": none},
        "forTimestamp +0": {"0": at(0, BASE_TIMESTAMP), "1": none},
        "forTimestamp +99000": {"0": none, "1": none},
    }
    for name, run in runs.items():
        run.check()
        assert {e["spec"]: e["partitions"] for e in run.named("listOffsets")} == expected, name
    assert found == []


# the answers that depend on ListGroups v5 (group type) and DescribeGroups v6 (a group that
# does not exist): compared in their own tests below as well
GROUP_TYPE_EVENTS = ("listConsumerGroups", "listGroups forConsumerGroups")
DELETED_GROUP_EVENTS = ("describeConsumerGroups deleted", "describeConsumerGroups deleted (answer)")


def test_java_admin_consumer_groups(admin_runs, compat_table):
    """listConsumerGroups / listGroups, describeConsumerGroups, listConsumerGroupOffsets,
    alterConsumerGroupOffsets, deleteConsumerGroupOffsets, deleteConsumerGroups: with a member
    in the group (the errors), then empty, then deleted."""
    runs = admin_runs("groups")
    row = "Java Admin consumer groups: list/describe/offsets/alter/delete"
    record_failure_and_check(compat_table, row, runs)
    kafka, pylog = runs["kafka"], runs["pylog"]
    found = differences(kafka.events, pylog.events)
    record_row(compat_table, row, runs, found, message_differences(kafka.events, pylog.events))

    member = {"clientId": None, "consumerIdStartsWithClientId": True, "groupInstanceId": None, "hostIsSet": True,
              "assignment": [0, 1], "targetAssignment": "none", "memberEpoch": None, "upgraded": None}
    for name, run in runs.items():
        active = run.one("describeConsumerGroups active")
        assert without(active, ["event", "groupId", "members"]) == {
            "isSimpleConsumerGroup": False, "groupState": "STABLE", "type": "CLASSIC", "partitionAssignor": "range",
            "coordinator": 1, "authorizedOperations": None, "groupEpoch": None, "targetAssignmentEpoch": None}, name
        assert active["members"] == [{**member, "clientId": "NAME-c"}], name
        empty = run.one("describeConsumerGroups empty")
        assert (empty["groupState"], empty["members"], empty["partitionAssignor"]) == ("EMPTY", [], ""), name
        listed = [without(e, ["event", "type"]) for e in run.named("listConsumerGroups")]
        assert listed == [
            {"when": "active", "listed": True, "isSimpleConsumerGroup": False, "groupState": "STABLE"},
            {"when": "empty", "listed": True, "isSimpleConsumerGroup": False, "groupState": "EMPTY"},
            {"when": "deleted", "listed": False, "isSimpleConsumerGroup": None, "groupState": None}], name
        assert [without(e, ["event", "type"]) for e in run.named("listGroups forConsumerGroups")] == [
            {"when": "active", "listed": True, "protocol": "consumer", "groupState": "STABLE"},
            {"when": "empty", "listed": True, "protocol": "consumer", "groupState": "EMPTY"},
            {"when": "deleted", "listed": False, "protocol": None, "groupState": None}], name
        assert run.one("listConsumerGroupOffsets active")["partitions"] == {
            "0": [2, "from-consumer", None], "1": [1, "", None]}
        assert error_of(run, "deleteConsumerGroupOffsets active") == "GroupSubscribedToTopicException"
        assert error_of(run, "deleteConsumerGroups active") == "GroupNotEmptyException"
        assert error_of(run, "alterConsumerGroupOffsets active") == "UnknownMemberIdException"
        assert run.one("listConsumerGroupOffsets after alter")["partitions"] == {
            "0": [3, "from-admin", None], "1": [0, "", None]}
        assert run.one("listConsumerGroupOffsets after deleteConsumerGroupOffsets")["partitions"] == {
            "0": [3, "from-admin", None]}
        assert error_of(run, "deleteConsumerGroupOffsets unknown group") == "GroupIdNotFoundException"
        assert error_of(run, "deleteConsumerGroups again") == "GroupIdNotFoundException"
        assert run.one("listConsumerGroupOffsets after deleteConsumerGroups")["partitions"] == {}

    # the version-dependent answers: ListGroups v5's group type, DescribeGroups v6's error
    for name, run in runs.items():
        assert {e["type"] for e in run.named("listConsumerGroups") if e["listed"]} == {"CLASSIC"}, name
        assert error_of(run, "describeConsumerGroups deleted") == "GroupIdNotFoundException", name
    assert found == []


def test_java_admin_list_groups_type(admin_runs):
    runs = admin_runs("groups")
    for event in GROUP_TYPE_EVENTS:
        assert [e["type"] for e in runs["pylog"].named(event)] == [e["type"] for e in runs["kafka"].named(event)]


def test_java_admin_describe_deleted_group(admin_runs):
    runs = admin_runs("groups")
    for event in DELETED_GROUP_EVENTS:
        assert without(runs["pylog"].one(event), ["message"]) == without(runs["kafka"].one(event), ["message"])


def meta_properties(broker) -> dict[str, str]:
    values = {}
    for line in (broker.data_dir / "meta.properties").read_text(encoding="utf-8").splitlines():
        if "=" in line and not line.startswith("#"):
            key, _, value = line.partition("=")
            values[key.strip()] = value.strip()
    return values


def test_java_admin_describe_cluster(admin_runs, both, compat_table):
    """describeCluster: the one node, the controller, the cluster id of meta.properties; with
    its options (fenced brokers, authorized operations) too."""
    runs = admin_runs("cluster")
    comparable = {name: [without(e, ["nodes", "clusterId"]) for e in run.events] for name, run in runs.items()}
    found = differences(comparable["kafka"], comparable["pylog"])
    record_row(compat_table, "Java Admin describeCluster", runs, found)
    for name, run in runs.items():
        run.check()
        broker = both[name]
        cluster = run.one("describeCluster")
        assert cluster["nodes"] == [[1, broker.host, broker.port, None]], name
        assert cluster["controller"] == 1
        assert cluster["authorizedOperations"] is None
        assert cluster["clusterId"] == meta_properties(broker)["cluster.id"], name
        with_options = run.one("describeCluster with options")
        assert with_options["nodes"] == [[1, False]], name
        assert with_options["authorizedOperations"] == ["ALTER", "ALTER_CONFIGS", "CLUSTER_ACTION", "CREATE", "DESCRIBE",
                                                        "DESCRIBE_CONFIGS", "IDEMPOTENT_WRITE"], name
    assert found == []


def test_java_admin_describe_producers(admin_runs, compat_table):
    """describeProducers after an idempotent producer wrote three records to partition 0."""
    runs = admin_runs("producers")
    found = differences(runs["kafka"].events, runs["pylog"].events)
    record_row(compat_table, "Java Admin describeProducers", runs, found,
               message_differences(runs["kafka"].events, runs["pylog"].events))
    for name, run in runs.items():
        run.check()
        written, empty = run.named("describeProducers")
        assert written["producers"] == [[0, 2, 1_700_000_000_002, None, None]], name
        assert empty["producers"] == [], name
    assert found == []


def test_java_admin_broker_configs(admin_runs, compat_table):
    """incrementalAlterConfigs on broker 1 and on the cluster default: the value and its
    synonyms' sources as DescribeConfigs then reports them, the deletes, a read-only config,
    validateOnly."""
    runs = admin_runs("brokerConfigs")
    found = differences(runs["kafka"].events, runs["pylog"].events)
    record_row(compat_table, "Java Admin incrementalAlterConfigs (broker)", runs, found,
               message_differences(runs["kafka"].events, runs["pylog"].events))
    for name, run in runs.items():
        run.check()
        per_broker = run.one("broker 1 log.cleaner.backoff.ms after broker 1")
        assert (per_broker["value"], per_broker["source"]) == ("20000", "DYNAMIC_BROKER_CONFIG"), name
        default = run.one("broker 1 log.cleaner.backoff.ms after cluster default")
        assert (default["value"], default["source"]) == ("20000", "DYNAMIC_DEFAULT_BROKER_CONFIG"), name
        assert run.one("broker 1 log.cleaner.backoff.ms after deletes")["source"] == "DEFAULT_CONFIG", name
        assert error_of(run, "incrementalAlterConfigs read-only") == "InvalidRequestException", name
        assert run.one("broker 1 log.cleaner.backoff.ms after validateOnly")["value"] == "15000", name
    assert found == []


DELETE_RECORDS_EXPECTED = [
    {"event": "deleteRecords", "lowWatermark": 2},
    {"event": "listOffsets earliest after deleteRecords", "offset": 2},
    {"event": "deleteRecords beyond the end", "ok": False, "error": "OffsetOutOfRangeException"},
]


def test_java_admin_delete_records(admin_runs, compat_table):
    """deleteRecords before offset 2 of 5: low watermark 2, earliest offset 2; beyond the end
    OffsetOutOfRangeException."""
    runs = admin_runs("deleteRecords")
    found = differences(runs["kafka"].events, runs["pylog"].events)
    record_row(compat_table, "Java Admin deleteRecords", runs, found,
               message_differences(runs["kafka"].events, runs["pylog"].events))
    for run in runs.values():
        run.check()
        assert [without(e, ["message"]) for e in run.events] == DELETE_RECORDS_EXPECTED, run.broker
    assert found == []
