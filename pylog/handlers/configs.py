"""DescribeConfigs (key 32), IncrementalAlterConfigs (key 44), AlterConfigs (key 33).

Resources (Kafka's `ConfigResource.Type` ids): TOPIC (2), BROKER (4), BROKER_LOGGER (8),
CLIENT_METRICS (16), GROUP (32).

DescribeConfigs, as Kafka's `ConfigHelper.describeConfigs` answers it:

- TOPIC: every topic config with the topic's effective value. The source is the first of
  its synonyms: the topic's own override (DYNAMIC_TOPIC_CONFIG, 1), then the broker
  settings it derives from, given ones (STATIC_BROKER_CONFIG, 4) before defaults
  (DEFAULT_CONFIG, 5); no synonym at all means DEFAULT_CONFIG. Kafka keeps a synonym
  list only from the first entry named like the topic config's primary broker name
  (`dropWhile(name != primary)`), so `retention.ms`, `segment.ms`, `segment.jitter.ms` and
  `flush.ms` have no synonyms (source DEFAULT_CONFIG) unless `log.retention.ms`,
  `log.roll.ms`, ... themselves are given; pylog reports exactly that. An invalid name
  gets INVALID_TOPIC_EXCEPTION, an unknown topic UNKNOWN_TOPIC_OR_PARTITION.
- BROKER: the resource name is the node id ("1"): every broker config with its effective
  value and the source of its first synonym (dynamic per-broker, cluster default, static,
  default: pylog/dynamic_broker_config.py), plus the unknown names the broker was given,
  hidden (sensitive, null), as Kafka lists them; a PASSWORD is sensitive too; the names a
  BROKER resource may hold are not read-only. The empty
  name: the cluster-wide dynamic defaults, each with its DYNAMIC_DEFAULT_BROKER_CONFIG
  synonym only. Another node id, or a name that is not a number: INVALID_REQUEST.
- BROKER_LOGGER: the node id: the loggers and their levels (pylog/broker_loggers.py),
  source DYNAMIC_BROKER_LOGGER_CONFIG, no synonyms. The empty name or another id:
  INVALID_REQUEST.
- GROUP: the group id: every group config (pylog/group_configs.py) with the group's own
  value (source GROUP_CONFIG) or the default (DEFAULT_CONFIG), each with that one synonym,
  not read-only; a group that does not exist has the defaults. The empty name:
  INVALID_REQUEST "Group name must not be empty".
- CLIENT_METRICS: the subscription name: its three configs (pylog/client_metrics_configs.py),
  its own values (source CLIENT_METRICS_CONFIG, that one synonym) or the defaults (no
  synonym); a name without a subscription has the defaults. The empty name:
  INVALID_REQUEST "Client metrics subscription name must not be empty".
- `configuration_keys` null or empty means every config. v0 reports `is_default`
  (source DEFAULT_CONFIG), v1+ `config_source` and (when asked) synonyms, v3+
  `config_type` and (when asked) the documentation: pylog's own short text for a broker
  config, none for a topic config (README: Kafka's prose is not copied).
- A resource of any other type refuses the whole request, as Kafka's KafkaApis throws
  before describing anything: every resource INVALID_REQUEST with the code's own text.
- Order: Kafka gathers a resource's configs into a Scala `mutable.HashMap` by name (its
  `allConfigs`; the keys asked filter it into another), so they come in that map's order
  (protocol/scala_order.py), not by name; a broker's loggers come in their own order.

IncrementalAlterConfigs and AlterConfigs: the broker answers some resources itself, as
Kafka's `ConfigAdminManager.preprocess` does, and forwards the others to the controller
(pylog/controller/configuration_control.py), keeping each answer in its resource's place.
A resource named twice: each of its entries INVALID_REQUEST "Each resource must appear at
most once.", nothing else done with it. Every resource first: a config name twice ("Error
due to duplicate config keys") or a
null value but for DELETE ("Null value not supported for : a, b"), INVALID_REQUEST. Then
BROKER resources are checked here (node id, dynamic names, values:
`DynamicBrokerConfig.check_change`) and go to the controller only when good; BROKER_LOGGER
resources (IncrementalAlterConfigs only) are applied here and never stored; a resource of
another type (BROKER_LOGGER in the legacy API too) is INVALID_REQUEST "Unknown resource
type N"; GROUP and CLIENT_METRICS resources go to the
controller as they are (it checks them, pylog/group_configs.py,
pylog/client_metrics_configs.py). The controller writes ConfigRecords; every
broker applies them when they come back (pylog/metadata_publisher.py).
"""

