"""Dynamic broker configs over the wire: IncrementalAlterConfigs / AlterConfigs on BROKER
resources ("" and the node id), what DescribeConfigs then reports, and the running broker
acting on the new values (pylog/dynamic_broker_config.py)."""

from __future__ import annotations

import logging
import time

import pytest

from protocol.error_codes import ErrorCode
from protocol.messages import (
    AlterConfigsRequest,
    CreateTopicsRequest,
    DescribeConfigsRequest,
    IncrementalAlterConfigsRequest,
)
from pylog.testing import EmbeddedBroker
from tests.pylog.log_close_spy import closing_threads
from tests.pylog.wire import RawClient

TOPIC, BROKER = 2, 4
DYNAMIC_TOPIC_CONFIG, DYNAMIC_BROKER_CONFIG, DYNAMIC_DEFAULT_BROKER_CONFIG = 1, 2, 3
STATIC_BROKER_CONFIG, DEFAULT_CONFIG = 4, 5
SET, DELETE, APPEND = 0, 1, 2
Incremental = IncrementalAlterConfigsRequest


@pytest.fixture
def embedded(tmp_path):
    broker = EmbeddedBroker(tmp_path, config={"log.retention.hours": "100", "log.cleaner.threads": "1"}).start()
    yield broker
    broker.stop()


@pytest.fixture
def raw(embedded):
    client = RawClient(embedded.bootstrap_servers)
    yield client
    client.close()


def alter(raw, name, *configs, validate_only=False, version=1):
    request = Incremental(validate_only=validate_only, resources=[Incremental.AlterConfigsResource(
        resource_type=BROKER, resource_name=name,
        configs=[Incremental.AlterableConfig(name=n, config_operation=op, value=v) for n, op, v in configs])])
    (response,) = raw.request(44, version, request).responses
    return response.error_code, response.error_message


def describe(raw, resource_type, name, *keys):
    request = DescribeConfigsRequest(include_synonyms=True, include_documentation=False, resources=[
        DescribeConfigsRequest.DescribeConfigsResource(resource_type=resource_type, resource_name=name,
                                                       configuration_keys=list(keys) or None)])
    (result,) = raw.request(32, 4, request).results
    assert result.error_code == 0, result.error_message
    return {c.name: c for c in result.configs}


def synonyms(entry):
    return [(s.name, s.value, s.source) for s in entry.synonyms]


def test_cluster_default_and_per_broker_values_are_described_in_kafkas_order(raw):
    assert {n: (c.value, c.config_source) for n, c in describe(raw, BROKER, "").items()} == {
        "min.insync.replicas": ("1", DYNAMIC_DEFAULT_BROKER_CONFIG)}
    assert alter(raw, "", ("log.retention.ms", SET, "7200000")) == (0, None)
    assert alter(raw, "1", ("log.retention.ms", SET, "3600000")) == (0, None)
    default = describe(raw, BROKER, "")
    assert synonyms(default["log.retention.ms"]) == [("log.retention.ms", "7200000", DYNAMIC_DEFAULT_BROKER_CONFIG)]
    entry = describe(raw, BROKER, "1", "log.retention.ms")["log.retention.ms"]
    assert (entry.value, entry.config_source, entry.read_only) == ("3600000", DYNAMIC_BROKER_CONFIG, False)
    assert synonyms(entry) == [
        ("log.retention.ms", "3600000", DYNAMIC_BROKER_CONFIG),
        ("log.retention.ms", "7200000", DYNAMIC_DEFAULT_BROKER_CONFIG),
        ("log.retention.hours", "100", STATIC_BROKER_CONFIG),
        ("log.retention.hours", "168", DEFAULT_CONFIG)]
    # a topic without its own retention.ms takes the broker's, with those synonyms
    raw.request(19, 4, CreateTopicsRequest(timeout_ms=10_000, validate_only=False, topics=[
        CreateTopicsRequest.CreatableTopic(name="t", num_partitions=1, replication_factor=1,
                                           assignments=[], configs=[])]))
    topic = describe(raw, TOPIC, "t", "retention.ms", "min.insync.replicas")
    assert (topic["retention.ms"].value, topic["retention.ms"].config_source) == ("3600000", DYNAMIC_BROKER_CONFIG)
    assert synonyms(topic["min.insync.replicas"]) == [
        ("min.insync.replicas", "1", DYNAMIC_DEFAULT_BROKER_CONFIG), ("min.insync.replicas", "1", DEFAULT_CONFIG)]
    # DELETE on the node's value: the cluster default again
    assert alter(raw, "1", ("log.retention.ms", DELETE, None)) == (0, None)
    entry = describe(raw, BROKER, "1", "log.retention.ms")["log.retention.ms"]
    assert (entry.value, entry.config_source) == ("7200000", DYNAMIC_DEFAULT_BROKER_CONFIG)


