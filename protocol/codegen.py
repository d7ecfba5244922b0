"""Generate pylog's message classes from Kafka's JSON message definitions.

    python -m protocol.codegen [--check]                 # Kafka's definitions from Maven
    python -m protocol.codegen --specs DIR [--specs NEWER_DIR] [--internal-specs DIR ...]
                               [--metadata-specs DIR] [--check]

Without `--specs` the generator reads the definitions of the Kafka releases pinned in
`protocol/kafka_specs.py`, fetched once from Kafka's sources jars in the Maven repository into
a cache (`make codegen` does this). With `--specs`, DIR is a folder of message JSON files, such
as `clients/src/main/resources/common/message` in a Kafka checkout; given twice or more (oldest
release first), each message is the union of the releases' definitions of it
(`protocol/spec_union.py`): an older release's versions as it defines them, a newer one's
above. `--metadata-specs` is the metadata records' folder
(`metadata/src/main/resources/common/metadata`); without it the metadata package is left
alone. The output, committed to the repository:

    protocol/messages/<snake_name>.py   one module per schema: the message class, its
                                        nested structs, their FIELDS; all versions
    protocol/messages/__init__.py       the index: API key -> module, lazy class access
    protocol/internal/...               the same for the coordinator record formats
                                        (__consumer_offsets, __transaction_state)
    protocol/metadata/...               the same for the KRaft metadata records
                                        (__cluster_metadata); the index maps each
                                        record type (its apiKey) to its class

Which schemas: the request/response headers, every request and response whose
`listeners` (the newest release's) include "broker", or "controller" without "zkBroker" (the APIs a broker serves
to clients, and those a KRaft controller serves to brokers: BrokerRegistration,
BrokerHeartbeat, AlterPartition, ...), the consumer protocol's subscription and assignment
(carried opaquely inside JoinGroup / SyncGroup), and the control records Raft writes
into `__cluster_metadata` (LeaderChangeMessage, the snapshot header and footer, the
KRaft version and voters records). From the internal folder: the group coordinator's
OffsetCommit* and GroupMetadata* records and the transaction coordinator's
TransactionLog* records. From the metadata folder: every schema of type "metadata".

What is generated: names, types, versions, nullability, defaults and tags. The
schemas' `about` prose is not copied. The output depends only on the input files (sorted
iteration, no timestamps), so `--check` can compare it byte for byte with what is
committed and exit 1 when they differ.

Schema JSON files carry `//` line comments (the license header); lines whose first
non-blank characters are `//` are dropped before parsing.
"""

from __future__ import annotations

import argparse
import json
import keyword
import re
import sys
from pathlib import Path

from protocol.spec_union import SpecUnionError, union_spec

PACKAGE_ROOT = Path(__file__).resolve().parent

HEADER_SCHEMAS = ("RequestHeader", "ResponseHeader")
DATA_SCHEMAS = ("ConsumerProtocolSubscription", "ConsumerProtocolAssignment",
                # Raft's control records in __cluster_metadata (not framed as metadata records)
                "LeaderChangeMessage", "SnapshotHeaderRecord", "SnapshotFooterRecord",
                "KRaftVersionRecord", "VotersRecord")
INTERNAL_SCHEMAS = (
    "OffsetCommitKey", "OffsetCommitValue", "GroupMetadataKey", "GroupMetadataValue",
    "TransactionLogKey", "TransactionLogValue",
)
MAX_VERSION = 0x7FFF
PRIMITIVES = {"bool", "int8", "int16", "uint16", "int32", "int64", "float64", "string", "bytes", "records", "uuid"}
INTEGERS = {"int8", "int16", "uint16", "int32", "int64"}
# Names a generated Message class uses for its own class attributes.
RESERVED = {"schema_name", "api_key", "message_type", "valid_versions", "flexible_versions",
            "deprecated_versions", "latest_version_unstable", "api_listeners", "FIELDS", "to_dict",
            "is_flexible"}


def load_schema(path: Path) -> dict:
    lines = [line for line in path.read_text(encoding="utf-8").splitlines()
             if not line.lstrip().startswith("//")]
    return json.loads("\n".join(lines))


