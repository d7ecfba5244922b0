"""Encode and decode any generated message at any of its versions.

    encode(message, version) -> bytearray
    encode_into(out, message, version)
    decode(MessageClass, data, version) -> message
    source(MessageClass, version) -> str       the compiled code, for study

Theory of operation
-------------------
A message class describes itself with `FIELDS` (see `protocol/schema.py`). Walking
that description for every field of every request would cost a dictionary lookup, a
version comparison and a type dispatch per field, and Produce and Fetch arrive many
thousand times a second. So the walk happens once per (message class, version,
direction): this module writes the Python source of a decoder, or of an encoder, for
that version — fields absent in the version left out, runs of fixed-width fields folded
into one `struct.Struct` call, arrays of integers read with one `unpack_from` —
compiles it with `exec`, and caches the function. The compiled code is also kept on disk
for the next process, as a module's bytecode is (`protocol/code_cache.py`). The two
directions are compiled apart, each at its first use: a broker decodes requests and
encodes responses, a client the other way round, and writing the metadata log only
encodes. `source()` returns the text of both, which is the most direct way to see what a
version of a message looks like on the wire.

Rules the compiled code follows (Kafka's, see `protocol/primitives.py`):

- a field is on the wire only in its `versions`; absent fields decode to their
  default and are not encoded (a non-default value in an absent field is dropped,
  where Kafka's Java generator would refuse non-ignorable ones);
- flexible versions use compact lengths and end every struct with a tagged-field
  section; a tagged field is written only when it differs from its default, and
  unknown tags are skipped on read;
- a nullable struct is preceded by an int8: -1 for null, 1 for present;
- `records` fields decode to memoryview slices of the input (never copied or
  parsed); `bytes` fields decode to `bytes`.

Errors: decoding raises only `protocol.errors.ProtocolError` subclasses
(`BufferUnderflow`, `InvalidLength`, `InvalidVarint`, `UnsupportedVersion`). A string
that is not UTF-8 is no error: it reads as Kafka's Java reads it
(`primitives.decode_utf8`). Every length and count is checked against the bytes that
remain before anything is allocated. Encoding a value of the wrong type or range
raises `ValueError`/`struct.error` from Python itself: that is a bug in the caller.

Thread safety: the compile cache is filled under a lock; compiled functions are pure.
"""

from __future__ import annotations

import struct
import threading

from protocol import code_cache
from protocol import primitives as p
from protocol.errors import BufferUnderflow, InvalidLength, UnsupportedVersion
from protocol.file_range import write_records
from protocol.schema import NEW, Array, Field, Message, Struct, in_versions

_FIXED = {"bool": "?", "int8": "b", "int16": "h", "uint16": "H", "int32": "i", "int64": "q", "float64": "d"}
_SIZES = {"?": 1, "b": 1, "h": 2, "H": 2, "i": 4, "q": 8, "d": 8}

DECODE, ENCODE = "decode", "encode"

_lock = threading.Lock()
_compiled: dict[tuple[type, int, str], tuple] = {}   # (class, version, direction) -> (function, source)


def _helpers() -> dict:
    return {
        "unpack_from": struct.unpack_from,
        "pack": struct.pack,
        "read_uvarint": p.read_uvarint,
        "read_bytes": p.read_bytes,
        "read_uuid": p.read_uuid,
        "check_length": p.check_length,
        "check_count": p.check_count,
        "encode_uvarint": p.encode_uvarint,
        "write_string": p.write_string,
        "write_bytes": p.write_bytes,
        "write_records": write_records,
        "write_array_count": p.write_array_count,
        "INT8": p.INT8,
        "INT16": p.INT16,
        "INT32": p.INT32,
        "Struct": struct.Struct,
        "new": object.__new__,
        "NullNotAllowed": NullNotAllowed,
        "null_length": _null_length,
        "too_many": _too_many,
        "underflow": _underflow,
        "JAVA_REPLACE": p.JAVA_REPLACE,
        **{f"ARRAY_{code}": structs for code, structs in _ARRAY_STRUCTS.items()},
    }