def test_the_running_broker_applies_them(raw, embedded):
    raw.request(19, 4, CreateTopicsRequest(timeout_ms=10_000, validate_only=False, topics=[
        CreateTopicsRequest.CreatableTopic(name="live", num_partitions=1, replication_factor=1,
                                           assignments=[], configs=[])]))
    broker = embedded.broker
    log = broker.log_manager.get_log("live", 0)
    assert log.config.retention_ms == 100 * 3_600_000
    assert alter(raw, "", ("log.retention.ms", SET, "60000"), ("message.max.bytes", SET, "5000")) == (0, None)
    assert (log.config.retention_ms, log.config.max_message_bytes) == (60000, 5000)
    assert alter(raw, "1", ("log.cleaner.threads", SET, "2")) == (0, None)
    assert broker.config.log_cleaner_threads == 2
    deadline = time.monotonic() + 10
    while len(broker.log_cleaner._tasks) != 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(broker.log_cleaner._tasks) == 2
    # validate_only changes nothing
    assert alter(raw, "", ("log.retention.ms", SET, "1000"), validate_only=True) == (0, None)
    assert log.config.retention_ms == 60000
    # the legacy AlterConfigs replaces the resource's whole set
    response = raw.request(33, 2, AlterConfigsRequest(validate_only=False, resources=[
        AlterConfigsRequest.AlterConfigsResource(resource_type=BROKER, resource_name="", configs=[
            AlterConfigsRequest.AlterableConfig(name="min.insync.replicas", value="1")])]))
    assert response.responses[0].error_code == 0
    assert log.config.retention_ms == 100 * 3_600_000 and log.config.max_message_bytes == 1024 * 1024 + 12


def test_refusals_with_kafkas_codes_and_messages(raw):
    cases = [
        (("2", ("log.retention.ms", SET, "1")),
         "Unexpected broker id, expected 1, but received 2"),
        (("x", ("log.retention.ms", SET, "1")), "Node id must be an integer, but it is: x"),
        (("1", ("num.partitions", SET, "3"), ("log.dirs", SET, "/tmp")),
         "Cannot update these configs dynamically: Set(log.dirs, num.partitions)"),
        (("", ("log.cleaner.threads", SET, "many")), None),
        (("1", ("log.retention.ms", SET, "1"), ("log.retention.ms", DELETE, None)),
         "Error due to duplicate config keys"),
        (("1", ("log.retention.ms", SET, None)), "Null value not supported for : log.retention.ms"),
        (("1", ("log.retention.ms", 7, "1")), "Unknown operations type 7"),
    ]
    for args, message in cases:
        code, text = alter(raw, *args)
        assert code == ErrorCode.INVALID_REQUEST, args
        if message is not None:
            assert text == message
    code, text = alter(raw, "", ("log.cleaner.threads", SET, "many"))
    assert "log.cleaner.threads" in text and "many" in text
    assert alter(raw, "1", ("log.retention.ms", APPEND, "1")) == (
        ErrorCode.INVALID_CONFIG, "Config value append is not allowed for config key: log.retention.ms")
    # all or nothing: a good name beside a bad one is not stored either
    assert alter(raw, "1", ("log.retention.ms", SET, "5"), ("num.partitions", SET, "2"))[0] == \
        ErrorCode.INVALID_REQUEST
    assert describe(raw, BROKER, "1", "log.retention.ms")["log.retention.ms"].value is None
    assert set(describe(raw, BROKER, "")) == {"min.insync.replicas"}


# ---------------------------------------------------------------------------------------
# BROKER_LOGGER (pylog/broker_loggers.py)

BROKER_LOGGER = 8


def alter_loggers(raw, name, *configs, validate_only=False):
    request = Incremental(validate_only=validate_only, resources=[Incremental.AlterConfigsResource(
        resource_type=BROKER_LOGGER, resource_name=name,
        configs=[Incremental.AlterableConfig(name=n, config_operation=op, value=v) for n, op, v in configs])])
    (response,) = raw.request(44, 1, request).responses
    return response.error_code, response.error_message


