"""Kafka 4.1's own command-line tools against pylog and against the reference Kafka.

Each test runs the same commands against both brokers (`on_both`, tests/compat/compare.py)
and compares what they print, line by line, after masking what must differ (topic ids,
addresses, member ids, timestamps). Where pylog's output differs because it lacks an API or
a Kafka 4 default, the test is `xfail(strict=True)` with the reason: it fails the day the
outputs start to match, so that the mark goes with the fix.

Topics and groups carry names of their own per test (`unique`), since both brokers live
for the whole session.
"""

from __future__ import annotations

import json
import re
import threading
import time

from kafka import KafkaConsumer, KafkaProducer

from pylog.config_keys import CONFIG_KEYS as BROKER_CONFIG_KEYS
from tests.compat.compare import exception_lines
from tests.compat.conftest import unique
from tests.compat.reference import KAFKA_VERSION
from tests.integration.support import KAFKA_PYTHON_GROUP_CONFIG, KAFKA_PYTHON_GROUP_POLL_MS

TOPICS = "kafka-topics.sh"
GROUPS = "kafka-consumer-groups.sh"
CONFIGS = "kafka-configs.sh"


def names(results, pattern: str) -> dict[str, list[str]]:
    return {broker: [line for line in result.lines if re.search(pattern, line)] for broker, result in results.items()}


def run_until(on_both, done, *args, timeout_s: float = 15):
    """Run a tool on both brokers until `done(lines)` holds for both outputs, or the time is
    up: Kafka's broker applies the controller's records a moment after it answered an alter."""
    deadline = time.monotonic() + timeout_s
    while True:
        results = on_both.run(*args)
        if all(done(result.lines) for result in results.values()) or time.monotonic() > deadline:
            return results
        time.sleep(0.5)


def has_line(prefix: str):
    return lambda lines: any(line.startswith(prefix) for line in lines)


# ---------------------------------------------------------------------------------------
# kafka-topics.sh


def create_topic(on_both, topic: str, *args: str) -> None:
    on_both.run_checked(TOPICS, "--bootstrap-server", "{bootstrap}", "--create", "--topic", topic, *args)


def test_topics_create_and_describe(on_both):
    topic = unique("topics-describe")
    created = on_both.run(TOPICS, "--bootstrap-server", "{bootstrap}", "--create", "--topic", topic,
                          "--partitions", "3", "--replication-factor", "1", "--config", "retention.ms=86400000")
    on_both.compare("kafka-topics.sh --create --config", created)
    described = on_both.run(TOPICS, "--bootstrap-server", "{bootstrap}", "--describe", "--topic", topic)
    on_both.compare("kafka-topics.sh --describe", described)


def test_topics_describe_elr_and_configs(on_both):
    topic = unique("topics-elr")
    create_topic(on_both, topic, "--partitions", "2", "--config", "retention.ms=86400000")
    described = on_both.run(TOPICS, "--bootstrap-server", "{bootstrap}", "--describe", "--topic", topic)
    on_both.compare("kafka-topics.sh --describe", described)


def test_topics_refusals(on_both):
    topic = unique("topics-refusals")
    create_topic(on_both, topic, "--partitions", "2")
    again = on_both.run(TOPICS, "--bootstrap-server", "{bootstrap}", "--create", "--topic", topic, "--partitions", "2")
    on_both.compare("kafka-topics.sh --create (exists)", again)
    assert again["pylog"].code == 1 and "already exists" in again["pylog"].stdout
    missing = on_both.run(TOPICS, "--bootstrap-server", "{bootstrap}", "--describe", "--topic", unique("no-such"))
    on_both.compare("kafka-topics.sh --describe (no such topic)", missing)
    fewer = on_both.run(TOPICS, "--bootstrap-server", "{bootstrap}", "--alter", "--topic", topic, "--partitions", "1")
    on_both.compare("kafka-topics.sh --alter (fewer partitions)", fewer)
    bad_name = on_both.run(TOPICS, "--bootstrap-server", "{bootstrap}", "--create", "--topic", "bad/name")
    on_both.compare("kafka-topics.sh --create (invalid name)", bad_name, stderr=True)


def test_topics_alter_partitions(on_both):
    topic = unique("topics-alter")
    create_topic(on_both, topic, "--partitions", "2")
    altered = on_both.run(TOPICS, "--bootstrap-server", "{bootstrap}", "--alter", "--topic", topic, "--partitions", "5")
    on_both.compare("kafka-topics.sh --alter --partitions", altered)
    described = on_both.run(TOPICS, "--bootstrap-server", "{bootstrap}", "--describe", "--topic", topic)
    picked = on_both.compare("kafka-topics.sh --describe after --alter", described)
    assert "PartitionCount: 5" in picked["pylog"][0]


def test_topics_list_and_delete(on_both):
    kept, deleted = unique("topics-kept"), unique("topics-deleted")
    create_topic(on_both, kept)
    create_topic(on_both, deleted)
    pattern = rf"^({kept}|{deleted})$"
    listed = on_both.run(TOPICS, "--bootstrap-server", "{bootstrap}", "--list")
    on_both.compare("kafka-topics.sh --list", listed, lines=lambda r: [l for l in r.lines if re.match(pattern, l)])
    assert names(listed, pattern)["pylog"] == sorted([kept, deleted])
    removed = on_both.run(TOPICS, "--bootstrap-server", "{bootstrap}", "--delete", "--topic", deleted)
    on_both.compare("kafka-topics.sh --delete", removed)
    # Kafka deletes a topic in the background: wait until its listing drops it
    deadline = time.monotonic() + 30
    while True:
        listed = on_both.run(TOPICS, "--bootstrap-server", "{bootstrap}", "--list")
        if deleted not in listed["kafka"].lines or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    on_both.compare("kafka-topics.sh --list after --delete", listed,
                    lines=lambda r: [l for l in r.lines if re.match(pattern, l)])
    assert names(listed, pattern)["pylog"] == [kept]


# ---------------------------------------------------------------------------------------
# kafka-console-producer.sh / kafka-console-consumer.sh


