"""Dynamic broker configs: the BROKER config resources of the metadata log (Kafka's
`DynamicBrokerConfig`).

A BROKER resource named "" holds the cluster-wide defaults, one named by a node id that
node's own values (ConfigRecords with resource type 4). A broker's effective config is, per
name, the first of: its own dynamic value (DYNAMIC_BROKER_CONFIG), the cluster default
(DYNAMIC_DEFAULT_BROKER_CONFIG), server.properties / --override (STATIC_BROKER_CONFIG), the
default (DEFAULT_CONFIG); DescribeConfigs lists a name's synonyms in that order.

The names pylog changes dynamically (`DYNAMIC_CONFIGS`) are those of Kafka's dynamic lists
that pylog acts on without a restart, all of them cluster-wide in Kafka (so they may be set
at either level):
- the broker defaults of the topic configs, under their primary broker name (Kafka's
  `DynamicLogConfig`: `log.retention.ms`, `log.segment.bytes`, `message.max.bytes`,
  `log.cleanup.policy`, `min.insync.replicas`, ...): every log without its own override
  takes the new value;
- the log cleaner's `log.cleaner.threads` (the cleaner restarts with the new count, as
  Kafka's does), `log.cleaner.backoff.ms` and `log.cleaner.dedupe.buffer.size`.

Checks, as Kafka's broker makes them before the controller stores anything
(`ConfigAdminManager.preprocess`, all or nothing per resource, INVALID_REQUEST each): a
node id other than this broker's ("Unexpected broker id, expected 1, but received 2", or
"Node id must be an integer, but it is: x"); a known name that is not dynamic ("Cannot
update these configs dynamically: Set(a, b)"); a value of the wrong type or out of range
("Invalid value x for configuration n: ..."); the resulting config as a whole. Names pylog
does not know are kept as given, as Kafka keeps custom ones.
"""

from __future__ import annotations

import logging
from typing import Mapping

from protocol.error_codes import ErrorCode
from storage.errors import InvalidConfig

from pylog.config import BrokerConfig, ConfigSource
from pylog.config_keys import CONFIG_KEYS, SYNONYM_GROUPS, TOPIC_CONFIG_SYNONYMS
from pylog.errors import BrokerError

log = logging.getLogger("pylog.dynamic_broker_config")

BROKER_RESOURCE = 4

DYNAMIC_CONFIGS: frozenset[str] = frozenset(
    {synonyms[0][0] for synonyms in TOPIC_CONFIG_SYNONYMS.values() if synonyms[0][0] in CONFIG_KEYS}
    | {"log.cleaner.threads", "log.cleaner.backoff.ms", "log.cleaner.dedupe.buffer.size"})


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


def _scala_set(names) -> str:
    return f"Set({', '.join(sorted(names))})"


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
        self.cluster_default, self.per_broker, self.current = cluster_default, per_broker, current
        return True

    def effective(self, cluster_default: Mapping[str, str], per_broker: Mapping[str, str]) -> BrokerConfig:
        """The config these dynamic values make (InvalidConfig when they do not fit)."""
        dynamic = {n: v for n, v in {**cluster_default, **per_broker}.items() if n in DYNAMIC_CONFIGS}
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
        static = {n for n in new if n in CONFIG_KEYS and n not in DYNAMIC_CONFIGS}
        if static:
            raise BrokerError(ErrorCode.INVALID_REQUEST,
                              f"Cannot update these configs dynamically: {_scala_set(static)}")
        for config_name, value in new.items():
            key = CONFIG_KEYS.get(config_name)
            if key is None:
                continue
            try:
                key.parse(value)
            except InvalidConfig as e:
                raise BrokerError(ErrorCode.INVALID_REQUEST, invalid_value_message(e, value)) from None
        try:
            if name:
                self.effective(self.cluster_default, new)
            else:
                self.effective(new, self.per_broker)
        except InvalidConfig as e:
            raise BrokerError(ErrorCode.INVALID_REQUEST, str(e)) from None

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