class Collected(logging.Handler):
    def __init__(self):
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record):
        self.records.append(record)

    def debug_lines(self, name):
        return [r for r in self.records if r.name == name and r.levelno == logging.DEBUG]


@pytest.fixture
def collected():
    root = logging.getLogger()
    handler, level = Collected(), root.level
    root.addHandler(handler)
    yield handler
    root.removeHandler(handler)
    root.setLevel(level)


def test_a_loggers_level_changes_while_the_broker_runs(raw, collected):
    assert alter_loggers(raw, "1", ("root", SET, "INFO")) == (0, None)
    levels = {n: c.value for n, c in describe(raw, BROKER_LOGGER, "1").items()}
    assert levels["pylog.configs"] == levels["root"] == "INFO"
    assert alter_loggers(raw, "1", ("pylog.metadata_publisher", SET, "DEBUG"), validate_only=True) == (0, None)
    assert describe(raw, BROKER_LOGGER, "1")["pylog.metadata_publisher"].value == "INFO"
    assert alter_loggers(raw, "1", ("pylog.dynamic_broker_config", SET, "DEBUG")) == (0, None)
    entry = describe(raw, BROKER_LOGGER, "1")["pylog.dynamic_broker_config"]
    assert (entry.value, entry.config_source, entry.read_only) == ("DEBUG", 6, False)
    # the module logs at DEBUG the values it takes: those lines now appear
    assert alter(raw, "", ("log.cleaner.backoff.ms", SET, "16000")) == (0, None)
    assert collected.debug_lines("pylog.dynamic_broker_config")
    assert alter_loggers(raw, "1", ("pylog.dynamic_broker_config", DELETE, None)) == (0, None)
    assert describe(raw, BROKER_LOGGER, "1")["pylog.dynamic_broker_config"].value == "INFO"
    collected.records.clear()
    assert alter(raw, "", ("log.cleaner.backoff.ms", SET, "17000")) == (0, None)
    assert not collected.debug_lines("pylog.dynamic_broker_config")


def test_logger_refusals_with_kafkas_codes_and_messages(raw):
    assert alter_loggers(raw, "2", ("root", SET, "DEBUG")) == (
        ErrorCode.INVALID_REQUEST, "Unexpected node id. Expected 1, but received 2")
    assert alter_loggers(raw, "x", ("root", SET, "DEBUG")) == (
        ErrorCode.INVALID_REQUEST, "Node id must be an integer, but it is: x")
    assert alter_loggers(raw, "1", ("no.such.logger", SET, "DEBUG")) == (
        ErrorCode.INVALID_CONFIG, "Logger no.such.logger does not exist!")
    assert alter_loggers(raw, "1", ("root", SET, "LOUD")) == (
        ErrorCode.INVALID_CONFIG, "Cannot set the log level of root to LOUD as it is not a supported log level. "
        "Valid log levels are DEBUG, ERROR, FATAL, INFO, TRACE, WARN")
    assert alter_loggers(raw, "1", ("root", DELETE, None)) == (
        ErrorCode.INVALID_REQUEST, "Removing the log level of the root logger is not allowed")
    assert alter_loggers(raw, "1", ("root", APPEND, "DEBUG")) == (
        ErrorCode.INVALID_REQUEST, "APPEND operation is not allowed for the BROKER_LOGGER resource")
    # an operation id with no OpType: Kafka fails on the null in its switch, with no message
    assert alter_loggers(raw, "1", ("no.such.logger", 9, "DEBUG")) == (ErrorCode.UNKNOWN_SERVER_ERROR, None)
    # all or nothing: the good change beside a bad one is not made
    assert alter_loggers(raw, "1", ("pylog.configs", SET, "ERROR"), ("root", SET, "LOUD"))[0] == \
        ErrorCode.INVALID_CONFIG
    levels = describe(raw, BROKER_LOGGER, "1")
    assert levels["pylog.configs"].value == levels["root"].value != "ERROR"


