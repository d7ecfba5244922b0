"""BROKER_LOGGER config resources: the broker's Python loggers as Kafka's runtime log levels
(Kafka's `RuntimeLoggerManager` and `LoggingController`).

The resource is named by this node's id. Its configs are the loggers that exist in this
process (`logging`'s registry, plus `root`), each valued with its effective level under
Kafka's names: TRACE (Python level 5), DEBUG, INFO, WARN (WARNING), ERROR, FATAL (CRITICAL),
OFF above that. DescribeConfigs reports them with source DYNAMIC_BROKER_LOGGER_CONFIG.

IncrementalAlterConfigs is answered by the broker itself, nothing is stored in the metadata
(as Kafka does): SET gives a logger a level, DELETE takes its own level away, so that it
follows its parents' again (root's when no parent has one). The checks, all before any
change (all or nothing per resource): the node id ("Node id must be an integer, but it is:
x", "Unexpected node id. Expected 1, but received 2"; INVALID_REQUEST), a logger that does
not exist ("Logger x does not exist!", INVALID_CONFIG), a level Kafka does not know
(INVALID_CONFIG), DELETE of root, APPEND and SUBTRACT (INVALID_REQUEST). validate_only
checks and changes nothing.
"""

from __future__ import annotations

import logging

from protocol.error_codes import ErrorCode

from pylog.errors import BrokerError

log = logging.getLogger("pylog.broker_loggers")

ROOT_LOGGER = "root"
TRACE = 5
LEVELS = {"TRACE": TRACE, "DEBUG": logging.DEBUG, "INFO": logging.INFO, "WARN": logging.WARNING,
          "ERROR": logging.ERROR, "FATAL": logging.CRITICAL}
_VALID_LEVELS_TEXT = ", ".join(sorted(LEVELS))
OP_SET, OP_DELETE, OP_APPEND, OP_SUBTRACT = 0, 1, 2, 3

logging.addLevelName(TRACE, "TRACE")


def level_name(level: int) -> str:
    """Kafka's name of a Python level: the most verbose Kafka level it lets through."""
    if level > logging.CRITICAL:
        return "OFF"
    return next(name for name, value in sorted(LEVELS.items(), key=lambda item: item[1])
                if value >= level)


def _logger(name: str) -> logging.Logger | None:
    if name == ROOT_LOGGER:
        return logging.getLogger()
    found = logging.Logger.manager.loggerDict.get(name)
    return found if isinstance(found, logging.Logger) else None


def loggers() -> dict[str, str]:
    """Every logger of this process with its effective level, Kafka's names, sorted."""
    names = [n for n, v in logging.Logger.manager.loggerDict.items() if isinstance(v, logging.Logger)]
    result = {ROOT_LOGGER: level_name(logging.getLogger().getEffectiveLevel())}
    for name in sorted(names):
        result[name] = level_name(logging.getLogger(name).getEffectiveLevel())
    return result


def check_node(node_id: int, name: str) -> None:
    try:
        requested = int(name)
    except ValueError:
        raise BrokerError(ErrorCode.INVALID_REQUEST, f"Node id must be an integer, but it is: {name}") from None
    if requested != node_id:
        raise BrokerError(ErrorCode.INVALID_REQUEST,
                          f"Unexpected node id. Expected {node_id}, but received {requested}")


def alter_loggers(node_id: int, resource, validate_only: bool) -> None:
    """IncrementalAlterConfigs on one BROKER_LOGGER resource: every check, then the changes
    (none with `validate_only`); BrokerError with Kafka's code and message."""
    check_node(node_id, resource.resource_name)
    for config in resource.configs:
        op, name = config.config_operation, config.name
        if op not in (OP_SET, OP_DELETE, OP_APPEND, OP_SUBTRACT):
            # Kafka switches on the null OpType of an unknown id, and fails there
            raise BrokerError(ErrorCode.UNKNOWN_SERVER_ERROR, None)
        if op in (OP_SET, OP_DELETE) and _logger(name) is None:
            raise BrokerError(ErrorCode.INVALID_CONFIG, f"Logger {name} does not exist!")
        if op == OP_SET and config.value not in LEVELS:
            raise BrokerError(ErrorCode.INVALID_CONFIG,
                              f"Cannot set the log level of {name} to {config.value} as it is not a "
                              f"supported log level. Valid log levels are {_VALID_LEVELS_TEXT}")
        if op == OP_DELETE and name == ROOT_LOGGER:
            raise BrokerError(ErrorCode.INVALID_REQUEST,
                              f"Removing the log level of the {ROOT_LOGGER} logger is not allowed")
        if op in (OP_APPEND, OP_SUBTRACT):
            raise BrokerError(ErrorCode.INVALID_REQUEST,
                              f"{'APPEND' if op == OP_APPEND else 'SUBTRACT'} operation is not allowed "
                              "for the BROKER_LOGGER resource")
    if validate_only:
        return
    for config in resource.configs:
        logger = _logger(config.name)
        if config.config_operation == OP_SET:
            logger.setLevel(LEVELS[config.value])
            log.warning("Updated the log level of %s to %s", config.name, config.value)
        else:
            logger.setLevel(logging.NOTSET)
            log.warning("Unset the log level of %s", config.name)