CONSOLE_INPUT = "h1:v1,h2:v2\tk1:value1\nh1:x\tk2:value2\nh3:\tk3:\n"


def produce_with_console(on_both, topic: str) -> None:
    produced = on_both.run("kafka-console-producer.sh", "--bootstrap-server", "{bootstrap}", "--topic", topic,
                           "--property", "parse.key=true", "--property", "key.separator=:",
                           "--property", "parse.headers=true", stdin=CONSOLE_INPUT)
    on_both.compare("kafka-console-producer.sh (keys, headers)", produced)


def test_console_producer_and_consumer_keys_and_headers(on_both):
    topic = unique("console")
    create_topic(on_both, topic, "--partitions", "1")
    produce_with_console(on_both, topic)
    consumed = on_both.run("kafka-console-consumer.sh", "--bootstrap-server", "{bootstrap}", "--topic", topic,
                           "--from-beginning", "--max-messages", "3", "--timeout-ms", "20000",
                           "--property", "print.key=true", "--property", "print.headers=true",
                           "--property", "print.offset=true", "--property", "print.partition=true",
                           "--property", "print.timestamp=true")
    picked = on_both.compare("kafka-console-consumer.sh --from-beginning (keys, headers)", consumed,
                             extra_masks=[(re.compile(r"CreateTime:\d+"), "CreateTime:<ts>")])
    assert picked["pylog"] == [
        "CreateTime:<ts>\tPartition:0\tOffset:0\th1:v1,h2:v2\tk1\tvalue1",
        "CreateTime:<ts>\tPartition:0\tOffset:1\th1:x\tk2\tvalue2",
        "CreateTime:<ts>\tPartition:0\tOffset:2\th3:\tk3",  # an empty value (line ends are stripped)
    ]
    assert "Processed a total of 3 messages" in consumed["pylog"].stderr


# ---------------------------------------------------------------------------------------
# kafka-consumer-groups.sh


def consume_in_group(on_both, topic: str, group: str, count: int) -> None:
    consumed = on_both.run("kafka-console-consumer.sh", "--bootstrap-server", "{bootstrap}", "--topic", topic,
                           "--group", group, "--from-beginning", "--max-messages", str(count), "--timeout-ms", "20000")
    on_both.compare("kafka-console-consumer.sh --group", consumed, lines=lambda r: sorted(r.lines))


def produce_timestamped(brokers, topic: str, timestamps_ms: list[int], partitions: int = 2) -> None:
    """The same keyed records with explicit CreateTime timestamps, to each broker."""
    for broker in brokers.values():
        producer = KafkaProducer(bootstrap_servers=broker.bootstrap_servers, linger_ms=0)
        try:
            for index, timestamp_ms in enumerate(timestamps_ms):
                producer.send(topic, key=b"k%d" % index, value=b"v%d" % index, partition=index % partitions,
                              timestamp_ms=timestamp_ms).get(timeout=30)
        finally:
            producer.close(timeout=10)


BASE_MS = 1_700_000_000_000  # 2023-11-14T22:13:20Z


def test_consumer_groups_describe_reset_and_delete(on_both, both):
    topic, group = unique("groups"), unique("group")
    create_topic(on_both, topic, "--partitions", "2")
    produce_timestamped(both, topic, [BASE_MS + 1000 * i for i in range(6)])
    consume_in_group(on_both, topic, group, 6)
    group_lines = lambda r: [l for l in r.lines if l.startswith(group) or l.startswith("GROUP")]  # noqa: E731
    listed = on_both.run(GROUPS, "--bootstrap-server", "{bootstrap}", "--list")
    on_both.compare("kafka-consumer-groups.sh --list", listed, lines=lambda r: [l for l in r.lines if l == group])
    assert group in listed["pylog"].lines
    described = on_both.run(GROUPS, "--bootstrap-server", "{bootstrap}", "--describe", "--group", group)
    picked = on_both.compare("kafka-consumer-groups.sh --describe (lag)", described, stderr=True)
    assert sorted(line.split()[:6] for line in picked["pylog"][1:3]) == [
        [group, topic, "0", "3", "3", "0"], [group, topic, "1", "3", "3", "0"]]
    for option in ("--state", "--members", "--offsets"):
        result = on_both.run(GROUPS, "--bootstrap-server", "{bootstrap}", "--describe", "--group", group, option)
        on_both.compare(f"kafka-consumer-groups.sh --describe {option}", result, stderr=True)
    listed_state = on_both.run(GROUPS, "--bootstrap-server", "{bootstrap}", "--list", "--state")
    on_both.compare("kafka-consumer-groups.sh --list --state", listed_state, lines=group_lines)
    for reset in (["--to-earliest"], ["--shift-by", "-1"], ["--to-offset", "2"], ["--to-latest"],
                  ["--to-datetime", "2023-11-14T22:13:22.000"], ["--by-duration", "PT0S"]):
        result = on_both.run(GROUPS, "--bootstrap-server", "{bootstrap}", "--group", group, "--topic", topic,
                             "--reset-offsets", *reset, "--execute")
        on_both.compare(f"kafka-consumer-groups.sh --reset-offsets {' '.join(reset)}", result, stderr=True)
    dry = on_both.run(GROUPS, "--bootstrap-server", "{bootstrap}", "--group", group, "--all-topics",
                      "--reset-offsets", "--to-datetime", "2023-11-14T22:13:24.000", "--dry-run")
    picked = on_both.compare("kafka-consumer-groups.sh --reset-offsets --to-datetime --dry-run", dry)
    assert sorted(line.split() for line in picked["pylog"][1:]) == [[group, topic, "0", "2"], [group, topic, "1", "2"]]
    deleted_offsets = on_both.run(GROUPS, "--bootstrap-server", "{bootstrap}", "--delete-offsets", "--group", group,
                                  "--topic", f"{topic}:1")
    on_both.compare("kafka-consumer-groups.sh --delete-offsets", deleted_offsets, stderr=True)
    deleted = on_both.run(GROUPS, "--bootstrap-server", "{bootstrap}", "--delete", "--group", group)
    on_both.compare("kafka-consumer-groups.sh --delete", deleted)


