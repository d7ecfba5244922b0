"""Hypothesis strategies derived from the generated message schemas.

The strategies read a message class's `FIELDS` for one version, the same description
the codec compiles, and draw a value for every field that is on the wire in that
version. Fields absent in the version keep their default, because the codec neither
writes nor reads them (a decoded message holds the default there).

    message_values(cls, version)    a strategy of `cls` instances valid at `version`
    all_message_classes()           every generated class: protocol.messages, internal, metadata
    class_versions()                (class, version) for every valid version of each
    plain(obj)                      a comparable plain form (class names, dicts, bytes)
    non_default_value(field, v)     a deterministic value away from the field's default
    fast(n)                         Hypothesis settings: n examples, no deadline/database
"""

from __future__ import annotations

import functools
import importlib
import uuid

from hypothesis import strategies as st

from protocol import internal as internal_pkg
from protocol import messages as messages_pkg
from protocol import metadata as metadata_pkg
from protocol.schema import NEW, Array, Field, Message, Struct, in_versions

INT_RANGES = {
    "int8": (-(1 << 7), (1 << 7) - 1),
    "int16": (-(1 << 15), (1 << 15) - 1),
    "uint16": (0, (1 << 16) - 1),
    "int32": (-(1 << 31), (1 << 31) - 1),
    "int64": (-(1 << 63), (1 << 63) - 1),
}

ZERO_UUID = uuid.UUID(int=0)

# Sizes stay small: the point is coverage of every field and version, and the whole
# suite has a time budget. Long values (multi-byte compact lengths) have their own tests.
MAX_LIST = 2
MAX_TEXT = 6
MAX_BINARY = 10


def all_message_classes() -> list[type[Message]]:
    """Every generated message class: messages, the coordinator records, the metadata records."""
    classes = []
    for pkg in (messages_pkg, internal_pkg, metadata_pkg):
        for name, module in sorted(pkg.MODULES.items()):
            classes.append(getattr(importlib.import_module(f"{pkg.__name__}.{module}"), name))
    return classes


def class_versions() -> list[tuple[type[Message], int]]:
    """(class, version) for every class and every version in its valid_versions."""
    return [(cls, v) for cls in all_message_classes()
            for v in range(cls.valid_versions[0], cls.valid_versions[1] + 1)]


def primitive_values(type_name: str) -> st.SearchStrategy:
    if type_name in INT_RANGES:
        low, high = INT_RANGES[type_name]
        return st.integers(low, high)
    if type_name == "bool":
        return st.booleans()
    if type_name == "float64":
        return st.floats(allow_nan=False)
    if type_name == "string":
        return st.text(max_size=MAX_TEXT)
    if type_name in ("bytes", "records"):
        return st.binary(max_size=MAX_BINARY)
    if type_name == "uuid":
        return st.one_of(st.just(ZERO_UUID), st.uuids())
    raise TypeError(f"no strategy for {type_name!r}")


def field_values(field: Field, version: int) -> st.SearchStrategy:
    """Values of one field at `version` (the field is assumed present in that version)."""
    t = field.type
    if isinstance(t, Array):
        element = t.element
        inner = (struct_values(element, version) if isinstance(element, type)
                 else primitive_values(element))
        values = st.lists(inner, max_size=MAX_LIST)
    elif isinstance(t, type):
        values = struct_values(t, version)
    else:
        values = primitive_values(t)
    if in_versions(version, field.nullable_versions):
        values = st.one_of(st.none(), values)
    if field.tagged_versions is not None:
        # tagged fields are written only when they differ from the default: draw both
        values = st.one_of(st.builds(field.default_value), values)
    return values


@functools.lru_cache(maxsize=None)
def _struct_values_cached(cls: type[Struct], version: int) -> st.SearchStrategy:
    parts = {}
    for field in cls.FIELDS:
        if not in_versions(version, field.versions):
            continue
        parts[field.name] = field_values(field, version)
    return st.fixed_dictionaries(parts).map(lambda kwargs: cls(**kwargs))


def struct_values(cls: type[Struct], version: int) -> st.SearchStrategy:
    """Instances of `cls` with every field present at `version` drawn; the rest default."""
    return st.deferred(lambda: _struct_values_cached(cls, version))


def message_values(cls: type[Message], version: int) -> st.SearchStrategy:
    return _struct_values_cached(cls, version)


def plain(value):
    """A plain, comparable form: structs to dicts (with their class), memoryview to bytes."""
    if isinstance(value, Struct):
        return (type(value).__name__, {f.name: plain(getattr(value, f.name)) for f in value.FIELDS})
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, (memoryview, bytearray)):
        return bytes(value)
    return value


def is_default(field: Field, value) -> bool:
    default = field.default
    if default is NEW:
        return value == ([] if isinstance(field.type, Array) else field.type())
    return value == default


def fast(max_examples: int, **kwargs):
    """Hypothesis settings for the codec suites: few examples, no deadline, no database."""
    from hypothesis import HealthCheck, settings

    return settings(
        max_examples=max_examples,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                               HealthCheck.filter_too_much],
        **kwargs,
    )


def non_default_value(field: Field, version: int):
    """A deterministic value of `field` that differs from its default at `version`."""
    t = field.type
    default = field.default_value()
    if isinstance(t, Array):
        element = t.element
        if isinstance(element, type):
            return [element()]
        return [_some_primitive(element)]
    if isinstance(t, type):
        value = t()
        for f in t.FIELDS:
            if in_versions(version, f.versions):
                setattr(value, f.name, non_default_value(f, version))
                return value
        raise ValueError(f"{t.__name__} has no field at version {version}")
    if t in INT_RANGES:
        low, high = INT_RANGES[t]
        base = 0 if default is None else default
        return base + 1 if base < high else base - 1
    if t == "bool":
        return not default
    if t == "float64":
        return (default or 0.0) + 1.5
    if t == "string":
        return (default or "") + "tagged-ü"
    if t in ("bytes", "records"):
        return (default or b"") + b"\x01\x02"
    if t == "uuid":
        return uuid.UUID(int=0x0123456789ABCDEF) if default == ZERO_UUID else ZERO_UUID
    raise TypeError(t)


def _some_primitive(type_name: str):
    return {"bool": True, "float64": 2.5, "string": "s", "bytes": b"b", "records": b"r",
            "uuid": uuid.UUID(int=7)}.get(type_name, 1)