from __future__ import annotations

import logging
from typing import Iterable, NamedTuple

from protocol.error_codes import ErrorCode
from protocol.java_order import java_string_hashcode
from protocol.messages import (
    AlterConfigsResponse,
    DescribeConfigsResponse,
    IncrementalAlterConfigsResponse,
)
from protocol.scala_order import mutable_hash_set_order
from storage.config import CONFIG_KEYS as TOPIC_CONFIG_KEYS
from storage.config_def import Type

from pylog.broker_loggers import alter_loggers, loggers
from pylog.client_metrics_configs import CLIENT_METRICS_CONFIG_KEYS
from pylog.config import ConfigSource
from pylog.config_keys import CONFIG_KEYS as BROKER_CONFIG_KEYS
from pylog.config_keys import TOPIC_CONFIG_SYNONYMS
from pylog.controller.configuration_control import (
    OP_APPEND,
    OP_DELETE,
    OP_SET,
    OP_SUBTRACT,
    apply_config_operations,
)
from pylog.dynamic_broker_config import UPDATABLE, DynamicBrokerConfig
from pylog.errors import BrokerError, api_error_message
from pylog.group_configs import BROKER_CONFIG_NAMES as GROUP_BOUND_NAMES
from pylog.group_configs import GROUP_CONFIG_KEYS, group_configs
from pylog.handlers.forwarding import forwarding_handler
from pylog.metadata import topic_name_problem

log = logging.getLogger("pylog.configs")

# ConfigResource.Type ids.
RESOURCE_UNKNOWN = 0
RESOURCE_TOPIC = 2
RESOURCE_BROKER = 4
RESOURCE_BROKER_LOGGER = 8
RESOURCE_CLIENT_METRICS = 16
RESOURCE_GROUP = 32
_KNOWN_RESOURCE_TYPES = {RESOURCE_TOPIC, RESOURCE_BROKER, RESOURCE_BROKER_LOGGER,
                         RESOURCE_CLIENT_METRICS, RESOURCE_GROUP}

# DescribeConfigsResponse.ConfigType ids.
CONFIG_TYPE_UNKNOWN = 0
CONFIG_TYPE_BOOLEAN = 1
CONFIG_TYPE_STRING = 2
CONFIG_TYPE_INT = 3
CONFIG_TYPE_SHORT = 4
CONFIG_TYPE_LONG = 5
CONFIG_TYPE_DOUBLE = 6
CONFIG_TYPE_LIST = 7
CONFIG_TYPE_CLASS = 8
CONFIG_TYPE_PASSWORD = 9

_CONFIG_TYPES = {
    Type.BOOLEAN: CONFIG_TYPE_BOOLEAN, Type.STRING: CONFIG_TYPE_STRING,
    Type.INT: CONFIG_TYPE_INT, Type.SHORT: CONFIG_TYPE_SHORT, Type.LONG: CONFIG_TYPE_LONG,
    Type.DOUBLE: CONFIG_TYPE_DOUBLE, Type.LIST: CONFIG_TYPE_LIST,
    Type.CSV: CONFIG_TYPE_STRING,  # listeners, log.dirs: Kafka STRINGs holding a list
    Type.CLASS: CONFIG_TYPE_CLASS, Type.PASSWORD: CONFIG_TYPE_PASSWORD,
}

Result = DescribeConfigsResponse.DescribeConfigsResult
Entry = DescribeConfigsResponse.DescribeConfigsResourceResult
Synonym = DescribeConfigsResponse.DescribeConfigsSynonym


def _alter_configs_failed(request, error: BrokerError) -> AlterConfigsResponse:
    """The answer when the controller cannot be reached."""
    Response = AlterConfigsResponse.AlterConfigsResourceResponse
    return AlterConfigsResponse(responses=[
        Response(error_code=error.code, error_message=str(error), resource_type=r.resource_type,
                 resource_name=r.resource_name) for r in request.resources])