def parse_versions(text) -> tuple[int, int] | None:
    text = str(text).strip()
    if text == "none":
        return None
    if text.endswith("+"):
        return (int(text[:-1]), MAX_VERSION)
    if "-" in text:
        low, high = text.split("-")
        return (int(low), int(high))
    return (int(text), int(text))


def snake_case(name: str) -> str:
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()
    return s + "_" if keyword.iskeyword(s) else s


def versions_literal(v: tuple[int, int] | None) -> str:
    if v is None:
        return "None"
    return f"({v[0]}, MAX)" if v[1] == MAX_VERSION else f"({v[0]}, {v[1]})"


class SchemaError(Exception):
    pass


class StructModel:
    """One struct of a schema after parsing: its class name and its fields."""

    def __init__(self, name: str, fields: list[dict]):
        self.name = name
        self.fields = fields  # parsed field dicts, see MessageModel._field


class MessageModel:
    """A parsed schema: the top-level struct plus its nested structs in dependency order."""

    def __init__(self, spec: dict, filename: str):
        self.spec = spec
        self.filename = filename
        self.name = spec["name"]
        self.common = {s["name"]: s for s in spec.get("commonStructs", [])}
        self.structs: dict[str, StructModel] = {}
        self.top = StructModel(self.name, [self._field(f) for f in spec.get("fields", [])])

    def _struct(self, name: str, raw_fields: list[dict] | None) -> str:
        if name in self.structs:
            if raw_fields:
                raise SchemaError(f"{self.filename}: struct {name} defined twice")
            return name
        if not raw_fields:
            if name not in self.common:
                raise SchemaError(f"{self.filename}: unknown struct type {name}")
            raw_fields = self.common[name]["fields"]
        fields = [self._field(f) for f in raw_fields]  # children first: dependency order
        self.structs[name] = StructModel(name, fields)
        return name

    def _field(self, raw: dict) -> dict:
        type_text = raw["type"].strip()
        is_array = type_text.startswith("[]")
        element = type_text[2:] if is_array else type_text
        if element not in PRIMITIVES:
            element = self._struct(element, raw.get("fields"))
            kind = "struct"
        else:
            kind = element
        field = {
            "name": snake_case(raw["name"]),
            "array": is_array,
            "element": element,
            "kind": kind,
            "versions": parse_versions(raw.get("versions", "0+")),
            "nullable": parse_versions(raw["nullableVersions"]) if "nullableVersions" in raw else None,
            "tagged": parse_versions(raw["taggedVersions"]) if "taggedVersions" in raw else None,
            "tag": raw.get("tag"),
            "ignorable": bool(raw.get("ignorable", False)),
            "flexible": parse_versions(raw["flexibleVersions"]) if "flexibleVersions" in raw else "message",
        }
        field["default"] = self._default(field, raw.get("default"))
        return field

    def _default(self, field: dict, default) -> str:
        """The default as Python source text."""
        if field["array"] or field["kind"] == "struct":
            if default == "null":
                return "None"
            if default not in (None, ""):
                raise SchemaError(f"{self.filename}: odd default {default!r} for {field['name']}")
            return "NEW"
        kind = field["kind"]
        if default == "null":
            return "None"
        if kind in INTEGERS:
            return "0" if default is None else str(int(str(default), 0))
        if kind == "float64":
            return "0.0" if default is None else repr(float(default))
        if kind == "bool":
            return "True" if str(default).lower() == "true" else "False"
        if kind == "string":
            return '""' if default is None else json.dumps(default)
        if kind in ("bytes", "records"):
            return 'b""'
        if kind == "uuid":
            return "ZERO_UUID"
        raise SchemaError(f"{self.filename}: no default rule for {kind}")


def render_type(field: dict) -> str:
    inner = field["element"] if field["kind"] == "struct" else json.dumps(field["element"])
    return f"Array({inner})" if field["array"] else inner


def render_field(field: dict) -> str:
    parts = [json.dumps(field["name"]), render_type(field), versions_literal(field["versions"])]
    if field["nullable"] is not None:
        parts.append(f"nullable_versions={versions_literal(field['nullable'])}")
    if field["tagged"] is not None:
        parts.append(f"tagged_versions={versions_literal(field['tagged'])}, tag={field['tag']}")
    if field["default"] not in ("None",):
        parts.append(f"default={field['default']}")
    if field["ignorable"]:
        parts.append("ignorable=True")
    if field["flexible"] != "message":
        parts.append(f"flexible_versions={versions_literal(field['flexible'])}")
    return "Field(" + ", ".join(parts) + ")"