# Prebuilt struct.Struct objects for arrays of up to SMALL_ARRAY fixed-width integers:
# building the format string and looking it up in struct's cache costs twice the unpack.
SMALL_ARRAY = 64
_ARRAY_STRUCTS = {code: tuple(struct.Struct(f">{k}{code}") for k in range(SMALL_ARRAY))
                  for code in set(_FIXED.values())}


def _null_length(n: int, nullable: bool):
    """A negative length: null where the field may be null (Kafka's readers take any
    negative length, not only -1, for null), else an error."""
    if nullable:
        return None
    raise InvalidLength(f"length {n} where null is not allowed")


def _too_many(buf, pos: int, n: int):
    raise InvalidLength(f"array count {n} exceeds the {len(buf) - pos} bytes left")


def _underflow(buf, pos: int, n: int):
    raise BufferUnderflow(f"a {n}-byte value needs {pos + n - len(buf)} more bytes")


class NullNotAllowed(ValueError):
    """Encoding None into a field that is not nullable in the version being written."""


# ---------------------------------------------------------------------------------------
# Public API


def encode(message: Struct, version: int, out: bytearray | None = None) -> bytearray:
    """Encode `message` at `version`; appends to `out` if given, and returns it."""
    if out is None:
        out = bytearray()
    _compiled_for(type(message), version, ENCODE)[0](out, message)
    return out


def encode_into(out: bytearray, message: Struct, version: int) -> None:
    _compiled_for(type(message), version, ENCODE)[0](out, message)


def decode(cls: type[Message], data, version: int, position: int = 0):
    """Decode one `cls` at `version` from `data` (bytes, bytearray or memoryview)."""
    message, _ = decode_from(cls, data, version, position)
    return message


def decode_from(cls: type[Message], data, version: int, position: int = 0):
    """Decode one `cls` at `version` starting at `position`; return (message, end position)."""
    buf = data if isinstance(data, memoryview) else memoryview(data)
    decoder = _compiled_for(cls, version, DECODE)[0]
    try:
        return decoder(buf, position)
    except (struct.error, IndexError):
        raise BufferUnderflow(f"{cls.schema_name} v{version}: input ends inside a field") from None
    except (OverflowError, MemoryError):
        raise InvalidLength(f"{cls.schema_name} v{version}: a length does not fit the input") from None


def source(cls: type[Message], version: int) -> str:
    """The Python source compiled for `cls` at `version` (decoder, then encoder)."""
    return _compiled_for(cls, version, DECODE)[1] + "\n" + _compiled_for(cls, version, ENCODE)[1]


def check_version(cls: type[Message], version: int) -> None:
    low, high = cls.valid_versions
    if not low <= version <= high:
        raise UnsupportedVersion(cls.schema_name, version, cls.valid_versions)


def _compiled_for(cls: type[Message], version: int, direction: str) -> tuple:
    """(function, its source) for `cls` at `version`, DECODE or ENCODE; compiled at the
    first call."""
    key = (cls, version, direction)
    found = _compiled.get(key)
    if found is not None:
        return found
    check_version(cls, version)
    with _lock:
        found = _compiled.get(key)
        if found is None:
            found = _Compiler(cls, version).compile(direction)
            _compiled[key] = found
    return found


# ---------------------------------------------------------------------------------------
# The compiler: one instance per (message class, version, direction)


