"""Dynamic broker configs: the BROKER config resources of the metadata log (Kafka's
`DynamicBrokerConfig`).

A BROKER resource named "" holds the cluster-wide defaults, one named by a node id that
node's own values (ConfigRecords with resource type 4). A broker's effective config is, per
name, the first of: its own dynamic value (DYNAMIC_BROKER_CONFIG), the cluster default
(DYNAMIC_DEFAULT_BROKER_CONFIG), server.properties / --override (STATIC_BROKER_CONFIG), the
default (DEFAULT_CONFIG); DescribeConfigs lists a name's synonyms in that order.

The names Kafka lets be updated dynamically (`KAFKA_DYNAMIC_MODES`, from Kafka's own table)
are accepted here but for the few pylog reads only at start (`READ_AT_START`: `listeners`,
`listener.security.protocol.map`, `num.replica.fetchers`, `producer.id.expiration.ms`),
refused as static ones (README). Of the accepted names:
- those pylog changes live (`DYNAMIC_CONFIGS`): the broker defaults of the topic configs,
  under their primary broker name (Kafka's `DynamicLogConfig`: `log.retention.ms`,
  `log.segment.bytes`, `message.max.bytes`, `log.cleanup.policy`, `min.insync.replicas`,
  ...), which every log without its own override takes; the log cleaner's
  `log.cleaner.threads` (the cleaner restarts with the new count, as Kafka's does),
  `log.cleaner.backoff.ms` and `log.cleaner.dedupe.buffer.size`; the per-address connection
  limits `max.connections.per.ip` and `max.connections.per.ip.overrides`, for the
  connections accepted next (pylog/connection_quotas.py); `num.recovery.threads.per.data.dir`,
  read as the broker stops;
- the others (thread pools, connection quotas, SASL and SSL settings, remote storage...),
  which pylog does not act on: stored, validated and reported like the rest.
Kafka's "per-broker" names may only be set on a node id, and the SSL key and trust store
names only per listener (`listener.name.NAME.ssl.keystore.location`).

Checks, as Kafka's broker makes them before the controller stores anything
(`ConfigAdminManager.preprocess`, all or nothing per resource, INVALID_REQUEST each): a
node id other than this broker's ("Unexpected broker id, expected 1, but received 2", or
"Node id must be an integer, but it is: x"); a known name that is not dynamic ("Cannot
update these configs dynamically: Set(a, b)"); a store name without its listener ("These
security configs can be dynamically updated only per-listener using the listener prefix:
HashSet(...)"); a value of the wrong type or out of range ("Invalid value x for configuration n:
..."); a per-broker name on the cluster default ("Cannot update these configs at default
cluster level, broker id must be specified: Set(...)"); the resulting config as a whole,
as this broker would take it (its own values over the cluster default), by Kafka's
reconfiguration rules too (`reconfiguration_problem`): the log cleaner's (at least 1 MiB of
dedupe buffer per thread, a thread count at most doubled or halved at once), the same bound
on the other thread pools' counts, and a connection limit or rate above 0. Another
broker's config is not checked; a broker that finds values it cannot take in the metadata
(a cluster default another broker accepted) keeps its config with one ERROR line, as
Kafka's does. Names pylog does not know are kept as given, as
Kafka keeps custom ones.
"""

from __future__ import annotations

import logging
from typing import Mapping

from protocol.error_codes import ErrorCode
from storage.errors import InvalidConfig

from pylog.config import BrokerConfig, ConfigSource
from pylog.config_keys import CONFIG_KEYS, KAFKA_DYNAMIC_MODES, SYNONYM_GROUPS, TOPIC_CONFIG_SYNONYMS
from pylog.kafka_broker_configs import PER_LISTENER
from pylog.errors import BrokerError

log = logging.getLogger("pylog.dynamic_broker_config")

BROKER_RESOURCE = 4

DYNAMIC_CONFIGS: frozenset[str] = frozenset(
    {synonyms[0][0] for synonyms in TOPIC_CONFIG_SYNONYMS.values() if synonyms[0][0] in CONFIG_KEYS}
    | {"log.cleaner.threads", "log.cleaner.backoff.ms", "log.cleaner.dedupe.buffer.size",
       "max.connections.per.ip", "max.connections.per.ip.overrides", "num.recovery.threads.per.data.dir"})

READ_AT_START: frozenset[str] = frozenset(
    name for name in KAFKA_DYNAMIC_MODES if CONFIG_KEYS[name].acted_on and name not in DYNAMIC_CONFIGS)

# The names a BROKER resource may hold: applied live, or not acted on at all.
UPDATABLE: frozenset[str] = frozenset(KAFKA_DYNAMIC_MODES) - READ_AT_START

PER_BROKER: frozenset[str] = frozenset(
    name for name, mode in KAFKA_DYNAMIC_MODES.items() if mode == "per-broker")