def render_struct(struct: StructModel, base: str, class_attrs: list[str], members: list[str]) -> str:
    names = [f["name"] for f in struct.fields]
    lines = [f"class {struct.name}({base}):"]
    for attr in class_attrs:
        lines.append(f"    {attr}")
    for member in members:
        lines.append(f"    {member} = {member}")
    slots = "".join(f"{json.dumps(n)}, " for n in names).rstrip(" ")
    lines.append(f"    __slots__ = ({slots})")
    if struct.fields:
        lines.append("    FIELDS = (")
        lines += [f"        {render_field(f)}," for f in struct.fields]
        lines.append("    )")
    else:
        lines.append("    FIELDS = ()")
    lines.append("")
    params = "".join(f", {f['name']}={f['default']}" for f in struct.fields)
    lines.append(f"    def __init__(self{params}):")
    if not struct.fields:
        lines.append("        pass")
    for f in struct.fields:
        n = f["name"]
        if f["default"] == "NEW":
            fresh = "[]" if f["array"] else f"{f['element']}()"
            lines.append(f"        self.{n} = {fresh} if {n} is NEW else {n}")
        else:
            lines.append(f"        self.{n} = {n}")
    return "\n".join(lines)


def render_module(model: MessageModel) -> str:
    spec = model.spec
    top_names = {f["name"] for f in model.top.fields}
    clash = top_names & RESERVED
    if clash:
        raise SchemaError(f"{model.filename}: field names {sorted(clash)} clash with Message attributes")
    valid = parse_versions(spec["validVersions"])
    flexible = parse_versions(spec.get("flexibleVersions", "none"))
    deprecated = parse_versions(spec["deprecatedVersions"]) if "deprecatedVersions" in spec else None
    attrs = [
        f"schema_name = {json.dumps(model.name)}",
        f"api_key = {spec.get('apiKey')}",
        f"message_type = {json.dumps(spec['type'])}",
        f"valid_versions = {versions_literal(valid)}",
        f"flexible_versions = {versions_literal(flexible)}",
    ]
    if deprecated is not None:
        attrs.append(f"deprecated_versions = {versions_literal(deprecated)}")
    if spec.get("latestVersionUnstable"):
        attrs.append("latest_version_unstable = True")
    if spec.get("listeners"):
        attrs.append(f"api_listeners = {tuple(sorted(spec['listeners']))!r}")
    used = {"Array", "Field", "Message", "Struct", "NEW", "ZERO_UUID", "MAX"}
    if used & (set(model.structs) | {model.name}):
        raise SchemaError(f"{model.filename}: a struct name clashes with a schema import")
    out = [
        f"# Generated from {model.filename} by protocol/codegen.py — do not edit.",
        f'"""{model.name}: {describe(spec)}."""',
        "",
        "from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct",
        "",
    ]
    for struct in model.structs.values():
        out += ["", render_struct(struct, "Struct", [], []), ""]
    out += ["", render_struct(model.top, "Message", attrs, sorted(model.structs)), ""]
    out += ["", f"__all__ = [{json.dumps(model.name)}]", ""]
    return "\n".join(out)


def describe(spec: dict) -> str:
    kind = spec["type"]
    text = f"{kind}, versions {spec['validVersions']}"
    if "apiKey" in spec:
        text = f"API key {spec['apiKey']} {text}"
    flexible = spec.get("flexibleVersions", "none")
    if flexible != "none":
        text += f", flexible versions {flexible}"
    return text


def _served_in_kraft(spec: dict) -> bool:
    """A broker's API, or a controller's that is not of the ZooKeeper era (those name
    "zkBroker": ControlledShutdown, LeaderAndIsr, ...; a KRaft broker never sends them).
    The listeners are the newest release's: Kafka 4 lists AlterPartition and
    AllocateProducerIds as the controller's alone."""
    listeners = spec.get("listeners", [])
    return "broker" in listeners or ("controller" in listeners and "zkBroker" not in listeners)


def _identity(spec: dict):
    """What makes two releases' files the same message: the API key and kind for requests and
    responses (Kafka 4.1 renamed ListClientMetricsResources to ListConfigResources), else the name."""
    if spec.get("type") in ("request", "response"):
        return (spec["type"], spec["apiKey"])
    return spec.get("name")


