"""LogConfig: the per-topic settings of a log, under Kafka's topic config names.

`CONFIG_KEYS` is the table of Kafka's topic configs: name, type, default and valid range
(Kafka 4.1's: Kafka 4 removed message.format.version, message.downconversion.enable and
message.timestamp.difference.max.ms, and made `message.timestamp.after.max.ms` one hour),
and whether storage or the broker acts on the value yet (`acted_on`). LogConfig's fields
are made from that table, one per name in its snake_case form (`segment.bytes` ->
`segment_bytes`), with the table's default; there is no other list of them.

`LogConfig.from_properties` builds one from a mapping of Kafka names to values (strings
from a properties file or a request, or already-typed values) and refuses unknown names
and invalid values with `InvalidConfig`; direct construction (`LogConfig(segment_bytes=
1 << 20)`) validates too. LIST values are tuples.

A LogConfig is immutable (slotted, each setting set once); a changed topic config is a new LogConfig given
to `Log.update_config`.
"""

from __future__ import annotations

import random
import re
from typing import Any, Mapping

from storage.config_def import (
    LONG_MAX,
    MS_PER_HOUR,
    ConfigKey,
    Type,
    Validator,
    at_least,
    between,
    each_of,
    one_of,
)
from storage.errors import InvalidConfig

__all__ = ["CONFIG_KEYS", "LogConfig", "LONG_MAX", "CREATE_TIME", "LOG_APPEND_TIME",
           "CLEANUP_POLICY_DELETE", "CLEANUP_POLICY_COMPACT", "COMPRESSION_TYPES"]

CREATE_TIME = "CreateTime"
LOG_APPEND_TIME = "LogAppendTime"
CLEANUP_POLICY_DELETE = "delete"
CLEANUP_POLICY_COMPACT = "compact"
COMPRESSION_TYPES = ("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")

# The lower bound of segment.bytes (and of the broker's log.segment.bytes) since Kafka 4.
# Smaller segments, for tests, are Kafka's internal.segment.bytes.
MIN_SEGMENT_BYTES = 1024 * 1024

DAY_MS = 24 * MS_PER_HOUR


def _gzip_level(value: Any) -> str | None:
    if value != -1 and not 1 <= value <= 9:
        return "Value must be between 1 and 9 or equal to -1"   # Kafka's GzipCompression level validator
    return None


def _throttled_replicas(name: str) -> Validator:
    """Kafka's ThrottledReplicaListValidator: "*" (the items joined), or every item
    "partition:broker" or empty; the message names the config and shows the whole list as
    Java prints a List."""
    def check(value: Any) -> tuple[str, str] | None:
        if "".join(value) == "*" or all(_THROTTLED_REPLICA_RE.fullmatch(item) for item in value):
            return None
        return (f"{name} must be the literal '*' or a list of replicas in the following format: "
                "[partitionId]:[brokerId],[partitionId]:[brokerId],..."), f"[{', '.join(value)}]"

    return check


_THROTTLED_REPLICA_RE = re.compile(r"([0-9]+:[0-9]+)?")


def _key(name: str, type_: Type, default: Any, validator: Validator | None = None, doc: str = "",
         acted_on: bool = True, internal: bool = False) -> ConfigKey:
    return ConfigKey(name, type_, default, doc, validator, acted_on, internal=internal)


_I, _L, _D, _B, _STR, _LIST = Type.INT, Type.LONG, Type.DOUBLE, Type.BOOLEAN, Type.STRING, Type.LIST
_NOT_YET = {"acted_on": False}

