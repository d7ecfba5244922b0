"""BrokerConfig: Kafka's broker config names, defaults, precedence and properties format."""

from __future__ import annotations

import logging
import re
import socket

import pytest

from pylog.config import (
    BROKER_TO_TOPIC_NAMES,
    CONFIG_KEYS,
    TOPIC_CONFIG_SYNONYMS,
    BrokerConfig,
    ConfigError,
    ConfigRow,
    ConfigSource,
    Endpoint,
    parse_overrides,
    parse_properties,
)
from storage.config import LogConfig

HOUR = 3_600_000
MINUTE = 60_000
LONG_MAX = 2**63 - 1

# A server.properties in the shape of Kafka's KRaft sample, with every syntax of the format.
SERVER_PROPERTIES = r"""
# Licensed to the Apache Software Foundation (ASF) ...
############################# Server Basics #############################

# The role of this server. Setting this puts us in KRaft mode
process.roles=broker,controller

# The node id associated with this instance's roles
node.id=3

! a comment in the other style
controller.quorum.voters=3@localhost:9093

############################# Socket Server Settings #############################
listeners=PLAINTEXT://:19092,CONTROLLER://:19093
inter.broker.listener.name=PLAINTEXT
advertised.listeners=PLAINTEXT://broker.example:19092
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,\
                               SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL

num.network.threads=3
num.io.threads=8
socket.send.buffer.bytes=102400
socket.receive.buffer.bytes : 102400
socket.request.max.bytes   104857600

############################# Log Basics #############################
log.dirs=/var/lib/pylog/a, /var/lib/pylog/b
num.partitions=3
num.recovery.threads.per.data.dir=1

offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1

   log.retention.hours=72
log.segment.bytes=1073741824
log.retention.check.interval.ms=300000
	auto.create.topics.enable = false
log.cleaner.io.max.bytes.per.second=1000000
my.plugin.rate=1000000
"""


# ---------------------------------------------------------------------------------------------
# java.util.Properties


def test_parse_properties_separators_and_comments():
    props = parse_properties(
        "# comment\n"
        "! also a comment\n"
        "a=1\n"
        "b:2\n"
        "c 3\n"
        "d = 4\n"
        "e\t:\t5\n"
        "f    =    6\n"
        "   g=7\n"
        "\n"
        "   \t\n"
        "h\n"
        "i=\n"
        "j = = 8\n"
        "k 9 10\n"
        "l= trailing  \n"
    )
    assert props == {
        "a": "1", "b": "2", "c": "3", "d": "4", "e": "5", "f": "6", "g": "7",
        "h": "", "i": "", "j": "= 8", "k": "9 10", "l": "trailing  ",
    }


def test_parse_properties_continuations():
    props = parse_properties(
        "a=one,\\\n"
        "      two,\\\n"
        "\tthree\n"
        "b=ends with an escaped backslash \\\\\n"
        "c=x\n"
        "# a comment ending in a backslash does not continue \\\n"
        "d=y\n"
        "e=last line continues into nothing\\"
    )
    assert props["a"] == "one,two,three"
    assert props["b"] == "ends with an escaped backslash \\"
    assert props["c"] == "x"
    assert props["d"] == "y"
    assert props["e"] == "last line continues into nothing"


def test_parse_properties_continuation_line_starting_with_hash_is_not_a_comment():
    assert parse_properties("a=1,\\\n#2") == {"a": "1,#2"}


def test_parse_properties_escapes():
    props = parse_properties(
        "key\\ with\\ spaces=v\n"
        "key\\=eq\\:colon=w\n"
        "tabs=a\\tb\\nc\\rd\\fe\n"
        "unicode=caf\\u00e9 \\u20AC\n"
        "other=\\q\\\\\\#\n"
    )
    assert props["key with spaces"] == "v"
    assert props["key=eq:colon"] == "w"
    assert props["tabs"] == "a\tb\nc\rd\fe"
    assert props["unicode"] == "café €"
    assert props["other"] == "q\\#"


def test_parse_properties_line_endings_and_last_key_wins():
    assert parse_properties("a=1\r\nb=2\rc=3\na=4") == {"a": "4", "b": "2", "c": "3"}


def test_parse_properties_malformed_unicode_escape():
    with pytest.raises(ConfigError, match="line 2"):
        parse_properties("a=1\nbad=\\u12G4\n")