def test_listeners_are_described_as_served(raw, embedded):
    # started with --port 0 on 127.0.0.1: `listeners` names the port the socket got;
    # `advertised.listeners` is not set, so (as Kafka reports it) it has no value
    described = describe(raw, BROKER, "1", "listeners", "advertised.listeners")
    listeners = described["listeners"]
    assert (listeners.value, listeners.config_source) == (f"PLAINTEXT://127.0.0.1:{embedded.port}",
                                                          STATIC_BROKER_CONFIG)
    assert synonyms(listeners) == [("listeners", listeners.value, STATIC_BROKER_CONFIG),
                                   ("listeners", "PLAINTEXT://127.0.0.1:9092", DEFAULT_CONFIG)]
    advertised = described["advertised.listeners"]
    assert (advertised.value, advertised.config_source, synonyms(advertised)) == (None, DEFAULT_CONFIG, [])


def test_configured_listeners_with_port_zero_are_described_with_the_bound_port(tmp_path):
    with EmbeddedBroker(tmp_path, config={"listeners": "PLAINTEXT://127.0.0.1:0",
                                          "advertised.listeners": "PLAINTEXT://localhost:0"}) as broker:
        client = RawClient(broker.bootstrap_servers)
        try:
            described = describe(client, BROKER, "1", "listeners", "advertised.listeners")
        finally:
            client.close()
    assert described["listeners"].value == f"PLAINTEXT://127.0.0.1:{broker.port}"
    assert described["advertised.listeners"].value == "PLAINTEXT://localhost:0"


# ---------------------------------------------------------------------------------------
# Kafka's other dynamic names (pylog/kafka_broker_configs.py): stored and described


def test_kafkas_dynamic_names_pylog_does_not_act_on_are_stored_and_described(raw):
    assert alter(raw, "", ("num.io.threads", SET, "16"), ("background.threads", SET, "6")) == (0, None)
    assert alter(raw, "1", ("ssl.cipher.suites", SET, "TLS_AES_128_GCM_SHA256"),
                 ("listener.name.plaintext.ssl.keystore.password", SET, "secret")) == (0, None)
    described = describe(raw, BROKER, "1", "num.io.threads", "background.threads", "ssl.cipher.suites",
                         "ssl.keystore.password", "num.partitions")
    io_threads = described["num.io.threads"]
    assert (io_threads.value, io_threads.config_source, io_threads.read_only) == ("16", DYNAMIC_DEFAULT_BROKER_CONFIG,
                                                                                  False)
    assert synonyms(io_threads) == [("num.io.threads", "16", DYNAMIC_DEFAULT_BROKER_CONFIG),
                                    ("num.io.threads", "8", DEFAULT_CONFIG)]
    suites = described["ssl.cipher.suites"]
    assert (suites.value, suites.config_source, suites.config_type) == ("TLS_AES_128_GCM_SHA256",
                                                                        DYNAMIC_BROKER_CONFIG, 7)  # LIST
    password = described["ssl.keystore.password"]
    assert (password.value, password.is_sensitive, password.config_type, password.read_only) == (None, True, 9, False)
    assert described["num.partitions"].read_only
    default = describe(raw, BROKER, "")
    assert default["num.io.threads"].value == "16"
    per_broker = describe(raw, BROKER, "1")
    assert per_broker["background.threads"].value == "6"


def test_kafkas_refusals_of_per_broker_per_listener_and_start_only_names(raw):
    cases = [
        (("", ("ssl.cipher.suites", SET, "TLS_AES_128_GCM_SHA256")),
         "Cannot update these configs at default cluster level, broker id must be specified: "
         "Set(ssl.cipher.suites)"),
        (("1", ("ssl.keystore.location", SET, "/tmp/ks.jks")),
         "These security configs can be dynamically updated only per-listener using the listener prefix: "
         "HashSet(ssl.keystore.location)"),
        (("1", ("num.io.threads", SET, "0")),
         "Invalid value 0 for configuration num.io.threads: Value must be at least 1"),
        (("1", ("listeners", SET, "PLAINTEXT://127.0.0.1:9999"), ("num.replica.fetchers", SET, "2")),
         "Cannot update these configs dynamically: Set(listeners, num.replica.fetchers)"),
    ]
    for args, message in cases:
        assert alter(raw, *args) == (ErrorCode.INVALID_REQUEST, message), args
    assert set(describe(raw, BROKER, "")) == {"min.insync.replicas"}