_KEYS = (
    # -- segments and indexes --
    _key("segment.bytes", _I, 1024 * 1024 * 1024, at_least(MIN_SEGMENT_BYTES),
         "Roll when the active segment would exceed this size."),
    _key("internal.segment.bytes", _I, None, None,
         "Kafka's test-only segment size: when set (any INT, unchecked), it replaces segment.bytes.",
         internal=True),
    _key("segment.ms", _L, 7 * DAY_MS, at_least(1),
         "Roll when the active segment's first timestamp is this old."),
    _key("segment.jitter.ms", _L, 0, at_least(0),
         "Most random time taken off segment.ms, per segment, so partitions do not roll at once."),
    _key("segment.index.bytes", _I, 10 * 1024 * 1024, at_least(4),
         "Preallocated size of the active indexes; a full index rolls the segment."),
    _key("index.interval.bytes", _I, 4096, at_least(0), "Log bytes between two index entries."),
    _key("preallocate", _B, False, None, "Preallocate segment files.", **_NOT_YET),
    # -- flushing --
    _key("flush.messages", _L, LONG_MAX, at_least(1), "fsync after this many unflushed records."),
    _key("flush.ms", _L, LONG_MAX, at_least(0), "fsync when the last flush is this old."),
    # -- records --
    _key("message.timestamp.type", _STR, CREATE_TIME, one_of(CREATE_TIME, LOG_APPEND_TIME),
         "CreateTime keeps the producer's timestamps; LogAppendTime stamps the broker's."),
    _key("max.message.bytes", _I, 1024 * 1024 + 12, at_least(0), "Largest record batch accepted."),
    _key("file.delete.delay.ms", _L, 60000, at_least(0),
         "Time a deleted segment lingers as .deleted."),
    # -- retention and compaction --
    _key("retention.ms", _L, 7 * DAY_MS, at_least(-1),
         "Age after which a segment is deleted (-1: never)."),
    _key("retention.bytes", _L, -1, None,
         "Partition size above which old segments are deleted (-1: no limit)."),
    _key("cleanup.policy", _LIST, (CLEANUP_POLICY_DELETE,),
         each_of(CLEANUP_POLICY_COMPACT, CLEANUP_POLICY_DELETE),
         "delete (retention), compact (the log cleaner), or both."),
    _key("delete.retention.ms", _L, DAY_MS, at_least(0),
         "How long compaction keeps tombstones."),
    _key("min.cleanable.dirty.ratio", _D, 0.5, between(0, 1),
         "Dirty share of a log above which it is compacted."),
    _key("min.compaction.lag.ms", _L, 0, at_least(0),
         "A record stays uncompacted at least this long."),
    _key("max.compaction.lag.ms", _L, LONG_MAX, at_least(1),
         "A record becomes compactable at most this long after it was written."),
    # -- timestamp bounds --
    _key("message.timestamp.before.max.ms", _L, LONG_MAX, at_least(0),
         "How far in the past a CreateTime timestamp may be."),
    _key("message.timestamp.after.max.ms", _L, MS_PER_HOUR, at_least(0),
         "How far in the future a CreateTime timestamp may be (Kafka 4's default, one hour)."),
    # -- replication, compression, formats, tiered storage --
    _key("min.insync.replicas", _I, 1, at_least(1),
         "Replicas that must have a write before acks=all succeeds."),
    _key("unclean.leader.election.enable", _B, False, None,
         "Allow an out-of-sync replica to become leader."),
    _key("compression.type", _STR, "producer", one_of(*COMPRESSION_TYPES),
         "Codec batches are stored in; producer keeps the one each batch came with."),
    # (the levels of the codecs are the Java producer's, whatever these say)
    _key("compression.gzip.level", _I, -1, _gzip_level, **_NOT_YET),
    _key("compression.lz4.level", _I, 9, between(1, 17), **_NOT_YET),
    _key("compression.zstd.level", _I, 3, between(-131072, 22), **_NOT_YET),
    _key("leader.replication.throttled.replicas", _LIST, (),
         _throttled_replicas("leader.replication.throttled.replicas"), **_NOT_YET),
    _key("follower.replication.throttled.replicas", _LIST, (),
         _throttled_replicas("follower.replication.throttled.replicas"), **_NOT_YET),
    _key("remote.storage.enable", _B, False, **_NOT_YET),
    _key("local.retention.ms", _L, -2, at_least(-2), **_NOT_YET),
    _key("local.retention.bytes", _L, -2, at_least(-2), **_NOT_YET),
    _key("remote.log.copy.disable", _B, False, **_NOT_YET),
    _key("remote.log.delete.on.disable", _B, False, **_NOT_YET),
)

CONFIG_KEYS: Mapping[str, ConfigKey] = {key.name: key for key in _KEYS}
"""Kafka topic config name -> ConfigKey, in the order of LogConfig's fields."""

# The order Kafka's LogConfig defines the names in, which is the order its ConfigDef parses a
# topic's configs in: of several bad values, the first in this order is the one refused.
KAFKA_DEFINITION_ORDER: tuple[str, ...] = (
    "segment.bytes", "segment.ms", "segment.jitter.ms", "segment.index.bytes", "flush.messages", "flush.ms",
    "retention.bytes", "retention.ms", "max.message.bytes", "index.interval.bytes", "delete.retention.ms",
    "min.compaction.lag.ms", "max.compaction.lag.ms", "file.delete.delay.ms", "min.cleanable.dirty.ratio",
    "cleanup.policy", "unclean.leader.election.enable", "min.insync.replicas", "compression.type",
    "compression.gzip.level", "compression.lz4.level", "compression.zstd.level", "preallocate",
    "message.timestamp.type", "message.timestamp.before.max.ms", "message.timestamp.after.max.ms",
    "leader.replication.throttled.replicas", "follower.replication.throttled.replicas", "remote.storage.enable",
    "local.retention.ms", "local.retention.bytes", "remote.log.copy.disable", "remote.log.delete.on.disable",
    "internal.segment.bytes")
