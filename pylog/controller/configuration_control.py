"""The controller's config rules: topic overrides as ConfigRecords (Kafka's
`ConfigurationControlManager` with `ControllerConfigurationValidator`), and the checks
CreateTopics shares.

Pure functions over a `MetadataImage`; each request function returns a `ControllerResult`
whose records the QuorumController commits. Nothing here does I/O or keeps state, so the
caller (the controller's single event loop) serializes access by owning the image.

Records: a changed override is `ConfigRecord(resource_type=2 (TOPIC), resource_name=topic,
name, value)` version 0; value None deletes it. Only changed names get a record (an
unchanged value writes nothing). When the `eligible.leader.replicas.version` feature is at
least 1, a record for `min.insync.replicas` is followed by a `ClearElrRecord` for the topic
(Kafka's `createClearElrRecordsAsNeeded`).

IncrementalAlterConfigs (v0-1) and AlterConfigs (v0-2), per resource, in Kafka's order:
  a resource named twice: INVALID_REQUEST "Duplicate resource." once, unchanged; an unknown
  resource type: UNSUPPORTED_VERSION; a config name given twice: INVALID_REQUEST. Then, as
  Kafka's controller takes them: the operations (SET / DELETE / APPEND / SUBTRACT, a SET to
  null deletes, APPEND / SUBTRACT on a LIST config only, INVALID_CONFIG; the legacy
  AlterConfigs replaces the whole set, a null value leaving the name out), in a Java
  HashMap's order of the names, the first refusal ending them; a value above 32767
  characters, INVALID_CONFIG; then per type:
  - BROKER (checked by the broker first, pylog/dynamic_broker_config.py): a name that is
    not a number or is negative INVALID_REQUEST (Kafka's ControllerConfigurationValidator),
    else one ConfigRecord(resource_type=4) per name given, changed or not, and for the
    legacy API one deleting each stored name left out;
  - GROUP: the empty name INVALID_REQUEST "Default group resources are not allowed.", then
    the group's new set of values checked as a whole (pylog/group_configs.py,
    INVALID_CONFIG); one ConfigRecord(resource_type=32) per changed name, whether the group
    exists or not;
  - CLIENT_METRICS: the subscription's new set of values checked as a whole
    (pylog/client_metrics_configs.py); one ConfigRecord(resource_type=16) per changed name;
  - TOPIC: the empty name INVALID_REQUEST, an illegal name INVALID_TOPIC_EXCEPTION, the new
    override set validated as a whole through LogConfig (INVALID_CONFIG with Kafka's
    messages), then the topic must exist (UNKNOWN_TOPIC_OR_PARTITION "The topic 'x' does
    not exist.");
  - BROKER_LOGGER (answered by the broker): INVALID_REQUEST "Unknown resource type X"
    should it come here.
  An operation id that is none of the four, reached before a refusal: the whole request
  fails, every resource UNKNOWN_SERVER_ERROR with no message, as Kafka's controller fails
  on the null type. `validate_only` checks everything and writes nothing.

Topic config defaults come from the controller's static config: `TopicSettings` carries
the LogConfig of defaults and the broker config names given (what makes a CreateTopics
v5+ config source STATIC_BROKER_CONFIG rather than DEFAULT_CONFIG).
"""

from __future__ import annotations

import logging
from typing import Any, Iterable, Mapping

from protocol.error_codes import ErrorCode
from protocol.java_order import JavaHashMap
from protocol.messages import AlterConfigsResponse, IncrementalAlterConfigsResponse
from protocol.metadata import ClearElrRecord, ConfigRecord
from storage.config import CONFIG_KEYS as TOPIC_CONFIG_KEYS
from storage.config import LogConfig
from storage.config_def import Type
from storage.errors import InvalidConfig

from pylog.client_metrics_configs import check_client_metrics_configs
from pylog.config import ConfigSource
from pylog.config_keys import CONFIG_KEYS as BROKER_CONFIG_KEYS
from pylog.config_keys import TOPIC_CONFIG_SYNONYMS
from pylog.controller.results import ControllerResult
from pylog.errors import BrokerError
from pylog.group_configs import BROKER_CONFIG_NAMES as GROUP_BOUND_NAMES
from pylog.group_configs import check_group_configs
from pylog.metadata import topic_name_problem
from pylog.metadata_image import TOPIC_RESOURCE, MetadataImage

