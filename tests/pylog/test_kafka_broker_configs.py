"""Kafka's table of broker configs (pylog/kafka_broker_configs.py) and pylog's own: every
name Kafka 4.1 describes is a name pylog knows, with Kafka's type, default and validator."""

from __future__ import annotations

import pytest

from pylog.config import BrokerConfig, ConfigError
from pylog.config_keys import CONFIG_KEYS, FROM_KAFKA_TABLE, KAFKA_DYNAMIC_MODES
from pylog.dynamic_broker_config import DYNAMIC_CONFIGS, READ_AT_START, UPDATABLE
from pylog.kafka_broker_configs import BROKER_CONFIGS, WITHOUT_DEFAULT
from storage.config_def import Type, java_double_text

KAFKA_NAMES = {row[0] for row in BROKER_CONFIGS}


def test_every_kafka_name_is_known_and_every_other_name_is_pylogs_own():
    assert KAFKA_NAMES <= set(CONFIG_KEYS)
    assert {name for name in CONFIG_KEYS if name not in KAFKA_NAMES} == {
        name for name, key in CONFIG_KEYS.items() if key.pylog_only} == {"cluster.id"}


@pytest.mark.parametrize("row", [r for r in BROKER_CONFIGS if r[0] not in FROM_KAFKA_TABLE],
                         ids=lambda r: r[0])
def test_pylogs_own_definitions_have_kafkas_type_and_default(row):
    """Where pylog defines a name itself, its type and Kafka's default (`ConfigKey.kafka`:
    pylog's default unless README says pylog chose another) are Kafka's."""
    name, kafka_type, kafka_default, _, _ = row
    key = CONFIG_KEYS[name]
    assert (Type.STRING if key.type is Type.CSV else key.type).name == kafka_type
    if name not in WITHOUT_DEFAULT:
        assert key.format(key.kafka) == kafka_default


def test_the_names_taken_from_kafka_parse_and_refuse_as_kafka_does():
    config = BrokerConfig({"background.threads": "4", "sasl.enabled.mechanisms": "PLAIN, SCRAM-SHA-256",
                           "ssl.client.auth": "required", "log.cleaner.io.buffer.load.factor": "0.75",
                           "ssl.keystore.password": "secret"})
    assert config.get("background.threads") == 4
    assert config.get("sasl.enabled.mechanisms") == ["PLAIN", "SCRAM-SHA-256"]
    assert config.get("log.cleaner.io.buffer.load.factor") == 0.75
    rows = {row.name: row.value for row in config.describe()}
    assert rows["ssl.client.auth"] == "required"
    assert rows["ssl.keystore.password"] is None   # a PASSWORD is never printed
    assert rows["log.cleaner.io.max.bytes.per.second"] == "1.7976931348623157E308"
    assert rows["group.consumer.assignors"] == "uniform,range"
    assert config.not_acted_on() == {"background.threads": "4", "log.cleaner.io.buffer.load.factor": "0.75",
                                     "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256", "ssl.client.auth": "required",
                                     "ssl.keystore.password": None}
    refusals = {
        "background.threads": ("0", "Value must be at least 1"),
        "ssl.client.auth": ("sometimes", "String must be one of: required, requested, none"),
        "sasl.oauthbearer.assertion.algorithm": ("HS256", "String must be one of (case insensitive): ES256, RS256"),
        "group.coordinator.rebalance.protocols": ("classic,bogus",
                                                   "String must be one of: consumer, classic, share, streams"),
        "remote.log.storage.manager.impl.prefix": ("", "String must be non-empty"),
        "socket.listen.backlog.size": ("many", "Not a number of type INT"),
    }
    for name, (value, reason) in refusals.items():
        with pytest.raises(ConfigError) as refused:
            BrokerConfig({name: value})
        assert (refused.value.name, refused.value.reason) == (name, reason)
    assert BrokerConfig({"sasl.oauthbearer.assertion.algorithm": "es256"}).get(
        "sasl.oauthbearer.assertion.algorithm") == "es256"


def test_java_double_text():
    assert [java_double_text(v) for v in (0.5, 100.0, 0.001, 1e7, 1.5e-5, -2.5e10, 1.7976931348623157e308)] == [
        "0.5", "100.0", "0.001", "1.0E7", "1.5E-5", "-2.5E10", "1.7976931348623157E308"]


def test_the_dynamic_names_are_kafkas_but_those_pylog_reads_only_at_start():
    assert DYNAMIC_CONFIGS <= UPDATABLE <= set(KAFKA_DYNAMIC_MODES)
    assert READ_AT_START == {"listeners", "listener.security.protocol.map", "num.replica.fetchers",
                             "producer.id.expiration.ms"}
