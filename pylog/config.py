"""BrokerConfig: the broker's settings, under Apache Kafka's names and defaults (KRaft).

A Kafka user's `server.properties` works here unchanged; pylog reads it with the same rules
as `java.util.Properties` (`pylog/properties.py`), applies `--override key=value` on top,
and gives back typed values:

    cfg = BrokerConfig.from_properties("server.properties", ["log.dirs=/tmp/data"])
    cfg.node_id, cfg.log_dirs, cfg.log_retention_ms, cfg.listener_address()

The names, types, defaults and valid ranges are the table in `pylog/config_keys.py`
(`CONFIG_KEYS`); every name there is an attribute here (`log.segment.bytes` ->
`cfg.log_segment_bytes`), also reachable as `cfg.get("log.segment.bytes")`. Listeners are
resolved by `pylog/listeners.py`.

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
- A value of the wrong type or out of range raises `ConfigError` (storage's InvalidConfig),
  which names the key.
- `not_acted_on()` names the settings given with another value than the default that
  pylog accepts but does not act on yet (`ConfigKey.acted_on`); `pylog serve` logs them.

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

(`log.message.timestamp.after.max.ms` is 3600000, one hour, Kafka 4's default.)

Why: pylog is one process that serves tests. It listens on loopback unless told otherwise;
it is its own controller; it must be able to create its internal topics with one broker
(Kafka's single-node sample `config/kraft/server.properties` sets the three internal-topic
settings to 1 for the same reason); and it must not make every test's first consumer group
wait 3 s for more members to join (Kafka's classic sample `config/server.properties` sets
that delay to 0 for development and testing as well).

Other differences, all small:
- A few checks are stricter than Kafka's: `node.id` >= 0, `default.replication.factor` >= 1,
  `group.*.ms` >= 0, `log.cleanup.policy` not empty, listener ports in 0..65535,
  `log.roll.ms` >= 1, `log.roll.jitter.ms` and `log.flush.interval.ms` >= 0 (Kafka checks
  these three only as the topic configs they give).
- A properties file is read as UTF-8, falling back to ISO-8859-1 (Java reads ISO-8859-1
  only; `\\uXXXX` escapes work in both).
- When `advertised.listeners` is not set and the listener binds a wildcard host ("", 0.0.0.0
  or ::), the advertised host is this machine's host name (Kafka does this for "" and
  refuses 0.0.0.0). An explicit advertised 0.0.0.0 is refused, as in Kafka.
- DescribeConfigs reports `listeners` with the client listener's entry as served: the host
  bound to and the port the socket got (port 0, `pylog serve --host/--port`), source
  STATIC_BROKER_CONFIG; Kafka reports the text configured.
- `cluster.id` is a pylog setting (Kafka keeps the cluster id only in meta.properties, written
  by `kafka-storage format`); DescribeConfigs does not report it.

A BrokerConfig is immutable and built once, at start, by whoever starts the broker.
"""

from __future__ import annotations

import enum
import logging
import os
from typing import Any, Iterable, Iterator, Mapping, NamedTuple

from storage.config_def import MS_PER_HOUR, MS_PER_MINUTE, ConfigKey, Type
from storage.errors import InvalidConfig

from pylog.config_keys import (
    BROKER_TO_TOPIC_NAMES,
    CONFIG_KEYS,
    SYNONYM_GROUPS,
    TOPIC_CONFIG_SYNONYMS,
)
from pylog.connection_quotas import parse_overrides as parse_connection_overrides
from pylog.listeners import Endpoint, advertised_address, resolve_listeners
from pylog.properties import decode_properties, load_properties, parse_overrides, parse_properties

__all__ = [
    "BrokerConfig",
    "ConfigError",
    "ConfigKey",
    "ConfigRow",
    "ConfigSource",
    "ConfigSynonym",
    "Endpoint",
    "Type",
    "CONFIG_KEYS",
    "TOPIC_CONFIG_SYNONYMS",
    "BROKER_TO_TOPIC_NAMES",
    "parse_properties",
    "load_properties",
    "parse_overrides",
]

log = logging.getLogger("pylog.config")

ConfigError = InvalidConfig
"""A config value that cannot be used; `name` is the key (None when the problem is not one
key's), `reason` what is wrong, `value` what was given."""


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


