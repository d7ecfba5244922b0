"""CLIENT_METRICS config resources (ConfigResource type 16): client-metrics subscriptions
(KIP-714), each a name with three configs, stored by the controller as ConfigRecords with
resource type 16 (Kafka's `ClientMetricsConfigs`).

| config      | type | default | what                                                  |
| ----------- | ---- | ------- | ----------------------------------------------------- |
| metrics     | LIST | (empty) | prefixes of the metric names subscribed ("*": all)    |
| interval.ms | INT  | 300000  | how often a matching client pushes them               |
| match       | LIST | (empty) | `selector=regex` items a client must match            |

The selectors of `match` are client_instance_id, client_id, client_software_name,
client_software_version, client_source_address and client_source_port.

Validation of a subscription's new set of values (`check_client_metrics_configs`, the
controller's, as Kafka's `ClientMetricsConfigs.validate`), in this order: an empty name
(INVALID_REQUEST "Subscription name can't be empty"); a name that is not one of the three
(INVALID_REQUEST "Unknown client metrics configuration: x"); a value of the wrong type
(INVALID_CONFIG "Invalid value x for configuration interval.ms: Not a number of type INT");
an interval outside 100 ms to one hour (INVALID_REQUEST); a `match` item that is not one
`selector=regex` with a known selector and a regular expression that compiles
(INVALID_CONFIG "Illegal client matching pattern: x"; the expressions are compiled by
Python's `re`, whose syntax is close to Java's but not the same).

pylog does not serve GetTelemetrySubscriptions or PushTelemetry: the subscriptions are
stored, listed (ListConfigResources) and described, as a tool sees them, and no client is
asked for metrics.
"""

from __future__ import annotations

import re
from typing import Mapping

from protocol.error_codes import ErrorCode
from storage.config_def import ConfigKey, Type
from storage.errors import InvalidConfig

from pylog.dynamic_broker_config import invalid_value_message
from pylog.errors import BrokerError

CLIENT_METRICS_RESOURCE = 16

CLIENT_METRICS_CONFIG_KEYS: Mapping[str, ConfigKey] = {key.name: key for key in (
    ConfigKey("metrics", Type.LIST, [], "Prefixes of the metric names a matching client pushes; * for all."),
    ConfigKey("interval.ms", Type.INT, 5 * 60 * 1000, "How often a matching client pushes its metrics."),
    ConfigKey("match", Type.LIST, [], "selector=regex items a client must match, e.g. client_id=app-.*."),
)}

MIN_INTERVAL_MS, MAX_INTERVAL_MS = 100, 3600000

MATCH_SELECTORS = frozenset({"client_instance_id", "client_id", "client_software_name",
                             "client_software_version", "client_source_address", "client_source_port"})


def check_client_metrics_configs(name: str, new: Mapping[str, str]) -> None:
    """BrokerError with Kafka's code and message unless `new` (the subscription's whole set
    of values after the change) may be stored under the subscription `name`."""
    if not name:
        raise BrokerError(ErrorCode.INVALID_REQUEST, "Subscription name can't be empty")
    for config_name in new:
        if config_name not in CLIENT_METRICS_CONFIG_KEYS:
            raise BrokerError(ErrorCode.INVALID_REQUEST, f"Unknown client metrics configuration: {config_name}")
    parsed = {}
    for config_name, value in new.items():
        try:
            parsed[config_name] = CLIENT_METRICS_CONFIG_KEYS[config_name].parse(value)
        except InvalidConfig as e:
            raise BrokerError(ErrorCode.INVALID_CONFIG, invalid_value_message(e, value)) from None
    interval_ms = parsed.get("interval.ms")
    if interval_ms is not None and not MIN_INTERVAL_MS <= interval_ms <= MAX_INTERVAL_MS:
        raise BrokerError(ErrorCode.INVALID_REQUEST,
                          f"Invalid value {interval_ms} for interval.ms, interval must be between "
                          f"{MIN_INTERVAL_MS} and {MAX_INTERVAL_MS} (1 hour)")
    for pattern in parsed.get("match") or ():
        if not _valid_match(pattern):
            raise BrokerError(ErrorCode.INVALID_CONFIG, f"Illegal client matching pattern: {pattern}")


def _valid_match(pattern: str) -> bool:
    parts = pattern.split("=")
    while parts and not parts[-1]:   # Java's String.split drops the empty strings at the end
        parts.pop()
    if len(parts) != 2 or parts[0].strip() not in MATCH_SELECTORS:
        return False
    try:
        re.compile(parts[1].strip())
    except re.error:
        return False
    return True
