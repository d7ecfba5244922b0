"""The runtime description of a Kafka message: fields, types, versions, defaults, tags.

Kafka defines every request, response and header in a JSON schema (see
`protocol/codegen.py`). The generator turns each schema into Python classes whose
`FIELDS` tuples are built from the classes here. Nothing in this module knows how to
encode or decode; `protocol/codec.py` reads these descriptions and compiles a
straight-line encoder and decoder per (class, version).

Vocabulary, as in Kafka's schemas:

    versions            the versions in which a field is on the wire, e.g. (3, MAX_VERSION)
    nullable_versions   the versions in which it may be null (strings, bytes, arrays, structs)
    tagged_versions     the versions in which it travels in the tagged-field section (KIP-482)
                        under `tag`, written only when it differs from its default
    flexible_versions   message-level: the versions that use compact lengths and tagged fields;
                        a field may override it (RequestHeader.ClientId is never compact)
    ignorable           a non-default value may be dropped when encoding a version that
                        lacks the field (otherwise Kafka refuses to encode it)

Field types are the strings "bool", "int8", "int16", "uint16", "int32", "int64",
"float64", "string", "bytes", "records", "uuid", a `Struct` subclass, or an `Array`
of either.
"""

from __future__ import annotations

from typing import Any, ClassVar

from protocol.primitives import ZERO_UUID  # noqa: F401  (re-exported for the generated modules)

MAX_VERSION = 0x7FFF

Versions = tuple[int, int]

def in_versions(version: int, versions: Versions | None) -> bool:
    return versions is not None and versions[0] <= version <= versions[1]


class Array:
    """An array whose elements are a primitive type name or a `Struct` subclass."""

    __slots__ = ("element",)

    def __init__(self, element):
        self.element = element

    def __repr__(self) -> str:
        element = self.element if isinstance(self.element, str) else self.element.__name__
        return f"Array({element})"


class Field:
    """One field of a struct, as its schema declares it."""

    __slots__ = (
        "name", "type", "versions", "nullable_versions", "tagged_versions", "tag",
        "default", "ignorable", "flexible_versions",
    )

    def __init__(
        self,
        name: str,
        type,
        versions: Versions | None,
        *,
        nullable_versions: Versions | None = None,
        tagged_versions: Versions | None = None,
        tag: int | None = None,
        default: Any = None,
        ignorable: bool = False,
        flexible_versions: Versions | None | str = "message",
    ):
        self.name = name
        self.type = type
        self.versions = versions
        self.nullable_versions = nullable_versions
        self.tagged_versions = tagged_versions
        self.tag = tag
        self.default = default
        self.ignorable = ignorable
        # "message" means: follow the message's flexible versions.
        self.flexible_versions = flexible_versions

    def __repr__(self) -> str:
        return f"Field({self.name!r}, {self.type!r}, {self.versions!r})"

    def default_value(self):
        """A fresh default value (lists and structs are never shared between objects)."""
        if self.default is NEW:
            return [] if isinstance(self.type, Array) else self.type()
        return self.default


class _New:
    """Sentinel default of arrays and structs: "a new empty list / a new default struct"."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NEW"


NEW = _New()


class Struct:
    """Base of every generated struct: slots, keyword construction, equality, repr.

    Subclasses set `FIELDS` (a tuple of `Field`) and `__slots__` (the field names);
    the generator writes an explicit `__init__` for each of them.
    """

    __slots__ = ()
    FIELDS: ClassVar[tuple[Field, ...]] = ()

    def __eq__(self, other) -> bool:
        if type(self) is not type(other):
            return NotImplemented
        return all(getattr(self, f.name) == getattr(other, f.name) for f in self.FIELDS)

    __hash__ = None  # mutable

    def __repr__(self) -> str:
        inner = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in self.FIELDS)
        return f"{type(self).__qualname__}({inner})"

    def to_dict(self) -> dict:
        """Plain dict of the fields, recursively (structs and lists of structs)."""
        return {f.name: _plain(getattr(self, f.name)) for f in self.FIELDS}


def _plain(value):
    if isinstance(value, Struct):
        return value.to_dict()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, memoryview):
        return bytes(value)
    return value


class Message(Struct):
    """A top-level schema: a request, response, header, or stored data record.

    Class attributes (set by the generator):
        schema_name       Kafka's name, e.g. "FetchRequest"
        api_key           int16 API key (requests and responses), else None
        message_type      "request", "response", "header" or "data"
        valid_versions    (lowest, highest)
        flexible_versions (first, MAX_VERSION) or None
        deprecated_versions, latest_version_unstable, api_listeners: as in the schema
    """

    __slots__ = ()
    schema_name: ClassVar[str] = ""
    api_key: ClassVar[int | None] = None
    message_type: ClassVar[str] = "data"
    valid_versions: ClassVar[Versions] = (0, 0)
    flexible_versions: ClassVar[Versions | None] = None
    deprecated_versions: ClassVar[Versions | None] = None
    latest_version_unstable: ClassVar[bool] = False
    api_listeners: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def is_flexible(cls, version: int) -> bool:
        return in_versions(version, cls.flexible_versions)