log = logging.getLogger("pylog.controller.configs")

# ConfigResource.Type ids.
RESOURCE_TOPIC = 2
RESOURCE_BROKER = 4
RESOURCE_BROKER_LOGGER = 8
RESOURCE_CLIENT_METRICS = 16
RESOURCE_GROUP = 32
RESOURCE_TYPE_NAMES = {RESOURCE_TOPIC: "TOPIC", RESOURCE_BROKER: "BROKER",
                       RESOURCE_BROKER_LOGGER: "BROKER_LOGGER",
                       RESOURCE_CLIENT_METRICS: "CLIENT_METRICS", RESOURCE_GROUP: "GROUP"}

# IncrementalAlterConfigs operations (AlterConfigOp.OpType).
OP_SET, OP_DELETE, OP_APPEND, OP_SUBTRACT = 0, 1, 2, 3
_OP_NAMES = {OP_SET: "SET", OP_DELETE: "DELETE", OP_APPEND: "APPEND", OP_SUBTRACT: "SUBTRACT"}

MAX_CONFIG_VALUE_CHARS = 32767   # Java's Short.MAX_VALUE, Kafka's limit on a ConfigRecord value
ELR_FEATURE = "eligible.leader.replicas.version"
MIN_IN_SYNC_REPLICAS = "min.insync.replicas"
CONFIG_RECORD_VERSION = 0
CLEAR_ELR_RECORD_VERSION = 0

_DEFAULT_LOG_CONFIG = LogConfig()


class TopicSettings:
    """The controller's static settings that the topic and config rules read (set once)."""

    __slots__ = ("default_log_config", "static_broker_configs", "num_partitions", "default_replication_factor",
                 "delete_topic_enable", "node_id", "group_broker_configs", "remote_log_storage_system_enable")

    def __init__(self, default_log_config: LogConfig = _DEFAULT_LOG_CONFIG,
                 static_broker_configs: frozenset[str] = frozenset(), num_partitions: int = 1,
                 default_replication_factor: int = 1, delete_topic_enable: bool = True, node_id: int = 1,
                 group_broker_configs: Mapping[str, Any] | None = None,
                 remote_log_storage_system_enable: bool = False):
        self.default_log_config = default_log_config
        # whether topics may set remote.storage.enable (pylog stores no remote data either way)
        self.remote_log_storage_system_enable = remote_log_storage_system_enable
        self.static_broker_configs = static_broker_configs   # the names given
        self.num_partitions = num_partitions
        self.default_replication_factor = default_replication_factor
        self.delete_topic_enable = delete_topic_enable
        self.node_id = node_id   # the controller's: its own dynamic broker configs count
        # the broker configs that bound and default the GROUP configs (pylog/group_configs.py)
        self.group_broker_configs = group_broker_configs if group_broker_configs is not None else {
            name: BROKER_CONFIG_KEYS[name].default for name in GROUP_BOUND_NAMES}

    @classmethod
    def from_config(cls, config) -> TopicSettings:
        """From a `pylog.config.BrokerConfig` (the controller's own)."""
        given = frozenset(name for synonyms in TOPIC_CONFIG_SYNONYMS.values()
                          for name, _ in synonyms if config.is_set(name))
        return cls(default_log_config=LogConfig.from_properties(config.topic_defaults()),
                   static_broker_configs=given, num_partitions=config.num_partitions,
                   default_replication_factor=config.default_replication_factor,
                   delete_topic_enable=config.delete_topic_enable, node_id=config.node_id,
                   group_broker_configs={name: config.get(name) for name in GROUP_BOUND_NAMES},
                   remote_log_storage_system_enable=config.get("remote.log.storage.system.enable"))


def elr_enabled(image: MetadataImage) -> bool:
    """Kafka's `isElrFeatureEnabled`."""
    return image.features.get(ELR_FEATURE, 0) >= 1


# ---------------------------------------------------------------------------------------
# Topic configs: validation and effective values (shared with CreateTopics and the
# broker's DescribeConfigs)


def check_no_null_configs(configs: dict[str, str | None]) -> None:
    """INVALID_CONFIG (Kafka's message) when a topic config is given no value."""
    nulls = [name for name, value in configs.items() if value is None]
    if nulls:
        raise BrokerError(ErrorCode.INVALID_CONFIG,
                          f"Null value not supported for topic configs: {','.join(nulls)}")