def test_consumer_groups_describe_a_deleted_group(on_both):
    group = unique("group-gone")
    described = on_both.run(GROUPS, "--bootstrap-server", "{bootstrap}", "--describe", "--group", group)
    on_both.compare("kafka-consumer-groups.sh --describe (no such group)", described, stderr=True,
                    lines=lambda r: [l for l in r.lines + r.stderr.splitlines()[:1] if l.strip()])


def test_consumer_groups_list_with_types(on_both):
    topic, group = unique("groups-type"), unique("group-type")
    create_topic(on_both, topic)
    on_both.run_checked("kafka-console-producer.sh", "--bootstrap-server", "{bootstrap}", "--topic", topic, stdin="a\n")
    consume_in_group(on_both, topic, group, 1)
    listed = on_both.run(GROUPS, "--bootstrap-server", "{bootstrap}", "--list", "--type")
    on_both.compare("kafka-consumer-groups.sh --list --type", listed,
                    lines=lambda r: [l for l in r.lines if l.startswith((group, "GROUP"))])


def test_share_groups_list(on_both):
    """kafka-share-groups.sh --list asks ListGroups v5 for type "share": neither broker has
    share groups here, a consumer group is not one."""
    topic, group = unique("share-list"), unique("group-not-share")
    create_topic(on_both, topic)
    on_both.run_checked("kafka-console-producer.sh", "--bootstrap-server", "{bootstrap}", "--topic", topic, stdin="a\n")
    consume_in_group(on_both, topic, group, 1)
    listed = on_both.run("kafka-share-groups.sh", "--bootstrap-server", "{bootstrap}", "--list")
    on_both.compare("kafka-share-groups.sh --list", listed, stderr=True)
    assert all(group not in result.lines for result in listed.values())


class JoinedConsumer:
    """A kafka-python consumer that joins `group` and keeps polling in a thread."""

    def __init__(self, bootstrap_servers: str, topic: str, group: str):
        self.consumer = KafkaConsumer(topic, bootstrap_servers=bootstrap_servers, group_id=group,
                                      client_id="compat-member", auto_offset_reset="earliest",
                                      **KAFKA_PYTHON_GROUP_CONFIG)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._poll, daemon=True)
        self.thread.start()

    def _poll(self) -> None:
        while not self.stop.is_set():
            self.consumer.poll(timeout_ms=KAFKA_PYTHON_GROUP_POLL_MS)

    def assigned(self) -> bool:
        return bool(self.consumer.assignment())

    def close(self) -> None:
        self.stop.set()
        self.thread.join(10)
        self.consumer.close()


def test_consumer_groups_describe_active_members(on_both, both):
    topic, group = unique("groups-active"), unique("group-active")
    create_topic(on_both, topic, "--partitions", "2")
    members = {name: JoinedConsumer(broker.bootstrap_servers, topic, group) for name, broker in both.items()}
    try:
        deadline = time.monotonic() + 60
        while not all(member.assigned() for member in members.values()):
            assert time.monotonic() < deadline, "the members were not assigned partitions within 60 s"
            time.sleep(0.1)
        for option in ("--members", "--state", "--members --verbose"):
            result = on_both.run(GROUPS, "--bootstrap-server", "{bootstrap}", "--describe", "--group", group,
                                 *option.split())
            picked = on_both.compare(f"kafka-consumer-groups.sh --describe {option} (active)", result, stderr=True)
            expected = "Stable" if option == "--state" else "compat-member"  # the state, or the member's client id
            assert any(expected in line for line in picked["pylog"][1:])
    finally:
        for member in members.values():
            member.close()


# ---------------------------------------------------------------------------------------
# kafka-configs.sh


def test_configs_topic_describe_and_alter(on_both):
    topic = unique("configs")
    create_topic(on_both, topic, "--config", "retention.ms=86400000")
    entity = ("--entity-type", "topics", "--entity-name", topic)
    described = on_both.run(CONFIGS, "--bootstrap-server", "{bootstrap}", "--describe", *entity)
    on_both.compare("kafka-configs.sh --describe topic", described)
    altered = on_both.run(CONFIGS, "--bootstrap-server", "{bootstrap}", "--alter", *entity,
                          "--add-config", "retention.ms=1000,cleanup.policy=compact,max.message.bytes=65536")
    on_both.compare("kafka-configs.sh --alter --add-config topic", altered)
    described = on_both.run(CONFIGS, "--bootstrap-server", "{bootstrap}", "--describe", *entity)
    picked = on_both.compare("kafka-configs.sh --describe topic after --alter", described)
    assert any(line.startswith("  cleanup.policy=compact") for line in picked["pylog"])
    removed = on_both.run(CONFIGS, "--bootstrap-server", "{bootstrap}", "--alter", *entity,
                          "--delete-config", "retention.ms")
    on_both.compare("kafka-configs.sh --alter --delete-config topic", removed)
    described = on_both.run(CONFIGS, "--bootstrap-server", "{bootstrap}", "--describe", *entity)
    on_both.compare("kafka-configs.sh --describe topic after --delete-config", described)
    unknown = on_both.run(CONFIGS, "--bootstrap-server", "{bootstrap}", "--alter", *entity,
                          "--add-config", "no.such.config=1")
    on_both.compare("kafka-configs.sh --alter (unknown config)", unknown, stderr=True,
                    lines=lambda r: r.lines + [l for l in r.stderr.splitlines() if "Exception:" in l][:1])


def test_configs_invalid_value_message(on_both):
    topic = unique("configs-invalid")
    create_topic(on_both, topic)
    invalid = on_both.run(CONFIGS, "--bootstrap-server", "{bootstrap}", "--alter", "--entity-type", "topics",
                          "--entity-name", topic, "--add-config", "retention.ms=abc")
    on_both.compare("kafka-configs.sh --alter (invalid value)", invalid,
                    lines=lambda r: [l for l in r.stderr.splitlines() if "Exception:" in l][:1])


