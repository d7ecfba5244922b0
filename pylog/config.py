"""BrokerConfig: the broker's settings, under Apache Kafka's names and defaults (Kafka 3.9, KRaft).

A Kafka user's `server.properties` works here unchanged; pylog reads it with the same rules
as `java.util.Properties`, applies `--override key=value` on top, and gives back typed values:

    cfg = BrokerConfig.from_properties("server.properties", ["log.dirs=/tmp/data"])
    cfg.node_id, cfg.log_dirs, cfg.log_retention_ms, cfg.listener_address()

Names, types, valid ranges and precedence follow Kafka's broker config definitions
(`ServerLogConfigs`, `KafkaConfig`, `ServerTopicConfigSynonyms`). Each config name has a
snake_case attribute (`log.segment.bytes` -> `cfg.log_segment_bytes`), also reachable as
`cfg.get("log.segment.bytes")`.

Resolution, as in Kafka
-----------------------
- `node.id` and `broker.id` are one setting: either may be given; both, if different, is an
  error.
- `log.dirs` wins over `log.dir`; both are comma-separated lists of directories.
- Time settings given in several units: the most specific unit wins. `log.roll.ms` over
  `log.roll.hours`; `log.roll.jitter.ms` over `log.roll.jitter.hours`; `log.retention.ms`
  over `log.retention.minutes` over `log.retention.hours` (any negative result means
  "unlimited", -1; zero is refused); `log.flush.interval.ms` over
  `log.flush.scheduler.interval.ms`. The attribute of the most specific name
  (`cfg.log_retention_ms`) holds the resolved value in milliseconds; the coarser names keep
  their own value (`cfg.log_retention_hours == 168`).
- `advertised.listeners` defaults to `listeners`.
- Unknown names are kept (`cfg.unknown`, `cfg.get(name)` returns their text) and logged
  once as a warning, as Kafka warns and ignores them.
- A value of the wrong type or out of range raises `ConfigError`, which names the key.

What pylog acts on
------------------
Broker identity and network: `node.id`/`broker.id`, `listeners`, `advertised.listeners`,
`listener.security.protocol.map` and `controller.listener.names` (to choose the PLAINTEXT
client listener), `broker.rack`, `socket.request.max.bytes`, `cluster.id` (pylog only).
Topics: `num.partitions`, `default.replication.factor`, `auto.create.topics.enable`,
`delete.topic.enable`, `min.insync.replicas`, `message.max.bytes`.
Log defaults for every topic without an override (see `topic_defaults()`): `log.dirs`,
`log.segment.bytes`, `log.roll.*`, `log.roll.jitter.*`, `log.index.size.max.bytes`,
`log.index.interval.bytes`, `log.flush.*`, `log.retention.*`, `log.cleanup.policy`,
`log.cleaner.*` compaction settings, `log.segment.delete.delay.ms`,
`log.message.timestamp.*`, `log.preallocate`.
Coordinators: `offsets.topic.*`, `offsets.retention.*`, `offset.metadata.max.bytes`,
`group.*`, `transactional.id.expiration.ms`, `transaction.max.timeout.ms`,
`transaction.state.log.*`, `producer.id.expiration.ms`.
Fetch: `max.incremental.fetch.session.cache.slots`, `fetch.max.bytes`.
(`CONFIG_KEYS[name].used` says which names these are. The broker is being built issue by
issue; a name listed here is one its code is meant to read.)

Accepted, validated and reported by DescribeConfigs, but not acted on (they tune a JVM
broker's threads, buffers or cluster roles): `process.roles`, `controller.quorum.voters`,
`inter.broker.listener.name`, `num.network.threads`, `num.io.threads`,
`socket.send.buffer.bytes`, `socket.receive.buffer.bytes`, `queued.max.requests`,
`connections.max.idle.ms`, `num.recovery.threads.per.data.dir`,
`log.retention.check.interval.ms`, `log.cleaner.backoff.ms`, `compression.type` (pylog
stores batches as produced), `log.message.downconversion.enable`,
`auto.leader.rebalance.enable`, `replica.lag.time.max.ms`, ...

Where pylog's defaults differ from Kafka's
------------------------------------------
| name                                      | pylog                      | Kafka 3.9           |
| ----------------------------------------- | -------------------------- | ------------------- |
| node.id                                   | 1                          | none (required)     |
| listeners                                 | PLAINTEXT://127.0.0.1:9092 | PLAINTEXT://:9092   |
| log.dir                                   | ./pylog-data               | /tmp/kafka-logs     |
| process.roles                             | broker,controller          | empty (ZooKeeper)   |
| group.initial.rebalance.delay.ms          | 0                          | 3000                |
| offsets.topic.replication.factor          | 1                          | 3                   |
| transaction.state.log.replication.factor  | 1                          | 3                   |
| transaction.state.log.min.isr             | 1                          | 2                   |

Why: pylog is one process that serves tests. It listens on loopback unless told otherwise;
it is its own controller; it must be able to create its internal topics with one broker
(Kafka's single-node sample `config/kraft/server.properties` sets the three internal-topic
settings to 1 for the same reason); and it must not make every test's first consumer group
wait 3 s for more members to join (Kafka's classic sample `config/server.properties` sets
that delay to 0 for development and testing as well).

Other differences, all small:
- A few checks are stricter than Kafka's: `node.id` >= 0, `default.replication.factor` >= 1,
  `group.*.ms` >= 0, `log.cleanup.policy` not empty, listener ports in 0..65535.
- A properties file is read as UTF-8, falling back to ISO-8859-1 (Java reads ISO-8859-1
  only; `\\uXXXX` escapes work in both).
- When `advertised.listeners` is not set and the listener binds a wildcard host ("", 0.0.0.0
  or ::), the advertised host is this machine's host name (Kafka does this for "" and
  refuses 0.0.0.0). An explicit advertised 0.0.0.0 is refused, as in Kafka.
- `cluster.id` is a pylog setting (Kafka keeps the cluster id only in meta.properties, written
  by `kafka-storage format`); DescribeConfigs does not report it.
"""

from __future__ import annotations

import enum
import logging
import os
import re
import socket
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Mapping, NamedTuple

__all__ = [
    "BrokerConfig",
    "ConfigError",
    "ConfigKey",
    "ConfigRow",
    "ConfigSource",
    "ConfigSynonym",
    "Endpoint",
    "CONFIG_KEYS",
    "TOPIC_CONFIG_SYNONYMS",
    "BROKER_TO_TOPIC_NAMES",
    "parse_properties",
    "load_properties",
    "parse_overrides",
]

log = logging.getLogger("pylog.config")

INT_MIN, INT_MAX = -(2**31), 2**31 - 1
SHORT_MIN, SHORT_MAX = -(2**15), 2**15 - 1
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1

MS_PER_MINUTE = 60 * 1000
MS_PER_HOUR = 60 * MS_PER_MINUTE

SECURITY_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
COMPRESSION_TYPES = ("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")
_WILDCARD_HOSTS = ("", "0.0.0.0", "::")


# ---------------------------------------------------------------------------------------------
# Errors, sources, rows