def _incremental_alter_configs_failed(request, error: BrokerError) -> IncrementalAlterConfigsResponse:
    Response = IncrementalAlterConfigsResponse.AlterConfigsResourceResponse
    return IncrementalAlterConfigsResponse(responses=[
        Response(error_code=error.code, error_message=str(error), resource_type=r.resource_type,
                 resource_name=r.resource_name) for r in request.resources])


# ---------------------------------------------------------------------------------------
# AlterConfigs and IncrementalAlterConfigs: the broker's checks, then the controller


def make_alter_configs_handler(broker):
    return _alter_configs_handler(broker, incremental=False)


def make_incremental_alter_configs_handler(broker):
    return _alter_configs_handler(broker, incremental=True)


def _alter_configs_handler(broker, incremental: bool):
    """The BROKER resources are checked here (Kafka's `ConfigAdminManager.preprocess`),
    those refused answered here; the others go to the controller, whose answers keep their
    places in the response."""
    if incremental:
        Response, failed = IncrementalAlterConfigsResponse, _incremental_alter_configs_failed
    else:
        Response, failed = AlterConfigsResponse, _alter_configs_failed
    forward = forwarding_handler(broker, failed)

    async def handle(request, context):
        answered: dict[int, BrokerError | None] = {}   # the resources answered here
        named = [(r.resource_type, r.resource_name) for r in request.resources]
        for resource in request.resources:
            if named.count((resource.resource_type, resource.resource_name)) > 1:
                answered[id(resource)] = BrokerError(ErrorCode.INVALID_REQUEST, "Each resource must appear at most once.")
                continue
            try:
                check_config_names_and_values(resource, incremental)
                if resource.resource_type == RESOURCE_BROKER:
                    check_broker_resource(broker, resource, incremental)
                elif resource.resource_type == RESOURCE_BROKER_LOGGER and incremental:
                    alter_loggers(broker.node_id, resource, request.validate_only)
                    answered[id(resource)] = None
                elif resource.resource_type not in (RESOURCE_TOPIC, RESOURCE_CLIENT_METRICS, RESOURCE_GROUP):
                    # BROKER_LOGGER included, for the legacy API
                    raise BrokerError(ErrorCode.INVALID_REQUEST, f"Unknown resource type {resource.resource_type}")
            except BrokerError as e:
                answered[id(resource)] = e
        if not answered:
            return await forward(request, context)
        remaining = [r for r in request.resources if id(r) not in answered]
        answers = iter([])
        if remaining:
            forwarded = type(request)(resources=remaining, validate_only=request.validate_only)
            answers = iter((await forward(forwarded, context)).responses)
        responses = []
        for resource in request.resources:
            if id(resource) not in answered:
                responses.extend(a for a in [next(answers, None)] if a is not None)
                continue
            error = answered[id(resource)]
            responses.append(Response.AlterConfigsResourceResponse(   # Kafka's ApiError.fromThrowable
                error_code=error.code if error else ErrorCode.NONE,
                error_message=api_error_message(error.code, str(error)) if error else None,
                resource_type=resource.resource_type, resource_name=resource.resource_name))
        return Response(responses=responses)

    return handle


def _append_refused(op: int, name: str) -> BrokerError:
    if name not in BROKER_CONFIG_KEYS:   # Kafka looks the name up with a Scala Map's apply, which throws
        return BrokerError(ErrorCode.UNKNOWN_SERVER_ERROR, None)
    verb = "append" if op == OP_APPEND else "subtract"
    return BrokerError(ErrorCode.INVALID_CONFIG, f"Config value {verb} is not allowed for config key: {name}")


def check_config_names_and_values(resource, incremental: bool) -> None:
    """The broker's first checks of every resource (Kafka's `ConfigAdminManager.preprocess`):
    a config name twice, a null value (but for DELETE): INVALID_REQUEST."""
    names = [c.name for c in resource.configs]
    if len(set(names)) < len(names):
        raise BrokerError(ErrorCode.INVALID_REQUEST, "Error due to duplicate config keys")
    nulls = [c.name for c in resource.configs
             if c.value is None and not (incremental and c.config_operation == OP_DELETE)]
    if nulls:
        raise BrokerError(ErrorCode.INVALID_REQUEST, f"Null value not supported for : {', '.join(nulls)}")