def united_specs(specs_dirs: list[Path]) -> list[tuple[str, dict]]:
    """(file name, definition) of every message in the folders, oldest release first, each
    the union of the releases that define it; the file name is the newest release's."""
    united: dict = {}
    for folder in specs_dirs:
        for path in sorted(folder.glob("*.json")):
            spec = load_schema(path)
            key = _identity(spec)
            if key in united:
                try:
                    spec = union_spec(united[key][1], spec)
                except SpecUnionError as e:
                    raise SchemaError(f"{path.name}: {e}") from None
            united[key] = (path.name, spec)
    return sorted(united.values(), key=lambda entry: entry[0])


def select_message_specs(specs_dirs: list[Path]) -> list[tuple[str, dict]]:
    """Headers, consumer-protocol data, and both halves of every API a broker or a
    controller serves.

    Only requests carry `listeners`; a response is chosen when its request is."""
    specs = united_specs(specs_dirs)
    broker_keys = {spec["apiKey"] for _, spec in specs
                   if spec.get("type") == "request" and _served_in_kraft(spec)}
    chosen = []
    for name, spec in specs:
        if spec.get("name") in HEADER_SCHEMAS or spec.get("name") in DATA_SCHEMAS:
            chosen.append((name, spec))
        elif spec.get("type") in ("request", "response") and spec.get("apiKey") in broker_keys:
            chosen.append((name, spec))
    return chosen


def render_index(entries: list[tuple[str, str, dict]], package: str) -> str:
    """entries: (class name, module name, spec)."""
    lines = [
        "# Generated by protocol/codegen.py — do not edit.",
        f'"""Index of the generated schemas in `{package}`.',
        "",
        f"Classes load lazily: `from {package} import {entries[0][0]}` imports only",
        f"`{entries[0][1]}`; MODULES maps each class name to its module.",
        '"""',
        "",
        "import importlib",
        "",
        "MODULES = {",
    ]
    lines += [f"    {json.dumps(name)}: {json.dumps(module)}," for name, module, _ in entries]
    lines.append("}")
    for kind, title in (("request", "REQUESTS"), ("response", "RESPONSES"), ("metadata", "RECORDS")):
        keyed = sorted((spec["apiKey"], name) for name, _, spec in entries if spec.get("type") == kind)
        if keyed:
            lines.append("")
            lines.append(f"{title} = {{")
            lines += [f"    {key}: {json.dumps(name)}," for key, name in keyed]
            lines.append("}")
    if any(spec.get("type") == "metadata" for _, _, spec in entries):
        lines.insert(5, "RECORDS maps a metadata record type (its apiKey) to its class name.")
    if any(spec.get("type") == "request" for _, _, spec in entries):
        lines.insert(5, "REQUESTS / RESPONSES map an API key to its class name.")
        names = sorted((spec["apiKey"], spec["name"][: -len("Request")])
                       for _, _, spec in entries if spec.get("type") == "request")
        lines.append("")
        lines.append("API_NAMES = {")
        lines += [f"    {key}: {json.dumps(name)}," for key, name in names]
        lines.append("}")
    lines += [
        "",
        "",
        "def __getattr__(name):",
        "    module = MODULES.get(name)",
        "    if module is None:",
        "        raise AttributeError(name)",
        "    cls = getattr(importlib.import_module(f\"{__name__}.{module}\"), name)",
        "    globals()[name] = cls",
        "    return cls",
        "",
        "",
        "__all__ = sorted(MODULES)",
        "",
    ]
    return "\n".join(lines)