def test_a_resource_named_twice_is_refused_each_time_and_the_others_done(raw):
    Resource, Config = Incremental.AlterConfigsResource, Incremental.AlterableConfig
    retention = [Config(name="log.retention.ms", config_operation=SET, value="3600000")]
    request = Incremental(validate_only=False, resources=[
        Resource(resource_type=BROKER, resource_name="1", configs=retention),
        Resource(resource_type=BROKER, resource_name="", configs=retention),
        Resource(resource_type=BROKER, resource_name="1", configs=retention)])
    answers = [(r.resource_name, r.error_code, r.error_message) for r in raw.request(44, 1, request).responses]
    twice = (ErrorCode.INVALID_REQUEST, "Each resource must appear at most once.")
    assert answers == [("1", *twice), ("", 0, None), ("1", *twice)]
    assert describe(raw, BROKER, "1", "log.retention.ms")["log.retention.ms"].config_source == \
        DYNAMIC_DEFAULT_BROKER_CONFIG


def test_refused_resources_carry_kafkas_messages(raw):
    request = DescribeConfigsRequest(include_synonyms=False, include_documentation=False, resources=[
        DescribeConfigsRequest.DescribeConfigsResource(resource_type=t, resource_name=n, configuration_keys=None)
        for t, n in ((TOPIC, "no-such-topic"), (BROKER, "2"))])
    assert [(r.error_code, r.error_message) for r in raw.request(32, 4, request).results] == [
        (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ""),
        (ErrorCode.INVALID_REQUEST, "Unexpected broker id, expected 1 or empty string, but received 2")]


def test_num_recovery_threads_per_data_dir_is_read_as_the_broker_stops(raw, embedded, monkeypatch):
    raw.request(19, 4, CreateTopicsRequest(timeout_ms=10_000, validate_only=False, topics=[
        CreateTopicsRequest.CreatableTopic(name="closing", num_partitions=4, replication_factor=1,
                                           assignments=[], configs=[])]))
    assert alter(raw, "", ("num.recovery.threads.per.data.dir", SET, "1")) == (0, None)   # from 2
    assert embedded.broker.config.get("num.recovery.threads.per.data.dir") == 1
    closed_on = closing_threads(monkeypatch)
    embedded.stop()
    closing = [thread for name, thread in closed_on.items() if name.startswith("closing-")]
    assert len(closing) == 4 and not any(thread.startswith("log-close") for thread in closing)


def test_a_default_min_compaction_lag_above_a_topics_max_override_is_taken_and_described(embedded, raw, caplog):
    # Kafka checks min.compaction.lag.ms <= max.compaction.lag.ms where a request sets a
    # topic's configs, not when the broker default moves under a topic's override: the
    # topic then runs with both, and is described (tests/compat/test_compaction_lag_conflict.py)
    embedded.call(lambda: embedded.broker.create_topic("lags", 1, {"max.compaction.lag.ms": "1"}))
    with caplog.at_level(logging.WARNING):
        assert alter(raw, "", ("log.cleaner.min.compaction.lag.ms", SET, "2")) == (0, None)
    assert [r for r in caplog.records if r.levelname == "ERROR"] == []
    lags = describe(raw, TOPIC, "lags", "min.compaction.lag.ms", "max.compaction.lag.ms")
    assert {n: (c.value, c.config_source) for n, c in lags.items()} == {
        "min.compaction.lag.ms": ("2", DYNAMIC_DEFAULT_BROKER_CONFIG), "max.compaction.lag.ms": ("1", DYNAMIC_TOPIC_CONFIG)}
    config = embedded.call(lambda: embedded.broker.partition("lags", 0).log.config)
    assert (config.min_compaction_lag_ms, config.max_compaction_lag_ms) == (2, 1)


def test_log_cleaner_threads_change_by_kafkas_rules(embedded, raw, caplog):
    # a node's own value and the cluster default are checked as this broker would take them
    # (tests/compat/test_cleaner_threads_reconfiguration.py); a default it finds in the
    # metadata that it cannot take (another broker accepted it) leaves its config as it was
    more = "Log cleaner threads cannot be increased to more than double the current value 1"
    assert alter(raw, "1", ("log.cleaner.threads", SET, "3")) == (
        ErrorCode.INVALID_REQUEST,
        f"Invalid value org.apache.kafka.common.config.ConfigException: {more} for configuration Invalid dynamic "
        "configuration")
    assert alter(raw, "1", ("log.cleaner.threads", SET, "2147483647")) == (
        ErrorCode.INVALID_REQUEST,
        "requirement failed: log.cleaner.dedupe.buffer.size must be at least 1MB per cleaner thread.")
    assert alter(raw, "1", ("log.cleaner.threads", SET, "0")) == (ErrorCode.INVALID_REQUEST, "/ by zero")
    assert alter(raw, "", ("log.cleaner.threads", SET, "2147483647")) == (
        ErrorCode.INVALID_REQUEST,
        "requirement failed: log.cleaner.dedupe.buffer.size must be at least 1MB per cleaner thread.")
    dynamic = embedded.broker.dynamic_config
    with caplog.at_level(logging.ERROR, logger="pylog.dynamic_broker_config"):
        assert embedded.call(lambda: dynamic.update({"log.cleaner.threads": "2147483647"}, {})) is False
    assert [r.getMessage() for r in caplog.records] == [
        "dynamic broker configs not applied: requirement failed: log.cleaner.dedupe.buffer.size must be at least "
        "1MB per cleaner thread."]
    assert embedded.call(lambda: embedded.broker.config.log_cleaner_threads) == 1
    assert alter(raw, "1", ("log.cleaner.threads", SET, "2")) == (0, None)
    assert embedded.call(lambda: embedded.broker.config.log_cleaner_threads) == 2