def test_parse_overrides_forms():
    assert parse_overrides(["a=1", " b =x=y", "c="]) == {"a": "1", "b": "x=y", "c": ""}
    assert parse_overrides({"a": 1}) == {"a": 1}
    assert parse_overrides([("a", 2)]) == {"a": 2}
    assert parse_overrides(None) == {}
    with pytest.raises(ConfigError):
        parse_overrides(["novalue"])
    with pytest.raises(TypeError):
        parse_overrides("a=1")


# ---------------------------------------------------------------------------------------------
# A realistic server.properties


def test_realistic_server_properties(tmp_path, caplog):
    path = tmp_path / "server.properties"
    path.write_text(SERVER_PROPERTIES)
    with caplog.at_level(logging.WARNING, logger="pylog.config"):
        cfg = BrokerConfig.from_properties(path)
    assert cfg.node_id == 3 and cfg.broker_id == 3
    assert cfg.process_roles == ["broker", "controller"]
    assert cfg.controller_quorum_voters == ["3@localhost:9093"]
    assert cfg.log_dirs == ["/var/lib/pylog/a", "/var/lib/pylog/b"]
    assert cfg.num_partitions == 3
    assert cfg.auto_create_topics_enable is False
    assert cfg.socket_receive_buffer_bytes == 102400
    assert cfg.socket_request_max_bytes == 104857600
    assert cfg.log_retention_hours == 72
    assert cfg.log_retention_ms == 72 * HOUR
    assert cfg.offsets_topic_replication_factor == 1
    assert cfg.listener_security_protocol_map["CONTROLLER"] == "PLAINTEXT"
    assert cfg.listener_security_protocol_map["SASL_SSL"] == "SASL_SSL"
    # the controller listener is not the client listener, though it is PLAINTEXT too
    assert cfg.listener_address() == ("", 19092)
    assert cfg.advertised_address() == ("broker.example", 19092)
    assert [str(e) for e in cfg.listener_endpoints()] == [
        "PLAINTEXT://:19092", "CONTROLLER://:19093"]
    # a Kafka config pylog does not act on: typed by Kafka's definition
    assert cfg.get("log.cleaner.io.max.bytes.per.second") == 1e6
    # not a Kafka config: kept, warned about once
    assert cfg.unknown == {"my.plugin.rate": "1000000"}
    assert cfg.get("my.plugin.rate") == "1000000"
    warnings = [r for r in caplog.records if r.name == "pylog.config"]
    assert len(warnings) == 1 and "my.plugin.rate" in warnings[0].getMessage()


def test_from_properties_accepts_path_string_text_and_bytes(tmp_path):
    path = tmp_path / "server.properties"
    path.write_text("num.partitions=4\n")
    assert BrokerConfig.from_properties(str(path)).num_partitions == 4
    assert BrokerConfig.from_properties("num.partitions=5").num_partitions == 5
    assert BrokerConfig.from_properties("a=1\nnum.partitions=6\n").num_partitions == 6
    assert BrokerConfig.from_properties(b"num.partitions=7").num_partitions == 7
    assert BrokerConfig.from_text("num.partitions 8").num_partitions == 8
    assert BrokerConfig.from_file(path).num_partitions == 4
    assert BrokerConfig.from_properties(None).num_partitions == 1
    with pytest.raises(FileNotFoundError):
        BrokerConfig.from_properties(str(tmp_path / "missing.properties"))


def test_properties_file_encodings(tmp_path):
    utf8 = tmp_path / "utf8.properties"
    utf8.write_bytes("broker.rack=zürich\n".encode("utf-8"))
    latin1 = tmp_path / "latin1.properties"
    latin1.write_bytes("broker.rack=zürich\n".encode("iso-8859-1"))
    assert BrokerConfig.from_file(utf8).broker_rack == "zürich"
    assert BrokerConfig.from_file(latin1).broker_rack == "zürich"


# ---------------------------------------------------------------------------------------------
# Defaults