class ConfigError(ValueError):
    """A config value that cannot be used. `key` names the config, `value` is what was given
    (None when the problem is not one value), `reason` says what is wrong."""

    def __init__(self, key: str | None, reason: str, value: Any = None):
        self.key = key
        self.value = value
        self.reason = reason
        if key is None:
            message = reason
        elif value is None:
            message = f"Invalid configuration {key}: {reason}"
        else:
            message = f"Invalid value {value!r} for configuration {key}: {reason}"
        super().__init__(message)


class ConfigSource(enum.IntEnum):
    """Where a config value comes from: Kafka's DescribeConfigs `config_source` codes."""

    UNKNOWN = 0
    TOPIC_CONFIG = 1
    DYNAMIC_BROKER_CONFIG = 2
    DYNAMIC_DEFAULT_BROKER_CONFIG = 3
    STATIC_BROKER_CONFIG = 4
    DEFAULT_CONFIG = 5
    DYNAMIC_BROKER_LOGGER_CONFIG = 6
    CLIENT_METRICS_CONFIG = 7
    GROUP_CONFIG = 8


class ConfigRow(NamedTuple):
    """One DescribeConfigs entry: the value as Kafka prints it (None for no value)."""

    name: str
    value: str | None
    is_default: bool
    source: ConfigSource


class ConfigSynonym(NamedTuple):
    """One DescribeConfigs synonym (include_synonyms), in order of precedence."""

    name: str
    value: str | None
    source: ConfigSource


class Endpoint(NamedTuple):
    """One entry of `listeners` / `advertised.listeners`: NAME://host:port."""

    listener_name: str
    security_protocol: str
    host: str
    port: int

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.listener_name}://{host}:{self.port}"


# ---------------------------------------------------------------------------------------------
# Types and validators


class Type(enum.Enum):
    INT = "int"          # Java int
    LONG = "long"        # Java long
    SHORT = "short"      # Java short
    DOUBLE = "double"
    BOOLEAN = "boolean"
    STRING = "string"
    LIST = "list"        # Kafka LIST: comma-separated, items trimmed
    CSV = "csv"          # a Kafka STRING that holds a comma-separated list (listeners, log.dirs)


_INT_RE = re.compile(r"[+-]?[0-9]+")
_DOUBLE_RE = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_LIST_SPLIT_RE = re.compile(r"\s*,\s*")
_INT_RANGES = {
    Type.INT: (INT_MIN, INT_MAX),
    Type.LONG: (LONG_MIN, LONG_MAX),
    Type.SHORT: (SHORT_MIN, SHORT_MAX),
}

Validator = Callable[[Any], "str | None"]  # returns the reason a value is invalid, or None


def _at_least(minimum: int) -> Validator:
    def check(value: Any) -> str | None:
        if value is not None and value < minimum:
            return f"must be at least {minimum}"
        return None

    return check


def _between(lo: float, hi: float) -> Validator:
    def check(value: Any) -> str | None:
        if value is not None and not lo <= value <= hi:
            return f"must be between {lo} and {hi}"
        return None

    return check


def _one_of(*choices: str) -> Validator:
    def check(value: Any) -> str | None:
        if value is not None and value not in choices:
            return f"must be one of {', '.join(choices)}"
        return None

    return check


def _each_of(*choices: str, allow_empty: bool = True) -> Validator:
    def check(value: Any) -> str | None:
        if value is None:
            return None
        if not value and not allow_empty:
            return f"must name at least one of {', '.join(choices)}"
        bad = [item for item in value if item not in choices]
        if bad:
            return f"{bad[0]!r} is not one of {', '.join(choices)}"
        return None

    return check


def _cluster_id(value: Any) -> str | None:
    if value is not None and not re.fullmatch(r"[A-Za-z0-9_-]+", value):
        return "must be a non-empty base64url string, like the ids of `kafka-storage random-uuid`"
    return None


def _parse_typed(name: str, type_: Type, raw: Any) -> Any:
    """Kafka's ConfigDef.parseType, for text and for already-typed Python values."""
    if type_ in _INT_RANGES:
        lo, hi = _INT_RANGES[type_]
        if isinstance(raw, bool):
            raise ConfigError(name, f"expected an integer ({type_.value})", raw)
        if isinstance(raw, int):
            value = raw
        elif isinstance(raw, str) and _INT_RE.fullmatch(raw.strip()):
            value = int(raw.strip())
        else:
            raise ConfigError(name, f"expected an integer ({type_.value})", raw)
        if not lo <= value <= hi:
            raise ConfigError(name, f"out of range for a Java {type_.value} ({lo}..{hi})", raw)
        return value
    if type_ is Type.DOUBLE:
        if isinstance(raw, bool):
            raise ConfigError(name, "expected a number", raw)
        if isinstance(raw, (int, float)):
            return float(raw)
        if isinstance(raw, str) and _DOUBLE_RE.fullmatch(raw.strip()):
            return float(raw.strip())
        raise ConfigError(name, "expected a number", raw)
    if type_ is Type.BOOLEAN:
        if isinstance(raw, bool):
            return raw
        if isinstance(raw, str) and raw.strip().lower() in ("true", "false"):
            return raw.strip().lower() == "true"
        raise ConfigError(name, "expected true or false", raw)
    if type_ is Type.STRING:
        if isinstance(raw, str):
            return raw.strip()
        raise ConfigError(name, "expected a string", raw)
    if type_ is Type.LIST:
        if isinstance(raw, str):
            text = raw.strip()
            return _LIST_SPLIT_RE.split(text) if text else []
        if isinstance(raw, (list, tuple)) and all(isinstance(item, str) for item in raw):
            return [item.strip() for item in raw]
        raise ConfigError(name, "expected a comma-separated list", raw)
    if type_ is Type.CSV:
        if isinstance(raw, os.PathLike):
            raw = os.fspath(raw)
        if isinstance(raw, str):
            return [item for item in _LIST_SPLIT_RE.split(raw.strip()) if item]
        if isinstance(raw, (list, tuple)):
            items = [os.fspath(item) if isinstance(item, os.PathLike) else item for item in raw]
            if all(isinstance(item, str) for item in items):
                return [item.strip() for item in items if item.strip()]
        raise ConfigError(name, "expected a comma-separated list", raw)
    raise AssertionError(type_)


def _format_typed(type_: Type, value: Any) -> str | None:
    """A typed value as Kafka prints it in DescribeConfigs (ConfigDef.convertToString)."""
    if value is None:
        return None
    if type_ is Type.BOOLEAN:
        return "true" if value else "false"
    if type_ in (Type.LIST, Type.CSV):
        return ",".join(value)
    if type_ is Type.DOUBLE:
        return repr(float(value))
    return str(value)


# ---------------------------------------------------------------------------------------------
# The table of broker configs

_SAME = object()