class BrokerConfig:
    """The broker's configuration: Kafka names in, typed snake_case attributes out. Immutable.

    Build it with `BrokerConfig.from_properties(file_or_text, overrides)`, or directly:
    `BrokerConfig({"log.dirs": tmp_path, "listeners": "PLAINTEXT://127.0.0.1:0"})` or
    `BrokerConfig(log_dirs=[tmp_path], num_partitions=3)` (keyword = name with '.' -> '_').
    A value of None means "not given". Values may be text or typed Python values.
    Every given value is a STATIC_BROKER_CONFIG for DescribeConfigs.
    """

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
        own: dict[str, Any] = dict(_DEFAULTS)   # in CONFIG_KEYS order, as the other tables here
        for name in _MUTABLE_DEFAULTS:
            own[name] = _copy(own[name])
        for name, key in CONFIG_KEYS.items():
            if name in supplied:
                own[name] = key.parse(supplied[name])
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
        vars(self).update({attribute: effective[name] for name, attribute in _ATTRIBUTES})

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
            props = parse_properties(decode_properties(bytes(source)))
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
        otherwise. `names` limits the rows to those names (unknown ones are skipped). Kafka's
        internal names are described only when given."""
        wanted = None if names is None else set(names)
        rows = []
        for name in sorted(CONFIG_KEYS):
            key = CONFIG_KEYS[name]
            if key.pylog_only or (wanted is not None and name not in wanted):
                continue
            if key.internal and not self.is_set(name):
                continue
            source = self.source(name)
            rows.append(ConfigRow(name, self._own_text(name), source is ConfigSource.DEFAULT_CONFIG,
                                  source))
        return rows

    def synonyms(self, name: str) -> list[ConfigSynonym]:
        """DescribeConfigs synonyms of a name, highest precedence first: for each name of its
        group (e.g. log.retention.ms, .minutes, .hours) the given value, then the default."""
        result: list[ConfigSynonym] = []
        for synonym in SYNONYM_GROUPS.get(name, (name,)):
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
        return list(self._listeners.endpoints)

    def advertised_endpoints(self) -> list[Endpoint]:
        """The advertised endpoints of the client (non-controller) listeners: from
        `advertised.listeners`, or `listeners` when it is not given. Hosts as configured."""
        return list(self._listeners.advertised)

    def listener_endpoint(self) -> Endpoint:
        """The client listener pylog serves: the first PLAINTEXT listener whose name is not
        in `controller.listener.names`."""
        return self._listeners.client

    def listener_address(self) -> tuple[str, int]:
        """(host, port) to bind: the client listener's. "" binds every interface; port 0
        asks the OS for a free port."""
        endpoint = self._listeners.client
        return endpoint.host, endpoint.port

    def advertised_address(self, bound_port: int | None = None) -> tuple[str, int]:
        """(host, port) to give clients for the client listener. A wildcard host becomes this
        machine's host name; port 0 becomes `bound_port` when it is given (the port the
        socket got)."""
        return advertised_address(self._listeners, bound_port)

    def served_at(self, host: str, port: int) -> BrokerConfig:
        """This config with the client listener's entry of `listeners` naming the address it
        is served at (the host bound to, the port the socket got: port 0 and `pylog serve
        --host/--port` made concrete), so that DescribeConfigs reports what the broker serves;
        the config itself when nothing differs."""
        client = self._listeners.client
        served = Endpoint(client.listener_name, client.security_protocol, host, port)
        if served == client:
            return self
        entries = [str(served) if e.listener_name == client.listener_name else str(e)
                   for e in self._listeners.endpoints]
        return self.with_overrides({"listeners": ",".join(entries)})

    # -- settings without effect --

    def not_acted_on(self) -> dict[str, str]:
        """The names given with another value than their default whose value pylog does not
        act on yet (`ConfigKey.acted_on`, pylog/config_keys.py), with the text given, sorted:
        what `pylog serve` reports at start."""
        result = {}
        for name in sorted(self._supplied):
            key = CONFIG_KEYS.get(name)
            if key is not None and not key.acted_on and self._own[name] != _copy(key.default):
                result[name] = key.format(self._own[name])
        return result

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

        # the most specific time unit wins; KafkaConfig's requirements on the result (the
        # millisecond names have no validator of their own, the hours ones do)
        roll = own["log.roll.ms"]
        eff["log.roll.ms"] = roll if roll is not None else own["log.roll.hours"] * MS_PER_HOUR
        if eff["log.roll.ms"] < 1:
            raise ConfigError(None, "requirement failed: log.roll.ms must be greater than or equal to 1")
        jitter = own["log.roll.jitter.ms"]
        eff["log.roll.jitter.ms"] = (jitter if jitter is not None
                                     else own["log.roll.jitter.hours"] * MS_PER_HOUR)
        if eff["log.roll.jitter.ms"] < 0:
            raise ConfigError(None, "requirement failed: log.roll.jitter.ms must be greater than or equal to 0")

        retention = own["log.retention.ms"]
        if retention is None:
            if own["log.retention.minutes"] is not None:
                retention = own["log.retention.minutes"] * MS_PER_MINUTE
            else:
                retention = own["log.retention.hours"] * MS_PER_HOUR
        if retention < 0:
            retention = -1
        if retention == 0:
            raise ConfigError(None, "requirement failed: log.retention.ms must be unlimited (-1) or, "
                                    "greater than or equal to 1")
        eff["log.retention.ms"] = retention

        flush_ms = own["log.flush.interval.ms"]
        if flush_ms is None:
            flush_ms = own["log.flush.scheduler.interval.ms"]
        eff["log.flush.interval.ms"] = flush_ms

        # the per-address connection limits (KafkaConfig's checks; pylog/connection_quotas.py)
        try:
            overrides = parse_connection_overrides(own["max.connections.per.ip.overrides"])
        except ValueError as e:
            raise ConfigError(None, str(e)) from None
        if own["max.connections.per.ip"] == 0 and not overrides:
            raise ConfigError(None, "requirement failed: max.connections.per.ip can be set to zero only if "
                                    "max.connections.per.ip.overrides property is set.")

        listeners = resolve_listeners(own["listeners"], own["advertised.listeners"],
                                      own["listener.security.protocol.map"],
                                      own["controller.listener.names"],
                                      self.is_set("listener.security.protocol.map"))
        eff["controller.listener.names"] = listeners.controller_names
        eff["listener.security.protocol.map"] = listeners.protocol_map
        eff["advertised.listeners"] = listeners.advertised_entries
        object.__setattr__(self, "_listeners", listeners)
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


# What every BrokerConfig starts from, computed once: each name's default (the mutable ones
# are copied per config) and its attribute.
_DEFAULTS: dict[str, Any] = {name: key.default for name, key in CONFIG_KEYS.items()}
_MUTABLE_DEFAULTS = tuple(name for name, value in _DEFAULTS.items() if isinstance(value, (list, tuple, dict)))
_ATTRIBUTES = tuple((name, key.attribute) for name, key in CONFIG_KEYS.items())


def _copy(value: Any) -> Any:
    """A value the caller may change: lists (and the tables' tuple defaults) as new lists."""
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, dict):
        return dict(value)
    return value