def check_topic_configs(default_log_config: LogConfig, configs: dict[str, str | None],
                        remote_storage_system_enabled: bool = False) -> LogConfig:
    """The LogConfig of a topic with these overrides; BrokerError(INVALID_CONFIG) with
    Kafka's message for a null value, an unknown name, a bad value, min.compaction.lag.ms
    above max.compaction.lag.ms, or remote.storage.enable on a broker whose
    remote.log.storage.system.enable is false (Kafka's default)."""
    check_no_null_configs(configs)
    for name in configs:
        if name not in TOPIC_CONFIG_KEYS:
            raise BrokerError(ErrorCode.INVALID_CONFIG, f"Unknown topic config name: {name}")
    try:
        log_config = default_log_config.with_overrides(configs)
    except InvalidConfig as e:
        # the value at fault: the one given, or the item of a list that is (Kafka's ValidList)
        value = configs.get(e.name) if e.value is None else e.value
        if value is None:
            raise BrokerError(ErrorCode.INVALID_CONFIG, f"Invalid configuration {e.name}: {e.reason}") from None
        raise BrokerError(ErrorCode.INVALID_CONFIG,
                          f"Invalid value {value} for configuration {e.name}: {e.reason}") from None
    try:
        log_config.check_compaction_lags()
    except InvalidConfig as e:
        raise BrokerError(ErrorCode.INVALID_CONFIG, e.reason) from None
    if log_config.remote_storage_enable and not remote_storage_system_enabled:
        raise BrokerError(ErrorCode.INVALID_CONFIG, "Tiered Storage functionality is disabled in the broker. "
                                                    "Topic cannot be configured with remote log storage.")
    return log_config


def dynamic_topic_defaults(image: MetadataImage, node_id: int) -> dict[str, tuple[str, ConfigSource]]:
    """Topic config name -> (value in the topic config's unit, source) of the topic defaults
    the dynamic broker configs give: the node's own (DYNAMIC_BROKER_CONFIG) before the
    cluster's (DYNAMIC_DEFAULT_BROKER_CONFIG), each in its synonyms' order."""
    layers = ((image.configs.get((RESOURCE_BROKER, str(node_id)), {}), ConfigSource.DYNAMIC_BROKER_CONFIG),
              (image.configs.get((RESOURCE_BROKER, ""), {}), ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG))
    result = {}
    for topic_name, synonyms in TOPIC_CONFIG_SYNONYMS.items():
        for values, source in layers:
            found = [(values[b], factor) for b, factor in synonyms if b in values]
            if found:
                value, factor = found[0]
                if factor != 1 and value.lstrip("-").isdigit():
                    value = str(int(value) * factor)
                result[topic_name] = (value, source)
                break
    return result


def effective_topic_configs(default_log_config: LogConfig, static_broker_configs: Iterable[str],
                            overrides: dict[str, str],
                            dynamic: dict[str, tuple[str, ConfigSource]] | None = None
                            ) -> list[tuple[str, str, ConfigSource]]:
    """(name, value, source) of every topic config, as CreateTopics v5+ reports a new
    topic's configs (Kafka's KafkaConfigSchema.resolveEffectiveTopicConfigs): the override
    (DYNAMIC_TOPIC_CONFIG), else a dynamic broker value (`dynamic_topic_defaults`), else a
    given broker synonym (STATIC_BROKER_CONFIG), else the default (DEFAULT_CONFIG). Sorted
    by name."""
    given = set(static_broker_configs)
    dynamic = dynamic or {}
    try:
        default_log_config = default_log_config.with_overrides({n: v for n, (v, _) in dynamic.items()})
    except InvalidConfig:
        log.error("dynamic topic defaults %s do not make a topic config; not reported", dynamic)
        dynamic = {}
    effective = default_log_config.with_overrides(overrides).to_properties()
    result = []
    for name in sorted(TOPIC_CONFIG_KEYS):
        if TOPIC_CONFIG_KEYS[name].internal and name not in overrides:
            continue   # Kafka's internal names: only when given
        if name in overrides:
            source = ConfigSource.TOPIC_CONFIG
        elif name in dynamic:
            source = dynamic[name][1]
        elif any(b in given for b, _ in TOPIC_CONFIG_SYNONYMS.get(name, ())):
            source = ConfigSource.STATIC_BROKER_CONFIG
        else:
            source = ConfigSource.DEFAULT_CONFIG
        result.append((name, effective[name], source))
    return result


