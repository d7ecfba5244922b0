"""GROUP config resources (ConfigResource type 32): a group's own configs (Kafka's
`GroupConfig`), stored by the controller as ConfigRecords with resource type 32.

The names (`GROUP_CONFIG_KEYS`) and where their defaults come from:

| group config                    | type   | default: the broker config (or fixed) |
| ------------------------------- | ------ | ------------------------------------- |
| consumer.session.timeout.ms     | INT>=1 | group.consumer.session.timeout.ms     |
| consumer.heartbeat.interval.ms  | INT>=1 | group.consumer.heartbeat.interval.ms  |
| share.session.timeout.ms        | INT>=1 | group.share.session.timeout.ms        |
| share.heartbeat.interval.ms     | INT>=1 | group.share.heartbeat.interval.ms     |
| share.record.lock.duration.ms   | INT>=1000 | group.share.record.lock.duration.ms |
| share.auto.offset.reset         | STRING | latest                                |
| share.isolation.level           | STRING | read_uncommitted                      |
| streams.session.timeout.ms      | INT>=1 | 45000                                 |
| streams.heartbeat.interval.ms   | INT>=1 | 5000                                  |
| streams.num.standby.replicas    | INT>=0 | 0                                     |

(Kafka takes the streams defaults from its constants, not from the broker's
`group.streams.*`; so does pylog.)

Validation of a group's new set of values (`check_group_configs`, the controller's, as
Kafka's `GroupConfig.validate`), INVALID_CONFIG each, in this order: a name that is not a
group config ("Unknown group config name: x"); a value of the wrong type or out of the
name's own range ("Invalid value x for configuration n: Value must be at least 1"); then,
with the defaults filled in, the bounds set by the broker configs: each heartbeat interval
and session timeout within the broker's `group.<protocol>.min/max.*`, the record lock
duration within `group.share.min/max.record.lock.duration.ms`, the standby replicas at most
`group.streams.max.standby.replicas` ("consumer.session.timeout.ms must be less than or
equal to group.consumer.max.session.timeout.ms"), then each session timeout above its
heartbeat interval ("consumer.session.timeout.ms must be greater than
consumer.heartbeat.interval.ms"). pylog's group coordinator does not read these yet.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from protocol.error_codes import ErrorCode
from storage.config_def import ConfigKey, Type, at_least, one_of
from storage.errors import InvalidConfig

from pylog.dynamic_broker_config import invalid_value_message
from pylog.errors import BrokerError

GROUP_RESOURCE = 32

_DURATION_RE = re.compile(r"P(?:\d+D)?(?:T(?:\d+H)?(?:\d+M)?(?:\d+(?:\.\d+)?S)?)?", re.IGNORECASE)


def _auto_offset_reset(value: Any) -> tuple[str, Any] | None:
    text = value.strip().lower()
    if text in ("earliest", "latest"):
        return None
    if text.startswith("by_duration:"):
        duration = value.strip()[len("by_duration:"):]
        if duration not in ("P", "PT") and not duration.upper().endswith("T") and _DURATION_RE.fullmatch(duration):
            return None
    return (f"Invalid value `{value}` for configuration share.auto.offset.reset. The value must be either "
            "'earliest', 'latest' or of the format 'by_duration:<PnDTnHnMn.nS>'.")


_I, _S = Type.INT, Type.STRING

# group config -> (its key, the broker config its default comes from or None)
_TABLE: tuple[tuple[ConfigKey, str | None], ...] = (
    (ConfigKey("consumer.session.timeout.ms", _I, 45000,
               "How long a consumer-protocol group member may stay silent before it is removed.",
               at_least(1)), "group.consumer.session.timeout.ms"),
    (ConfigKey("consumer.heartbeat.interval.ms", _I, 5000,
               "How often the members of a consumer-protocol group are told to heartbeat.",
               at_least(1)), "group.consumer.heartbeat.interval.ms"),
    (ConfigKey("share.session.timeout.ms", _I, 45000,
               "How long a share group member may stay silent before it is removed.",
               at_least(1)), "group.share.session.timeout.ms"),
    (ConfigKey("share.heartbeat.interval.ms", _I, 5000,
               "How often the members of a share group are told to heartbeat.",
               at_least(1)), "group.share.heartbeat.interval.ms"),
    (ConfigKey("share.record.lock.duration.ms", _I, 30000,
               "How long a share group member holds the records it acquired.",
               at_least(1000)), "group.share.record.lock.duration.ms"),
    (ConfigKey("share.auto.offset.reset", _S, "latest",
               "The strategy to initialize the share-partition start offset: earliest, latest or "
               "by_duration:<PnDTnHnMn.nS>.", _auto_offset_reset), None),
    (ConfigKey("share.isolation.level", _S, "read_uncommitted",
               "Whether a share group reads transactional records before they commit.",
               one_of("read_committed", "read_uncommitted")), None),
    (ConfigKey("streams.session.timeout.ms", _I, 45000,
               "How long a streams group member may stay silent before it is removed.",
               at_least(1)), None),
    (ConfigKey("streams.heartbeat.interval.ms", _I, 5000,
               "How often the members of a streams group are told to heartbeat.",
               at_least(1)), None),
    (ConfigKey("streams.num.standby.replicas", _I, 0,
               "The number of standby replicas for each task of a streams group.",
               at_least(0)), None),
)

GROUP_CONFIG_KEYS: dict[str, ConfigKey] = {key.name: key for key, _ in _TABLE}
_BROKER_DEFAULTS: dict[str, str] = {key.name: broker for key, broker in _TABLE if broker}

# (group config, broker config of its lower bound or None, of its upper bound)
_BOUNDS = tuple(
    (f"{protocol}.{what}", f"group.{protocol}.min.{what}", f"group.{protocol}.max.{what}")
    for protocol in ("consumer", "share") for what in ("heartbeat.interval.ms", "session.timeout.ms")
) + (
    ("share.record.lock.duration.ms", "group.share.min.record.lock.duration.ms",
     "group.share.max.record.lock.duration.ms"),
    ("streams.heartbeat.interval.ms", "group.streams.min.heartbeat.interval.ms",
     "group.streams.max.heartbeat.interval.ms"),
    ("streams.session.timeout.ms", "group.streams.min.session.timeout.ms",
     "group.streams.max.session.timeout.ms"),
    ("streams.num.standby.replicas", None, "group.streams.max.standby.replicas"),
)

# the broker configs the defaults and bounds read
BROKER_CONFIG_NAMES: tuple[str, ...] = tuple(sorted(
    set(_BROKER_DEFAULTS.values()) | {n for _, lo, hi in _BOUNDS for n in (lo, hi) if n}))


def group_defaults(broker_config: Mapping[str, Any]) -> dict[str, Any]:
    """Every group config's default (typed) under this broker's configs (a mapping holding
    at least `BROKER_CONFIG_NAMES`)."""
    return {name: broker_config[_BROKER_DEFAULTS[name]] if name in _BROKER_DEFAULTS else key.default
            for name, key in GROUP_CONFIG_KEYS.items()}


def group_configs(broker_config: Mapping[str, Any], own: Mapping[str, str]) -> dict[str, Any]:
    """A group's effective configs (typed): its own values over the defaults. Own values
    that do not parse are left out."""
    values = group_defaults(broker_config)
    for name, text in own.items():
        key = GROUP_CONFIG_KEYS.get(name)
        if key is not None:
            try:
                values[name] = key.parse(text)
            except InvalidConfig:
                pass
    return values


def check_group_configs(broker_config: Mapping[str, Any], new: Mapping[str, str | None]) -> None:
    """BrokerError with Kafka's code and message unless `new` (a group's whole set of own
    values after a change) is valid under this broker's configs."""
    nulls = [name for name, value in new.items() if value is None]
    if nulls:
        raise BrokerError(ErrorCode.INVALID_CONFIG,
                          f"Null value not supported for group configs: {','.join(nulls)}")
    for name in new:
        if name not in GROUP_CONFIG_KEYS:
            raise BrokerError(ErrorCode.INVALID_CONFIG, f"Unknown group config name: {name}")
    values = group_defaults(broker_config)
    for name in GROUP_CONFIG_KEYS:   # parsed in definition order, as Kafka's ConfigDef.parse
        if name not in new:
            continue
        text = new[name]
        try:
            values[name] = GROUP_CONFIG_KEYS[name].parse(text)
        except InvalidConfig as e:
            raise BrokerError(ErrorCode.INVALID_CONFIG, invalid_value_message(e, text)) from None
    for name, lower, upper in _BOUNDS:
        if lower is not None and values[name] < broker_config[lower]:
            raise BrokerError(ErrorCode.INVALID_CONFIG, f"{name} must be greater than or equal to {lower}")
        if values[name] > broker_config[upper]:
            raise BrokerError(ErrorCode.INVALID_CONFIG, f"{name} must be less than or equal to {upper}")
    for protocol in ("consumer", "share", "streams"):
        session, heartbeat = f"{protocol}.session.timeout.ms", f"{protocol}.heartbeat.interval.ms"
        if values[session] <= values[heartbeat]:
            raise BrokerError(ErrorCode.INVALID_CONFIG, f"{session} must be greater than {heartbeat}")
