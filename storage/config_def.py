"""One config name's definition, as Kafka's `ConfigDef` has it: type, default, validator.

Both config tables are made of `ConfigKey`s: the topic configs (`storage/config.py`,
which LogConfig's fields come from) and the broker configs (`pylog/config_keys.py`). A
broker name that is the server default of a topic config in the same unit
(`log.segment.bytes` for `segment.bytes`) is made from the topic key with
`ConfigKey.renamed`, so the type, default and valid range of the pair are written once.

Values are given as text (a properties file, a request) or as typed Python values, and
parsed as Kafka's `ConfigDef.parseType` does: integers must fit the Java type (int, long,
short), booleans are true/false in any case, a LIST is split at commas with the blanks
around each item dropped (empty items kept, so a validator sees them), every text is
trimmed. A refused value raises `InvalidConfig` naming the key and saying why, in the words
of Kafka's ConfigDef ("Not a number of type LONG", "Value must be at least -1", "String
must be one of: compact, delete").

`acted_on` is False for names pylog accepts, validates and reports (DescribeConfigs) but
whose value no behaviour reads yet; `pylog serve` lists the ones given at start, and the
README's "Accepted but not acted on yet" section mirrors the two tables' flags.

Pure: no I/O, no state; ConfigKeys are immutable.
"""

from __future__ import annotations

import enum
import os
import re
from typing import Any, Callable, NamedTuple

from storage.errors import InvalidConfig

INT_MIN, INT_MAX = -(2**31), 2**31 - 1
SHORT_MIN, SHORT_MAX = -(2**15), 2**15 - 1
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1

MS_PER_MINUTE = 60 * 1000
MS_PER_HOUR = 60 * MS_PER_MINUTE


class Type(enum.Enum):
    INT = "int"          # Java int
    LONG = "long"        # Java long
    SHORT = "short"      # Java short
    DOUBLE = "double"
    BOOLEAN = "boolean"
    STRING = "string"
    LIST = "list"        # Kafka LIST: comma-separated, items trimmed
    CSV = "csv"          # a Kafka STRING that holds a comma-separated list (listeners, log.dirs)
    CLASS = "class"      # a Java class name: text here
    PASSWORD = "password"  # text that is never printed: DescribeConfigs reports it as null


_INT_RE = re.compile(r"[+-]?[0-9]+")
# Java's Double.parseDouble (hexadecimal forms aside): NaN and Infinity, case-sensitive, and
# an optional float/double suffix
_DOUBLE_RE = re.compile(r"[+-]?(NaN|Infinity|([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?[fFdD]?)")
LIST_SPLIT_RE = re.compile(r"\s*,\s*")
_INT_RANGES = {
    Type.INT: (INT_MIN, INT_MAX),
    Type.LONG: (LONG_MIN, LONG_MAX),
    Type.SHORT: (SHORT_MIN, SHORT_MAX),
}


# ---------------------------------------------------------------------------------------
# Validators: a typed value in, the reason it is refused out (None: valid; None values,
# "not given", are always valid). A list's validator may name the item at fault, which
# Kafka then reports as the invalid value: (reason, item).

Validator = Callable[[Any], "str | tuple[str, Any] | None"]


def at_least(minimum: int) -> Validator:
    def check(value: Any) -> str | None:
        if value is not None and value < minimum:
            return f"Value must be at least {minimum}"
        return None

    return check


def between(lo: float, hi: float) -> Validator:
    def check(value: Any) -> str | None:
        if value is not None and value < lo:
            return f"Value must be at least {lo}"
        if value is not None and value > hi:
            return f"Value must be no more than {hi}"
        return None

    return check


def one_of(*choices: str) -> Validator:
    def check(value: Any) -> str | None:
        if value is not None and value not in choices:
            return f"String must be one of: {', '.join(choices)}"
        return None

    return check


def each_of(*choices: str) -> Validator:
    """Every item of a list is one of `choices` (Kafka's ValidList.in; an empty list passes)."""

    def check(value: Any) -> str | None:
        if value is None:
            return None
        bad = [item for item in value if item not in choices]
        if bad:
            return f"String must be one of: {', '.join(choices)}", bad[0]
        return None

    return check