def _not_list(op: int, name: str) -> BrokerError:
    return BrokerError(ErrorCode.INVALID_CONFIG,
                       f"Can't {_OP_NAMES[op]} to key {name} because its type is not LIST.")


# Kafka's controller knows the config types of BROKER and TOPIC resources only (its
# KafkaConfigSchema): a GROUP or CLIENT_METRICS config is never a LIST to it, so APPEND and
# SUBTRACT are refused there, `metrics` and `match` included
NO_LIST_CONFIGS: dict = {}


def in_controller_order(configs) -> list:
    """A resource's operations as Kafka's controller takes them: a Java HashMap by name."""
    by_name = JavaHashMap()
    for config in configs:
        by_name[config.name] = config
    return by_name.values()


class UnknownOperation(Exception):
    """An IncrementalAlterConfigs operation id Kafka has no OpType for: its controller meets
    the null type in a `switch` and the whole request fails (UNKNOWN_SERVER_ERROR)."""


def apply_config_operations(current: dict[str, str], configs, keys=TOPIC_CONFIG_KEYS,
                            not_list=_not_list) -> dict[str, str]:
    """The values after IncrementalAlterConfigs' operations (Kafka's
    `incrementalAlterConfigResource`): SET (null deletes), DELETE, APPEND / SUBTRACT on
    LIST configs of `keys` only (else the error `not_list(op, name)`), starting from the
    config's own default when it has no value. The operations are taken in the order given
    and the first refusal ends them: the controller gives them in its order
    (`in_controller_order`), which says whether a resource is refused or meets an unknown
    operation first (`UnknownOperation`); a broker checking a BROKER resource, in the request's."""
    new = dict(current)
    for config in configs:
        op = config.config_operation
        if op == OP_SET:
            if config.value is None:
                new.pop(config.name, None)
            else:
                new[config.name] = config.value
        elif op == OP_DELETE:
            new.pop(config.name, None)
        elif op in (OP_APPEND, OP_SUBTRACT):
            key = keys.get(config.name)
            if key is None or key.type is not Type.LIST:
                raise not_list(op, config.name)
            base = new.get(config.name)
            if base is None:
                base = key.format(key.default) if key.default is not None else ""
            parts = [p for p in base.split(",") if p]
            for item in (config.value or "").split(","):
                if op == OP_APPEND and item not in parts:
                    parts.append(item)
                elif op == OP_SUBTRACT and item in parts:
                    parts.remove(item)
            new[config.name] = ",".join(parts)
        else:
            raise UnknownOperation(op)
    return new


def config_records(resource_type: int, resource: str, current: dict[str, str],
                   new: dict[str, str]) -> list[tuple[ConfigRecord, int]]:
    """The ConfigRecords that take a TOPIC, GROUP or CLIENT_METRICS resource's values from `current` to
    `new`: one per changed name (new or changed values first, in `new`'s order, then
    deletions). BrokerError(INVALID_CONFIG) for a value too long for a ConfigRecord."""
    records: list[tuple[ConfigRecord, int]] = []
    for name, value in new.items():
        if current.get(name) != value:
            if value is not None and len(value) > MAX_CONFIG_VALUE_CHARS:
                raise BrokerError(ErrorCode.INVALID_CONFIG,
                                  "The configuration value cannot be added because it exceeds the "
                                  f"maximum value size of {MAX_CONFIG_VALUE_CHARS} bytes.")
            records.append(_config_record(resource_type, resource, name, value))
    records.extend(_config_record(resource_type, resource, name, None) for name in current if name not in new)
    return records


def topic_config_records(image: MetadataImage, topic: str, current: dict[str, str],
                         new: dict[str, str]) -> list[tuple[ConfigRecord, int]]:
    """`config_records` of the topic, and a ClearElrRecord after them when
    min.insync.replicas changed and ELR is enabled."""
    records: list[tuple] = config_records(TOPIC_RESOURCE, topic, current, new)
    if elr_enabled(image) and any(r.name == MIN_IN_SYNC_REPLICAS for r, _ in records):
        records.append((ClearElrRecord(topic_name=topic), CLEAR_ELR_RECORD_VERSION))
    return records


def _config_record(resource_type: int, resource: str, name: str, value: str | None) -> tuple[ConfigRecord, int]:
    return (ConfigRecord(resource_type=resource_type, resource_name=resource, name=name, value=value),
            CONFIG_RECORD_VERSION)