def test_configs_topic_describe_all(on_both):
    topic = unique("configs-all")
    create_topic(on_both, topic)
    described = on_both.run(CONFIGS, "--bootstrap-server", "{bootstrap}", "--describe", "--entity-type", "topics",
                            "--entity-name", topic, "--all")
    on_both.compare("kafka-configs.sh --describe --all topic", described)


def test_configs_broker_describe(on_both):
    described = on_both.run(CONFIGS, "--bootstrap-server", "{bootstrap}", "--describe", "--entity-type", "brokers",
                            "--entity-name", "1")
    on_both.compare("kafka-configs.sh --describe broker 1", described)


def test_configs_broker_default_describe(on_both):
    described = on_both.run(CONFIGS, "--bootstrap-server", "{bootstrap}", "--describe", "--entity-type", "brokers",
                            "--entity-default")
    on_both.compare("kafka-configs.sh --describe --entity-default broker", described)


# Not compared in `--describe --all`: what differs between two brokers by nature (data
# directories, ids), the listeners of Kafka's node, which serves its controller on a port of
# its own where pylog's runs in-process, and the defaults pylog chose differently (README).
NOT_COMPARED = {"log.dir", "log.dirs", "cluster.id", "node.id", "broker.id", "listeners", "advertised.listeners",
                "controller.listener.names", "inter.broker.listener.name", "listener.security.protocol.map",
                "controller.quorum.voters",
                *(name for name, key in BROKER_CONFIG_KEYS.items() if key.kafka != key.default)}


def test_configs_broker_describe_all(on_both):
    described = on_both.run(CONFIGS, "--bootstrap-server", "{bootstrap}", "--describe", "--entity-type", "brokers",
                            "--entity-name", "1", "--all")
    picked = on_both.compare("kafka-configs.sh --describe --all broker 1", described,
                             lines=lambda r: [l for l in r.lines if l.strip().split("=", 1)[0] not in NOT_COMPARED])
    assert len(picked["pylog"]) > 290


def test_configs_broker_alter(on_both):
    altered = on_both.run(CONFIGS, "--bootstrap-server", "{bootstrap}", "--alter", "--entity-type", "brokers",
                          "--entity-name", "1", "--add-config", "log.cleaner.threads=2")
    on_both.compare("kafka-configs.sh --alter broker 1", altered, stderr=True)
    refused = on_both.run(CONFIGS, "--bootstrap-server", "{bootstrap}", "--alter", "--entity-type", "brokers",
                          "--entity-name", "1", "--add-config", "num.partitions=2")
    on_both.compare("kafka-configs.sh --alter broker 1 (a static config)", refused,
                    lines=lambda r: r.lines + [l for l in r.stderr.splitlines() if "Exception:" in l][:1])
    removed = on_both.run(CONFIGS, "--bootstrap-server", "{bootstrap}", "--alter", "--entity-type", "brokers",
                          "--entity-name", "1", "--delete-config", "log.cleaner.threads")
    on_both.compare("kafka-configs.sh --alter --delete-config broker 1", removed, stderr=True)


def test_configs_broker_alter_names_pylog_does_not_act_on(on_both):
    """Kafka's dynamic names beyond those pylog applies (thread pools, SSL): stored and
    described as Kafka does, refused where Kafka refuses them."""
    altered = on_both.run(CONFIGS, "--bootstrap-server", "{bootstrap}", "--alter", "--entity-type", "brokers",
                          "--entity-default", "--add-config", "num.io.threads=12,background.threads=12")
    on_both.compare("kafka-configs.sh --alter --entity-default broker (thread pools)", altered, stderr=True)
    described = run_until(on_both, has_line("  background.threads=12"), CONFIGS, "--bootstrap-server", "{bootstrap}",
                          "--describe", "--entity-type", "brokers", "--entity-default")
    picked = on_both.compare("kafka-configs.sh --describe --entity-default broker (thread pools)", described)
    assert any(line.startswith("  num.io.threads=12") for line in picked["pylog"]), picked["pylog"]
    refusals = {
        "a per-broker name on the cluster default": ("--entity-default", "ssl.cipher.suites=TLS_AES_128_GCM_SHA256"),
        "a key store without its listener": ("--entity-name", "1", "ssl.keystore.type=PKCS12"),
        "a value out of range": ("--entity-name", "1", "background.threads=0"),
    }
    for what, (*entity, config) in refusals.items():
        refused = on_both.run(CONFIGS, "--bootstrap-server", "{bootstrap}", "--alter", "--entity-type", "brokers",
                              *entity, "--add-config", config)
        on_both.compare(f"kafka-configs.sh --alter broker ({what})", refused,
                        lines=lambda r: r.lines + [l for l in r.stderr.splitlines() if "Exception:" in l][:1])
    removed = on_both.run(CONFIGS, "--bootstrap-server", "{bootstrap}", "--alter", "--entity-type", "brokers",
                          "--entity-default", "--delete-config", "num.io.threads,background.threads")
    on_both.compare("kafka-configs.sh --alter --entity-default --delete-config broker (thread pools)", removed,
                    stderr=True)


def test_configs_broker_default_alter(on_both):
    altered = on_both.run(CONFIGS, "--bootstrap-server", "{bootstrap}", "--alter", "--entity-type", "brokers",
                          "--entity-default", "--add-config", "log.cleaner.backoff.ms=20000")
    on_both.compare("kafka-configs.sh --alter --entity-default broker", altered, stderr=True)
    described = run_until(on_both, has_line("  log.cleaner.backoff.ms=20000"), CONFIGS, "--bootstrap-server",
                          "{bootstrap}", "--describe", "--entity-type", "brokers", "--entity-default")
    picked = on_both.compare("kafka-configs.sh --describe --entity-default broker after --alter", described)
    assert any(line.startswith("  log.cleaner.backoff.ms=20000") for line in picked["pylog"])
    removed = on_both.run(CONFIGS, "--bootstrap-server", "{bootstrap}", "--alter", "--entity-type", "brokers",
                          "--entity-default", "--delete-config", "log.cleaner.backoff.ms")
    on_both.compare("kafka-configs.sh --alter --entity-default --delete-config broker", removed, stderr=True)
    described = run_until(on_both, lambda lines: not has_line("  log.cleaner.backoff.ms=")(lines), CONFIGS,
                          "--bootstrap-server", "{bootstrap}", "--describe", "--entity-type", "brokers",
                          "--entity-default")
    on_both.compare("kafka-configs.sh --describe --entity-default broker after --delete-config", described)


