"""LogConfig: the per-topic settings of a log, under Kafka's topic config names.

Every setting has Kafka's name (`segment.bytes`), Kafka's default and Kafka's valid range
(as of Kafka 3.9), and a snake_case field (`segment_bytes`). `LogConfig.from_properties`
builds one from a mapping of Kafka names to values (strings from a properties file, or
already-typed values) and rejects unknown names and invalid values with `InvalidConfig`.

What storage honours today:

| name                      | default                 | effect                                    |
| ------------------------- | ----------------------- | ----------------------------------------- |
| segment.bytes             | 1073741824 (1 GiB)      | roll when the active segment would exceed |
| segment.ms                | 604800000 (7 days)      | roll when the segment's first timestamp   |
|                           |                         | is this old                               |
| segment.jitter.ms         | 0                       | random amount taken off segment.ms, per   |
|                           |                         | segment, so partitions do not roll at once|
| segment.index.bytes       | 10485760 (10 MiB)       | preallocated size of the active indexes;  |
|                           |                         | a full index rolls the segment            |
| index.interval.bytes      | 4096                    | log bytes between two index entries       |
| flush.messages            | 2**63-1 (never)         | fsync after this many unflushed records   |
| flush.ms                  | 2**63-1 (never)         | fsync when the last flush is this old     |
| message.timestamp.type    | CreateTime              | LogAppendTime: the broker stamps now_ms   |
| max.message.bytes         | 1048588                 | largest batch accepted                    |
| file.delete.delay.ms      | 60000                   | deleted segments linger as `.deleted`     |

The retention and compaction names (`retention.ms`, `retention.bytes`, `cleanup.policy`,
`delete.retention.ms`, `min.cleanable.dirty.ratio`, `min.compaction.lag.ms`,
`max.compaction.lag.ms`, ...) and the broker-level ones (`min.insync.replicas`,
`compression.type`, `unclean.leader.election.enable`, ...) are accepted, validated and
stored, for the issues that will honour them.

A LogConfig is immutable; a changed topic config is a new LogConfig given to
`Log.update_config`.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from storage.errors import InvalidConfig

INT_MAX = 2**31 - 1
INT_MIN = -(2**31)
LONG_MAX = 2**63 - 1
LONG_MIN = -(2**63)

CREATE_TIME = "CreateTime"
LOG_APPEND_TIME = "LogAppendTime"
CLEANUP_POLICY_DELETE = "delete"
CLEANUP_POLICY_COMPACT = "compact"
COMPRESSION_TYPES = ("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")

# Kafka's record overhead of the smallest legacy record: the lower bound of segment.bytes
# in Kafka 3.9 (Kafka 4 raised it to 1 MiB, which would make small test segments impossible).
_MIN_SEGMENT_BYTES = 14


@dataclass(frozen=True, slots=True)
class LogConfig:
    """The settings of one partition log (Kafka's topic configs). Immutable.

    Build it from Kafka names with `LogConfig.from_properties({"segment.bytes": "1048576"})`
    or directly with field names: `LogConfig(segment_bytes=1 << 20)`. Both validate.
    """

    # -- segments and indexes (honoured) --
    segment_bytes: int = 1024 * 1024 * 1024
    segment_ms: int = 7 * 24 * 60 * 60 * 1000
    segment_jitter_ms: int = 0
    segment_index_bytes: int = 10 * 1024 * 1024
    index_interval_bytes: int = 4096
    preallocate: bool = False
    # -- flushing (honoured) --
    flush_messages: int = LONG_MAX
    flush_ms: int = LONG_MAX
    # -- records (honoured: timestamp type, max size) --
    message_timestamp_type: str = CREATE_TIME
    max_message_bytes: int = 1024 * 1024 + 12
    file_delete_delay_ms: int = 60000
    # -- retention and compaction (stored for later issues) --
    retention_ms: int = 7 * 24 * 60 * 60 * 1000
    retention_bytes: int = -1
    cleanup_policy: tuple[str, ...] = (CLEANUP_POLICY_DELETE,)
    delete_retention_ms: int = 24 * 60 * 60 * 1000
    min_cleanable_dirty_ratio: float = 0.5
    min_compaction_lag_ms: int = 0
    max_compaction_lag_ms: int = LONG_MAX
    # -- timestamps validation (stored) --
    message_timestamp_difference_max_ms: int = LONG_MAX
    message_timestamp_before_max_ms: int = LONG_MAX
    message_timestamp_after_max_ms: int = LONG_MAX
    # -- broker-level topic settings (stored) --
    min_insync_replicas: int = 1
    unclean_leader_election_enable: bool = False
    compression_type: str = "producer"
    compression_gzip_level: int = -1
    compression_lz4_level: int = 9
    compression_zstd_level: int = 3
    message_downconversion_enable: bool = True
    message_format_version: str = "3.0-IV1"
    leader_replication_throttled_replicas: tuple[str, ...] = ()
    follower_replication_throttled_replicas: tuple[str, ...] = ()
    remote_storage_enable: bool = False
    local_retention_ms: int = -2
    local_retention_bytes: int = -2
    remote_log_copy_disable: bool = False
    remote_log_delete_on_disable: bool = False

    def __post_init__(self) -> None:
        for key in CONFIG_KEYS.values():
            value = getattr(self, key.field)
            checked = key.check(value)
            if checked != value or type(checked) is not type(value):
                object.__setattr__(self, key.field, checked)
        if self.min_compaction_lag_ms > self.max_compaction_lag_ms:
            raise InvalidConfig(
                "min.compaction.lag.ms",
                f"conflicting settings: min.compaction.lag.ms ({self.min_compaction_lag_ms}) > "
                f"max.compaction.lag.ms ({self.max_compaction_lag_ms})",
            )

    # -- building --

    @classmethod
    def from_properties(
        cls, properties: Mapping[str, Any], *, defaults: LogConfig | None = None
    ) -> LogConfig:
        """A LogConfig from Kafka topic config names, e.g. `{"segment.bytes": "1048576"}`.

        Values may be strings (as read from a properties file or a CreateTopics request)
        or Python values of the right type. Names not given keep their value from
        `defaults` (Kafka's defaults when None). Raises InvalidConfig for an unknown name
        or an invalid value.
        """
        changes: dict[str, Any] = {}
        for name, raw in properties.items():
            key = CONFIG_KEYS.get(name)
            if key is None:
                raise InvalidConfig(name, "unknown topic config name")
            changes[key.field] = key.parse(raw)
        base = defaults if defaults is not None else cls()
        return dataclasses.replace(base, **changes)

    def with_overrides(self, properties: Mapping[str, Any]) -> LogConfig:
        """This config with some Kafka-named settings changed."""
        return LogConfig.from_properties(properties, defaults=self)

    def to_properties(self) -> dict[str, str]:
        """Every setting as Kafka name -> string, the form Kafka's tools print."""
        return {name: key.format(getattr(self, key.field)) for name, key in CONFIG_KEYS.items()}

    # -- derived values --

    @property
    def compact(self) -> bool:
        return CLEANUP_POLICY_COMPACT in self.cleanup_policy

    @property
    def delete(self) -> bool:
        return CLEANUP_POLICY_DELETE in self.cleanup_policy

    @property
    def log_append_time(self) -> bool:
        """True when the broker stamps each batch with its own clock (LogAppendTime)."""
        return self.message_timestamp_type == LOG_APPEND_TIME

    @property
    def max_segment_ms(self) -> int:
        """segment.ms, capped by max.compaction.lag.ms on compacted topics (as Kafka does),
        so that the cleaner can reach records within their maximum lag."""
        if self.compact and self.max_compaction_lag_ms > 0:
            return min(self.max_compaction_lag_ms, self.segment_ms)
        return self.segment_ms

    def random_segment_jitter_ms(self, rng: random.Random) -> int:
        """A per-segment jitter in [0, min(segment.jitter.ms, segment.ms)), or 0."""
        if self.segment_jitter_ms == 0:
            return 0
        return rng.randrange(min(self.segment_jitter_ms, self.segment_ms))


# ---------------------------------------------------------------------------------------
# The table of Kafka names: type, valid values, and how to parse and print them.


def _parse_int(name: str, raw: Any, lo: int, hi: int) -> int:
    if isinstance(raw, bool):
        raise InvalidConfig(name, f"expected an integer, got {raw!r}")
    if isinstance(raw, int):
        value = raw
    elif isinstance(raw, str):
        try:
            value = int(raw.strip())
        except ValueError:
            raise InvalidConfig(name, f"expected an integer, got {raw!r}") from None
    else:
        raise InvalidConfig(name, f"expected an integer, got {raw!r}")
    if not lo <= value <= hi:
        raise InvalidConfig(name, f"value {value} is out of range for its type")
    return value


def _parse_float(name: str, raw: Any) -> float:
    if isinstance(raw, bool):
        raise InvalidConfig(name, f"expected a number, got {raw!r}")
    if isinstance(raw, (int, float)):
        return float(raw)
    if isinstance(raw, str):
        try:
            return float(raw.strip())
        except ValueError:
            pass
    raise InvalidConfig(name, f"expected a number, got {raw!r}")


def _parse_bool(name: str, raw: Any) -> bool:
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.strip().lower() in ("true", "false"):
        return raw.strip().lower() == "true"
    raise InvalidConfig(name, f"expected true or false, got {raw!r}")


def _parse_list(name: str, raw: Any) -> tuple[str, ...]:
    if isinstance(raw, str):
        return tuple(item.strip() for item in raw.split(",") if item.strip())
    if isinstance(raw, (list, tuple)) and all(isinstance(item, str) for item in raw):
        return tuple(item.strip() for item in raw if item.strip())
    raise InvalidConfig(name, f"expected a comma-separated list, got {raw!r}")


@dataclass(frozen=True)
class ConfigKey:
    """One Kafka config name: its field, type ("int", "long", "double", "boolean",
    "string", "list") and validator (raises InvalidConfig)."""

    name: str
    field: str
    type: str
    validate: Callable[[str, Any], None] | None = None

    def parse(self, raw: Any) -> Any:
        if self.type == "int":
            value: Any = _parse_int(self.name, raw, INT_MIN, INT_MAX)
        elif self.type == "long":
            value = _parse_int(self.name, raw, LONG_MIN, LONG_MAX)
        elif self.type == "double":
            value = _parse_float(self.name, raw)
        elif self.type == "boolean":
            value = _parse_bool(self.name, raw)
        elif self.type == "list":
            value = _parse_list(self.name, raw)
        else:
            if not isinstance(raw, str):
                raise InvalidConfig(self.name, f"expected a string, got {raw!r}")
            value = raw.strip()
        if self.validate is not None:
            self.validate(self.name, value)
        return value

    def check(self, value: Any) -> Any:
        """Validate a value given by field name (typed); returns it in canonical form."""
        return self.parse(value)

    def format(self, value: Any) -> str:
        if self.type == "boolean":
            return "true" if value else "false"
        if self.type == "list":
            return ",".join(value)
        return str(value)


def _at_least(minimum: int) -> Callable[[str, Any], None]:
    def validate(name: str, value: Any) -> None:
        if value < minimum:
            raise InvalidConfig(name, f"value {value} must be at least {minimum}")

    return validate


def _between(lo: float, hi: float) -> Callable[[str, Any], None]:
    def validate(name: str, value: Any) -> None:
        if not lo <= value <= hi:
            raise InvalidConfig(name, f"value {value} must be between {lo} and {hi}")

    return validate


def _one_of(*choices: str) -> Callable[[str, Any], None]:
    def validate(name: str, value: Any) -> None:
        if value not in choices:
            raise InvalidConfig(name, f"value {value!r} must be one of {', '.join(choices)}")

    return validate


def _list_of(*choices: str) -> Callable[[str, Any], None]:
    def validate(name: str, value: Any) -> None:
        for item in value:
            if item not in choices:
                raise InvalidConfig(name, f"item {item!r} must be one of {', '.join(choices)}")

    return validate


def _gzip_level(name: str, value: Any) -> None:
    if value != -1 and not 1 <= value <= 9:
        raise InvalidConfig(name, f"value {value} must be -1 (default) or between 1 and 9")


def _throttled_replicas(name: str, value: Any) -> None:
    # "*" or entries of the form partition:broker.
    if value == ("*",):
        return
    for item in value:
        partition, colon, broker = item.partition(":")
        if not (colon and partition.strip().isdigit() and broker.strip().isdigit()):
            raise InvalidConfig(name, f"item {item!r} must be '*' or 'partition:brokerId'")


_KEYS = [
    ConfigKey("segment.bytes", "segment_bytes", "int", _at_least(_MIN_SEGMENT_BYTES)),
    ConfigKey("segment.ms", "segment_ms", "long", _at_least(1)),
    ConfigKey("segment.jitter.ms", "segment_jitter_ms", "long", _at_least(0)),
    ConfigKey("segment.index.bytes", "segment_index_bytes", "int", _at_least(4)),
    ConfigKey("index.interval.bytes", "index_interval_bytes", "int", _at_least(0)),
    ConfigKey("preallocate", "preallocate", "boolean"),
    ConfigKey("flush.messages", "flush_messages", "long", _at_least(1)),
    ConfigKey("flush.ms", "flush_ms", "long", _at_least(0)),
    ConfigKey("message.timestamp.type", "message_timestamp_type", "string",
              _one_of(CREATE_TIME, LOG_APPEND_TIME)),
    ConfigKey("max.message.bytes", "max_message_bytes", "int", _at_least(0)),
    ConfigKey("file.delete.delay.ms", "file_delete_delay_ms", "long", _at_least(0)),
    ConfigKey("retention.ms", "retention_ms", "long", _at_least(-1)),
    ConfigKey("retention.bytes", "retention_bytes", "long"),
    ConfigKey("cleanup.policy", "cleanup_policy", "list",
              _list_of(CLEANUP_POLICY_COMPACT, CLEANUP_POLICY_DELETE)),
    ConfigKey("delete.retention.ms", "delete_retention_ms", "long", _at_least(0)),
    ConfigKey("min.cleanable.dirty.ratio", "min_cleanable_dirty_ratio", "double", _between(0, 1)),
    ConfigKey("min.compaction.lag.ms", "min_compaction_lag_ms", "long", _at_least(0)),
    ConfigKey("max.compaction.lag.ms", "max_compaction_lag_ms", "long", _at_least(1)),
    ConfigKey("message.timestamp.difference.max.ms", "message_timestamp_difference_max_ms",
              "long", _at_least(0)),
    ConfigKey("message.timestamp.before.max.ms", "message_timestamp_before_max_ms", "long",
              _at_least(0)),
    ConfigKey("message.timestamp.after.max.ms", "message_timestamp_after_max_ms", "long",
              _at_least(0)),
    ConfigKey("min.insync.replicas", "min_insync_replicas", "int", _at_least(1)),
    ConfigKey("unclean.leader.election.enable", "unclean_leader_election_enable", "boolean"),
    ConfigKey("compression.type", "compression_type", "string", _one_of(*COMPRESSION_TYPES)),
    ConfigKey("compression.gzip.level", "compression_gzip_level", "int", _gzip_level),
    ConfigKey("compression.lz4.level", "compression_lz4_level", "int", _between(1, 17)),
    ConfigKey("compression.zstd.level", "compression_zstd_level", "int", _between(-131072, 22)),
    ConfigKey("message.downconversion.enable", "message_downconversion_enable", "boolean"),
    ConfigKey("message.format.version", "message_format_version", "string"),
    ConfigKey("leader.replication.throttled.replicas", "leader_replication_throttled_replicas",
              "list", _throttled_replicas),
    ConfigKey("follower.replication.throttled.replicas",
              "follower_replication_throttled_replicas", "list", _throttled_replicas),
    ConfigKey("remote.storage.enable", "remote_storage_enable", "boolean"),
    ConfigKey("local.retention.ms", "local_retention_ms", "long", _at_least(-2)),
    ConfigKey("local.retention.bytes", "local_retention_bytes", "long", _at_least(-2)),
    ConfigKey("remote.log.copy.disable", "remote_log_copy_disable", "boolean"),
    ConfigKey("remote.log.delete.on.disable", "remote_log_delete_on_disable", "boolean"),
]

CONFIG_KEYS: dict[str, ConfigKey] = {key.name: key for key in _KEYS}
"""Kafka topic config name -> ConfigKey, in the order of LogConfig's fields."""
