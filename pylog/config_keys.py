"""The broker's config names: Kafka's names, types, defaults and valid ranges, one table.

`CONFIG_KEYS` maps every broker config name pylog knows to its `ConfigKey`
(`storage/config_def.py`); BrokerConfig's attributes are made from it (`log.segment.bytes`
-> `cfg.log_segment_bytes`). A broker name that is the server default of a topic config in
the same unit (`log.segment.bytes` for `segment.bytes`, Kafka's `ServerTopicConfigSynonyms`)
is made from the topic key in `storage/config.py`, so the pair's type, default and range are
written once; the names in another unit (`log.roll.hours`, `log.retention.minutes`) have
their own keys. `TOPIC_CONFIG_SYNONYMS` says which broker names give each topic config's
default, and in which unit.

Defaults are Kafka 3.9's (KRaft) but where `kafka_default` says otherwise (README, "Where
pylog's defaults differ from Kafka's") and `log.message.timestamp.after.max.ms`, whose
default is Kafka 4's one hour, as for the topic config.

`acted_on=False` marks the names pylog accepts, validates and reports in DescribeConfigs
but does not act on yet: the JVM broker's thread, buffer and cluster-role settings, and
those of features pylog does not have yet (compaction, replication,
transactions, fetch sessions). `not_acted_on()` lists them, and `pylog serve` logs the
ones given with another value than the default.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from storage.config import CONFIG_KEYS as TOPIC_CONFIG_KEYS
from storage.config_def import (
    INT_MAX,
    LONG_MAX,
    MS_PER_HOUR,
    MS_PER_MINUTE,
    ConfigKey,
    Type,
    at_least,
    between,
    each_of,
    parse_value,
    validator_from_kafka,
)

from pylog.kafka_broker_configs import BROKER_CONFIGS as KAFKA_BROKER_CONFIGS
from pylog.kafka_broker_configs import INTERNAL
from pylog.connection_quotas import NO_BOUND
from pylog.listen_sockets import LISTEN_BACKLOG

__all__ = ["CONFIG_KEYS", "TOPIC_CONFIG_SYNONYMS", "BROKER_TO_TOPIC_NAMES", "SYNONYM_GROUPS",
           "FROM_KAFKA_TABLE", "KAFKA_DYNAMIC_MODES", "not_acted_on"]


def _cluster_id(value: Any) -> str | None:
    if value is not None and not re.fullmatch(r"[A-Za-z0-9_-]+", value):
        return "must be a non-empty base64url string, like the ids of `kafka-storage random-uuid`"
    return None


def _topic(topic_name: str, broker_name: str | None = None, **changes: Any) -> ConfigKey:
    """The broker synonym of a topic config: its definition under the broker's name."""
    return TOPIC_CONFIG_KEYS[topic_name].renamed(broker_name or topic_name, **changes)


_I, _L, _S, _D, _B, _STR, _LIST, _CSV = (
    Type.INT, Type.LONG, Type.SHORT, Type.DOUBLE, Type.BOOLEAN, Type.STRING, Type.LIST, Type.CSV
)
_NOT_YET = {"acted_on": False}