def test_configs_client_metrics_describe(on_both):
    """No client-metrics subscriptions on either broker: the tool lists none (ListConfigResources)."""
    described = on_both.run(CONFIGS, "--bootstrap-server", "{bootstrap}", "--describe", "--entity-type",
                            "client-metrics")
    picked = on_both.compare("kafka-configs.sh --describe client-metrics", described, stderr=True)
    assert described["pylog"].code == 0 and picked["pylog"] == [], picked["pylog"]


def test_client_metrics_subscriptions(on_both):
    """kafka-client-metrics.sh: a subscription made, described (by both tools), listed,
    refused where Kafka refuses, deleted."""
    name = unique("metrics-sub")
    tool = ("kafka-client-metrics.sh", "--bootstrap-server", "{bootstrap}")
    made = on_both.run(*tool, "--alter", "--name", name, "--metrics", "org.apache.kafka.producer.,org.apache.kafka.consumer.",
                       "--interval", "1000", "--match", "client_id=app-.*,client_software_name=apache-kafka-java")
    on_both.compare("kafka-client-metrics.sh --alter (a new subscription)", made, stderr=True)
    picked = on_both.compare("kafka-client-metrics.sh --describe --name", run_until(
        on_both, lambda lines: any("interval.ms=1000" in line for line in lines), *tool, "--describe", "--name", name))
    assert any("interval.ms=1000" in line for line in picked["pylog"]), picked["pylog"]
    picked = on_both.compare("kafka-client-metrics.sh --list", run_until(
        on_both, lambda lines: any(name in line for line in lines), *tool, "--list"))
    assert any(name in line for line in picked["pylog"]), picked["pylog"]
    described = on_both.run(CONFIGS, "--bootstrap-server", "{bootstrap}", "--describe", "--entity-type",
                            "client-metrics", "--entity-name", name)
    on_both.compare("kafka-configs.sh --describe client-metrics --entity-name", described)
    refusals = {
        "interval below 100 ms": ("--interval", "50"),
        "unknown match selector": ("--match", "client_colour=red"),
    }
    for what, args in refusals.items():
        refused = on_both.run(*tool, "--alter", "--name", name, *args)
        on_both.compare(f"kafka-client-metrics.sh --alter ({what})", refused,
                        lines=lambda r: r.lines + [l for l in r.stderr.splitlines() if "Exception" in l][:1])
    deleted = on_both.run(*tool, "--delete", "--name", name)
    on_both.compare("kafka-client-metrics.sh --delete", deleted, stderr=True)
    listed = on_both.compare("kafka-client-metrics.sh --list after --delete", run_until(
        on_both, lambda lines: not any(name in line for line in lines), *tool, "--list"))
    assert not any(name in line for line in listed["pylog"])


def test_configs_broker_loggers(on_both):
    # the loggers differ by nature (Kafka's are its Java classes, pylog's its modules): compare
    # the heading, that root is listed, and what the tool says about changes
    described = on_both.run(CONFIGS, "--bootstrap-server", "{bootstrap}", "--describe", "--entity-type",
                            "broker-loggers", "--entity-name", "1")
    picked = on_both.compare("kafka-configs.sh --describe broker-loggers 1 (heading, root)", described,
                             lines=lambda r: r.lines[:1] + [l for l in r.lines if l.startswith("  root=")])
    assert picked["pylog"][1].startswith("  root=INFO")
    altered = on_both.run(CONFIGS, "--bootstrap-server", "{bootstrap}", "--alter", "--entity-type",
                          "broker-loggers", "--entity-name", "1", "--add-config", "root=INFO")
    on_both.compare("kafka-configs.sh --alter broker-loggers 1 root=INFO", altered, stderr=True)
    for config, meaning in (("root=LOUD", "unknown level"), ("no.such.logger=DEBUG", "unknown logger")):
        refused = on_both.run(CONFIGS, "--bootstrap-server", "{bootstrap}", "--alter", "--entity-type",
                              "broker-loggers", "--entity-name", "1", "--add-config", config)
        on_both.compare(f"kafka-configs.sh --alter broker-loggers 1 ({meaning})", refused,
                        lines=lambda r: r.lines + [l for l in r.stderr.splitlines() if "Exception:" in l][:1])
    removed = on_both.run(CONFIGS, "--bootstrap-server", "{bootstrap}", "--alter", "--entity-type",
                          "broker-loggers", "--entity-name", "1", "--delete-config", "root")
    on_both.compare("kafka-configs.sh --alter broker-loggers 1 --delete-config root", removed,
                    lines=lambda r: r.lines + [l for l in r.stderr.splitlines() if "Exception:" in l][:1])


def test_configs_group_alter_and_describe(on_both):
    group = unique("configs-group")
    entity = ("--entity-type", "groups", "--entity-name", group)
    described = on_both.run(CONFIGS, "--bootstrap-server", "{bootstrap}", "--describe", *entity)
    on_both.compare("kafka-configs.sh --describe groups (no configs)", described)
    altered = on_both.run(CONFIGS, "--bootstrap-server", "{bootstrap}", "--alter", *entity,
                          "--add-config", "consumer.session.timeout.ms=50000")
    on_both.compare("kafka-configs.sh --alter --add-config groups", altered, stderr=True)
    described = on_both.run(CONFIGS, "--bootstrap-server", "{bootstrap}", "--describe", *entity)
    picked = on_both.compare("kafka-configs.sh --describe groups after --alter", described)
    assert any(line.startswith("  consumer.session.timeout.ms=50000") for line in picked["pylog"])
    described = on_both.run(CONFIGS, "--bootstrap-server", "{bootstrap}", "--describe", *entity, "--all")
    on_both.compare("kafka-configs.sh --describe --all groups", described)
    for config, meaning in (("consumer.session.timeout.ms=70000", "above the broker's maximum"),
                            ("consumer.heartbeat.interval.ms=0", "below the config's minimum"),
                            ("no.such.config=1", "unknown config")):
        refused = on_both.run(CONFIGS, "--bootstrap-server", "{bootstrap}", "--alter", *entity,
                              "--add-config", config)
        on_both.compare(f"kafka-configs.sh --alter groups ({meaning})", refused,
                        lines=lambda r: r.lines + [l for l in r.stderr.splitlines() if "Exception:" in l][:1])