@dataclass(frozen=True)
class ConfigKey:
    """One broker config name: type, pylog default, Kafka 3.9 default, validity, use.

    `default` is typed (None: no value unless given). `kafka_default` is Kafka's, when pylog
    chose another. `used` is True for names pylog acts on (or is meant to), False for names
    only accepted and reported. `pylog_only` names are not Kafka broker configs."""

    name: str
    type: Type
    default: Any
    doc: str
    validator: Validator | None = None
    used: bool = True
    kafka_default: Any = _SAME
    pylog_only: bool = False

    @property
    def attribute(self) -> str:
        return self.name.replace(".", "_")

    @property
    def kafka(self) -> Any:
        """Kafka's own default (typed)."""
        return self.default if self.kafka_default is _SAME else self.kafka_default

    def parse(self, raw: Any) -> Any:
        value = _parse_typed(self.name, self.type, raw)
        if self.validator is not None:
            reason = self.validator(value)
            if reason is not None:
                raise ConfigError(self.name, reason, raw)
        return value

    def format(self, value: Any) -> str | None:
        return _format_typed(self.type, value)


_I, _L, _S, _D, _B, _STR, _LIST, _CSV = (
    Type.INT, Type.LONG, Type.SHORT, Type.DOUBLE, Type.BOOLEAN, Type.STRING, Type.LIST, Type.CSV
)