def check_broker_resource(broker, resource, incremental: bool) -> None:
    """BrokerError with Kafka's code and message unless the change of this BROKER
    resource may go to the controller (pylog/dynamic_broker_config.py); the names and
    values passed `check_config_names_and_values`."""
    dynamic = broker.dynamic_config
    name = resource.resource_name
    if name:
        dynamic.check_node(broker.node_id, name)
    if incremental:
        for config in resource.configs:
            if config.config_operation not in (OP_SET, OP_DELETE, OP_APPEND, OP_SUBTRACT):
                raise BrokerError(ErrorCode.INVALID_REQUEST,
                                  f"Unknown operations type {config.config_operation}")
        new = apply_config_operations(dynamic.stored(name), resource.configs, BROKER_CONFIG_KEYS,
                                      _append_refused)
    else:
        new = {c.name: c.value for c in resource.configs}
    dynamic.check_change(name, new)


class ConfigValue(NamedTuple):
    """One config as DescribeConfigs / CreateTopics report it."""

    name: str
    value: str | None
    source: ConfigSource
    synonyms: list[tuple[str, str | None, ConfigSource]]
    config_type: int
    documentation: str | None
    sensitive: bool = False


# ---------------------------------------------------------------------------------------
# DescribeConfigs


def make_describe_configs_handler(broker):
    async def handle(request, context) -> DescribeConfigsResponse:
        version = context.api_version
        include_synonyms = version >= 1 and request.include_synonyms
        include_documentation = version >= 3 and request.include_documentation
        if any(r.resource_type not in _KNOWN_RESOURCE_TYPES for r in request.resources):
            return DescribeConfigsResponse(results=[
                Result(error_code=ErrorCode.INVALID_REQUEST, error_message=ErrorCode.INVALID_REQUEST.message,
                       resource_type=r.resource_type, resource_name=r.resource_name, configs=[])
                for r in request.resources])
        results = []
        for resource in request.resources:
            keys = resource.configuration_keys or None  # null or empty: every config
            try:
                values = describe_resource(broker, resource.resource_type, resource.resource_name, keys)
            except BrokerError as e:
                results.append(Result(error_code=e.code, error_message=_described_error_message(e),
                                      resource_type=resource.resource_type,
                                      resource_name=resource.resource_name, configs=[]))
                continue
            if resource.resource_type != RESOURCE_BROKER_LOGGER:
                values = mutable_hash_set_order(values, [java_string_hashcode(v.name) for v in values])
            broker_resource = resource.resource_type == RESOURCE_BROKER
            entries = [_entry(v, broker_resource and v.name not in UPDATABLE, include_synonyms,
                              include_documentation) for v in values]
            # Kafka leaves the message at its generated default, "", on success
            results.append(Result(error_code=ErrorCode.NONE, error_message="",
                                  resource_type=resource.resource_type,
                                  resource_name=resource.resource_name, configs=entries))
        return DescribeConfigsResponse(results=results)

    return handle


def _described_error_message(error: BrokerError) -> str | None:
    """A refused resource's message as Kafka's ConfigHelper sends it: none ("") for an
    unknown topic, and null for another error whose text is its code's default
    (ApiError.fromThrowable)."""
    if error.code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
        return ""
    return api_error_message(error.code, str(error))


def _entry(value: ConfigValue, read_only: bool, include_synonyms: bool,
           include_documentation: bool) -> Entry:
    return Entry(
        name=value.name, value=value.value, read_only=read_only,
        is_default=value.source == ConfigSource.DEFAULT_CONFIG,
        config_source=int(value.source), is_sensitive=value.sensitive,
        synonyms=[Synonym(name=n, value=v, source=int(s)) for n, v, s in value.synonyms]
        if include_synonyms else [],
        config_type=value.config_type,
        documentation=value.documentation if include_documentation else None,
    )