def dynamic_broker_configs(image, node_id: int) -> tuple[dict[str, str], dict[str, str]]:
    """The cluster defaults and this node's own values in a metadata image."""
    return (dict(image.configs.get((BROKER_RESOURCE, ""), {})),
            dict(image.configs.get((BROKER_RESOURCE, str(node_id)), {})))


def invalid_value_message(error: InvalidConfig, given: str | None) -> str:
    """Kafka's ConfigException text for a bad value: the value at fault, else the name."""
    value = given if error.value is None else error.value
    if value is None:
        return f"Invalid configuration {error.name}: {error.reason}"
    return f"Invalid value {value} for configuration {error.name}: {error.reason}"


def _scala_set(names, kind: str = "Set") -> str:
    """How Kafka's messages print a Scala set of names (Set, or HashSet for a filtered
    mutable one); the order of more than one is Scala's hashing, sorted here."""
    return f"{kind}({', '.join(sorted(names))})"


def cleaner_reconfiguration_problem(current: BrokerConfig, new: BrokerConfig) -> str | None:
    """Kafka's answer, when `new` changes the log cleaner's thread count or offset-map size
    from `current`: the KafkaConfig requirement of at least 1 MiB of
    `log.cleaner.dedupe.buffer.size` per cleaner thread (a count of 0 fails Kafka's own
    division, "/ by zero"), then LogCleaner.validateReconfiguration (a count below half or
    above double the current one). None when the change is taken. (pylog starts
    with 0 threads too, running no cleaner; Kafka refuses such a static config.)"""
    threads, dedupe_bytes = new.log_cleaner_threads, new.log_cleaner_dedupe_buffer_size
    if (threads, dedupe_bytes) == (current.log_cleaner_threads, current.log_cleaner_dedupe_buffer_size):
        return None
    if threads == 0:
        return "/ by zero"
    if dedupe_bytes // threads <= 1024 * 1024:
        return "requirement failed: log.cleaner.dedupe.buffer.size must be at least 1MB per cleaner thread."
    before = current.log_cleaner_threads
    if threads < before // 2:
        reason = f"Log cleaner threads cannot be reduced to less than half the current value {before}"
    elif threads > before * 2:
        reason = f"Log cleaner threads cannot be increased to more than double the current value {before}"
    else:
        return None
    return _invalid_dynamic(reason)


# The thread pools whose count Kafka lets change by at most double or half at once
# (DynamicThreadPool, the network processors, the remote log manager's pools; pylog reads
# num.replica.fetchers at start only).
THREAD_POOLS = ("num.network.threads", "num.io.threads", "num.recovery.threads.per.data.dir", "background.threads",
                "remote.log.reader.threads", "remote.log.manager.copier.thread.pool.size",
                "remote.log.manager.expiration.thread.pool.size")


def reconfiguration_problem(current: BrokerConfig, new: BrokerConfig) -> str | None:
    """Kafka's answer when `new` cannot replace `current` (its reconfigurables'
    validateReconfiguration, in its order): the log cleaner's rules, then the connection
    limits (SocketServer's ConnectionQuotas: `max.connections` and
    `max.connection.creation.rate` above 0), then every thread pool's count (changed: at
    least 1, at least half and at most double the current count). None when it is taken."""
    problem = cleaner_reconfiguration_problem(current, new)
    if problem:
        return problem
    for name in ("max.connections", "max.connection.creation.rate"):
        if new.get(name) != current.get(name) and new.get(name) <= 0:
            return _invalid_dynamic(f"Invalid {name} {new.get(name)}")
    for name in THREAD_POOLS:
        count, before = new.get(name), current.get(name)
        if count == before:
            continue
        failed = f"Dynamic thread count update validation failed for {name}={count}"
        if count <= 0:
            return _invalid_dynamic(f"{failed}, value should be at least 1")
        if count < before // 2:
            return _invalid_dynamic(f"{failed}, value should be at least half the current value {before}")
        if count > before * 2:
            return _invalid_dynamic(f"{failed}, value should not be greater than double the current value {before}")
    return None


def _invalid_dynamic(reason: str) -> str:
    """How Kafka answers a reconfigurable's ConfigException: wrapped in the dynamic update's."""
    return (f"Invalid value org.apache.kafka.common.config.ConfigException: {reason} for configuration "
            "Invalid dynamic configuration")