class _Compiler:
    def __init__(self, cls: type[Message], version: int):
        self.cls = cls
        self.version = version
        self.flexible = cls.is_flexible(version)
        self.namespace = _helpers()
        self.lines: list[str] = []
        self.decoders: dict[type, str] = {}
        self.encoders: dict[type, str] = {}
        self.counter = 0

    def compile(self, direction: str) -> tuple:
        """(the decoder or the encoder of the whole message, the source written for it)."""
        top = self.decoder_for(self.cls) if direction == DECODE else self.encoder_for(self.cls)
        text = "\n".join(self.lines) + "\n"
        code = code_cache.compiled(text, f"<codec {self.cls.schema_name} v{self.version} {direction}>",
                                   f"{self.cls.__module__}.{self.cls.__qualname__}-v{self.version}-{direction}")
        exec(code, self.namespace)
        return self.namespace[top], text

    # -- naming ------------------------------------------------------------------------

    def constant(self, prefix: str, value) -> str:
        self.counter += 1
        name = f"{prefix}{self.counter}"
        self.namespace[name] = value
        return name

    def class_ref(self, cls: type) -> str:
        name = f"C_{cls.__name__}"
        self.namespace[name] = cls
        return name

    def present(self, field: Field) -> bool:
        return in_versions(self.version, field.versions)

    def tagged(self, field: Field) -> bool:
        return self.flexible and in_versions(self.version, field.tagged_versions)

    def nullable(self, field: Field) -> bool:
        return in_versions(self.version, field.nullable_versions)

    def compact(self, field: Field) -> bool:
        if field.flexible_versions == "message":
            return self.flexible
        return in_versions(self.version, field.flexible_versions)

    def default_expr(self, field: Field) -> str:
        if field.default is NEW:
            if isinstance(field.type, Array):
                return "[]"
            return f"{self.class_ref(field.type)}()"
        if isinstance(field.default, (int, float, str, bytes, type(None), bool)):
            return repr(field.default)
        return self.constant("D", field.default)

    # -- decoding ----------------------------------------------------------------------

    def decoder_for(self, cls: type) -> str:
        if cls in self.decoders:
            return self.decoders[cls]
        name = f"decode_{cls.__name__}"
        self.decoders[cls] = name
        body: list[str] = [f"    o = new({self.class_ref(cls)})"]
        fields = list(cls.FIELDS)
        regular = [f for f in fields if self.present(f) and not self.tagged(f)]
        tagged = [f for f in fields if self.present(f) and self.tagged(f)]
        absent = [f for f in fields if not self.present(f)]
        i = 0
        while i < len(regular):
            run = []
            while i < len(regular) and _fixed_code(regular[i]) is not None:
                run.append(regular[i])
                i += 1
            if run:
                body += self.decode_fixed_run(run)
                continue
            body += self.decode_value(regular[i], "buf", f"o.{regular[i].name}", "    ")
            i += 1
        for f in absent + tagged:
            body.append(f"    o.{f.name} = {self.default_expr(f)}")
        if self.flexible:
            body += self.decode_tagged_section(tagged)
        body.append("    return o, pos")
        self.lines += [f"def {name}(buf, pos):"] + body + [""]
        return name

    def decode_fixed_run(self, run: list[Field]) -> list[str]:
        fmt = ">" + "".join(_fixed_code(f) for f in run)
        st = self.constant("S", struct.Struct(fmt))
        targets = ", ".join(f"o.{f.name}" for f in run)
        if len(run) == 1:
            targets += ","
        size = sum(_SIZES[_fixed_code(f)] for f in run)
        return [f"    {targets} = {st}.unpack_from(buf, pos)", f"    pos += {size}"]

    def decode_value(self, field: Field, buf: str, target: str, ind: str) -> list[str]:
        """Lines that read `field` from `buf` at `pos` into `target` and advance `pos`."""
        t = field.type
        compact = self.compact(field)
        nullable = self.nullable(field)
        if isinstance(t, Array):
            lines = self.read_length(buf, ind, compact, 4) + [
                f"{ind}if n < 0:",
                f"{ind}    {target} = null_length(n, {nullable})",
                f"{ind}else:",
                f"{ind}    if n > len({buf}) - pos:",
                f"{ind}        too_many({buf}, pos, n)",
            ]
            element = t.element
            if isinstance(element, str) and element in _FIXED:
                code = _FIXED[element]
                return lines + [
                    f"{ind}    st = ARRAY_{code}[n] if n < {SMALL_ARRAY} else Struct('>%d{code}' % n)",
                    f"{ind}    {target} = list(st.unpack_from({buf}, pos))",
                    f"{ind}    pos += {_SIZES[code]} * n",
                ]
            lines += [f"{ind}    items = []", f"{ind}    for _ in range(n):"]
            item_field = Field("item", element, field.versions, flexible_versions=field.flexible_versions)
            lines += self.decode_value(item_field, buf, "item", ind + "        ")
            lines += [f"{ind}        items.append(item)", f"{ind}    {target} = items"]
            return lines
        if isinstance(t, type):
            decoder = self.decoder_for(t)
            if nullable:
                return [
                    f"{ind}marker, = INT8.unpack_from({buf}, pos)",
                    f"{ind}pos += 1",
                    f"{ind}if marker < 0:",
                    f"{ind}    {target} = None",
                    f"{ind}else:",
                    f"{ind}    {target}, pos = {decoder}({buf}, pos)",
                ]
            return [f"{ind}{target}, pos = {decoder}({buf}, pos)"]
        if t in _FIXED:
            st = self.constant("S", struct.Struct(">" + _FIXED[t]))
            return [f"{ind}{target}, = {st}.unpack_from({buf}, pos)", f"{ind}pos += {_SIZES[_FIXED[t]]}"]
        if t == "string":
            return self.read_length(buf, ind, compact, 2) + [
                f"{ind}if n < 0:",
                f"{ind}    {target} = null_length(n, {nullable})",
                f"{ind}else:",
                f"{ind}    string_end = pos + n",
                f"{ind}    if string_end > len({buf}):",
                f"{ind}        underflow({buf}, pos, n)",
                f"{ind}    {target} = str({buf}[pos:string_end], 'utf-8', JAVA_REPLACE)",
                f"{ind}    pos = string_end",
            ]
        if t == "bytes":
            return [
                f"{ind}v, pos = read_bytes({buf}, pos, {compact}, {nullable})",
                f"{ind}{target} = None if v is None else bytes(v)",
            ]
        if t == "records":
            return [f"{ind}{target}, pos = read_bytes({buf}, pos, {compact}, {nullable})"]
        if t == "uuid":
            return [f"{ind}{target}, pos = read_uuid({buf}, pos)"]
        raise TypeError(f"no decoder for field type {t!r}")

    def read_length(self, buf: str, ind: str, compact: bool, width: int) -> list[str]:
        """Lines that read a length or count into `n` (-1 = null) and advance `pos`."""
        if compact:  # unsigned varint of length + 1; one byte in the common case
            return [f"{ind}n = {buf}[pos]", f"{ind}if n < 0x80:", f"{ind}    pos += 1", f"{ind}else:",
                    f"{ind}    n, pos = read_uvarint({buf}, pos)", f"{ind}n -= 1"]
        st = "INT16" if width == 2 else "INT32"
        return [f"{ind}n, = {st}.unpack_from({buf}, pos)", f"{ind}pos += {width}"]

    def decode_tagged_section(self, tagged: list[Field]) -> list[str]:
        # Nearly every section is empty: the single byte 0.
        lines = [
            "    if buf[pos] == 0:",
            "        return o, pos + 1",
            "    count, pos = read_uvarint(buf, pos)",
            "    check_count(buf, pos, count)",
            "    for _ in range(count):",
            "        tag, pos = read_uvarint(buf, pos)",
            "        size, pos = read_uvarint(buf, pos)",
            "        end = check_length(buf, pos, size)",
        ]
        keyword = "if"
        for f in sorted(tagged, key=lambda f: f.tag):
            lines.append(f"        {keyword} tag == {f.tag}:")
            lines.append("            tb = buf[:end]")
            lines += self.decode_value(f, "tb", f"o.{f.name}", "            ")
            keyword = "elif"
        lines.append("        pos = end")
        return lines

    # -- encoding ----------------------------------------------------------------------

    def encoder_for(self, cls: type) -> str:
        if cls in self.encoders:
            return self.encoders[cls]
        name = f"encode_{cls.__name__}"
        self.encoders[cls] = name
        body: list[str] = []
        fields = list(cls.FIELDS)
        regular = [f for f in fields if self.present(f) and not self.tagged(f)]
        tagged = [f for f in fields if self.present(f) and self.tagged(f)]
        i = 0
        while i < len(regular):
            run = []
            while i < len(regular) and _fixed_code(regular[i]) is not None:
                run.append(regular[i])
                i += 1
            if run:
                fmt = ">" + "".join(_fixed_code(f) for f in run)
                st = self.constant("S", struct.Struct(fmt))
                args = ", ".join(f"o.{f.name}" for f in run)
                body.append(f"    out += {st}.pack({args})")
                continue
            body += self.encode_value(regular[i], "out", f"o.{regular[i].name}", "    ", cls)
            i += 1
        if self.flexible:
            body += self.encode_tagged_section(tagged, cls)
        if not body:
            body.append("    pass")
        self.lines += [f"def {name}(out, o):"] + body + [""]
        return name

    def encode_value(self, field: Field, out: str, value: str, ind: str, owner: type) -> list[str]:
        t = field.type
        compact = self.compact(field)
        nullable = self.nullable(field)
        where = f"{owner.__name__}.{field.name}"
        lines = [f"{ind}v = {value}"]
        null_check = [] if nullable else [
            f"{ind}if v is None:",
            f"{ind}    raise NullNotAllowed({where!r} + ' is not nullable in version {self.version}')",
        ]
        if isinstance(t, Array):
            lines += null_check
            element = t.element
            lines.append(f"{ind}write_array_count({out}, None if v is None else len(v), {compact})")
            if isinstance(element, str) and element in _FIXED:
                code = _FIXED[element]
                lines += [
                    f"{ind}if v:",
                    f"{ind}    st = ARRAY_{code}[len(v)] if len(v) < {SMALL_ARRAY} else Struct('>%d{code}' % len(v))",
                    f"{ind}    {out} += st.pack(*v)",
                ]
                return lines
            item_field = Field("item", element, field.versions, flexible_versions=field.flexible_versions)
            lines += [f"{ind}if v:", f"{ind}    for item in v:"]
            lines += self.encode_value(item_field, out, "item", ind + "        ", owner)
            return lines
        if isinstance(t, type):
            encoder = self.encoder_for(t)
            if nullable:
                return lines + [
                    f"{ind}if v is None:",
                    f"{ind}    {out} += b'\\xff'",
                    f"{ind}else:",
                    f"{ind}    {out} += b'\\x01'",
                    f"{ind}    {encoder}({out}, v)",
                ]
            return lines + null_check + [f"{ind}{encoder}({out}, v)"]
        if t in _FIXED:
            st = self.constant("S", struct.Struct(">" + _FIXED[t]))
            return [f"{ind}{out} += {st}.pack({value})"]
        if t == "string":
            return lines + null_check + [f"{ind}write_string({out}, v, {compact})"]
        if t == "bytes":
            return lines + null_check + [f"{ind}write_bytes({out}, v, {compact})"]
        if t == "records":
            return lines + null_check + [f"{ind}write_records({out}, v, {compact})"]
        if t == "uuid":
            return [f"{ind}{out} += {value}.bytes"]
        raise TypeError(f"no encoder for field type {t!r}")

    def differs_from_new_struct(self, value: str, cls: type) -> str:
        """`value != cls()`, the test Struct.__eq__ makes (same type, every field equal),
        written out field by field: a tagged struct (a Fetch answer has three per
        partition) is tested on every encode, and building the default and comparing
        through `__eq__` costs some 2 us where the tuple costs 0.1."""
        if not cls.FIELDS:
            return f"type({value}) is not {self.class_ref(cls)}"
        fields = ", ".join(f"{value}.{sub.name}" for sub in cls.FIELDS)
        defaults = ", ".join(self.default_expr(sub) for sub in cls.FIELDS)
        return f"type({value}) is not {self.class_ref(cls)} or ({fields},) != ({defaults},)"

    def encode_tagged_section(self, tagged: list[Field], owner: type) -> list[str]:
        if not tagged:
            return ["    out += b'\\x00'"]
        lines = ["    tags = []"]
        for f in sorted(tagged, key=lambda f: f.tag):
            value = f"o.{f.name}"
            if f.default is NEW:
                # the default is an empty array: null and non-empty both differ from it
                differs = (f"{value} is None or len({value}) > 0" if isinstance(f.type, Array)
                           else self.differs_from_new_struct(value, f.type))
            elif f.default is None:
                differs = f"{value} is not None"
            else:
                differs = f"{value} != {self.default_expr(f)}"
            lines += [f"    if {differs}:", "        t = bytearray()"]
            lines += self.encode_value(f, "t", value, "        ", owner)
            lines.append(f"        tags.append(({f.tag}, t))")
        lines += [
            "    out += encode_uvarint(len(tags))",
            "    for tag, t in tags:",
            "        out += encode_uvarint(tag)",
            "        out += encode_uvarint(len(t))",
            "        out += t",
        ]
        return lines


def _fixed_code(field: Field) -> str | None:
    t = field.type
    return _FIXED.get(t) if isinstance(t, str) else None