_KEYS: tuple[ConfigKey, ...] = (
    # -- identity and cluster roles --
    ConfigKey("node.id", _I, 1, "This broker's id (KRaft). Same setting as broker.id.",
              at_least(0), kafka_default=-1),
    ConfigKey("broker.id", _I, None, "Older name of node.id; when both are set they must agree.",
              at_least(0), kafka_default=-1),
    ConfigKey("cluster.id", _STR, None, "The cluster id to use when the data directories have "
              "none yet (else meta.properties decides). pylog only.", _cluster_id,
              pylog_only=True),
    ConfigKey("broker.rack", _STR, None, "Rack of this broker.", **_NOT_YET),
    ConfigKey("process.roles", _LIST, ["broker", "controller"],
              "Roles of this node: broker, controller, or both (one process, the single-node "
              "default).", each_of("broker", "controller"), kafka_default=[]),
    ConfigKey("controller.quorum.voters", _LIST, [],
              "The controller quorum, id@host:port (pylog: one voter)."),
    ConfigKey("controller.quorum.bootstrap.servers", _LIST, [],
              "host:port of the controller(s), for a broker-only node."),
    ConfigKey("broker.session.timeout.ms", _I, 1000,
              "A broker not heard from for this long is fenced and loses leadership.",
              at_least(1), kafka_default=9000),
    ConfigKey("broker.heartbeat.interval.ms", _I, 200,
              "How often a broker heartbeats to the controller.", at_least(1), kafka_default=2000),
    ConfigKey("initial.broker.registration.timeout.ms", _I, 60000,
              "How long a starting broker tries to register with the controller before it "
              "gives up.", at_least(1)),
    ConfigKey("metadata.log.dir", _STR, None,
              "Directory of __cluster_metadata (else the first of log.dirs)."),
    ConfigKey("leader.imbalance.check.interval.seconds", _L, 300,
              "How often the controller checks for partitions off their preferred leader.",
              at_least(1)),
    ConfigKey("num.replica.fetchers", _I, 1, "Fetcher tasks per source broker.", at_least(1)),
    ConfigKey("replica.fetch.max.bytes", _I, 1024 * 1024,
              "Bytes a follower asks for per partition.", at_least(0)),
    ConfigKey("replica.fetch.response.max.bytes", _I, 10 * 1024 * 1024,
              "Bytes a follower asks for per fetch.", at_least(0)),
    ConfigKey("replica.fetch.wait.max.ms", _I, 500, "Longest wait of a follower's fetch.",
              at_least(0)),
    ConfigKey("replica.fetch.min.bytes", _I, 1, "Bytes a follower's fetch waits for.",
              at_least(1)),
    ConfigKey("replica.fetch.backoff.ms", _I, 1000,
              "Sleep of a follower after a fetch error.", at_least(0)),
    ConfigKey("replica.socket.timeout.ms", _I, 30000, "Timeout of a follower's fetch request.",
              at_least(1)),
    ConfigKey("replica.socket.receive.buffer.bytes", _I, 64 * 1024,
              "SO_RCVBUF of a follower's connection to its leader (-1: the OS's)."),
    # -- network --
    ConfigKey("listeners", _CSV, ["PLAINTEXT://127.0.0.1:9092"],
              "Addresses to listen on, NAME://host:port, comma-separated; port 0 picks a free "
              "port.", kafka_default=["PLAINTEXT://:9092"]),
    ConfigKey("advertised.listeners", _CSV, None,
              "Addresses given to clients in Metadata; defaults to listeners."),
    ConfigKey("listener.security.protocol.map", _STR,
              "SASL_SSL:SASL_SSL,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT",
              "Listener name to security protocol, NAME:PROTOCOL, comma-separated."),
    ConfigKey("controller.listener.names", _CSV, None,
              "Listener names used by the controller only (not offered to clients)."),
    ConfigKey("inter.broker.listener.name", _STR, None, "Listener used between brokers.",
              **_NOT_YET),
    ConfigKey("socket.request.max.bytes", _I, 100 * 1024 * 1024,
              "Largest request frame accepted; a larger one closes the connection.",
              at_least(1)),
    ConfigKey("socket.send.buffer.bytes", _I, 100 * 1024,
              "SO_SNDBUF of each accepted socket (-1: the OS's)."),
    ConfigKey("socket.receive.buffer.bytes", _I, 100 * 1024,
              "SO_RCVBUF of the listening socket, inherited by those it accepts (-1: the OS's)."),
    ConfigKey("socket.listen.backlog.size", _I, LISTEN_BACKLOG,
              "Connections the kernel has completed that the broker has not accepted yet.", at_least(1)),
    ConfigKey("num.network.threads", _I, 3, "JVM network threads.", at_least(1), **_NOT_YET),
    ConfigKey("num.io.threads", _I, 8, "JVM request threads.", at_least(1), **_NOT_YET),
    ConfigKey("queued.max.requests", _I, 500, "Request queue length.", at_least(1), **_NOT_YET),
    ConfigKey("connections.max.idle.ms", _L, 10 * 60 * 1000,
              "A connection with no request in and no response out for this long is closed "
              "(-1: never)."),
    ConfigKey("max.connections.per.ip", _I, NO_BOUND,
              "Connections one client address may hold; one more is closed at once.", at_least(0)),
    ConfigKey("max.connections.per.ip.overrides", _STR, "",
              "Per-address maximums, host:count,host:count; the others take max.connections.per.ip."),
    ConfigKey("queued.max.request.bytes", _L, -1,
              "Bytes of requests held across all connections before they stop reading (-1: no "
              "bound)."),
    # -- topics --
    ConfigKey("num.partitions", _I, 1, "Partitions of an auto-created topic, and of a created "
              "topic that does not say.", at_least(1)),
    ConfigKey("default.replication.factor", _I, 1, "Replication factor of auto-created topics.",
              at_least(1)),
    ConfigKey("auto.create.topics.enable", _B, True,
              "Create a topic when a client asks Metadata for an unknown one."),
    ConfigKey("delete.topic.enable", _B, True, "Allow DeleteTopics."),
    _topic("min.insync.replicas"),
    _topic("unclean.leader.election.enable"),
    _topic("max.message.bytes", "message.max.bytes",
           doc="Largest record batch accepted (topic: max.message.bytes)."),
    _topic("compression.type"),
    _topic("compression.gzip.level"),
    _topic("compression.lz4.level"),
    _topic("compression.zstd.level"),
    _topic("local.retention.ms", "log.local.retention.ms"),
    _topic("local.retention.bytes", "log.local.retention.bytes"),
    ConfigKey("auto.leader.rebalance.enable", _B, True,
              "Move leadership back to preferred replicas."),
    ConfigKey("replica.lag.time.max.ms", _L, 30000,
              "A follower this far behind leaves the ISR."),
    ConfigKey("replica.high.watermark.checkpoint.interval.ms", _L, 5000,
              "How often replication-offset-checkpoint (the high watermarks) is written."),
    # -- log directories and segments --
    ConfigKey("log.dirs", _CSV, None, "Data directories, comma-separated; wins over log.dir."),
    ConfigKey("log.dir", _CSV, ["./pylog-data"], "Data directory used when log.dirs is not set.",
              kafka_default=["/tmp/kafka-logs"]),
    _topic("segment.bytes", "log.segment.bytes"),
    _topic("segment.ms", "log.roll.ms", default=None, validator=None,   # KafkaConfig requires it >= 1
           doc="Age at which a segment rolls; wins over log.roll.hours."),
    ConfigKey("log.roll.hours", _I, 24 * 7, "Age at which a segment rolls, in hours.",
              at_least(1)),
    _topic("segment.jitter.ms", "log.roll.jitter.ms", default=None, validator=None,   # required >= 0
           doc="Most random time taken off the roll age; wins over log.roll.jitter.hours."),
    ConfigKey("log.roll.jitter.hours", _I, 0, "Roll jitter, in hours.", at_least(0)),
    _topic("segment.index.bytes", "log.index.size.max.bytes"),
    _topic("index.interval.bytes", "log.index.interval.bytes"),
    _topic("preallocate", "log.preallocate"),
    _topic("file.delete.delay.ms", "log.segment.delete.delay.ms"),
    # -- flushing --
    _topic("flush.messages", "log.flush.interval.messages"),
    _topic("flush.ms", "log.flush.interval.ms", default=None,
           doc="Age of unflushed data after which a partition is fsynced; wins over "
               "log.flush.scheduler.interval.ms."),
    ConfigKey("log.flush.scheduler.interval.ms", _L, LONG_MAX,
              "How often logs are checked for flushing."),
    ConfigKey("log.flush.offset.checkpoint.interval.ms", _I, 60000,
              "How often the recovery point is checkpointed (pylog: every 60 s).",
              at_least(0), **_NOT_YET),
    ConfigKey("log.flush.start.offset.checkpoint.interval.ms", _I, 60000,
              "How often log start offsets are checkpointed.", at_least(0), **_NOT_YET),
    ConfigKey("num.recovery.threads.per.data.dir", _I, 2,
              "Threads that flush and close the logs at a clean stop (pylog loads them on one "
              "thread).", at_least(1)),
    # -- retention and cleaning --
    ConfigKey("log.retention.ms", _L, None,
              "Age after which a segment is deleted (-1: never); wins over minutes and hours."),
    ConfigKey("log.retention.minutes", _I, None, "Retention in minutes; wins over hours."),
    ConfigKey("log.retention.hours", _I, 24 * 7, "Retention in hours."),
    _topic("retention.bytes", "log.retention.bytes"),
    ConfigKey("log.retention.check.interval.ms", _L, 5 * 60 * 1000,
              "How often retention is applied.", at_least(1)),
    _topic("cleanup.policy", "log.cleanup.policy", default=["delete"]),
    ConfigKey("log.cleaner.enable", _B, True, "Run compaction for compacted topics."),
    ConfigKey("log.cleaner.threads", _I, 1, "Cleaning passes run at once, each on its own thread.", at_least(0)),
    ConfigKey("log.cleaner.dedupe.buffer.size", _L, 128 * 1024 * 1024,
              "Memory for the key -> offset map of a cleaning pass."),
    _topic("delete.retention.ms", "log.cleaner.delete.retention.ms"),
    _topic("min.compaction.lag.ms", "log.cleaner.min.compaction.lag.ms"),
    _topic("max.compaction.lag.ms", "log.cleaner.max.compaction.lag.ms"),
    _topic("min.cleanable.dirty.ratio", "log.cleaner.min.cleanable.ratio"),
    ConfigKey("log.cleaner.backoff.ms", _L, 15000, "Cleaner sleep when idle.", at_least(0)),
    # -- record timestamps --
    _topic("message.timestamp.type", "log.message.timestamp.type"),
    _topic("message.timestamp.before.max.ms", "log.message.timestamp.before.max.ms"),
    _topic("message.timestamp.after.max.ms", "log.message.timestamp.after.max.ms"),
    # -- consumer groups and offsets --
    ConfigKey("offsets.topic.num.partitions", _I, 50, "Partitions of __consumer_offsets.",
              at_least(1)),
    ConfigKey("offsets.topic.replication.factor", _S, 3, "Replication of __consumer_offsets; "
              "pylog caps it at the number of brokers registered.", at_least(1)),
    ConfigKey("offsets.topic.segment.bytes", _I, 100 * 1024 * 1024,
              "Segment size of __consumer_offsets.", at_least(1)),
    ConfigKey("offsets.retention.minutes", _I, 7 * 24 * 60,
              "How long committed offsets of an empty group are kept.", at_least(1)),
    ConfigKey("offsets.retention.check.interval.ms", _L, 600000,
              "How often expired offsets are removed.", at_least(1)),
    ConfigKey("offsets.commit.timeout.ms", _I, 5000,
              "Longest wait for an offset commit to be replicated.", at_least(1)),
    ConfigKey("offset.metadata.max.bytes", _I, 4096,
              "Longest metadata string of a committed offset."),
    ConfigKey("group.initial.rebalance.delay.ms", _I, 0,
              "Wait for more members before a new group's first rebalance.", at_least(0),
              kafka_default=3000),
    ConfigKey("group.min.session.timeout.ms", _I, 6000, "Shortest session timeout accepted.",
              at_least(0)),
    ConfigKey("group.max.session.timeout.ms", _I, 1800000, "Longest session timeout accepted.",
              at_least(0)),
    ConfigKey("group.max.size", _I, INT_MAX, "Most members of one group.", at_least(1)),
    # -- the groups of the consumer (KIP-848), share and streams protocols (not served yet):
    # the defaults and bounds of the GROUP config resources (pylog/group_configs.py)
    ConfigKey("group.consumer.session.timeout.ms", _I, 45000,
              "Consumer group session timeout, the default of a group's own.", at_least(1), **_NOT_YET),
    ConfigKey("group.consumer.min.session.timeout.ms", _I, 45000,
              "Shortest consumer group session timeout.", at_least(1), **_NOT_YET),
    ConfigKey("group.consumer.max.session.timeout.ms", _I, 60000,
              "Longest consumer group session timeout.", at_least(1), **_NOT_YET),
    ConfigKey("group.consumer.heartbeat.interval.ms", _I, 5000,
              "Consumer group heartbeat interval, the default of a group's own.", at_least(1), **_NOT_YET),
    ConfigKey("group.consumer.min.heartbeat.interval.ms", _I, 5000,
              "Shortest consumer group heartbeat interval.", at_least(1), **_NOT_YET),
    ConfigKey("group.consumer.max.heartbeat.interval.ms", _I, 15000,
              "Longest consumer group heartbeat interval.", at_least(1), **_NOT_YET),
    ConfigKey("group.share.session.timeout.ms", _I, 45000,
              "Share group session timeout, the default of a group's own.", at_least(1), **_NOT_YET),
    ConfigKey("group.share.min.session.timeout.ms", _I, 45000,
              "Shortest share group session timeout.", at_least(1), **_NOT_YET),
    ConfigKey("group.share.max.session.timeout.ms", _I, 60000,
              "Longest share group session timeout.", at_least(1), **_NOT_YET),
    ConfigKey("group.share.heartbeat.interval.ms", _I, 5000,
              "Share group heartbeat interval, the default of a group's own.", at_least(1), **_NOT_YET),
    ConfigKey("group.share.min.heartbeat.interval.ms", _I, 5000,
              "Shortest share group heartbeat interval.", at_least(1), **_NOT_YET),
    ConfigKey("group.share.max.heartbeat.interval.ms", _I, 15000,
              "Longest share group heartbeat interval.", at_least(1), **_NOT_YET),
    ConfigKey("group.share.record.lock.duration.ms", _I, 30000,
              "Share group record lock duration, the default of a group's own.", between(1000, 3600000),
              **_NOT_YET),
    ConfigKey("group.share.min.record.lock.duration.ms", _I, 15000,
              "Shortest share group record lock duration.", between(1000, 30000), **_NOT_YET),
    ConfigKey("group.share.max.record.lock.duration.ms", _I, 60000,
              "Longest share group record lock duration.", between(30000, 3600000), **_NOT_YET),
    ConfigKey("group.streams.session.timeout.ms", _I, 45000,
              "Streams group session timeout, the default of a group's own.", at_least(1), **_NOT_YET),
    ConfigKey("group.streams.min.session.timeout.ms", _I, 45000,
              "Shortest streams group session timeout.", at_least(1), **_NOT_YET),
    ConfigKey("group.streams.max.session.timeout.ms", _I, 60000,
              "Longest streams group session timeout.", at_least(1), **_NOT_YET),
    ConfigKey("group.streams.heartbeat.interval.ms", _I, 5000,
              "Streams group heartbeat interval, the default of a group's own.", at_least(1), **_NOT_YET),
    ConfigKey("group.streams.min.heartbeat.interval.ms", _I, 5000,
              "Shortest streams group heartbeat interval.", at_least(1), **_NOT_YET),
    ConfigKey("group.streams.max.heartbeat.interval.ms", _I, 15000,
              "Longest streams group heartbeat interval.", at_least(1), **_NOT_YET),
    ConfigKey("group.streams.num.standby.replicas", _I, 0,
              "Standby replicas of a streams group, the default of a group's own.", at_least(0), **_NOT_YET),
    ConfigKey("group.streams.max.standby.replicas", _I, 2,
              "Most standby replicas of a streams group.", at_least(0), **_NOT_YET),
    # -- transactions and producer ids --
    ConfigKey("transactional.id.expiration.ms", _I, 7 * 24 * MS_PER_HOUR,
              "A transactional id unused this long is forgotten.", at_least(1), **_NOT_YET),
    ConfigKey("transaction.max.timeout.ms", _I, 15 * MS_PER_MINUTE,
              "Longest transaction timeout a producer may ask for.", at_least(1), **_NOT_YET),
    ConfigKey("transaction.state.log.num.partitions", _I, 50,
              "Partitions of __transaction_state.", at_least(1), **_NOT_YET),
    ConfigKey("transaction.state.log.replication.factor", _S, 3,
              "Replication of __transaction_state; pylog caps it at the number of brokers "
              "registered.", at_least(1)),
    ConfigKey("transaction.state.log.min.isr", _I, 1, "min.insync.replicas of "
              "__transaction_state.", at_least(1), kafka_default=2, **_NOT_YET),
    ConfigKey("transaction.state.log.segment.bytes", _I, 100 * 1024 * 1024,
              "Segment size of __transaction_state.", at_least(1), **_NOT_YET),
    ConfigKey("transaction.abort.timed.out.transaction.cleanup.interval.ms", _I, 10000,
              "How often timed-out transactions are aborted.", at_least(1), **_NOT_YET),
    ConfigKey("transaction.remove.expired.transaction.cleanup.interval.ms", _I, MS_PER_HOUR,
              "How often expired transactional ids are removed.", at_least(1), **_NOT_YET),
    ConfigKey("producer.id.expiration.ms", _I, 24 * MS_PER_HOUR,
              "A partition forgets an idle producer id after this long.", at_least(1)),
    # -- fetch --
    ConfigKey("max.incremental.fetch.session.cache.slots", _I, 1000,
              "Most incremental fetch sessions kept.", at_least(0), **_NOT_YET),
    ConfigKey("fetch.max.bytes", _I, 55 * 1024 * 1024,
              "Most record bytes in a Fetch answer, whatever the client asks (but for a first"
              " batch larger than that).", at_least(1024)),
)