def check_topic_name(name: str | None) -> None:
    """INVALID_TOPIC_EXCEPTION with Kafka's message for an illegal topic name."""
    problem = "topic name is null" if name is None else topic_name_problem(name)
    if problem:
        raise BrokerError(ErrorCode.INVALID_TOPIC_EXCEPTION, problem)


# ---------------------------------------------------------------------------------------
# IncrementalAlterConfigs and AlterConfigs


def incremental_alter_configs(image: MetadataImage, request,
                              settings: TopicSettings) -> ControllerResult:
    """IncrementalAlterConfigs (v0-1)."""
    Response = IncrementalAlterConfigsResponse.AlterConfigsResourceResponse
    responses, records = _alter(image, request, settings, incremental=True, response_class=Response)
    return ControllerResult(IncrementalAlterConfigsResponse(responses=responses), records)


def alter_configs(image: MetadataImage, request, settings: TopicSettings) -> ControllerResult:
    """AlterConfigs (v0-2), the legacy API: each resource's overrides replaced as a whole."""
    Response = AlterConfigsResponse.AlterConfigsResourceResponse
    responses, records = _alter(image, request, settings, incremental=False, response_class=Response)
    return ControllerResult(AlterConfigsResponse(responses=responses), records)


def _alter(image, request, settings, incremental: bool, response_class):
    try:
        return _alter_each(image, request, settings, incremental, response_class)
    except UnknownOperation:
        return [response_class(error_code=ErrorCode.UNKNOWN_SERVER_ERROR, error_message=None,
                               resource_type=r.resource_type, resource_name=r.resource_name)
                for r in request.resources], []


def _alter_each(image, request, settings, incremental: bool, response_class):
    seen: dict[tuple[int, str], int] = {}
    for resource in request.resources:
        key = (resource.resource_type, resource.resource_name)
        seen[key] = seen.get(key, 0) + 1
    answered: set[tuple[int, str]] = set()
    responses, records = [], []
    for resource in request.resources:
        key = (resource.resource_type, resource.resource_name)
        error = None
        if seen[key] > 1:
            if key in answered:
                continue
            answered.add(key)
            error = BrokerError(ErrorCode.INVALID_REQUEST, "Duplicate resource.")
        else:
            try:
                changes = _alter_resource(image, resource, incremental, settings)
            except BrokerError as e:
                error = e
            else:
                if not request.validate_only:
                    records.extend(changes)
        responses.append(response_class(
            error_code=error.code if error else ErrorCode.NONE,
            error_message=str(error) if error else None,
            resource_type=resource.resource_type, resource_name=resource.resource_name))
    return responses, records


def _alter_resource(image, resource, incremental: bool, settings: TopicSettings) -> list:
    resource_type, name = resource.resource_type, resource.resource_name
    if resource_type not in RESOURCE_TYPE_NAMES:
        raise BrokerError(ErrorCode.UNSUPPORTED_VERSION, f"Unknown resource type {resource_type}.")
    names = [c.name for c in resource.configs]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise BrokerError(ErrorCode.INVALID_REQUEST,
                          f"Error due to duplicate config keys : {', '.join(repeated)}")
    if resource_type == RESOURCE_BROKER:
        return _alter_broker_resource(image, resource, incremental)
    if resource_type == RESOURCE_GROUP:
        return _alter_group_resource(image, resource, incremental, settings)
    if resource_type == RESOURCE_CLIENT_METRICS:
        return _alter_client_metrics_resource(image, resource, incremental)
    if resource_type != RESOURCE_TOPIC:
        raise BrokerError(ErrorCode.INVALID_REQUEST,
                          f"Unknown resource type {RESOURCE_TYPE_NAMES[resource_type]}")
    # Kafka's order: the operations, the values' size, then its validator (the name first)
    current = dict(image.topic_configs(name))
    if incremental:
        new = apply_config_operations(current, in_controller_order(resource.configs))
    else:
        new = {c.name: c.value for c in resource.configs if c.value is not None}
    changes = topic_config_records(image, name, current, new)
    if not name:
        raise BrokerError(ErrorCode.INVALID_REQUEST, "Default topic resources are not allowed.")
    check_topic_name(name)
    check_topic_configs(settings.default_log_config, new, settings.remote_log_storage_system_enable)
    if name not in image.topics_by_name:
        raise BrokerError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"The topic '{name}' does not exist.")
    return changes