def one_of_any_case(*choices: str) -> Validator:
    """Kafka's CaseInsensitiveValidString."""
    folded = {choice.upper() for choice in choices}

    def check(value: Any) -> str | None:
        if value is not None and value.upper() not in folded:
            return f"String must be one of (case insensitive): {', '.join(choices)}"
        return None

    return check


def non_empty(value: Any) -> str | None:
    """Kafka's NonEmptyString."""
    if value is not None and not value:
        return "String must be non-empty"
    return None


_RANGE_RE = re.compile(r"\[(-?[0-9.]+)?,\.\.\.(?:,(-?[0-9.]+))?\]")
_CHOICES_RE = re.compile(r"(\(case insensitive\) )?\[([^\]]*)\]")


def validator_from_kafka(text: str | None, type_: Type) -> Validator | None:
    """The validator Kafka prints as `text` in its config docs: a range ("[1,...]",
    "[0,...,100]"), a choice of strings ("[compact, delete]", for a LIST each item;
    "(case insensitive) [ES256, RS256]") or "non-empty string". Other forms (None for them)
    are not checked."""
    if text is None:
        return None
    match = _RANGE_RE.fullmatch(text)
    if match:
        lo, hi = (None if bound is None else (float(bound) if "." in bound else int(bound))
                  for bound in match.groups())
        if lo is None:
            return None
        return at_least(lo) if hi is None else between(lo, hi)
    match = _CHOICES_RE.fullmatch(text)
    if match and type_ in (Type.STRING, Type.LIST):
        choices = tuple(match.group(2).split(", ")) if match.group(2) else ()
        if match.group(1):
            return one_of_any_case(*choices) if type_ is Type.STRING else None
        return one_of(*choices) if type_ is Type.STRING else each_of(*choices)
    if text == "non-empty string" and type_ is Type.STRING:
        return non_empty
    return None


# ---------------------------------------------------------------------------------------
# Parsing and printing


def parse_value(name: str, type_: Type, raw: Any) -> Any:
    """Kafka's ConfigDef.parseType, for text and for already-typed Python values. LIST
    and CSV give lists."""
    if type_ in _INT_RANGES:
        lo, hi = _INT_RANGES[type_]
        if isinstance(raw, bool):
            raise InvalidConfig(name, f"Not a number of type {type_.name}", raw)
        if isinstance(raw, int):
            value = raw
        elif isinstance(raw, str) and _INT_RE.fullmatch(raw.strip()):
            value = int(raw.strip())
        else:
            raise InvalidConfig(name, f"Not a number of type {type_.name}", raw)
        if not lo <= value <= hi:   # Java's parse fails the same way on a number too large
            raise InvalidConfig(name, f"Not a number of type {type_.name}", raw)
        return value
    if type_ is Type.DOUBLE:
        if isinstance(raw, bool):
            raise InvalidConfig(name, "Not a number of type DOUBLE", raw)
        if isinstance(raw, (int, float)):
            return float(raw)
        if isinstance(raw, str) and _DOUBLE_RE.fullmatch(raw.strip()):
            return float(raw.strip().rstrip("fFdD"))
        raise InvalidConfig(name, "Not a number of type DOUBLE", raw)
    if type_ is Type.BOOLEAN:
        if isinstance(raw, bool):
            return raw
        if isinstance(raw, str) and raw.strip().lower() in ("true", "false"):
            return raw.strip().lower() == "true"
        raise InvalidConfig(name, "Expected value to be either true or false", raw)
    if type_ in (Type.STRING, Type.CLASS, Type.PASSWORD):
        if isinstance(raw, str):
            return raw.strip()
        raise InvalidConfig(name, f"Expected value to be a string, but it was a {type(raw).__name__}", raw)
    if type_ is Type.LIST:
        if isinstance(raw, str):
            text = raw.strip()
            return LIST_SPLIT_RE.split(text) if text else []
        if isinstance(raw, (list, tuple)) and all(isinstance(item, str) for item in raw):
            return [item.strip() for item in raw]
        raise InvalidConfig(name, "Expected a comma separated list.", raw)
    if type_ is Type.CSV:
        if isinstance(raw, os.PathLike):
            raw = os.fspath(raw)
        if isinstance(raw, str):
            return [item for item in LIST_SPLIT_RE.split(raw.strip()) if item]
        if isinstance(raw, (list, tuple)):
            items = [os.fspath(item) if isinstance(item, os.PathLike) else item for item in raw]
            if all(isinstance(item, str) for item in items):
                return [item.strip() for item in items if item.strip()]
        raise InvalidConfig(name, "Expected a comma separated list.", raw)
    raise AssertionError(type_)