_KAFKA_TYPES = {t.name: t for t in Type if t is not Type.CSV}
_KAFKA_ONLY_DOC = ("A config of Apache Kafka's broker that pylog accepts, validates and reports "
                   "but does not act on.")


def _kafka_key(name: str, type_name: str, default: str | None, validator: str | None) -> ConfigKey:
    """A name of Kafka's table that pylog does not define: Kafka's type, default and
    validator, not acted on."""
    type_ = _KAFKA_TYPES[type_name]
    return ConfigKey(name, type_, None if default is None else parse_value(name, type_, default),
                     _KAFKA_ONLY_DOC, validator_from_kafka(validator, type_), acted_on=False,
                     internal=name in INTERNAL)


_OWN_NAMES = {key.name for key in _KEYS}

# The names of Kafka's table that pylog takes as they are (pylog/kafka_broker_configs.py).
FROM_KAFKA_TABLE: frozenset[str] = frozenset(
    row[0] for row in KAFKA_BROKER_CONFIGS if row[0] not in _OWN_NAMES)

CONFIG_KEYS: Mapping[str, ConfigKey] = dict(sorted(
    {**{key.name: key for key in _KEYS},
     **{name: _kafka_key(name, type_name, default, validator)
        for name, type_name, default, validator, _ in KAFKA_BROKER_CONFIGS if name in FROM_KAFKA_TABLE}}.items()))