def describe_resource(broker, resource_type: int, name: str | None,
                      keys: Iterable[str] | None = None) -> list[ConfigValue]:
    """The configs of one resource, or BrokerError with Kafka's code and message."""
    wanted = None if keys is None else set(keys)
    if resource_type == RESOURCE_TOPIC:
        _check_topic_name(name)
        topic = broker.metadata.topics.get(name)
        if topic is None:  # the code's default text: what Kafka's clients show for Kafka's answer
            raise BrokerError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
        values = describe_topic_configs(broker, topic.configs)
    elif resource_type == RESOURCE_BROKER:
        if not name:
            values = describe_cluster_default_configs(broker.dynamic_config)
        else:
            if _broker_id(name) != broker.node_id:
                raise BrokerError(ErrorCode.INVALID_REQUEST,
                                  f"Unexpected broker id, expected {broker.node_id} or empty string, "
                                  f"but received {name}")
            values = describe_broker_configs(broker.dynamic_config)
    elif resource_type == RESOURCE_BROKER_LOGGER:
        if not name:
            raise BrokerError(ErrorCode.INVALID_REQUEST, "Broker id must not be empty")
        if _broker_id(name) != broker.node_id:
            raise BrokerError(ErrorCode.INVALID_REQUEST,
                              f"Unexpected broker id, expected {broker.node_id} but received {name}")
        values = [ConfigValue(n, level, ConfigSource.DYNAMIC_BROKER_LOGGER_CONFIG, [], CONFIG_TYPE_UNKNOWN, None)
                  for n, level in loggers().items()]
    elif resource_type == RESOURCE_GROUP:
        if not name:
            raise BrokerError(ErrorCode.INVALID_REQUEST, "Group name must not be empty")
        values = describe_group_configs(broker.dynamic_config.current,
                                        broker.metadata_image().configs.get((RESOURCE_GROUP, name), {}))
    elif resource_type == RESOURCE_CLIENT_METRICS:
        if not name:
            raise BrokerError(ErrorCode.INVALID_REQUEST, "Client metrics subscription name must not be empty")
        values = describe_client_metrics_configs(
            broker.metadata_image().configs.get((RESOURCE_CLIENT_METRICS, name), {}))
    else:
        raise ValueError(f"resource type {resource_type} is not described")   # the handler refuses it first
    if wanted is not None:
        values = [v for v in values if v.name in wanted]
    return values


def describe_topic_configs(broker, overrides: dict[str, str]) -> list[ConfigValue]:
    """Every topic config of a topic with these overrides, as DescribeConfigs reports it
    (Kafka's internal names only where the topic sets them)."""
    effective = broker.topic_log_config(overrides).to_properties()
    values = []
    for name in sorted(TOPIC_CONFIG_KEYS):
        if TOPIC_CONFIG_KEYS[name].internal and name not in overrides:
            continue
        value = effective[name]
        synonyms = []
        primary = TOPIC_CONFIG_SYNONYMS.get(name)
        if primary:
            synonyms = broker.dynamic_config.synonyms(primary[0][0])
        if name in overrides:
            synonyms.insert(0, (name, value, ConfigSource.TOPIC_CONFIG))
        source = synonyms[0][2] if synonyms else ConfigSource.DEFAULT_CONFIG
        values.append(ConfigValue(name, value, source, synonyms,
                                  _CONFIG_TYPES.get(TOPIC_CONFIG_KEYS[name].type, CONFIG_TYPE_UNKNOWN), None))
    return values


def describe_broker_configs(dynamic: DynamicBrokerConfig) -> list[ConfigValue]:
    """Every broker config, as DescribeConfigs reports it for this node: the effective
    value, the source of its first synonym. As in Kafka, a PASSWORD is sensitive (its value
    and its synonyms' values null), and so is a name whose type is not known."""
    config = dynamic.current
    values = []
    for row in config.describe():
        key = BROKER_CONFIG_KEYS[row.name]
        sensitive = key.type is Type.PASSWORD
        synonyms = dynamic.synonyms(row.name)
        if sensitive:
            synonyms = [(n, None, s) for n, _, s in synonyms]
        source = synonyms[0][2] if synonyms else ConfigSource.DEFAULT_CONFIG
        values.append(ConfigValue(row.name, row.value, source, synonyms,
                                  _CONFIG_TYPES.get(key.type, CONFIG_TYPE_UNKNOWN), key.doc, sensitive))
    for name in sorted(set(dynamic.static.unknown) | set(dynamic.per_broker) | set(dynamic.cluster_default)):
        if name in BROKER_CONFIG_KEYS:
            continue
        # Kafka lists the names it was given but does not know, hidden, from the first place
        # that gives them (this node's dynamic values, the cluster defaults, the static ones)
        synonyms = [(name, None, source) for values, source in (
            (dynamic.per_broker, ConfigSource.DYNAMIC_BROKER_CONFIG),
            (dynamic.cluster_default, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG),
            (dynamic.static.unknown, ConfigSource.STATIC_BROKER_CONFIG)) if name in values]
        values.append(ConfigValue(name, None, synonyms[0][2], synonyms, CONFIG_TYPE_UNKNOWN, None, True))
    values.sort(key=lambda v: v.name)
    return values