def test_defaults_follow_kafka_3_9():
    cfg = BrokerConfig()
    expected = {
        "default_replication_factor": 1,
        "num_partitions": 1,
        "auto_create_topics_enable": True,
        "delete_topic_enable": True,
        "message_max_bytes": 1048588,
        "socket_request_max_bytes": 104857600,
        "log_segment_bytes": 1073741824,
        "log_roll_hours": 168,
        "log_roll_ms": 168 * HOUR,
        "log_roll_jitter_hours": 0,
        "log_roll_jitter_ms": 0,
        "log_index_size_max_bytes": 10485760,
        "log_index_interval_bytes": 4096,
        "log_flush_interval_messages": LONG_MAX,
        "log_flush_interval_ms": LONG_MAX,
        "log_retention_hours": 168,
        "log_retention_minutes": None,
        "log_retention_ms": 168 * HOUR,
        "log_retention_bytes": -1,
        "log_cleanup_policy": ["delete"],
        "log_message_timestamp_type": "CreateTime",
        "log_message_timestamp_before_max_ms": LONG_MAX,
        "log_message_timestamp_after_max_ms": HOUR,  # Kafka 4's default
        "log_cleaner_enable": True,
        "log_cleaner_delete_retention_ms": 86400000,
        "log_cleaner_min_cleanable_ratio": 0.5,
        "log_segment_delete_delay_ms": 60000,
        "offsets_topic_num_partitions": 50,
        "offsets_retention_minutes": 10080,
        "group_min_session_timeout_ms": 6000,
        "group_max_session_timeout_ms": 1800000,
        "transactional_id_expiration_ms": 604800000,
        "transaction_max_timeout_ms": 900000,
        "transaction_state_log_num_partitions": 50,
        "min_insync_replicas": 1,
        "unclean_leader_election_enable": False,
        "producer_id_expiration_ms": 86400000,
        "max_incremental_fetch_session_cache_slots": 1000,
        "fetch_max_bytes": 57671680,
        "compression_type": "producer",
        "cluster_id": None,
    }
    assert {name: getattr(cfg, name) for name in expected} == expected


def test_pylog_defaults_and_their_kafka_counterparts():
    cfg = BrokerConfig()
    assert cfg.node_id == 1 and cfg.broker_id == 1
    assert cfg.listeners == ["PLAINTEXT://127.0.0.1:9092"]
    assert cfg.advertised_listeners == ["PLAINTEXT://127.0.0.1:9092"]
    assert cfg.log_dirs == ["./pylog-data"]
    assert cfg.group_initial_rebalance_delay_ms == 0
    assert cfg.offsets_topic_replication_factor == 3
    assert cfg.transaction_state_log_replication_factor == 3
    assert cfg.transaction_state_log_min_isr == 1
    deviations = {name: key.kafka for name, key in CONFIG_KEYS.items() if key.kafka != key.default}
    assert deviations == {
        "node.id": -1,
        "broker.id": -1,
        "process.roles": [],
        "listeners": ["PLAINTEXT://:9092"],
        "log.dir": ["/tmp/kafka-logs"],
        "group.initial.rebalance.delay.ms": 3000,
        "broker.session.timeout.ms": 9000,
        "broker.heartbeat.interval.ms": 2000,
        "transaction.state.log.min.isr": 2,
    }


def test_default_listener_addresses():
    cfg = BrokerConfig()
    assert cfg.listener_address() == ("127.0.0.1", 9092)
    assert cfg.advertised_address() == ("127.0.0.1", 9092)
    assert cfg.listener_endpoint() == Endpoint("PLAINTEXT", "PLAINTEXT", "127.0.0.1", 9092)


def test_every_key_has_its_attribute_and_get():
    cfg = BrokerConfig()
    for name, key in CONFIG_KEYS.items():
        assert getattr(cfg, key.attribute) == cfg.get(name) == cfg[name]
    assert set(cfg.to_dict()) == set(CONFIG_KEYS)
    # the table is the only declaration: the public attributes are exactly its names'
    public = {name for name in vars(cfg) if not name.startswith("_")}
    assert public == {key.attribute for key in CONFIG_KEYS.values()}


def test_every_default_is_valid():
    for key in CONFIG_KEYS.values():
        if key.default is not None:
            text = key.format(key.default)
            assert key.parse(text) == key.default, key.name


# ---------------------------------------------------------------------------------------------
# Overrides, aliases, precedence


def test_overrides_win_over_the_file_and_are_typed():
    cfg = BrokerConfig.from_properties(
        "num.partitions=3\nlog.dirs=/a\n",
        ["num.partitions=5", "auto.create.topics.enable=FALSE", "log.dirs=/b,/c"],
    )
    assert cfg.num_partitions == 5
    assert cfg.auto_create_topics_enable is False
    assert cfg.log_dirs == ["/b", "/c"]
    cfg = BrokerConfig.from_properties("num.partitions=3", {"num.partitions": 9})
    assert cfg.num_partitions == 9