# How Kafka lets each name be updated dynamically: "per-broker" or "cluster-wide" (absent: read-only).
KAFKA_DYNAMIC_MODES: Mapping[str, str] = {
    name: dynamic for name, _, _, _, dynamic in KAFKA_BROKER_CONFIGS if dynamic is not None}

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
    "message.timestamp.before.max.ms": (("log.message.timestamp.before.max.ms", 1),),
    "message.timestamp.after.max.ms": (("log.message.timestamp.after.max.ms", 1),),
    "compression.gzip.level": (("compression.gzip.level", 1),),
    "compression.lz4.level": (("compression.lz4.level", 1),),
    "compression.zstd.level": (("compression.zstd.level", 1),),
    "local.retention.ms": (("log.local.retention.ms", 1),),
    "local.retention.bytes": (("log.local.retention.bytes", 1),),
}

# Broker config name -> the topic config it is the server default of.
BROKER_TO_TOPIC_NAMES: Mapping[str, str] = {
    broker: topic for topic, synonyms in TOPIC_CONFIG_SYNONYMS.items() for broker, _ in synonyms
}

# Broker names that are one setting in several units, most specific first (Kafka's
# DynamicBrokerConfig.brokerConfigSynonyms): each name of such a group -> the group.
SYNONYM_GROUPS: Mapping[str, tuple[str, ...]] = {
    broker: tuple(name for name, _ in synonyms)
    for synonyms in TOPIC_CONFIG_SYNONYMS.values() if len(synonyms) > 1
    for broker, _ in synonyms
}


def not_acted_on() -> list[str]:
    """Every broker and topic config name pylog accepts but does not act on yet, sorted."""
    names = {key.name for key in CONFIG_KEYS.values() if not key.acted_on}
    names.update(key.name for key in TOPIC_CONFIG_KEYS.values() if not key.acted_on)
    return sorted(names)