def generate(specs_dirs: list[Path], internal_dirs: list[Path], metadata_dirs: list[Path] = ()) -> dict[Path, str]:
    """Return {output path: file text} for everything the generator owns.

    `specs_dirs`: the message folders, oldest release first. Without `metadata_dirs` the
    metadata package is not generated (and not owned)."""
    outputs: dict[Path, str] = {}
    message_specs = select_message_specs(specs_dirs)
    if not message_specs:
        raise SchemaError(f"{', '.join(map(str, specs_dirs))}: no schema to generate "
                          "(no header, consumer protocol or broker API)")
    groups = [(PACKAGE_ROOT / "messages", "protocol.messages", message_specs)]
    internal_specs = []
    for folder in internal_dirs:
        for path in sorted(folder.rglob("*.json")):
            if path.stem in INTERNAL_SCHEMAS:
                internal_specs.append((path.name, load_schema(path)))
    if internal_specs:
        internal_specs.sort(key=lambda entry: entry[0])
        groups.append((PACKAGE_ROOT / "internal", "protocol.internal", internal_specs))
    metadata_specs = sorted(((path.name, spec) for folder in metadata_dirs for path in folder.glob("*.json")
                             for spec in [load_schema(path)] if spec.get("type") == "metadata"),
                            key=lambda entry: entry[0])
    if metadata_dirs and not metadata_specs:
        raise SchemaError(f"{', '.join(map(str, metadata_dirs))}: no metadata record schema")
    if metadata_specs:
        groups.append((PACKAGE_ROOT / "metadata", "protocol.metadata", metadata_specs))
    for out_dir, package, specs in groups:
        entries = []
        for filename, spec in specs:
            model = MessageModel(spec, filename)
            module = snake_case(model.name)
            outputs[out_dir / f"{module}.py"] = render_module(model)
            entries.append((model.name, module, spec))
        entries.sort(key=lambda e: e[0])
        outputs[out_dir / "__init__.py"] = render_index(entries, package)
    return outputs


def existing_outputs(out_dirs: set[Path]) -> set[Path]:
    found = set()
    for folder in out_dirs:
        for path in folder.glob("*.py"):
            if path.read_text(encoding="utf-8").startswith("# Generated"):
                found.add(path)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m protocol.codegen", description=__doc__.split("\n")[0])
    parser.add_argument("--specs", action="append", type=Path, default=None,
                        help="folder of Kafka's message JSON files; twice or more: releases to unite, "
                             "oldest first (default: fetch the pinned releases)")
    parser.add_argument("--internal-specs", action="append", type=Path, default=None,
                        help="folder(s) with the coordinator record schemas (default: SPECS/../internal if present)")
    parser.add_argument("--metadata-specs", action="append", type=Path, default=None,
                        help="folder(s) with the metadata record schemas (default with --specs: none)")
    parser.add_argument("--check", action="store_true", help="exit 1 if the committed modules differ")
    args = parser.parse_args(argv)
    if args.specs is None:
        from protocol import kafka_specs

        folders = kafka_specs.fetch()
        specs = kafka_specs.fetch_message_folders()
        internal, metadata = folders.internal, [folders.metadata]
        print(f"messages of Kafka {' and '.join(kafka_specs.MESSAGE_SPECS_VERSIONS)}, coordinator records "
              f"of Kafka {folders.version} from {folders.messages.parent}, "
              f"metadata records of Kafka {folders.metadata_version} from {folders.metadata}")
    else:
        for folder in args.specs:
            if not folder.is_dir():
                parser.error(f"{folder} is not a folder")
        specs, internal, metadata = args.specs, args.internal_specs, args.metadata_specs or []
        if internal is None:
            guess = args.specs[0].parent / "internal"
            internal = [guess] if guess.is_dir() else []
    try:
        outputs = generate(specs, internal, metadata)
    except SchemaError as e:
        parser.error(str(e))
    out_dirs = {p.parent for p in outputs}
    stale = existing_outputs(out_dirs) - set(outputs)
    if args.check:
        differing = sorted(str(p.relative_to(PACKAGE_ROOT.parent)) for p, text in outputs.items()
                           if not p.exists() or p.read_text(encoding="utf-8") != text)
        differing += sorted(f"{p.relative_to(PACKAGE_ROOT.parent)} (no longer generated)" for p in stale)
        if differing:
            print(f"{len(differing)} generated file(s) out of date:", file=sys.stderr)
            for name in differing:
                print(f"  {name}", file=sys.stderr)
            return 1
        print(f"{len(outputs)} generated files are up to date")
        return 0
    for folder in out_dirs:
        folder.mkdir(parents=True, exist_ok=True)
    for path in stale:
        path.unlink()
    written = 0
    for path, text in sorted(outputs.items()):
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            written += 1
    print(f"generated {len(outputs)} files ({written} changed) in {PACKAGE_ROOT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