class DynamicBrokerConfig:
    """The static config of one broker with the dynamic layers of the metadata on top."""

    def __init__(self, static: BrokerConfig):
        self.static = static
        self.cluster_default: dict[str, str] = {}
        self.per_broker: dict[str, str] = {}
        self.current = static

    def rebase(self, static: BrokerConfig) -> None:
        """Take another static config (the broker's, once its listener is bound); the
        dynamic values stay on top."""
        self.static = static
        self.current = self.effective(self.cluster_default, self.per_broker)

    def update(self, cluster_default: Mapping[str, str], per_broker: Mapping[str, str]) -> bool:
        """Take the metadata's values; False (and nothing changed) when they are the same.
        Values that do not parse are left out, with an error logged (Kafka ignores them)."""
        cluster_default, per_broker = dict(cluster_default), dict(per_broker)
        if (cluster_default, per_broker) == (self.cluster_default, self.per_broker):
            return False
        log.debug("dynamic broker configs from the metadata: cluster default %s, this broker %s",
                  cluster_default, per_broker)
        try:
            current = self.effective(cluster_default, per_broker)
        except InvalidConfig as e:
            log.error("dynamic broker configs not applied: %s", e)
            return False
        problem = reconfiguration_problem(self.current, current)
        if problem:   # Kafka's broker keeps its config too ("Failed to update broker configuration")
            log.error("dynamic broker configs not applied: %s", problem)
            return False
        self.cluster_default, self.per_broker, self.current = cluster_default, per_broker, current
        return True

    def effective(self, cluster_default: Mapping[str, str], per_broker: Mapping[str, str]) -> BrokerConfig:
        """The config these dynamic values make (InvalidConfig when they do not fit)."""
        dynamic = {n: v for n, v in {**cluster_default, **per_broker}.items() if n in UPDATABLE}
        return self.static.with_overrides(dynamic) if dynamic else self.static

    # -- checks ------------------------------------------------------------------------

    @staticmethod
    def check_node(node_id: int, name: str) -> None:
        """BrokerError(INVALID_REQUEST) unless the BROKER resource `name` is this node's."""
        try:
            target = int(name)
        except ValueError:
            raise BrokerError(ErrorCode.INVALID_REQUEST,
                              f"Node id must be an integer, but it is: {name}") from None
        if target != node_id:
            raise BrokerError(ErrorCode.INVALID_REQUEST,
                              f"Unexpected broker id, expected {node_id}, but received {name}")

    def check_change(self, name: str, new: Mapping[str, str]) -> None:
        """BrokerError(INVALID_REQUEST) with Kafka's message unless `new` (the resource's whole
        set of values after the change) may be stored for the BROKER resource `name` ("" or
        this node's id, checked by `check_node`)."""
        static = {n for n in new if n in CONFIG_KEYS and n not in UPDATABLE}
        if static:
            raise BrokerError(ErrorCode.INVALID_REQUEST,
                              f"Cannot update these configs dynamically: {_scala_set(static)}")
        bare = {n for n in new if n in PER_LISTENER}
        if bare:
            raise BrokerError(ErrorCode.INVALID_REQUEST,
                              "These security configs can be dynamically updated only per-listener "
                              f"using the listener prefix: {_scala_set(bare, 'HashSet')}")
        for config_name, value in new.items():
            key = CONFIG_KEYS.get(config_name)
            if key is None:
                continue
            try:
                key.parse(value)
            except InvalidConfig as e:
                raise BrokerError(ErrorCode.INVALID_REQUEST, invalid_value_message(e, value)) from None
        per_broker = {n for n in new if n in PER_BROKER}
        if per_broker and not name:
            raise BrokerError(ErrorCode.INVALID_REQUEST,
                              "Cannot update these configs at default cluster level, broker id must be "
                              f"specified: {_scala_set(per_broker)}")
        try:
            if name:
                effective = self.effective(self.cluster_default, new)
            else:
                effective = self.effective(new, self.per_broker)
        except InvalidConfig as e:
            raise BrokerError(ErrorCode.INVALID_REQUEST, str(e)) from None
        problem = reconfiguration_problem(self.current, effective)   # as this broker would take it
        if problem:
            raise BrokerError(ErrorCode.INVALID_REQUEST, problem)

    def stored(self, name: str) -> dict[str, str]:
        """The stored values of the BROKER resource `name` ("" or this node's id)."""
        return dict(self.cluster_default if not name else self.per_broker)

    # -- DescribeConfigs ---------------------------------------------------------------

    def synonyms(self, name: str) -> list[tuple[str, str | None, ConfigSource]]:
        """Kafka's `ConfigHelper.configSynonyms` for a broker name: of its synonym group, the
        dynamic per-broker values, the cluster defaults, the static values, the defaults,
        kept from the first entry named `name` on."""
        group = SYNONYM_GROUPS.get(name, (name,))
        result: list[tuple[str, str | None, ConfigSource]] = []
        for values, source in ((self.per_broker, ConfigSource.DYNAMIC_BROKER_CONFIG),
                               (self.cluster_default, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG)):
            result.extend((n, values[n], source) for n in group if n in values)
        given = [n for n in group if n in CONFIG_KEYS and self.static.is_set(n)]
        rows = {row.name: row.value for row in self.static.describe(given)} if given else {}
        result.extend((n, rows[n], ConfigSource.STATIC_BROKER_CONFIG) for n in group if n in rows)
        for synonym in group:
            key = CONFIG_KEYS.get(synonym)
            if key is not None and key.default is not None:
                result.append((synonym, key.format(key.default), ConfigSource.DEFAULT_CONFIG))
        while result and result[0][0] != name:
            result.pop(0)
        return result