def test_constructor_forms(tmp_path):
    a = BrokerConfig({"log.dirs": tmp_path, "num.partitions": 2})
    b = BrokerConfig(log_dirs=[tmp_path], num_partitions="2")
    assert a.log_dirs == b.log_dirs == [str(tmp_path)]
    assert a == b
    assert BrokerConfig({"num.partitions": None}).num_partitions == 1
    with pytest.raises(TypeError):
        BrokerConfig(no_such_config=1)


def test_with_overrides_returns_a_new_config():
    cfg = BrokerConfig({"num.partitions": 3, "log.retention.hours": 1})
    changed = cfg.with_overrides({"num.partitions": 4, "log.retention.hours": None})
    assert cfg.num_partitions == 3 and changed.num_partitions == 4
    assert changed.log_retention_ms == 168 * HOUR
    with pytest.raises(AttributeError):
        cfg.num_partitions = 5  # type: ignore[misc]


def test_node_id_and_broker_id_are_one_setting():
    assert BrokerConfig({"broker.id": 7}).node_id == 7
    assert BrokerConfig({"node.id": 7}).broker_id == 7
    assert BrokerConfig({"node.id": 7, "broker.id": 7}).node_id == 7
    with pytest.raises(ConfigError) as err:
        BrokerConfig({"node.id": 7, "broker.id": 8})
    assert err.value.name == "node.id"


def test_log_dirs_win_over_log_dir():
    assert BrokerConfig({"log.dir": "/x"}).log_dirs == ["/x"]
    assert BrokerConfig({"log.dir": "/x", "log.dirs": "/y, /z"}).log_dirs == ["/y", "/z"]
    assert BrokerConfig({"log.dirs": "/y,,/z,"}).log_dirs == ["/y", "/z"]
    with pytest.raises(ConfigError) as err:
        BrokerConfig({"log.dirs": " , "})
    assert err.value.name == "log.dirs"


@pytest.mark.parametrize(
    "given, expected_ms",
    [
        ({}, 168 * HOUR),
        ({"log.retention.hours": 24}, 24 * HOUR),
        ({"log.retention.minutes": 30, "log.retention.hours": 24}, 30 * MINUTE),
        ({"log.retention.ms": 1234, "log.retention.minutes": 30, "log.retention.hours": 24}, 1234),
        ({"log.retention.ms": 1234, "log.retention.hours": 24}, 1234),
        ({"log.retention.hours": -1}, -1),
        ({"log.retention.minutes": -5}, -1),
        ({"log.retention.ms": -1, "log.retention.hours": 24}, -1),
        ({"log.retention.ms": -100}, -1),
    ],
)
def test_retention_precedence(given, expected_ms):
    cfg = BrokerConfig(given)
    assert cfg.log_retention_ms == expected_ms
    assert cfg.topic_defaults()["retention.ms"] == expected_ms


def test_retention_of_zero_is_refused():
    for given in ({"log.retention.ms": 0}, {"log.retention.minutes": 0},
                  {"log.retention.hours": 0}):
        with pytest.raises(ConfigError) as err:
            BrokerConfig(given)
        assert str(err.value) == ("requirement failed: log.retention.ms must be unlimited (-1) or, "
                                  "greater than or equal to 1")   # KafkaConfig's words


def test_roll_times_are_required_in_range_as_kafkaconfig_requires_them():
    """log.roll.ms and log.roll.jitter.ms have no validator in Kafka's ConfigDef: KafkaConfig
    requires the resolved values in range, with Scala's "requirement failed" words."""
    for given, message in (({"log.roll.ms": 0}, "log.roll.ms must be greater than or equal to 1"),
                           ({"log.roll.ms": -5}, "log.roll.ms must be greater than or equal to 1"),
                           ({"log.roll.jitter.ms": -1}, "log.roll.jitter.ms must be greater than or equal to 0")):
        with pytest.raises(ConfigError) as err:
            BrokerConfig(given)
        assert str(err.value) == f"requirement failed: {message}"
    assert BrokerConfig({"log.roll.ms": 1, "log.roll.jitter.ms": 0}).log_roll_ms == 1