_KEYS: tuple[ConfigKey, ...] = (
    # -- identity and cluster roles --
    ConfigKey("node.id", _I, 1, "This broker's id (KRaft). Same setting as broker.id.",
              _at_least(0), kafka_default=-1),
    ConfigKey("broker.id", _I, None, "Older name of node.id; when both are set they must agree.",
              _at_least(0), kafka_default=-1),
    ConfigKey("cluster.id", _STR, None, "The cluster id to use when the data directories have "
              "none yet (else meta.properties decides). pylog only.", _cluster_id,
              pylog_only=True),
    ConfigKey("broker.rack", _STR, None, "Rack of this broker, reported in Metadata."),
    ConfigKey("process.roles", _LIST, ["broker", "controller"],
              "Roles of this node. pylog is always a combined broker and controller.",
              _each_of("broker", "controller"), used=False, kafka_default=[]),
    ConfigKey("controller.quorum.voters", _LIST, [], "KRaft voters (id@host:port). Accepted only.",
              used=False),
    # -- network --
    ConfigKey("listeners", _CSV, ["PLAINTEXT://127.0.0.1:9092"],
              "Addresses to listen on, NAME://host:port, comma-separated; port 0 picks a free "
              "port.", kafka_default=["PLAINTEXT://:9092"]),
    ConfigKey("advertised.listeners", _CSV, None,
              "Addresses given to clients in Metadata; defaults to listeners."),
    ConfigKey("listener.security.protocol.map", _STR,
              "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL",
              "Listener name to security protocol, NAME:PROTOCOL, comma-separated."),
    ConfigKey("controller.listener.names", _CSV, None,
              "Listener names used by the controller only (not offered to clients)."),
    ConfigKey("inter.broker.listener.name", _STR, None, "Listener used between brokers.",
              used=False),
    ConfigKey("socket.request.max.bytes", _I, 100 * 1024 * 1024,
              "Largest request frame accepted; a larger one closes the connection.",
              _at_least(1)),
    ConfigKey("socket.send.buffer.bytes", _I, 100 * 1024, "SO_SNDBUF (-1: OS default).",
              used=False),
    ConfigKey("socket.receive.buffer.bytes", _I, 100 * 1024, "SO_RCVBUF (-1: OS default).",
              used=False),
    ConfigKey("num.network.threads", _I, 3, "JVM network threads. Accepted only.", _at_least(1),
              used=False),
    ConfigKey("num.io.threads", _I, 8, "JVM request threads. Accepted only.", _at_least(1),
              used=False),
    ConfigKey("queued.max.requests", _I, 500, "Request queue length. Accepted only.",
              _at_least(1), used=False),
    ConfigKey("connections.max.idle.ms", _L, 10 * 60 * 1000,
              "Idle connections are closed after this long.", used=False),
    # -- topics --
    ConfigKey("num.partitions", _I, 1, "Partitions of an auto-created topic, and of a created "
              "topic that does not say.", _at_least(1)),
    ConfigKey("default.replication.factor", _I, 1, "Replication factor of auto-created topics.",
              _at_least(1)),
    ConfigKey("auto.create.topics.enable", _B, True,
              "Create a topic when a client asks Metadata for an unknown one."),
    ConfigKey("delete.topic.enable", _B, True, "Allow DeleteTopics."),
    ConfigKey("min.insync.replicas", _I, 1,
              "Replicas that must have a write before acks=all succeeds.", _at_least(1)),
    ConfigKey("unclean.leader.election.enable", _B, False,
              "Allow an out-of-sync replica to become leader."),
    ConfigKey("message.max.bytes", _I, 1024 * 1024 + 12,
              "Largest record batch accepted (topic: max.message.bytes).", _at_least(0)),
    ConfigKey("compression.type", _STR, "producer",
              "Codec the broker stores batches in; pylog always keeps the producer's.",
              _one_of(*COMPRESSION_TYPES), used=False),
    ConfigKey("auto.leader.rebalance.enable", _B, True, "Move leadership back to preferred "
              "replicas. Accepted only.", used=False),
    ConfigKey("replica.lag.time.max.ms", _L, 30000,
              "A follower this far behind leaves the ISR.", used=False),
    # -- log directories and segments --
    ConfigKey("log.dirs", _CSV, None, "Data directories, comma-separated; wins over log.dir."),
    ConfigKey("log.dir", _CSV, ["./pylog-data"], "Data directory used when log.dirs is not set.",
              kafka_default=["/tmp/kafka-logs"]),
    ConfigKey("log.segment.bytes", _I, 1024 * 1024 * 1024, "Size at which a segment rolls.",
              _at_least(14)),
    ConfigKey("log.roll.ms", _L, None, "Age at which a segment rolls; wins over log.roll.hours."),
    ConfigKey("log.roll.hours", _I, 24 * 7, "Age at which a segment rolls, in hours.",
              _at_least(1)),
    ConfigKey("log.roll.jitter.ms", _L, None,
              "Most random time taken off the roll age; wins over log.roll.jitter.hours."),
    ConfigKey("log.roll.jitter.hours", _I, 0, "Roll jitter, in hours.", _at_least(0)),
    ConfigKey("log.index.size.max.bytes", _I, 10 * 1024 * 1024,
              "Size of a segment's offset index; a full index rolls the segment.", _at_least(4)),
    ConfigKey("log.index.interval.bytes", _I, 4096, "Log bytes between two index entries.",
              _at_least(0)),
    ConfigKey("log.preallocate", _B, False, "Preallocate segment files."),
    ConfigKey("log.segment.delete.delay.ms", _L, 60000,
              "Time a deleted segment lingers as .deleted.", _at_least(0)),
    # -- flushing --
    ConfigKey("log.flush.interval.messages", _L, LONG_MAX,
              "Unflushed records after which a partition is fsynced.", _at_least(1)),
    ConfigKey("log.flush.interval.ms", _L, None, "Age of unflushed data after which a partition "
              "is fsynced; wins over log.flush.scheduler.interval.ms."),
    ConfigKey("log.flush.scheduler.interval.ms", _L, LONG_MAX,
              "How often logs are checked for flushing."),
    ConfigKey("log.flush.offset.checkpoint.interval.ms", _I, 60000,
              "How often the recovery point is checkpointed.", _at_least(0)),
    ConfigKey("log.flush.start.offset.checkpoint.interval.ms", _I, 60000,
              "How often log start offsets are checkpointed.", _at_least(0)),
    ConfigKey("num.recovery.threads.per.data.dir", _I, 1,
              "Threads per data directory for recovery. Accepted only.", _at_least(1),
              used=False),
    # -- retention and cleaning --
    ConfigKey("log.retention.ms", _L, None,
              "Age after which a segment is deleted (-1: never); wins over minutes and hours."),
    ConfigKey("log.retention.minutes", _I, None, "Retention in minutes; wins over hours."),
    ConfigKey("log.retention.hours", _I, 24 * 7, "Retention in hours."),
    ConfigKey("log.retention.bytes", _L, -1, "Partition size above which old segments are "
              "deleted (-1: no limit)."),
    ConfigKey("log.retention.check.interval.ms", _L, 5 * 60 * 1000,
              "How often retention is applied.", _at_least(1), used=False),
    ConfigKey("log.cleanup.policy", _LIST, ["delete"], "delete, compact, or both.",
              _each_of("compact", "delete", allow_empty=False)),
    ConfigKey("log.cleaner.enable", _B, True, "Run compaction for compacted topics."),
    ConfigKey("log.cleaner.delete.retention.ms", _L, 24 * MS_PER_HOUR,
              "How long compaction keeps tombstones.", _at_least(0)),
    ConfigKey("log.cleaner.min.compaction.lag.ms", _L, 0,
              "A record stays uncompacted at least this long.", _at_least(0)),
    ConfigKey("log.cleaner.max.compaction.lag.ms", _L, LONG_MAX,
              "A record becomes compactable at most this long after it was written.",
              _at_least(1)),
    ConfigKey("log.cleaner.min.cleanable.ratio", _D, 0.5,
              "Dirty share of a log above which it is compacted.", _between(0, 1)),
    ConfigKey("log.cleaner.backoff.ms", _L, 15000, "Cleaner sleep when idle. Accepted only.",
              _at_least(0), used=False),
    # -- record timestamps --
    ConfigKey("log.message.timestamp.type", _STR, "CreateTime",
              "CreateTime keeps the producer's timestamps; LogAppendTime stamps the broker's.",
              _one_of("CreateTime", "LogAppendTime")),
    ConfigKey("log.message.timestamp.difference.max.ms", _L, LONG_MAX,
              "Deprecated: largest difference between a CreateTime timestamp and the "
              "broker's clock.", _at_least(0)),
    ConfigKey("log.message.timestamp.before.max.ms", _L, LONG_MAX,
              "How far in the past a CreateTime timestamp may be.", _at_least(0)),
    ConfigKey("log.message.timestamp.after.max.ms", _L, LONG_MAX,
              "How far in the future a CreateTime timestamp may be.", _at_least(0)),
    ConfigKey("log.message.downconversion.enable", _B, True,
              "Convert records for old consumers. Accepted only.", used=False),
    # -- consumer groups and offsets --
    ConfigKey("offsets.topic.num.partitions", _I, 50, "Partitions of __consumer_offsets.",
              _at_least(1)),
    ConfigKey("offsets.topic.replication.factor", _S, 1, "Replication of __consumer_offsets.",
              _at_least(1), kafka_default=3),
    ConfigKey("offsets.topic.segment.bytes", _I, 100 * 1024 * 1024,
              "Segment size of __consumer_offsets.", _at_least(1)),
    ConfigKey("offsets.retention.minutes", _I, 7 * 24 * 60,
              "How long committed offsets of an empty group are kept.", _at_least(1)),
    ConfigKey("offsets.retention.check.interval.ms", _L, 600000,
              "How often expired offsets are removed.", _at_least(1)),
    ConfigKey("offsets.commit.timeout.ms", _I, 5000,
              "Longest wait for an offset commit to be replicated.", _at_least(1)),
    ConfigKey("offset.metadata.max.bytes", _I, 4096,
              "Longest metadata string of a committed offset."),
    ConfigKey("group.initial.rebalance.delay.ms", _I, 0,
              "Wait for more members before a new group's first rebalance.", _at_least(0),
              kafka_default=3000),
    ConfigKey("group.min.session.timeout.ms", _I, 6000, "Shortest session timeout accepted.",
              _at_least(0)),
    ConfigKey("group.max.session.timeout.ms", _I, 1800000, "Longest session timeout accepted.",
              _at_least(0)),
    ConfigKey("group.max.size", _I, INT_MAX, "Most members of one group.", _at_least(1)),
    # -- transactions and producer ids --
    ConfigKey("transactional.id.expiration.ms", _I, 7 * 24 * MS_PER_HOUR,
              "A transactional id unused this long is forgotten.", _at_least(1)),
    ConfigKey("transaction.max.timeout.ms", _I, 15 * MS_PER_MINUTE,
              "Longest transaction timeout a producer may ask for.", _at_least(1)),
    ConfigKey("transaction.state.log.num.partitions", _I, 50,
              "Partitions of __transaction_state.", _at_least(1)),
    ConfigKey("transaction.state.log.replication.factor", _S, 1,
              "Replication of __transaction_state.", _at_least(1), kafka_default=3),
    ConfigKey("transaction.state.log.min.isr", _I, 1, "min.insync.replicas of "
              "__transaction_state.", _at_least(1), kafka_default=2),
    ConfigKey("transaction.state.log.segment.bytes", _I, 100 * 1024 * 1024,
              "Segment size of __transaction_state.", _at_least(1)),
    ConfigKey("transaction.abort.timed.out.transaction.cleanup.interval.ms", _I, 10000,
              "How often timed-out transactions are aborted.", _at_least(1)),
    ConfigKey("transaction.remove.expired.transaction.cleanup.interval.ms", _I, MS_PER_HOUR,
              "How often expired transactional ids are removed.", _at_least(1)),
    ConfigKey("producer.id.expiration.ms", _I, 24 * MS_PER_HOUR,
              "A partition forgets an idle producer id after this long.", _at_least(1)),
    # -- fetch --
    ConfigKey("max.incremental.fetch.session.cache.slots", _I, 1000,
              "Most incremental fetch sessions kept.", _at_least(0)),
    ConfigKey("fetch.max.bytes", _I, 55 * 1024 * 1024,
              "Largest fetch response, whatever the client asks.", _at_least(1024)),
)

CONFIG_KEYS: Mapping[str, ConfigKey] = {key.name: key for key in _KEYS}