_DEFINED_AT = {name: index for index, name in enumerate(KAFKA_DEFINITION_ORDER)}

_ATTRIBUTES = tuple(key.attribute for key in _KEYS)
_ATTRIBUTE_SET = frozenset(_ATTRIBUTES)


def _canonical(key: ConfigKey, value: Any) -> Any:
    """A field's value parsed and validated, LIST values as tuples; None stays None for a
    name whose default is None (an internal name not given)."""
    if value is None and key.default is None:
        return None
    parsed = key.parse(value)
    return tuple(parsed) if key.type is Type.LIST else parsed


class LogConfig:
    """The settings of one partition log (Kafka's topic configs). Immutable.

    Build it from Kafka names with `LogConfig.from_properties({"segment.bytes": "1048576"})`
    or directly with field names: `LogConfig(segment_bytes=1 << 20)`. Both validate.

    One slot per entry of the table, named by its attribute, set once by `__init__`.
    (A plain class rather than a generated dataclass: a start imports this module, and
    generating a dataclass of this many fields costs several milliseconds.)
    """

    __slots__ = _ATTRIBUTES

    def __init__(self, **settings: Any) -> None:
        unknown = settings.keys() - _ATTRIBUTE_SET
        if unknown:
            raise TypeError(f"LogConfig has no setting {sorted(unknown)[0]!r}")
        for key in _KEYS:
            value = settings.get(key.attribute, key.default)
            object.__setattr__(self, key.attribute, _canonical(key, value))

    def check_compaction_lags(self) -> None:
        """Kafka's LogConfig.validateValues: InvalidConfig (with Kafka's message) when
        min.compaction.lag.ms is above max.compaction.lag.ms. Checked where the settings are
        chosen (a request setting a topic's configs, with the broker's defaults under them;
        the broker's defaults at its start), not by every LogConfig made: a broker default
        changed later under a topic's override makes such a config, and Kafka runs it."""
        if self.min_compaction_lag_ms > self.max_compaction_lag_ms:
            raise InvalidConfig(
                "min.compaction.lag.ms",
                f"conflict topic config setting min.compaction.lag.ms ({self.min_compaction_lag_ms}) > "
                f"max.compaction.lag.ms ({self.max_compaction_lag_ms})",
            )

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"LogConfig is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"LogConfig is immutable: cannot delete {name!r}")

    def _values(self) -> tuple:
        return tuple(getattr(self, attribute) for attribute in _ATTRIBUTES)

    def __eq__(self, other: object) -> bool:
        if type(other) is not LogConfig:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        return "LogConfig(" + ", ".join(f"{a}={getattr(self, a)!r}" for a in _ATTRIBUTES) + ")"

    # -- building --

    @classmethod
    def from_properties(
        cls, properties: Mapping[str, Any], *, defaults: LogConfig | None = None
    ) -> LogConfig:
        """A LogConfig from Kafka topic config names, e.g. `{"segment.bytes": "1048576"}`.

        Values may be strings (as read from a properties file or a CreateTopics request)
        or Python values of the right type. Names not given keep their value from
        `defaults` (Kafka's defaults when None). Raises InvalidConfig for an unknown name
        or an invalid value, the first of several in Kafka's definition order.
        """
        changes: dict[str, Any] = {}
        for name in properties:
            if name not in CONFIG_KEYS:
                raise InvalidConfig(name, "unknown topic config name")
        for name in sorted(properties, key=_DEFINED_AT.__getitem__):
            key = CONFIG_KEYS[name]
            changes[key.attribute] = _canonical(key, properties[name])
        if defaults is None:   # Kafka's defaults are the fields' own: validated once, not twice
            return cls(**changes)
        return defaults.replace(**changes)

    def replace(self, **changes: Any) -> LogConfig:
        """This config with some settings changed, by attribute name; validated as new."""
        return LogConfig(**{**{a: getattr(self, a) for a in _ATTRIBUTES}, **changes})

    def with_overrides(self, properties: Mapping[str, Any]) -> LogConfig:
        """This config with some Kafka-named settings changed."""
        return LogConfig.from_properties(properties, defaults=self)

    def to_properties(self) -> dict[str, str]:
        """Every setting as Kafka name -> string, the form Kafka's tools print."""
        return {name: key.format(getattr(self, key.attribute)) for name, key in CONFIG_KEYS.items()}

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
    def max_segment_bytes(self) -> int:
        """The segment size the log rolls at and caps one append by: internal.segment.bytes
        when set, else segment.bytes (Kafka's LogConfig.segmentSize)."""
        if self.internal_segment_bytes is not None:
            return self.internal_segment_bytes
        return self.segment_bytes

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