def test_thread_pools_connection_limits_and_roll_times_change_by_kafkas_rules(embedded, raw):
    """Kafka's reconfiguration checks of the other pools (a changed count at least half and at
    most double the current one), of the connection limits (above 0), and KafkaConfig's
    requirements on the roll times, with Kafka's words (tests/compat/test_config_refusals.py
    compares them with the reference)."""
    def invalid(reason):
        return (ErrorCode.INVALID_REQUEST, "Invalid value org.apache.kafka.common.config.ConfigException: "
                                           f"{reason} for configuration Invalid dynamic configuration")

    failed = "Dynamic thread count update validation failed for"
    assert alter(raw, "", ("background.threads", SET, "4")) == invalid(
        f"{failed} background.threads=4, value should be at least half the current value 10")
    assert alter(raw, "1", ("num.network.threads", SET, "7")) == invalid(
        f"{failed} num.network.threads=7, value should not be greater than double the current value 3")
    assert alter(raw, "", ("remote.log.reader.threads", SET, "21")) == invalid(
        f"{failed} remote.log.reader.threads=21, value should not be greater than double the current value 10")
    assert alter(raw, "", ("max.connections", SET, "0")) == invalid("Invalid max.connections 0")
    assert alter(raw, "", ("max.connection.creation.rate", SET, "0")) == invalid(
        "Invalid max.connection.creation.rate 0")
    assert alter(raw, "", ("log.roll.ms", SET, "0")) == (
        ErrorCode.INVALID_REQUEST, "requirement failed: log.roll.ms must be greater than or equal to 1")
    assert alter(raw, "", ("log.roll.jitter.ms", SET, "-1")) == (
        ErrorCode.INVALID_REQUEST, "requirement failed: log.roll.jitter.ms must be greater than or equal to 0")
    # within the bounds: taken, and the next change is bounded by the new count
    assert alter(raw, "", ("num.io.threads", SET, "16"), ("background.threads", SET, "5")) == (0, None)
    assert embedded.call(lambda: embedded.broker.config.get("background.threads")) == 5
    assert alter(raw, "", ("background.threads", SET, "11")) == invalid(
        f"{failed} background.threads=11, value should not be greater than double the current value 5")


def test_a_dynamic_name_the_broker_does_not_know_is_kept_and_described_hidden(raw):
    """As Kafka keeps a custom name: described by the node, value hidden, from the first
    place that gives it. APPEND or SUBTRACT of such a name fails in Kafka's broker, whose
    Scala Map lookup of its type throws: UNKNOWN_SERVER_ERROR, no message."""
    assert alter(raw, "", ("custom.default", SET, "a")) == (0, None)
    assert alter(raw, "1", ("custom.node", SET, "b")) == (0, None)
    assert alter(raw, "", ("custom.default", APPEND, "c")) == (ErrorCode.UNKNOWN_SERVER_ERROR, None)
    described = describe(raw, BROKER, "1", "custom.default", "custom.node")
    assert {name: (e.value, e.is_sensitive, e.config_source, synonyms(e)) for name, e in described.items()} == {
        "custom.default": (None, True, DYNAMIC_DEFAULT_BROKER_CONFIG,
                           [("custom.default", None, DYNAMIC_DEFAULT_BROKER_CONFIG)]),
        "custom.node": (None, True, DYNAMIC_BROKER_CONFIG, [("custom.node", None, DYNAMIC_BROKER_CONFIG)])}