# Topic config name -> broker config names that give its default, first one winning, with
# the factor that turns the broker unit into the topic unit (Kafka's ServerTopicConfigSynonyms,
# for the names pylog defines).
TOPIC_CONFIG_SYNONYMS: Mapping[str, tuple[tuple[str, int], ...]] = {
    "segment.bytes": (("log.segment.bytes", 1),),
    "segment.ms": (("log.roll.ms", 1), ("log.roll.hours", MS_PER_HOUR)),
    "segment.jitter.ms": (("log.roll.jitter.ms", 1), ("log.roll.jitter.hours", MS_PER_HOUR)),
    "segment.index.bytes": (("log.index.size.max.bytes", 1),),
    "flush.messages": (("log.flush.interval.messages", 1),),
    "flush.ms": (("log.flush.interval.ms", 1), ("log.flush.scheduler.interval.ms", 1)),
    "retention.bytes": (("log.retention.bytes", 1),),
    "retention.ms": (
        ("log.retention.ms", 1),
        ("log.retention.minutes", MS_PER_MINUTE),
        ("log.retention.hours", MS_PER_HOUR),
    ),
    "max.message.bytes": (("message.max.bytes", 1),),
    "index.interval.bytes": (("log.index.interval.bytes", 1),),
    "delete.retention.ms": (("log.cleaner.delete.retention.ms", 1),),
    "min.compaction.lag.ms": (("log.cleaner.min.compaction.lag.ms", 1),),
    "max.compaction.lag.ms": (("log.cleaner.max.compaction.lag.ms", 1),),
    "file.delete.delay.ms": (("log.segment.delete.delay.ms", 1),),
    "min.cleanable.dirty.ratio": (("log.cleaner.min.cleanable.ratio", 1),),
    "cleanup.policy": (("log.cleanup.policy", 1),),
    "unclean.leader.election.enable": (("unclean.leader.election.enable", 1),),
    "min.insync.replicas": (("min.insync.replicas", 1),),
    "compression.type": (("compression.type", 1),),
    "preallocate": (("log.preallocate", 1),),
    "message.timestamp.type": (("log.message.timestamp.type", 1),),
    "message.timestamp.difference.max.ms": (("log.message.timestamp.difference.max.ms", 1),),
    "message.timestamp.before.max.ms": (("log.message.timestamp.before.max.ms", 1),),
    "message.timestamp.after.max.ms": (("log.message.timestamp.after.max.ms", 1),),
    "message.downconversion.enable": (("log.message.downconversion.enable", 1),),
}

# Broker config name -> the topic config it is the server default of.
BROKER_TO_TOPIC_NAMES: Mapping[str, str] = {
    broker: topic for topic, synonyms in TOPIC_CONFIG_SYNONYMS.items() for broker, _ in synonyms
}

# Broker names that share one setting, most specific first (DescribeConfigs synonyms).
_BROKER_SYNONYMS: tuple[tuple[str, ...], ...] = (
    ("log.roll.ms", "log.roll.hours"),
    ("log.roll.jitter.ms", "log.roll.jitter.hours"),
    ("log.retention.ms", "log.retention.minutes", "log.retention.hours"),
    ("log.flush.interval.ms", "log.flush.scheduler.interval.ms"),
)
_SYNONYMS_OF: Mapping[str, tuple[str, ...]] = {
    name: group for group in _BROKER_SYNONYMS for name in group
}


# ---------------------------------------------------------------------------------------------
# java.util.Properties


_PROPS_WHITESPACE = " \t\f"
_PROPS_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def parse_properties(text: str) -> dict[str, str]:
    """Parse text in `java.util.Properties` format into an ordered dict (last key wins).

    Lines end at \\n, \\r or \\r\\n. Leading blanks are skipped; a line whose first
    non-blank character is '#' or '!' is a comment. A line ending in an odd number of
    backslashes continues on the next line, whose leading blanks are dropped. The key ends
    at the first unescaped '=', ':' or blank; blanks and one '=' or ':' after it are skipped,
    and the rest of the line is the value. Escapes: \\t \\n \\r \\f \\uXXXX, and a backslash
    before any other character stands for that character.
    """
    lines = re.split(r"\r\n|\r|\n", text)
    result: dict[str, str] = {}
    i = 0
    while i < len(lines):
        lineno = i + 1
        logical = lines[i].lstrip(_PROPS_WHITESPACE)
        i += 1
        if not logical or logical[0] in "#!":
            continue
        while _ends_with_odd_backslashes(logical):
            logical = logical[:-1]
            if i >= len(lines):
                break
            logical += lines[i].lstrip(_PROPS_WHITESPACE)
            i += 1
        key_text, value_text = _split_key_value(logical)
        key = _unescape(key_text, lineno)
        result[key] = _unescape(value_text, lineno, key)
    return result


def _ends_with_odd_backslashes(line: str) -> bool:
    count = len(line) - len(line.rstrip("\\"))
    return count % 2 == 1


def _split_key_value(line: str) -> tuple[str, str]:
    end = len(line)
    key_end = end
    value_start = end
    has_separator = False
    escaped = False
    for j, ch in enumerate(line):
        if not escaped and ch in "=:":
            key_end, value_start, has_separator = j, j + 1, True
            break
        if not escaped and ch in _PROPS_WHITESPACE:
            key_end, value_start = j, j + 1
            break
        escaped = (ch == "\\") and not escaped
    while value_start < end:
        ch = line[value_start]
        if ch not in _PROPS_WHITESPACE:
            if not has_separator and ch in "=:":
                has_separator = True
            else:
                break
        value_start += 1
    return line[:key_end], line[value_start:]


def _unescape(text: str, lineno: int, key: str | None = None) -> str:
    if "\\" not in text:
        return text
    out: list[str] = []
    j = 0
    while j < len(text):
        ch = text[j]
        j += 1
        if ch != "\\":
            out.append(ch)
            continue
        if j >= len(text):
            break  # a lone trailing backslash stands for nothing
        ch = text[j]
        j += 1
        if ch == "u":
            digits = text[j:j + 4]
            if len(digits) != 4 or not re.fullmatch(r"[0-9A-Fa-f]{4}", digits):
                raise ConfigError(key, f"malformed \\uXXXX escape on line {lineno}")
            out.append(chr(int(digits, 16)))
            j += 4
        else:
            out.append(_PROPS_ESCAPES.get(ch, ch))
    return "".join(out)


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("iso-8859-1")


def load_properties(path: str | os.PathLike[str]) -> dict[str, str]:
    """Read a properties file (UTF-8, or ISO-8859-1 when not valid UTF-8)."""
    with open(path, "rb") as f:
        return parse_properties(_decode(f.read()))


def parse_overrides(
    overrides: Mapping[str, Any] | Iterable[str | tuple[str, Any]] | None,
) -> dict[str, Any]:
    """Overrides as a dict: a mapping as is, or `["key=value", ...]` (split at the first
    '='; the key is stripped, the value kept), or `[(key, value), ...]`."""
    if overrides is None:
        return {}
    if isinstance(overrides, Mapping):
        return {str(k).strip(): v for k, v in overrides.items()}
    if isinstance(overrides, (str, bytes)):
        raise TypeError("overrides must be a mapping or a list of 'key=value' strings")
    result: dict[str, Any] = {}
    for item in overrides:
        if isinstance(item, tuple) and len(item) == 2:
            key, value = item
        elif isinstance(item, str):
            key, sep, value = item.partition("=")
            if not sep or not key.strip():
                raise ConfigError(None, f"an override must look like key=value, got {item!r}")
        else:
            raise TypeError(f"an override must be 'key=value' or (key, value), got {item!r}")
        result[str(key).strip()] = value
    return result