def test_roll_and_jitter_precedence():
    cfg = BrokerConfig({"log.roll.hours": 2, "log.roll.jitter.hours": 1})
    assert (cfg.log_roll_ms, cfg.log_roll_jitter_ms) == (2 * HOUR, HOUR)
    cfg = BrokerConfig({"log.roll.hours": 2, "log.roll.ms": 500,
                        "log.roll.jitter.hours": 1, "log.roll.jitter.ms": 7})
    assert (cfg.log_roll_ms, cfg.log_roll_jitter_ms) == (500, 7)
    assert (cfg.log_roll_hours, cfg.log_roll_jitter_hours) == (2, 1)
    with pytest.raises(ConfigError, match="log.roll.ms"):
        BrokerConfig({"log.roll.ms": 0})
    with pytest.raises(ConfigError, match="log.roll.hours"):
        BrokerConfig({"log.roll.hours": 0})
    with pytest.raises(ConfigError, match="log.roll.jitter.ms"):
        BrokerConfig({"log.roll.jitter.ms": -1})


def test_flush_interval_falls_back_to_scheduler_interval():
    assert BrokerConfig({"log.flush.scheduler.interval.ms": 1000}).log_flush_interval_ms == 1000
    cfg = BrokerConfig({"log.flush.scheduler.interval.ms": 1000, "log.flush.interval.ms": 10})
    assert cfg.log_flush_interval_ms == 10


# ---------------------------------------------------------------------------------------------
# Invalid values


@pytest.mark.parametrize(
    "name, value",
    [
        ("num.partitions", "abc"),
        ("num.partitions", "1.5"),
        ("num.partitions", "0"),
        ("num.partitions", "2147483648"),       # above Java int
        ("num.partitions", True),               # a bool is not an int
        ("num.partitions", ""),
        ("log.retention.bytes", "9223372036854775808"),  # above Java long
        ("offsets.topic.replication.factor", "40000"),   # above Java short
        ("offsets.topic.replication.factor", "0"),
        ("auto.create.topics.enable", "yes"),
        ("auto.create.topics.enable", 1),
        ("message.max.bytes", "-1"),
        ("socket.request.max.bytes", "0"),
        ("log.segment.bytes", "1048575"),   # Kafka 4's bound: 1 MiB
        ("log.index.size.max.bytes", "3"),
        ("log.flush.interval.messages", "0"),
        ("log.cleanup.policy", "delete,shrink"),
        ("log.message.timestamp.type", "createtime"),  # Kafka's check is case-sensitive
        ("log.cleaner.min.cleanable.ratio", "1.5"),
        ("compression.type", "brotli"),
        ("min.insync.replicas", "0"),
        ("node.id", "-1"),
        ("default.replication.factor", "0"),
        ("transaction.max.timeout.ms", "0"),
        ("producer.id.expiration.ms", "0"),
        ("max.incremental.fetch.session.cache.slots", "-1"),
        ("fetch.max.bytes", "1023"),
        ("process.roles", "broker,observer"),
        ("cluster.id", "not a uuid!"),
    ],
)
def test_invalid_values_name_the_key(name, value):
    with pytest.raises(ConfigError) as err:
        BrokerConfig({name: value})
    assert err.value.name == name
    assert name in str(err.value)


def test_valid_edge_values():
    cfg = BrokerConfig({
        "log.segment.bytes": "1048576",
        "message.max.bytes": "0",
        "log.cleanup.policy": " compact , delete ",
        "log.cleaner.min.cleanable.ratio": "1",
        "log.message.timestamp.type": "LogAppendTime",
        "num.partitions": " +2 ",
        "log.retention.bytes": str(LONG_MAX),
        "auto.create.topics.enable": " True ",
        "cluster.id": "MkU3OEVBNTcwNTJENDM2Qk",
    })
    assert cfg.log_segment_bytes == 1048576
    assert cfg.log_cleanup_policy == ["compact", "delete"]
    assert cfg.log_cleaner_min_cleanable_ratio == 1.0
    assert cfg.num_partitions == 2
    assert cfg.auto_create_topics_enable is True
    assert cfg.cluster_id == "MkU3OEVBNTcwNTJENDM2Qk"


def test_config_error_is_a_value_error():
    with pytest.raises(ValueError, match="Invalid value 'x' for configuration num.partitions"):
        BrokerConfig({"num.partitions": "x"})


# ---------------------------------------------------------------------------------------------
# Listeners


def test_listeners_parse_ipv6_and_port_zero():
    cfg = BrokerConfig({"listeners": "PLAINTEXT://[::1]:0"})
    assert cfg.listener_address() == ("::1", 0)
    assert cfg.advertised_address() == ("::1", 0)
    assert cfg.advertised_address(bound_port=45678) == ("::1", 45678)
    assert str(cfg.listener_endpoint()) == "PLAINTEXT://[::1]:0"