# ---------------------------------------------------------------------------------------
# kafka-get-offsets.sh, kafka-delete-records.sh


def test_get_offsets(on_both, both):
    topic = unique("offsets")
    create_topic(on_both, topic, "--partitions", "2")
    # partition 0 gets the even records, 1 the odd ones; the newest timestamp is not the last
    timestamps = [BASE_MS + 1000 * i for i in (0, 1, 2, 3, 9, 5, 6, 7)]
    produce_timestamped(both, topic, timestamps)
    for time_args, meaning in (([], "latest"), (["--time", "-1"], "latest"), (["--time", "-2"], "earliest"),
                               (["--time", "-3"], "max timestamp"),
                               (["--time", str(BASE_MS + 2500)], "by timestamp"),
                               (["--time", str(BASE_MS + 99_000)], "after the last timestamp")):
        result = on_both.run("kafka-get-offsets.sh", "--bootstrap-server", "{bootstrap}", "--topic", topic, *time_args)
        picked = on_both.compare(f"kafka-get-offsets.sh {' '.join(time_args) or '(latest)'} ({meaning})", result,
                                 stderr=True)
        if meaning == "max timestamp":
            assert picked["pylog"] == [f"{topic}:0:2", f"{topic}:1:3"]
    everything = on_both.run("kafka-get-offsets.sh", "--bootstrap-server", "{bootstrap}",
                             "--topic-partitions", f"{topic}:0,{topic}:1")
    on_both.compare("kafka-get-offsets.sh --topic-partitions", everything)


def test_get_offsets_earliest_local(on_both, both):
    topic = unique("offsets-local")
    create_topic(on_both, topic)
    produce_timestamped(both, topic, [BASE_MS], partitions=1)
    result = on_both.run("kafka-get-offsets.sh", "--bootstrap-server", "{bootstrap}", "--topic", topic, "--time", "-4")
    on_both.compare("kafka-get-offsets.sh --time -4", result, stderr=True)


def test_delete_records(on_both, both, tmp_path):
    topic = unique("delete-records")
    create_topic(on_both, topic, "--partitions", "2")
    produce_timestamped(both, topic, [BASE_MS + i for i in range(10)])   # 5 records in each partition
    offsets = tmp_path / "offsets.json"
    offsets.write_text('{"version": 1, "partitions": [{"topic": "%s", "partition": 0, "offset": 3},'
                       ' {"topic": "%s", "partition": 1, "offset": -1}]}' % (topic, topic))
    deleted = on_both.run("kafka-delete-records.sh", "--bootstrap-server", "{bootstrap}",
                          "--offset-json-file", str(offsets))
    on_both.compare("kafka-delete-records.sh", deleted)
    earliest = on_both.run("kafka-get-offsets.sh", "--bootstrap-server", "{bootstrap}", "--topic", topic,
                           "--time", "-2")
    picked = on_both.compare("kafka-get-offsets.sh --time -2 after kafka-delete-records.sh", earliest)
    assert sorted(picked["pylog"]) == [f"{topic}:0:3", f"{topic}:1:5"]


def test_delete_records_refusals(on_both, both, tmp_path):
    topic, compacted = unique("delete-records-refused"), unique("delete-records-compacted")
    create_topic(on_both, topic)
    create_topic(on_both, compacted, "--config", "cleanup.policy=compact")
    produce_timestamped(both, topic, [BASE_MS + i for i in range(3)], partitions=1)
    offsets = tmp_path / "offsets.json"
    offsets.write_text('{"version": 1, "partitions": [{"topic": "%s", "partition": 0, "offset": 9},'
                       ' {"topic": "%s", "partition": 0, "offset": 0}]}' % (topic, compacted))
    refused = on_both.run("kafka-delete-records.sh", "--bootstrap-server", "{bootstrap}",
                          "--offset-json-file", str(offsets))
    # the tool prints one line per partition, in the order of a HashMap
    picked = on_both.compare("kafka-delete-records.sh (out of range, compacted)", refused,
                             lines=lambda r: sorted(r.lines))
    text = "\n".join(picked["pylog"])
    assert "OffsetOutOfRangeException" in text and "PolicyViolationException" in text, text


# ---------------------------------------------------------------------------------------
# kafka-log-dirs.sh


def test_log_dirs_describe(on_both, both):
    topic = unique("log-dirs")
    create_topic(on_both, topic, "--partitions", "2")
    produce_timestamped(both, topic, [BASE_MS + i for i in range(5)])
    described = on_both.run("kafka-log-dirs.sh", "--bootstrap-server", "{bootstrap}", "--describe",
                            "--topic-list", topic)
    picked = on_both.compare("kafka-log-dirs.sh --describe --topic-list", described,
                             extra_masks=[(re.compile(r'"logDir":"[^"]*"'), '"logDir":"<log-dir>"')])
    assert '"partition":"%s-1"' % topic in picked["pylog"][-1] and '"size":0' not in picked["pylog"][-1]
    # every log: the two brokers' sets differ (other tests' topics), so each is only checked
    everything = on_both.run_checked("kafka-log-dirs.sh", "--bootstrap-server", "{bootstrap}", "--describe")
    for name, result in everything.items():
        [broker] = json.loads(result.lines[-1])["brokers"]
        [log_dir] = broker["logDirs"]
        assert broker["broker"] == 1 and log_dir["error"] is None, name
        assert log_dir["logDir"] == str(both[name].data_dir.absolute()), name
        assert {f"{topic}-0", f"{topic}-1"} <= {p["partition"] for p in log_dir["partitions"]}, name