def describe_cluster_default_configs(dynamic: DynamicBrokerConfig) -> list[ConfigValue]:
    """The cluster-wide dynamic defaults (the BROKER resource ""), each with only its
    DYNAMIC_DEFAULT_BROKER_CONFIG synonyms, as Kafka reports them."""
    values = []
    for name, text in sorted(dynamic.cluster_default.items()):
        key = BROKER_CONFIG_KEYS.get(name)
        synonyms = [s for s in dynamic.synonyms(name) if s[2] == ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG]
        source = synonyms[0][2] if synonyms else ConfigSource.DEFAULT_CONFIG
        sensitive = key is None or key.type is Type.PASSWORD
        if sensitive:
            text, synonyms = None, [(n, None, s) for n, _, s in synonyms]
        values.append(ConfigValue(name, text, source, synonyms,
                                  _CONFIG_TYPES.get(key.type, CONFIG_TYPE_UNKNOWN) if key else CONFIG_TYPE_UNKNOWN,
                                  key.doc if key else None, sensitive))
    return values


def describe_client_metrics_configs(own: dict[str, str]) -> list[ConfigValue]:
    """The three configs of a client-metrics subscription (none stored for a name that is
    not one): its own value with source CLIENT_METRICS_CONFIG and that one synonym, else the
    default with DEFAULT_CONFIG and none."""
    values = []
    for name in sorted(CLIENT_METRICS_CONFIG_KEYS):
        key = CLIENT_METRICS_CONFIG_KEYS[name]
        if name in own:
            text = key.format(key.parse(own[name]))
            source, synonyms = ConfigSource.CLIENT_METRICS_CONFIG, [(name, text, ConfigSource.CLIENT_METRICS_CONFIG)]
        else:
            text, source, synonyms = key.format(key.default), ConfigSource.DEFAULT_CONFIG, []
        values.append(ConfigValue(name, text, source, synonyms, _CONFIG_TYPES[key.type], key.doc))
    return values


def describe_group_configs(config, own: dict[str, str]) -> list[ConfigValue]:
    """Every config of a group with these own values (none for a group that does not exist),
    as Kafka reports them: the value, source GROUP_CONFIG when the group has its own, else
    DEFAULT_CONFIG (the default may come from a broker config, pylog/group_configs.py), and
    that one synonym."""
    effective = group_configs({n: config.get(n) for n in GROUP_BOUND_NAMES}, own)
    values = []
    for name in sorted(GROUP_CONFIG_KEYS):
        key = GROUP_CONFIG_KEYS[name]
        text = key.format(effective[name])
        source = ConfigSource.GROUP_CONFIG if name in own else ConfigSource.DEFAULT_CONFIG
        values.append(ConfigValue(name, text, source, [(name, text, source)],
                                  _CONFIG_TYPES.get(key.type, CONFIG_TYPE_UNKNOWN), key.doc))
    return values


def _broker_id(name: str) -> int:
    try:
        return int(name)
    except ValueError:
        raise BrokerError(ErrorCode.INVALID_REQUEST,
                          f"Broker id must be an integer, but it is: {name}") from None


def _check_topic_name(name: str | None) -> None:
    problem = "topic name is null" if name is None else topic_name_problem(name)
    if problem:
        raise BrokerError(ErrorCode.INVALID_TOPIC_EXCEPTION, problem)