def test_advertised_listener_of_the_same_name():
    cfg = BrokerConfig({
        "listeners": "INTERNAL://127.0.0.1:9092,EXTERNAL://0.0.0.0:9094",
        "advertised.listeners": "INTERNAL://internal.example:9092,"
                                "EXTERNAL://external.example:19094",
        "listener.security.protocol.map": "INTERNAL:PLAINTEXT,EXTERNAL:SSL",
    })
    assert cfg.listener_address() == ("127.0.0.1", 9092)
    assert cfg.advertised_address() == ("internal.example", 9092)
    assert [e.security_protocol for e in cfg.advertised_endpoints()] == ["PLAINTEXT", "SSL"]


def test_wildcard_hosts_advertise_the_host_name():
    for listeners in ("PLAINTEXT://:9092", "PLAINTEXT://0.0.0.0:9092"):
        cfg = BrokerConfig({"listeners": listeners})
        assert cfg.advertised_address() == (socket.gethostname(), 9092)


def test_listener_names_are_case_insensitive():
    cfg = BrokerConfig({"listeners": "plaintext://localhost:9092"})
    assert cfg.listener_endpoint().listener_name == "PLAINTEXT"


@pytest.mark.parametrize(
    "given, key",
    [
        ({"listeners": "localhost:9092"}, "listeners"),
        ({"listeners": "PLAINTEXT://localhost"}, "listeners"),
        ({"listeners": "PLAINTEXT://localhost:70000"}, "listeners"),
        ({"listeners": "FOO://localhost:9092"}, "listeners"),
        ({"listeners": "SSL://localhost:9093"}, "listeners"),
        ({"listeners": ""}, "listeners"),
        ({"listeners": "PLAINTEXT://a:9092,PLAINTEXT://b:9093"}, "listeners"),
        ({"listeners": "PLAINTEXT://a:9092,SSL://b:9092"}, "listeners"),
        ({"listeners": "CONTROLLER://:9093", "controller.listener.names": "CONTROLLER"},
         "listeners"),
        ({"advertised.listeners": "OTHER://x:9092",
          "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,OTHER:PLAINTEXT"},
         "advertised.listeners"),
        ({"advertised.listeners": "PLAINTEXT://0.0.0.0:9092"}, "advertised.listeners"),
        ({"listener.security.protocol.map": "PLAINTEXT:TLS"}, "listener.security.protocol.map"),
        ({"listener.security.protocol.map": "PLAINTEXT"}, "listener.security.protocol.map"),
    ],
)
def test_invalid_listeners(given, key):
    with pytest.raises(ConfigError) as err:
        BrokerConfig(given)
    assert err.value.name == key


# ---------------------------------------------------------------------------------------------
# DescribeConfigs


def test_describe_sources_and_values():
    cfg = BrokerConfig.from_properties(
        "num.partitions=3\nlog.retention.hours=24\nno.such.config=1\n",
        ["auto.create.topics.enable=false"],
    )
    rows = {row.name: row for row in cfg.describe()}
    assert rows["num.partitions"] == ConfigRow(
        "num.partitions", "3", False, ConfigSource.STATIC_BROKER_CONFIG)
    assert rows["auto.create.topics.enable"] == ConfigRow(
        "auto.create.topics.enable", "false", False, ConfigSource.STATIC_BROKER_CONFIG)
    assert rows["log.retention.hours"].value == "24"
    # as in Kafka, each name reports its own value: log.retention.ms was not given
    assert rows["log.retention.ms"] == ConfigRow(
        "log.retention.ms", None, True, ConfigSource.DEFAULT_CONFIG)
    assert rows["message.max.bytes"] == ConfigRow(
        "message.max.bytes", "1048588", True, ConfigSource.DEFAULT_CONFIG)
    assert rows["log.cleanup.policy"].value == "delete"
    assert rows["log.cleaner.min.cleanable.ratio"].value == "0.5"
    assert rows["log.flush.interval.messages"].value == str(LONG_MAX)
    assert rows["node.id"].value == rows["broker.id"].value == "1"
    assert "no.such.config" not in rows       # unknown names are not described
    assert "cluster.id" not in rows           # nor pylog's own
    assert list(rows) == sorted(rows)
    assert ConfigSource.STATIC_BROKER_CONFIG == 4 and ConfigSource.DEFAULT_CONFIG == 5