def format_value(type_: Type, value: Any) -> str | None:
    """A typed value as Kafka prints it in DescribeConfigs (ConfigDef.convertToString)."""
    if value is None:
        return None
    if type_ is Type.BOOLEAN:
        return "true" if value else "false"
    if type_ in (Type.LIST, Type.CSV):
        return ",".join(value)
    if type_ is Type.DOUBLE:
        return java_double_text(float(value))
    if type_ is Type.PASSWORD:
        return None
    return str(value)


def java_text(type_: Type, value: Any) -> str:
    """A parsed value as Java's toString prints it in a ConfigException ("Invalid value 5.0
    for configuration ..."): a number without the sign or spaces it was given with, a double
    as Java prints doubles, a trimmed string, a password hidden."""
    return "[hidden]" if type_ is Type.PASSWORD else format_value(type_, value)


def java_double_text(value: float) -> str:
    """Java's Double.toString: plain between 10^-3 and 10^7 ("0.5", "100.0"), else
    "1.7976931348623157E308"; the digits are the shortest that read back, as Python's."""
    if value != value or value in (float("inf"), float("-inf")):
        return {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}[repr(value)]
    if value == 0 or 1e-3 <= abs(value) < 1e7:
        text = repr(value)
        return text if "." in text else text + ".0"
    import decimal   # (only for these: most doubles are plain)
    shortest = decimal.Decimal(repr(abs(value)))
    exponent = shortest.adjusted()
    digits = "".join(map(str, shortest.as_tuple().digits)).lstrip("0")
    fraction = digits[1:].rstrip("0") or "0"
    return f"{'-' if value < 0 else ''}{digits[0]}.{fraction}E{exponent}"


# ---------------------------------------------------------------------------------------
# ConfigKey

_SAME = object()


class ConfigKey(NamedTuple):
    """One config name: type, pylog default, validator, documentation, use.

    `default` is typed (None: no value unless given). `kafka_default` is Kafka's, when pylog
    chose another. `acted_on` is False for names accepted and reported but not read by any
    behaviour yet. `pylog_only` names are not Kafka configs. `internal` names (Kafka's
    internal configs) are described only when they are given."""

    name: str
    type: Type
    default: Any
    doc: str = ""
    validator: Validator | None = None
    acted_on: bool = True
    kafka_default: Any = _SAME
    pylog_only: bool = False
    internal: bool = False

    @property
    def attribute(self) -> str:
        """The snake_case attribute of the name: log.segment.bytes -> log_segment_bytes."""
        return self.name.replace(".", "_")

    @property
    def kafka(self) -> Any:
        """Kafka's own default (typed)."""
        return self.default if self.kafka_default is _SAME else self.kafka_default

    def parse(self, raw: Any) -> Any:
        """The typed value of text or a Python value; InvalidConfig when it is refused."""
        value = parse_value(self.name, self.type, raw)
        if self.validator is not None:
            reason = self.validator(value)
            if isinstance(reason, tuple):
                reason, raw = reason   # the item of a list at fault
            elif self.type not in (Type.LIST, Type.CSV):
                raw = java_text(self.type, value)   # Kafka's message shows the parsed value
            if reason is not None:
                raise InvalidConfig(self.name, reason, raw)
        return value

    def format(self, value: Any) -> str | None:
        return format_value(self.type, value)

    def renamed(self, name: str, **changes: Any) -> ConfigKey:
        """The same definition under another name (a broker synonym of a topic config),
        with `changes` (doc, default, validator, ...) applied."""
        return self._replace(name=name, **changes)