def _alter_group_resource(image: MetadataImage, resource, incremental: bool, settings: TopicSettings) -> list:
    """A GROUP resource: the group's new set of values checked as a whole
    (pylog/group_configs.py); one ConfigRecord per changed name. The group need not exist."""
    name = resource.resource_name
    current = dict(image.configs.get((RESOURCE_GROUP, name), {}))
    if incremental:
        new = apply_config_operations(current, in_controller_order(resource.configs), NO_LIST_CONFIGS)
    else:
        new = {c.name: c.value for c in resource.configs}
    records = config_records(RESOURCE_GROUP, name, current, new)
    if not name:
        raise BrokerError(ErrorCode.INVALID_REQUEST, "Default group resources are not allowed.")
    check_group_configs(settings.group_broker_configs, new)
    return records


def _alter_client_metrics_resource(image: MetadataImage, resource, incremental: bool) -> list:
    """A CLIENT_METRICS resource (a subscription): its new set of values checked as a whole
    (pylog/client_metrics_configs.py); one ConfigRecord per changed name."""
    name = resource.resource_name
    current = dict(image.configs.get((RESOURCE_CLIENT_METRICS, name), {}))
    if incremental:
        new = apply_config_operations(current, in_controller_order(resource.configs), NO_LIST_CONFIGS)
    else:
        new = {c.name: c.value for c in resource.configs if c.value is not None}
    records = config_records(RESOURCE_CLIENT_METRICS, name, current, new)
    check_client_metrics_configs(name, new)
    return records


def _alter_broker_resource(image: MetadataImage, resource, incremental: bool) -> list:
    """A BROKER resource ("" or a node id; the broker checked the names and values, Kafka's
    `ConfigAdminManager.preprocess`): one ConfigRecord per name given, changed or not (so
    that every broker reloads, as Kafka writes them), and one deleting each value the
    legacy AlterConfigs leaves out. With ELR enabled, `min.insync.replicas` may not be set on
    a node nor removed from the cluster default (Kafka's guards); pylog's bootstrap leaves
    ELR off (README), so a Kafka 4.1 with its default ELR refuses what pylog takes here."""
    name = resource.resource_name
    if name:
        try:
            broker_id = int(name)
        except ValueError:
            raise BrokerError(ErrorCode.INVALID_REQUEST,
                              "Unable to parse broker name as a base 10 number.") from None
        if broker_id < 0:
            raise BrokerError(ErrorCode.INVALID_REQUEST, "Invalid negative broker ID.")
    current = dict(image.configs.get((RESOURCE_BROKER, name), {}))
    records = []
    if incremental:
        new = apply_config_operations(current, in_controller_order(resource.configs), BROKER_CONFIG_KEYS)
        for config in resource.configs:
            records.append(_broker_config_record(name, config.name, new.get(config.name)))
    else:
        new = {c.name: c.value for c in resource.configs}
        records = [_broker_config_record(name, n, v) for n, v in new.items()]
        records.extend(_broker_config_record(name, n, None) for n in current if n not in new)
    guarded = elr_enabled(image)
    for record, _ in records:
        if guarded and record.name == MIN_IN_SYNC_REPLICAS and name:
            raise BrokerError(ErrorCode.INVALID_CONFIG,
                              f"Broker-level {MIN_IN_SYNC_REPLICAS} cannot be altered while ELR is enabled.")
        if guarded and record.name == MIN_IN_SYNC_REPLICAS and record.value is None:
            raise BrokerError(ErrorCode.INVALID_CONFIG,
                              f"Cluster-level {MIN_IN_SYNC_REPLICAS} cannot be removed while ELR is enabled.")
        if record.value is not None and len(record.value) > MAX_CONFIG_VALUE_CHARS:
            raise BrokerError(ErrorCode.INVALID_CONFIG,
                              "The configuration value cannot be added because it exceeds the "
                              f"maximum value size of {MAX_CONFIG_VALUE_CHARS} bytes.")
    return records


def _broker_config_record(name: str, key: str, value: str | None) -> tuple[ConfigRecord, int]:
    return (ConfigRecord(resource_type=RESOURCE_BROKER, resource_name=name, name=key, value=value),
            CONFIG_RECORD_VERSION)