def test_describe_selected_names_and_id_source():
    cfg = BrokerConfig({"broker.id": 5})
    rows = cfg.describe(["node.id", "broker.id", "nope"])
    assert rows == [
        ConfigRow("broker.id", "5", False, ConfigSource.STATIC_BROKER_CONFIG),
        ConfigRow("node.id", "5", False, ConfigSource.STATIC_BROKER_CONFIG),
    ]


def test_synonyms_in_precedence_order():
    cfg = BrokerConfig({"log.retention.minutes": 30})
    assert [(s.name, s.value, s.source.name) for s in cfg.synonyms("log.retention.ms")] == [
        ("log.retention.minutes", "30", "STATIC_BROKER_CONFIG"),
        ("log.retention.hours", "168", "DEFAULT_CONFIG"),
    ]
    assert [(s.name, s.value) for s in cfg.synonyms("num.partitions")] == [
        ("num.partitions", "1")]


def test_is_set_and_source():
    cfg = BrokerConfig({"num.partitions": 2, "x.y": "z"})
    assert cfg.is_set("num.partitions") and not cfg.is_set("log.dirs")
    assert cfg.source("num.partitions") is ConfigSource.STATIC_BROKER_CONFIG
    assert cfg.source("log.dirs") is ConfigSource.DEFAULT_CONFIG
    assert cfg.source("x.y") is ConfigSource.STATIC_BROKER_CONFIG
    assert cfg.source("never.given") is ConfigSource.UNKNOWN
    assert cfg.get("never.given", "fallback") == "fallback"
    assert cfg.to_dict(include_unknown=True)["x.y"] == "z"
    assert "x.y" not in cfg.to_dict()


# ---------------------------------------------------------------------------------------------
# Topic defaults


def test_broker_to_topic_names():
    expected = {
        "log.segment.bytes": "segment.bytes",
        "log.roll.ms": "segment.ms",
        "log.roll.hours": "segment.ms",
        "log.roll.jitter.ms": "segment.jitter.ms",
        "log.roll.jitter.hours": "segment.jitter.ms",
        "log.retention.ms": "retention.ms",
        "log.retention.minutes": "retention.ms",
        "log.retention.hours": "retention.ms",
        "log.retention.bytes": "retention.bytes",
        "log.cleanup.policy": "cleanup.policy",
        "message.max.bytes": "max.message.bytes",
        "log.message.timestamp.type": "message.timestamp.type",
        "log.index.interval.bytes": "index.interval.bytes",
        "log.index.size.max.bytes": "segment.index.bytes",
        "log.flush.interval.messages": "flush.messages",
        "log.flush.interval.ms": "flush.ms",
        "log.flush.scheduler.interval.ms": "flush.ms",
        "log.cleaner.delete.retention.ms": "delete.retention.ms",
        "log.cleaner.min.compaction.lag.ms": "min.compaction.lag.ms",
        "log.cleaner.max.compaction.lag.ms": "max.compaction.lag.ms",
        "log.cleaner.min.cleanable.ratio": "min.cleanable.dirty.ratio",
        "log.segment.delete.delay.ms": "file.delete.delay.ms",
        "log.preallocate": "preallocate",
        "min.insync.replicas": "min.insync.replicas",
        "unclean.leader.election.enable": "unclean.leader.election.enable",
        "compression.type": "compression.type",
    }
    for broker, topic in expected.items():
        assert BROKER_TO_TOPIC_NAMES[broker] == topic
    for synonyms in TOPIC_CONFIG_SYNONYMS.values():
        for broker, _factor in synonyms:
            assert broker in CONFIG_KEYS


def test_topic_defaults_resolve_units():
    cfg = BrokerConfig({
        "log.roll.hours": 2,
        "log.retention.minutes": 90,
        "log.segment.bytes": 1 << 20,
        "message.max.bytes": 2_000_000,
        "log.cleanup.policy": "compact",
        "log.flush.interval.messages": 1,
        "min.insync.replicas": 2,
    })
    defaults = cfg.topic_defaults()
    assert defaults["segment.ms"] == 2 * HOUR
    assert defaults["retention.ms"] == 90 * MINUTE
    assert defaults["segment.bytes"] == 1 << 20
    assert defaults["max.message.bytes"] == 2_000_000
    assert defaults["cleanup.policy"] == ["compact"]
    assert defaults["flush.messages"] == 1
    assert defaults["flush.ms"] == LONG_MAX
    assert defaults["min.insync.replicas"] == 2
    assert defaults["message.timestamp.type"] == "CreateTime"
    assert defaults["segment.index.bytes"] == 10485760
    assert defaults["index.interval.bytes"] == 4096
    assert defaults["retention.bytes"] == -1
    assert defaults["segment.jitter.ms"] == 0
    strings = cfg.topic_defaults(as_strings=True)
    assert strings["segment.ms"] == str(2 * HOUR)
    assert strings["cleanup.policy"] == "compact"
    assert strings["unclean.leader.election.enable"] == "false"
    assert all(isinstance(v, str) for v in strings.values())
    assert set(defaults) == set(TOPIC_CONFIG_SYNONYMS)