# ---------------------------------------------------------------------------------------
# kafka-broker-api-versions.sh


API_LINE = re.compile(r"^\t(\w+)\((\d+)\): (?:(\d+)(?: to (\d+))? \[usable: (\d+)\]|(UNSUPPORTED))")


def api_versions(result) -> dict[str, tuple[int, int] | None]:
    found = {}
    for line in result.lines:
        match = API_LINE.match(line)
        if match:
            name, _key, low, high, _usable, unsupported = match.groups()
            found[name] = None if unsupported else (int(low), int(high or low))
    return found


def test_broker_api_versions_lists_every_api(on_both):
    result = on_both.run("kafka-broker-api-versions.sh", "--bootstrap-server", "{bootstrap}")
    on_both.compare("kafka-broker-api-versions.sh (API names)", result,
                    lines=lambda r: [line.split(":")[0] for line in r.lines])
    ours = api_versions(result["pylog"])
    assert ours["Produce"] is not None and ours["Fetch"] is not None and len(ours) > 60


# The lowest version pylog served of each API before it took Kafka 4.1's maxima: the old
# versions Kafka 4 dropped stay served (KIP-896), so no minimum may rise above these.
SERVED_MINIMA = {"Produce": 3, "Fetch": 4, "DescribeLogDirs": 1}   # every other API: 0


def test_broker_api_versions_reach_kafkas_maxima(on_both):
    result = on_both.run("kafka-broker-api-versions.sh", "--bootstrap-server", "{bootstrap}")
    ours, theirs = api_versions(result["pylog"]), api_versions(result["kafka"])

    def served(r):
        versions = api_versions(r)
        return [f"{name} max {theirs[name][1] if r is result['kafka'] else versions[name][1]}"
                for name in sorted(ours) if ours[name] is not None and theirs.get(name)]

    on_both.compare(f"kafka-broker-api-versions.sh (served APIs reach Kafka {KAFKA_VERSION}'s maxima)", result,
                    lines=served)
    for name, versions in ours.items():
        if versions is not None:
            assert versions[0] <= SERVED_MINIMA.get(name, 0), (name, versions)
    assert len([name for name, versions in ours.items() if versions is not None]) >= 34


# ---------------------------------------------------------------------------------------
# kafka-producer-perf-test.sh, kafka-consumer-perf-test.sh


def test_perf_tools(on_both):
    topic = unique("perf")
    create_topic(on_both, topic, "--partitions", "1")
    produced = on_both.run("kafka-producer-perf-test.sh", "--topic", topic, "--num-records", "20000",
                           "--record-size", "100", "--throughput", "-1",
                           "--producer-props", "bootstrap.servers={bootstrap}", "acks=all", timeout_s=120)
    summary = re.compile(r"^(\d+) records sent, [\d.]+ records/sec \([\d.]+ MB/sec\), [\d.]+ ms avg latency")
    picked = on_both.compare("kafka-producer-perf-test.sh (records sent)", produced,
                             lines=lambda r: [summary.match(l).group(1) + " records sent" for l in r.lines
                                              if summary.match(l)])
    assert picked["pylog"] == ["20000 records sent"]
    consumed = on_both.run("kafka-consumer-perf-test.sh", "--bootstrap-server", "{bootstrap}", "--topic", topic,
                           "--messages", "20000", "--timeout", "30000", timeout_s=120)

    def header_and_counts(result) -> list[str]:
        header, *rows = result.lines
        return [header] + [", ".join(row.split(", ")[i] for i in (2, 4)) for row in rows]  # MB and records

    picked = on_both.compare("kafka-consumer-perf-test.sh (records consumed)", consumed, lines=header_and_counts)
    assert picked["pylog"][1] == "1.9073, 20000"


# ---------------------------------------------------------------------------------------
# kafka-features.sh

# The two features pylog presents differently on purpose (README, "Deliberate differences"):
# it finalizes eligible.leader.replicas.version at 0 (no ELR) and supports share.version 0-0
# (no share groups).
DELIBERATE_FEATURES = ("eligible.leader.replicas.version", "share.version")


def test_features_describe(on_both):
    result = on_both.run("kafka-features.sh", "--bootstrap-server", "{bootstrap}", "describe")

    def shared(r) -> list[str]:
        return [re.sub(r"\tEpoch: \d+", "\tEpoch: <offset>", line) for line in r.lines
                if not line.startswith(tuple(f"Feature: {name}\t" for name in DELIBERATE_FEATURES))]

    picked = on_both.compare("kafka-features.sh describe (but ELR and share.version)", result, lines=shared)
    assert any(line.startswith("Feature: metadata.version\t") for line in picked["pylog"])
    rows = {broker: {line.split("\t")[0]: line.split("\t")[1:4] for line in r.lines} for broker, r in result.items()}
    elr, share = (f"Feature: {name}" for name in DELIBERATE_FEATURES)
    assert rows["pylog"][elr][2] == "FinalizedVersionLevel: 0" and rows["kafka"][elr][2] == "FinalizedVersionLevel: 1"
    assert rows["pylog"][share][1] == "SupportedMaxVersion: 0" and rows["kafka"][share][1] == "SupportedMaxVersion: 1"


# ---------------------------------------------------------------------------------------
# kafka-metadata-quorum.sh, kafka-cluster.sh unregister (a broker forwards both to its controller)

# What differs by nature: the cluster id, how far each metadata log has come and how many
# times each node has started (the Raft epoch: a test restarts the session's Kafka); and on
# purpose (README): a combined pylog node has one listener, which its controller
# registration names, where Kafka's voter endpoint is its CONTROLLER listener.
QUORUM_MASKS = (
    (re.compile(r"^ClusterId:(\s+)\S+$"), r"ClusterId:\1<cluster-id>"),
    (re.compile(r"^HighWatermark:(\s+)\d+$"), r"HighWatermark:\1<offset>"),
    (re.compile(r"^LeaderEpoch:(\s+)\d+$"), r"LeaderEpoch:\1<epoch>"),
    (re.compile(r'"(?:CONTROLLER|PLAINTEXT)://'), '"<listener>://'),
)