# ---------------------------------------------------------------------------------------------
# Listeners

_LISTENER_RE = re.compile(
    r"(?P<name>[^:/,\s]+)://"                          # listener name
    r"(?:\[(?P<v6>[^\]]*)\]|(?P<host>[^:\[\]/]*))"    # [ipv6] or host (may be empty)
    r":(?P<port>-?[0-9]+)"
)


def _parse_protocol_map(text: str) -> dict[str, str]:
    result: dict[str, str] = {}
    for entry in (item for item in _LIST_SPLIT_RE.split(text.strip()) if item):
        name, sep, protocol = entry.partition(":")
        protocol = protocol.strip().upper()
        if not sep or not name.strip() or protocol not in SECURITY_PROTOCOLS:
            raise ConfigError(
                "listener.security.protocol.map",
                f"entry {entry!r} is not NAME:PROTOCOL with PROTOCOL one of "
                f"{', '.join(SECURITY_PROTOCOLS)}",
                text,
            )
        result[name.strip().upper()] = protocol
    return result


def _parse_endpoints(key: str, entries: list[str], protocols: Mapping[str, str]) -> list[Endpoint]:
    endpoints: list[Endpoint] = []
    for entry in entries:
        m = _LISTENER_RE.fullmatch(entry)
        if m is None:
            raise ConfigError(key, f"{entry!r} is not NAME://host:port", ",".join(entries))
        name = m.group("name").upper()
        host = m.group("v6") if m.group("v6") is not None else m.group("host")
        port = int(m.group("port"))
        if not 0 <= port <= 65535:
            raise ConfigError(key, f"port {port} of {name} is not in 0..65535", ",".join(entries))
        if name not in protocols:
            raise ConfigError(
                key,
                f"no security protocol for listener {name} in listener.security.protocol.map",
                ",".join(entries),
            )
        if any(e.listener_name == name for e in endpoints):
            raise ConfigError(key, f"listener {name} is given twice", ",".join(entries))
        endpoints.append(Endpoint(name, protocols[name], host, port))
    return endpoints


# ---------------------------------------------------------------------------------------------
# BrokerConfig