def test_topic_defaults_are_copies():
    cfg = BrokerConfig()
    cfg.topic_defaults()["cleanup.policy"].append("compact")
    cfg.log_dirs  # noqa: B018 -- attribute lists are the instance's own
    assert cfg.topic_defaults()["cleanup.policy"] == ["delete"]
    cfg.get("log.dirs").append("/elsewhere")
    assert cfg.get("log.dirs") == ["./pylog-data"]


# ---------------------------------------------------------------------------------------------
# Settings without effect


def test_readme_lists_exactly_the_configs_not_acted_on():
    from pathlib import Path

    from pylog.config_keys import FROM_KAFKA_TABLE, not_acted_on
    from pylog.dynamic_broker_config import READ_AT_START

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = readme.split("### Accepted but not acted on yet", 1)[1].split("\n#", 1)[0]
    bullets = "\n".join(line for line in section.splitlines() if line.startswith(("- ", "  ")))
    listed = set(re.findall(r"`([a-z0-9.]+)`", bullets))
    assert listed == set(not_acted_on()) - FROM_KAFKA_TABLE
    # the names taken from Kafka's table are counted, not listed; the dynamic ones refused, named
    assert f"the {len(FROM_KAFKA_TABLE)} other broker configs of Kafka" in " ".join(section.split())
    paragraph = section.split("So are the", 1)[1]
    assert READ_AT_START <= set(re.findall(r"`([a-z0-9.]+)`", paragraph))


def test_not_acted_on_names_the_given_non_default_settings():
    cfg = BrokerConfig({"broker.rack": "r1", "num.io.threads": "4", "num.partitions": "3",
                        "log.retention.hours": "168", "log.cleanup.policy": "compact"})
    assert cfg.not_acted_on() == {"broker.rack": "r1", "num.io.threads": "4"}
    assert BrokerConfig().not_acted_on() == {}


def test_broker_synonyms_in_the_topic_unit_share_the_topic_definition():
    """log.segment.bytes and segment.bytes (and every such pair) are one definition: same
    type, same validator (but log.roll.ms and log.roll.jitter.ms, whose range KafkaConfig
    requires after resolving them); the same default but where the broker name has none of
    its own (log.roll.ms, resolved from log.roll.hours).
    log.retention.ms is the broker's own: any negative value means unlimited there."""
    from storage.config import CONFIG_KEYS as TOPIC_CONFIG_KEYS

    pairs = [(broker[0][0], topic) for topic, broker in TOPIC_CONFIG_SYNONYMS.items() if broker[0][1] == 1]
    assert len(pairs) == len(TOPIC_CONFIG_SYNONYMS)
    for broker_name, topic_name in pairs:
        broker, topic = CONFIG_KEYS[broker_name], TOPIC_CONFIG_KEYS[topic_name]
        assert broker.type is topic.type, broker_name
        if broker_name == "log.cleanup.policy":   # a list here, a tuple in the LogConfig
            assert list(broker.default) == list(topic.default)
            assert broker.validator is topic.validator
            continue
        if broker_name == "log.retention.ms":
            continue
        if broker_name in ("log.roll.ms", "log.roll.jitter.ms"):   # KafkaConfig requires their range
            assert broker.validator is None, broker_name
            continue
        assert broker.validator is topic.validator, broker_name
        assert broker.acted_on == topic.acted_on, broker_name
        if broker.default is not None:
            assert broker.default == topic.default, broker_name
    assert BrokerConfig().topic_defaults() == {
        name: list(value) if isinstance(value, tuple) else value
        for name, value in ((n, getattr(LogConfig(), k.attribute)) for n, k in TOPIC_CONFIG_KEYS.items())
        if name in TOPIC_CONFIG_SYNONYMS}