def test_metadata_quorum_describe_status(on_both):
    result = on_both.run("kafka-metadata-quorum.sh", "--bootstrap-server", "{bootstrap}", "describe", "--status")
    picked = on_both.compare("kafka-metadata-quorum.sh describe --status", result, extra_masks=QUORUM_MASKS)
    assert "LeaderId:               1" in picked["pylog"] and "CurrentObservers:       []" in picked["pylog"]


def test_metadata_quorum_describe_replication(on_both):
    result = on_both.run("kafka-metadata-quorum.sh", "--bootstrap-server", "{bootstrap}", "describe",
                         "--replication", "--human-readable")

    def columns(r) -> list[str]:
        """Each row's columns, the log end offset and the fetch ages masked (the tool pads the
        columns to their widest value)."""
        rows = [line.split("\t") for line in r.lines]
        return [" | ".join(c.strip() for c in row) if number == 0 else
                " | ".join(c.strip() for c in row[:2]) + " | <offset> | " + row[3].strip() + " | <age> | <age> | "
                + row[6].strip() for number, row in enumerate(rows)]

    picked = on_both.compare("kafka-metadata-quorum.sh describe --replication", result, lines=columns)
    assert picked["pylog"][1].startswith("1 | AAAAAAAAAAAAAAAAAAAAAA | <offset> | 0 |")
    assert all(re.fullmatch(r"\d+ ms ago", line.split("\t")[4].strip()) for line in result["pylog"].lines[1:])


def test_cluster_unregister_of_an_unknown_broker(on_both):
    result = on_both.run("kafka-cluster.sh", "unregister", "--bootstrap-server", "{bootstrap}", "--id", "99")
    picked = on_both.compare("kafka-cluster.sh unregister --id 99", result, stderr=True,
                             lines=lambda r: [line for line in exception_lines(r.stderr) if "ERROR" not in line])
    assert result["pylog"].code == 1
    assert "org.apache.kafka.common.errors.BrokerIdNotRegisteredException: Broker ID 99 is not currently registered" \
        in picked["pylog"]


# ---------------------------------------------------------------------------------------
# kafka-acls.sh (neither broker has an authorizer: Kafka's default)

ACL_COMMANDS = (
    ("--list",),
    ("--add", "--allow-principal", "User:bob", "--operation", "Read", "--topic", "acl-topic"),
    ("--remove", "--force", "--allow-principal", "User:bob", "--operation", "Read", "--topic", "acl-topic"),
)


def test_acls_without_an_authorizer(on_both):
    for command in ACL_COMMANDS:
        result = on_both.run("kafka-acls.sh", "--bootstrap-server", "{bootstrap}", *command)
        picked = on_both.compare(f"kafka-acls.sh {command[0]}", result, stderr=True)
        assert result["pylog"].code == 1
        assert any("SecurityDisabledException: No Authorizer is configured" in line for line in picked["pylog"])


# ---------------------------------------------------------------------------------------
# kafka-configs.sh --entity-type users: SCRAM credentials (kept in the metadata log)


def test_configs_users_scram_credentials(on_both):
    user = unique("scram-user")
    # both mechanisms in one command: one request naming the user twice, which Kafka refuses
    twice = on_both.run(CONFIGS, "--bootstrap-server", "{bootstrap}", "--alter", "--entity-type", "users",
                        "--entity-name", user, "--add-config",
                        "SCRAM-SHA-256=[iterations=8192,password=alice-secret],SCRAM-SHA-512=[password=other]")
    on_both.compare("kafka-configs.sh --alter --entity-type users (two SCRAM credentials at once)", twice, stderr=True)
    assert twice["pylog"].code == 1
    for config in ("SCRAM-SHA-256=[iterations=8192,password=alice-secret]", "SCRAM-SHA-512=[password=other]"):
        added = on_both.run(CONFIGS, "--bootstrap-server", "{bootstrap}", "--alter", "--entity-type", "users",
                            "--entity-name", user, "--add-config", config)
        on_both.compare(f"kafka-configs.sh --alter --entity-type users ({config.split('=')[0]})", added)
    described = on_both.run(CONFIGS, "--bootstrap-server", "{bootstrap}", "--describe", "--entity-type", "users",
                            "--entity-name", user)

    def mechanisms_sorted(r) -> list[str]:
        """The credentials line with its mechanisms sorted: Kafka lists a user's mechanisms in
        the order of a HashMap keyed by an enum, which changes from one JVM to the next."""
        return [re.sub(r" are (.*)$", lambda m: " are " + ", ".join(sorted(c.strip() for c in m.group(1).split(","))),
                       line) for line in r.lines]

    picked = on_both.compare("kafka-configs.sh --describe --entity-type users (SCRAM credentials)", described,
                             lines=mechanisms_sorted)
    assert picked["pylog"] == [f"SCRAM credential configs for user-principal '{user}' are "
                               "SCRAM-SHA-256=iterations=8192, SCRAM-SHA-512=iterations=4096"]
    deleted = on_both.run(CONFIGS, "--bootstrap-server", "{bootstrap}", "--alter", "--entity-type", "users",
                          "--entity-name", user, "--delete-config", "SCRAM-SHA-512")
    on_both.compare("kafka-configs.sh --alter --delete-config (a SCRAM credential)", deleted)
    again = on_both.run(CONFIGS, "--bootstrap-server", "{bootstrap}", "--describe", "--entity-type", "users",
                        "--entity-name", user)
    picked = on_both.compare("kafka-configs.sh --describe --entity-type users (one credential left)", again)
    assert picked["pylog"] == [f"SCRAM credential configs for user-principal '{user}' are SCRAM-SHA-256=iterations=8192"]