class BrokerConfig:
    """The broker's configuration: Kafka names in, typed snake_case attributes out. Immutable.

    Build it with `BrokerConfig.from_properties(file_or_text, overrides)`, or directly:
    `BrokerConfig({"log.dirs": tmp_path, "listeners": "PLAINTEXT://127.0.0.1:0"})` or
    `BrokerConfig(log_dirs=[tmp_path], num_partitions=3)` (keyword = name with '.' -> '_').
    A value of None means "not given". Values may be text or typed Python values.
    Every given value is a STATIC_BROKER_CONFIG for DescribeConfigs.
    """

    # -- identity and cluster roles --
    node_id: int
    broker_id: int                  # always equal to node_id
    cluster_id: str | None
    broker_rack: str | None
    process_roles: list[str]
    controller_quorum_voters: list[str]
    # -- network --
    listeners: list[str]
    advertised_listeners: list[str]  # resolved: listeners when not given
    listener_security_protocol_map: dict[str, str]
    controller_listener_names: list[str]
    inter_broker_listener_name: str | None
    socket_request_max_bytes: int
    socket_send_buffer_bytes: int
    socket_receive_buffer_bytes: int
    num_network_threads: int
    num_io_threads: int
    queued_max_requests: int
    connections_max_idle_ms: int
    # -- topics --
    num_partitions: int
    default_replication_factor: int
    auto_create_topics_enable: bool
    delete_topic_enable: bool
    min_insync_replicas: int
    unclean_leader_election_enable: bool
    message_max_bytes: int
    compression_type: str
    auto_leader_rebalance_enable: bool
    replica_lag_time_max_ms: int
    # -- log directories and segments --
    log_dirs: list[str]             # resolved: log.dirs, else log.dir
    log_dir: list[str]
    log_segment_bytes: int
    log_roll_ms: int                # resolved
    log_roll_hours: int
    log_roll_jitter_ms: int         # resolved
    log_roll_jitter_hours: int
    log_index_size_max_bytes: int
    log_index_interval_bytes: int
    log_preallocate: bool
    log_segment_delete_delay_ms: int
    # -- flushing --
    log_flush_interval_messages: int
    log_flush_interval_ms: int      # resolved
    log_flush_scheduler_interval_ms: int
    log_flush_offset_checkpoint_interval_ms: int
    log_flush_start_offset_checkpoint_interval_ms: int
    num_recovery_threads_per_data_dir: int
    # -- retention and cleaning --
    log_retention_ms: int           # resolved; -1 = unlimited
    log_retention_minutes: int | None
    log_retention_hours: int
    log_retention_bytes: int
    log_retention_check_interval_ms: int
    log_cleanup_policy: list[str]
    log_cleaner_enable: bool
    log_cleaner_delete_retention_ms: int
    log_cleaner_min_compaction_lag_ms: int
    log_cleaner_max_compaction_lag_ms: int
    log_cleaner_min_cleanable_ratio: float
    log_cleaner_backoff_ms: int
    # -- record timestamps --
    log_message_timestamp_type: str
    log_message_timestamp_difference_max_ms: int
    log_message_timestamp_before_max_ms: int
    log_message_timestamp_after_max_ms: int
    log_message_downconversion_enable: bool
    # -- consumer groups and offsets --
    offsets_topic_num_partitions: int
    offsets_topic_replication_factor: int
    offsets_topic_segment_bytes: int
    offsets_retention_minutes: int
    offsets_retention_check_interval_ms: int
    offsets_commit_timeout_ms: int
    offset_metadata_max_bytes: int
    group_initial_rebalance_delay_ms: int
    group_min_session_timeout_ms: int
    group_max_session_timeout_ms: int
    group_max_size: int
    # -- transactions and producer ids --
    transactional_id_expiration_ms: int
    transaction_max_timeout_ms: int
    transaction_state_log_num_partitions: int
    transaction_state_log_replication_factor: int
    transaction_state_log_min_isr: int
    transaction_state_log_segment_bytes: int
    transaction_abort_timed_out_transaction_cleanup_interval_ms: int
    transaction_remove_expired_transaction_cleanup_interval_ms: int
    producer_id_expiration_ms: int
    # -- fetch --
    max_incremental_fetch_session_cache_slots: int
    fetch_max_bytes: int

    def __init__(self, props: Mapping[str, Any] | None = None, /, **kwargs: Any):
        supplied: dict[str, Any] = {}
        for name, value in (props or {}).items():
            if value is not None:
                supplied[str(name).strip()] = value
        for attribute, value in kwargs.items():
            name = attribute.replace("_", ".")
            if name not in CONFIG_KEYS:
                raise TypeError(f"BrokerConfig() got an unknown config keyword {attribute!r}")
            if value is not None:
                supplied[name] = value
        own: dict[str, Any] = {}
        for name, key in CONFIG_KEYS.items():
            own[name] = key.parse(supplied[name]) if name in supplied else key.default
        unknown = {name: str(value) for name, value in supplied.items() if name not in CONFIG_KEYS}
        if unknown:
            log.warning(
                "ignoring unknown broker config%s: %s",
                "s" if len(unknown) > 1 else "",
                ", ".join(sorted(unknown)),
            )
        object.__setattr__(self, "_supplied", supplied)
        object.__setattr__(self, "_own", own)
        object.__setattr__(self, "_unknown", unknown)
        effective = self._resolve(own)
        object.__setattr__(self, "_effective", effective)
        for name, key in CONFIG_KEYS.items():
            object.__setattr__(self, key.attribute, effective[name])

    # -- building --

    @classmethod
    def from_properties(
        cls,
        source: str | bytes | os.PathLike[str] | None = None,
        overrides: Mapping[str, Any] | Iterable[str] | None = None,
    ) -> BrokerConfig:
        """A config from a `server.properties` file or text, then overrides on top.

        `source`: a path (str or PathLike), properties text (str or bytes), or None. A str
        is read as text when it has several lines or contains '=' and is not an existing
        file; otherwise it is a path. `overrides`: a dict, or `["key=value", ...]` as given
        to `pylog serve --override`.
        """
        props: dict[str, Any] = {}
        if source is None:
            pass
        elif isinstance(source, (bytes, bytearray)):
            props = parse_properties(_decode(bytes(source)))
        elif isinstance(source, os.PathLike):
            props = load_properties(source)
        elif isinstance(source, str):
            one_line = "\n" not in source and "\r" not in source
            if one_line and os.path.isfile(source):
                props = load_properties(source)
            elif one_line and "=" not in source and source.strip():
                props = load_properties(source)  # a path that does not exist: let open() say so
            else:
                props = parse_properties(source)
        else:
            raise TypeError(f"from_properties() takes a path or text, got {type(source).__name__}")
        props.update(parse_overrides(overrides))
        return cls(props)

    @classmethod
    def from_text(cls, text: str, overrides: Mapping[str, Any] | Iterable[str] | None = None
                  ) -> BrokerConfig:
        """A config from properties text (never taken for a path)."""
        props: dict[str, Any] = parse_properties(text)
        props.update(parse_overrides(overrides))
        return cls(props)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str],
                  overrides: Mapping[str, Any] | Iterable[str] | None = None) -> BrokerConfig:
        """A config from a properties file."""
        props: dict[str, Any] = load_properties(path)
        props.update(parse_overrides(overrides))
        return cls(props)

    def with_overrides(self, overrides: Mapping[str, Any] | Iterable[str]) -> BrokerConfig:
        """A new config: this one's given values with `overrides` on top (None removes one)."""
        props = dict(self._supplied)
        for name, value in parse_overrides(overrides).items():
            props.pop(name, None)
            if value is not None:
                props[name] = value
        return BrokerConfig(props)

    # -- reading --

    def get(self, name: str, default: Any = None) -> Any:
        """The value of a config by Kafka name: the same as its attribute (typed, resolved as
        described in the module docstring). For an unknown name that was given, its text;
        for any other name, `default`."""
        if name in CONFIG_KEYS:
            return _copy(self._effective[name])
        return self._unknown.get(name, default)

    def __getitem__(self, name: str) -> Any:
        if name in CONFIG_KEYS:
            return _copy(self._effective[name])
        return self._unknown[name]

    def __contains__(self, name: object) -> bool:
        return name in CONFIG_KEYS or name in self._unknown

    def is_set(self, name: str) -> bool:
        """Whether `name` was given (in the file, an override or the constructor)."""
        return name in self._supplied

    def source(self, name: str) -> ConfigSource:
        """Where the value of a known name comes from."""
        if name not in CONFIG_KEYS:
            if name in self._unknown:
                return ConfigSource.STATIC_BROKER_CONFIG
            return ConfigSource.UNKNOWN
        if name in ("node.id", "broker.id"):
            given = self.is_set("node.id") or self.is_set("broker.id")
        else:
            given = self.is_set(name)
        return ConfigSource.STATIC_BROKER_CONFIG if given else ConfigSource.DEFAULT_CONFIG

    @property
    def unknown(self) -> dict[str, str]:
        """The names given that pylog does not know, with their text."""
        return dict(self._unknown)

    @property
    def supplied(self) -> dict[str, Any]:
        """Every name given, as given (before parsing)."""
        return dict(self._supplied)

    def to_dict(self, include_unknown: bool = False) -> dict[str, Any]:
        """Every known name -> its effective typed value (plus unknown names' text)."""
        result = {name: _copy(value) for name, value in self._effective.items()}
        if include_unknown:
            result.update(self._unknown)
        return result

    def describe(self, names: Iterable[str] | None = None) -> list[ConfigRow]:
        """DescribeConfigs rows for this broker, sorted by name: (name, value, is_default,
        source). As in Kafka, each name reports its own value (`log.retention.ms` is None
        unless given; `log.retention.hours` is "168"), values are strings as Kafka prints
        them, and the source is STATIC_BROKER_CONFIG for given names, DEFAULT_CONFIG
        otherwise. `names` limits the rows to those names (unknown ones are skipped)."""
        wanted = None if names is None else set(names)
        rows = []
        for name in sorted(CONFIG_KEYS):
            key = CONFIG_KEYS[name]
            if key.pylog_only or (wanted is not None and name not in wanted):
                continue
            source = self.source(name)
            rows.append(ConfigRow(name, self._own_text(name), source is ConfigSource.DEFAULT_CONFIG,
                                  source))
        return rows

    def synonyms(self, name: str) -> list[ConfigSynonym]:
        """DescribeConfigs synonyms of a name, highest precedence first: for each name of its
        group (e.g. log.retention.ms, .minutes, .hours) the given value, then the default."""
        result: list[ConfigSynonym] = []
        for synonym in _SYNONYMS_OF.get(name, (name,)):
            key = CONFIG_KEYS.get(synonym)
            if key is None:
                continue
            if self.is_set(synonym):
                result.append(ConfigSynonym(synonym, self._own_text(synonym),
                                            ConfigSource.STATIC_BROKER_CONFIG))
            if key.default is not None:
                result.append(ConfigSynonym(synonym, key.format(key.default),
                                            ConfigSource.DEFAULT_CONFIG))
        return result

    def topic_defaults(self, as_strings: bool = False) -> dict[str, Any]:
        """The defaults this broker gives every topic, under topic config names: Kafka's
        broker-to-topic synonyms (log.segment.bytes -> segment.bytes, log.roll.ms ->
        segment.ms, message.max.bytes -> max.message.bytes, ...), with units converted
        (log.roll.hours -> segment.ms in ms). Typed values, or Kafka's text with
        `as_strings=True`. A topic's own configs override these."""
        result: dict[str, Any] = {}
        for topic_name, synonyms in TOPIC_CONFIG_SYNONYMS.items():
            broker_name = synonyms[0][0]
            value = _copy(self._effective[broker_name])
            if as_strings:
                value = CONFIG_KEYS[broker_name].format(value)
            result[topic_name] = value
        return result

    # -- listeners --

    def listener_endpoints(self) -> list[Endpoint]:
        """All `listeners`, parsed (listener names upper-cased, as Kafka normalises them)."""
        return list(self._listener_endpoints)

    def advertised_endpoints(self) -> list[Endpoint]:
        """The advertised endpoints of the client (non-controller) listeners: from
        `advertised.listeners`, or `listeners` when it is not given. Hosts as configured."""
        return list(self._advertised)

    def listener_endpoint(self) -> Endpoint:
        """The client listener pylog serves: the first PLAINTEXT listener whose name is not
        in `controller.listener.names`."""
        return self._client_listener

    def listener_address(self) -> tuple[str, int]:
        """(host, port) to bind: the client listener's. "" binds every interface; port 0
        asks the OS for a free port."""
        endpoint = self._client_listener
        return endpoint.host, endpoint.port

    def advertised_address(self, bound_port: int | None = None) -> tuple[str, int]:
        """(host, port) to give clients for the client listener. A wildcard host becomes this
        machine's host name; port 0 becomes `bound_port` when it is given (the port the
        socket got)."""
        endpoint = next(e for e in self._advertised
                        if e.listener_name == self._client_listener.listener_name)
        host = endpoint.host
        if host in _WILDCARD_HOSTS:
            host = socket.gethostname()
        port = endpoint.port
        if port == 0 and bound_port is not None:
            port = bound_port
        return host, port

    # -- internals --

    def _own_text(self, name: str) -> str | None:
        key = CONFIG_KEYS[name]
        if name in ("node.id", "broker.id"):
            return key.format(self._effective[name])
        return key.format(self._own[name])

    def _resolve(self, own: dict[str, Any]) -> dict[str, Any]:
        """Apply Kafka's cross-key rules; return every name's effective value."""
        eff = dict(own)

        # node.id / broker.id
        node_id = own["node.id"] if self.is_set("node.id") else None
        broker_id = own["broker.id"] if self.is_set("broker.id") else None
        if node_id is not None and broker_id is not None and node_id != broker_id:
            raise ConfigError("node.id", f"node.id ({node_id}) and broker.id ({broker_id}) "
                              "must be the same when both are set")
        resolved_id = node_id if node_id is not None else broker_id
        if resolved_id is None:
            resolved_id = CONFIG_KEYS["node.id"].default
        eff["node.id"] = eff["broker.id"] = resolved_id

        # log.dirs / log.dir
        dirs = own["log.dirs"] if own["log.dirs"] is not None else own["log.dir"]
        if not dirs:
            raise ConfigError("log.dirs", "at least one log directory is needed "
                              "(log.dirs or log.dir)")
        eff["log.dirs"] = dirs

        # the most specific time unit wins
        roll = own["log.roll.ms"]
        if roll is None:
            roll = own["log.roll.hours"] * MS_PER_HOUR
        if roll < 1:
            raise ConfigError("log.roll.ms", "must be at least 1", roll)
        eff["log.roll.ms"] = roll

        jitter = own["log.roll.jitter.ms"]
        if jitter is None:
            jitter = own["log.roll.jitter.hours"] * MS_PER_HOUR
        if jitter < 0:
            raise ConfigError("log.roll.jitter.ms", "must be at least 0", jitter)
        eff["log.roll.jitter.ms"] = jitter

        retention = own["log.retention.ms"]
        if retention is None:
            if own["log.retention.minutes"] is not None:
                retention = own["log.retention.minutes"] * MS_PER_MINUTE
            else:
                retention = own["log.retention.hours"] * MS_PER_HOUR
        if retention < 0:
            retention = -1
        if retention == 0:
            raise ConfigError("log.retention.ms", "must be -1 (unlimited) or at least 1", 0)
        eff["log.retention.ms"] = retention

        flush_ms = own["log.flush.interval.ms"]
        if flush_ms is None:
            flush_ms = own["log.flush.scheduler.interval.ms"]
        eff["log.flush.interval.ms"] = flush_ms

        # listeners
        protocols = _parse_protocol_map(own["listener.security.protocol.map"])
        controller_names = [n.upper() for n in (own["controller.listener.names"] or [])]
        eff["controller.listener.names"] = controller_names
        if not self.is_set("listener.security.protocol.map"):
            # Kafka maps controller listeners missing from a default map to PLAINTEXT.
            for name in controller_names:
                protocols.setdefault(name, "PLAINTEXT")
        eff["listener.security.protocol.map"] = protocols

        listeners = _parse_endpoints("listeners", own["listeners"], protocols)
        if not listeners:
            raise ConfigError("listeners", "at least one listener is needed")
        ports = [e.port for e in listeners if e.port != 0]
        if len(ports) != len(set(ports)):
            raise ConfigError("listeners", "each listener needs its own port",
                              ",".join(own["listeners"]))
        client = [e for e in listeners
                  if e.security_protocol == "PLAINTEXT" and e.listener_name not in controller_names]
        if not client:
            raise ConfigError("listeners", "pylog needs a PLAINTEXT listener for clients "
                              "(one not named in controller.listener.names)",
                              ",".join(own["listeners"]))

        if own["advertised.listeners"] is not None:
            advertised = _parse_endpoints("advertised.listeners", own["advertised.listeners"],
                                          protocols)
            names = {e.listener_name for e in listeners}
            for endpoint in advertised:
                if endpoint.listener_name not in names:
                    raise ConfigError("advertised.listeners",
                                      f"listener {endpoint.listener_name} is not in listeners",
                                      ",".join(own["advertised.listeners"]))
                if endpoint.host == "0.0.0.0":
                    raise ConfigError("advertised.listeners",
                                      "cannot advertise 0.0.0.0; give a host clients can reach",
                                      ",".join(own["advertised.listeners"]))
            advertised = [e for e in advertised if e.listener_name not in controller_names]
            if not any(e.listener_name == client[0].listener_name for e in advertised):
                raise ConfigError("advertised.listeners",
                                  f"no entry for the client listener {client[0].listener_name}",
                                  ",".join(own["advertised.listeners"]))
            eff["advertised.listeners"] = own["advertised.listeners"]
        else:
            advertised = [e for e in listeners if e.listener_name not in controller_names]
            eff["advertised.listeners"] = list(own["listeners"])

        object.__setattr__(self, "_listener_endpoints", listeners)
        object.__setattr__(self, "_client_listener", client[0])
        object.__setattr__(self, "_advertised", advertised)
        return eff

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("BrokerConfig is immutable; use with_overrides()")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("BrokerConfig is immutable")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BrokerConfig):
            return NotImplemented
        return self._effective == other._effective and self._unknown == other._unknown

    __hash__ = None  # type: ignore[assignment]

    def __iter__(self) -> Iterator[str]:
        return iter(CONFIG_KEYS)

    def __repr__(self) -> str:
        given = ", ".join(f"{name!r}: {value!r}" for name, value in self._supplied.items())
        return f"BrokerConfig({{{given}}})"


def _copy(value: Any) -> Any:
    if isinstance(value, list):
        return list(value)
    if isinstance(value, dict):
        return dict(value)
    return value
