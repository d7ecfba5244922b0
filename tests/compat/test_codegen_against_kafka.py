"""The generator against Kafka's own definitions: committed modules are up to date, output is
deterministic, and the generated declarations say exactly what Kafka's JSON says (minus the
prose).

The definitions are those of the releases pinned in `protocol/kafka_specs.py` (3.9 and 4.1 for
the messages, 3.9 for the coordinator records, 4.1 for the metadata records), fetched from
Kafka's sources jars in the Maven repository (cached after the first run). The API index the
tests compare with (key, name, versions, flexible versions, listeners) is read from the same
JSON files here, independently of the generator, and every message class is checked version by
version against the JSON of the newest release that defines that version. Generation runs against a temporary copy of
the `protocol` package, never the repository's own files.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from protocol import codegen, kafka_specs
from protocol import internal as internal_pkg
from protocol import messages as messages_pkg
from protocol import metadata as metadata_pkg
from protocol.schema import MAX_VERSION, NEW, Array, Message, Struct

REPO = Path(__file__).resolve().parents[2]
FOLDERS = kafka_specs.fetch()
SPECS_ROOT = FOLDERS.messages.parent  # messages/ and internal/<artifact>/ of the oldest release
MESSAGE_FOLDERS = kafka_specs.fetch_message_folders()   # oldest release first
SPECS = MESSAGE_FOLDERS[0]
SPEC_ARGS = tuple(arg for folder in MESSAGE_FOLDERS for arg in ("--specs", str(folder)))
INTERNAL_SPECS = FOLDERS.internal
METADATA_SPECS = FOLDERS.metadata
METADATA_ARGS = ("--metadata-specs", str(METADATA_SPECS))
PACKAGE = REPO / "protocol"
GENERATED_DIRS = (PACKAGE / "messages", PACKAGE / "internal", PACKAGE / "metadata")


def require_specs():
    for folder in MESSAGE_FOLDERS:
        assert folder.is_dir(), f"Kafka's message specs are missing: expected {folder}"
    for folder in INTERNAL_SPECS:
        assert folder.is_dir(), f"the internal record specs are missing: expected {folder}"
    assert METADATA_SPECS.is_dir(), f"the metadata record specs are missing: expected {METADATA_SPECS}"


def internal_spec_files() -> list[Path]:
    return [path for folder in INTERNAL_SPECS for path in sorted(folder.glob("*.json"))]


def metadata_spec_files() -> list[Path]:
    return sorted(METADATA_SPECS.glob("*.json"))


def load_json(path: Path) -> dict:
    """Kafka's JSON with `//` comment lines (written here independently of codegen)."""
    text = "\n".join(line for line in path.read_text(encoding="utf-8").splitlines()
                     if not line.strip().startswith("//"))
    return json.loads(text)


def run_codegen(cwd: Path, *args: str, seed: str = "0") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSAFEPATH")}
    env["PYTHONHASHSEED"] = seed
    return subprocess.run([sys.executable, "-m", "protocol.codegen", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def copy_package(dest: Path) -> Path:
    shutil.copytree(PACKAGE, dest / "protocol", ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def generated_files(root: Path) -> dict[str, str]:
    out = {}
    for sub in ("messages", "internal", "metadata"):
        for path in sorted((root / "protocol" / sub).glob("*.py")):
            out[f"{sub}/{path.name}"] = path.read_text(encoding="utf-8")
    return out


def snapshot_repo() -> dict[str, str]:
    return generated_files(REPO)


# ---------------------------------------------------------------------------------------
# --check, determinism, change detection


def test_specs_folder_is_present():
    require_specs()
    assert len(list(SPECS.glob("*.json"))) >= 170


def test_committed_modules_are_up_to_date():
    require_specs()
    result = run_codegen(REPO, *SPEC_ARGS, *METADATA_ARGS, "--check")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "up to date" in result.stdout


def test_the_default_run_checks_every_package_against_the_pinned_versions():
    """`make codegen`'s own invocation (no --specs): the pinned versions, all three packages."""
    result = run_codegen(REPO, "--check")
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"metadata records of Kafka {kafka_specs.METADATA_SPECS_VERSION}" in result.stdout


def test_generation_is_deterministic_and_matches_the_commit(tmp_path):
    require_specs()
    before = snapshot_repo()
    outputs = []
    for run, seed in (("a", "1"), ("b", "12345")):
        root = copy_package(tmp_path / run)
        # remove every generated file so the run has to write all of them
        for path in (root / "protocol" / "messages").glob("*.py"):
            path.unlink()
        for path in (root / "protocol" / "internal").glob("*.py"):
            path.unlink()
        shutil.rmtree(root / "protocol" / "metadata")
        result = run_codegen(root, *SPEC_ARGS, *METADATA_ARGS, seed=seed)
        assert result.returncode == 0, result.stderr
        outputs.append(generated_files(root))
    assert outputs[0] == outputs[1], "two runs (different hash seeds) must give identical files"
    assert outputs[0] == before, "a fresh generation must reproduce the committed modules"
    # a second run over its own output changes nothing
    result = run_codegen(tmp_path / "a", *SPEC_ARGS, *METADATA_ARGS)
    assert result.returncode == 0 and "(0 changed)" in result.stdout
    assert snapshot_repo() == before, "the repository's modules must not be touched"


def test_in_process_generation_is_deterministic():
    require_specs()
    first = codegen.generate(MESSAGE_FOLDERS, INTERNAL_SPECS, [METADATA_SPECS])
    second = codegen.generate(MESSAGE_FOLDERS, INTERNAL_SPECS, [METADATA_SPECS])
    assert first == second
    assert {p.relative_to(PACKAGE).as_posix() for p in first} == {
        f"{d.name}/{p.name}" for d in GENERATED_DIRS for p in d.glob("*.py")}


def copy_releases(tmp_path: Path) -> tuple[Path, tuple[str, ...]]:
    """A copy of every release's message folder, and the --specs arguments naming the copies."""
    copies = []
    for folder in MESSAGE_FOLDERS:
        copy = tmp_path / "kafka-specs" / folder.parent.name
        shutil.copytree(folder.parent, copy)
        copies.append(copy / "messages")
    return copies[-1], tuple(arg for copy in copies for arg in ("--specs", str(copy)))


def test_a_modified_spec_makes_check_fail(tmp_path):
    require_specs()
    before = snapshot_repo()
    root = copy_package(tmp_path / "pkg")
    newest, spec_args = copy_releases(tmp_path)
    # unchanged copy: the temporary package is what gets checked, and it is up to date
    result = run_codegen(root, *spec_args, "--check")
    assert result.returncode == 0, result.stderr
    # one more version of ApiVersionsRequest, in the newest release
    spec_file = newest / "ApiVersionsRequest.json"
    text = spec_file.read_text(encoding="utf-8")
    assert '"validVersions": "0-4"' in text
    spec_file.write_text(text.replace('"validVersions": "0-4"', '"validVersions": "0-5"'), encoding="utf-8")
    result = run_codegen(root, *spec_args, "--check")
    assert result.returncode == 1
    assert "api_versions_request.py" in result.stderr
    # regenerating the temporary copy picks the change up; the repository is untouched
    result = run_codegen(root, *spec_args)
    assert result.returncode == 0
    module = (root / "protocol" / "messages" / "api_versions_request.py").read_text(encoding="utf-8")
    assert "valid_versions = (0, 5)" in module
    assert snapshot_repo() == before


def test_a_removed_spec_is_reported_as_stale(tmp_path):
    require_specs()
    root = copy_package(tmp_path / "pkg")
    _newest, spec_args = copy_releases(tmp_path)
    for folder in spec_args[1::2]:
        (Path(folder) / "DescribeProducersRequest.json").unlink()
    result = run_codegen(root, *spec_args, "--check")
    assert result.returncode == 1
    assert "describe_producers_request.py (no longer generated)" in result.stderr
    assert "describe_producers_response.py (no longer generated)" in result.stderr  # its half goes too


def test_a_hand_edited_module_makes_check_fail(tmp_path):
    require_specs()
    root = copy_package(tmp_path / "pkg")
    target = root / "protocol" / "messages" / "fetch_request.py"
    target.write_text(target.read_text(encoding="utf-8").replace("default=-1", "default=-2", 1), encoding="utf-8")
    result = run_codegen(root, *SPEC_ARGS, "--check")
    assert result.returncode == 1 and "fetch_request.py" in result.stderr


# ---------------------------------------------------------------------------------------
# The index against Kafka's definitions


def message_specs() -> list[dict]:
    """Every message definition of every release, oldest release first."""
    return [load_json(path) for folder in MESSAGE_FOLDERS for path in sorted(folder.glob("*.json"))]


def api_index_rows():
    """One row per API, from the request and response JSON files of every release: the versions
    are those any release defines; names, flexible versions and listeners the newest's."""
    require_specs()
    requests, responses, low, high, deprecated = {}, {}, {}, {}, {}
    for spec in message_specs():
        kind, key = spec.get("type"), spec.get("apiKey")
        if kind not in ("request", "response"):
            continue
        versions = parse_versions(spec["validVersions"])
        if kind == "request" and versions is None:
            continue   # a newer release that defines no version (ZooKeeper era): the older row stays
        (requests if kind == "request" else responses)[key] = spec
        if kind == "request":
            low[key] = min(low.get(key, versions[0]), versions[0])
            high[key] = max(high.get(key, versions[1]), versions[1])
            deprecated[key] = spec.get("deprecatedVersions", "none")
    assert set(requests) <= set(responses)
    return [{"api_key": str(key), "name": spec["name"].removesuffix("Request"),
             "valid_versions": f"{low[key]}-{high[key]}",
             "deprecated_versions": deprecated[key],
             "request_flexible": spec.get("flexibleVersions", "none"),
             "response_flexible": responses[key].get("flexibleVersions", "none"),
             "listeners": ",".join(spec.get("listeners", [])),
             "latest_version_unstable": str(spec.get("latestVersionUnstable", False))}
            for key, spec in sorted(requests.items())]


def parse_versions(text: str):
    text = text.strip()
    if text in ("none", ""):
        return None
    if text.endswith("+"):
        return int(text[:-1]), MAX_VERSION
    low, _, high = text.partition("-")
    return int(low), int(high or low)


def served(row) -> bool:
    """The codegen's own rule: an API a broker or a KRaft controller serves."""
    from protocol.codegen import _served_in_kraft
    return _served_in_kraft({"name": row["name"] + "Request", "listeners": row["listeners"].split(",")})


def test_every_broker_api_has_request_and_response_classes():
    rows = api_index_rows()
    broker = [row for row in rows if served(row)]
    assert len(broker) > 40
    assert set(messages_pkg.REQUESTS) == {int(row["api_key"]) for row in broker}
    assert set(messages_pkg.RESPONSES) == set(messages_pkg.REQUESTS)
    for row in broker:
        key = int(row["api_key"])
        request = getattr(messages_pkg, messages_pkg.REQUESTS[key])
        response = getattr(messages_pkg, messages_pkg.RESPONSES[key])
        assert request.__name__ == row["name"] + "Request" and response.__name__ == row["name"] + "Response"
        assert messages_pkg.API_NAMES[key] == row["name"]
        valid = parse_versions(row["valid_versions"])
        for cls, flexible in ((request, row["request_flexible"]), (response, row["response_flexible"])):
            assert cls.api_key == key
            assert cls.valid_versions == valid, cls.__name__
            assert cls.flexible_versions == parse_versions(flexible), cls.__name__
        # the index's deprecated versions are the request's (responses rarely declare them)
        assert request.deprecated_versions == parse_versions(row["deprecated_versions"]), request.__name__
        assert request.message_type == "request" and response.message_type == "response"
        assert request.api_listeners == tuple(sorted(row["listeners"].split(",")))
        assert request.latest_version_unstable == (row["latest_version_unstable"].strip().lower() in ("yes", "true"))


def test_non_broker_apis_are_not_generated():
    for row in api_index_rows():
        if not served(row):
            assert int(row["api_key"]) not in messages_pkg.REQUESTS
            assert row["name"] + "Request" not in messages_pkg.MODULES


# ---------------------------------------------------------------------------------------
# No prose copied


def _abouts(node, out):
    if isinstance(node, dict):
        if isinstance(node.get("about"), str):
            out.add(node["about"])
        for value in node.values():
            _abouts(value, out)
    elif isinstance(node, list):
        for value in node:
            _abouts(value, out)


def test_no_about_text_is_copied():
    require_specs()
    abouts: set[str] = set()
    for spec in [*message_specs(), *map(load_json, internal_spec_files()), *map(load_json, metadata_spec_files())]:
        _abouts(spec, abouts)
    distinctive = sorted(a for a in abouts if len(a) >= 30)
    assert len(distinctive) > 500
    text = "\n".join(p.read_text(encoding="utf-8") for d in GENERATED_DIRS for p in d.glob("*.py"))
    copied = [a for a in distinctive if a in text]
    assert copied == []
    # two well-known sentences, spelled out, and the license header
    assert "The maximum time in milliseconds to wait for the response." in abouts
    assert "The maximum time in milliseconds to wait for the response." not in text
    assert "Licensed to the Apache Software Foundation" not in text
    assert not any(p.suffix == ".json" for d in (PACKAGE, *GENERATED_DIRS) for p in d.iterdir())


# ---------------------------------------------------------------------------------------
# Declarations == JSON


def _norm(name: str) -> str:
    return name.rstrip("_").replace("_", "").lower()


PRIMITIVE_DEFAULTS = {"bool": False, "int8": 0, "int16": 0, "uint16": 0, "int32": 0, "int64": 0,
                      "float64": 0.0, "string": "", "bytes": b"", "records": b""}


def _expected_default(raw: dict, type_name: str, is_array: bool, is_struct: bool):
    default = raw.get("default")
    if default == "null":
        return None
    if is_array or is_struct:
        return NEW
    if default is None or default == "":
        if type_name == "uuid":
            import uuid

            return uuid.UUID(int=0)
        return PRIMITIVE_DEFAULTS[type_name]
    if type_name == "bool":
        return str(default).lower() == "true"
    if type_name in ("int8", "int16", "uint16", "int32", "int64"):
        text = str(default)
        return int(text, 16) if text.lower().startswith(("0x", "-0x")) else int(text)
    if type_name == "float64":
        return float(default)
    if type_name == "string":
        return default
    raise AssertionError(f"unexpected default {default!r} for {type_name}")


def _compare_fields(owner: str, struct_cls, raw_fields, common, seen):
    fields = struct_cls.FIELDS
    assert [_norm(f.name) for f in fields] == [r["name"].lower() for r in raw_fields], owner
    assert tuple(struct_cls.__slots__) == tuple(f.name for f in fields), owner
    for field, raw in zip(fields, raw_fields):
        where = f"{owner}.{raw['name']}"
        type_text = raw["type"]
        is_array = type_text.startswith("[]")
        element = type_text[2:] if is_array else type_text
        is_struct = element not in PRIMITIVE_DEFAULTS and element != "uuid"
        t = field.type
        if is_array:
            assert isinstance(t, Array), where
            t = t.element
        if is_struct:
            assert isinstance(t, type) and issubclass(t, Struct) and t.__name__ == element, where
            nested = raw.get("fields") or common[element]
            if t not in seen:
                seen.add(t)
                _compare_fields(f"{owner}.{element}", t, nested, common, seen)
        else:
            assert t == element, where
        assert field.versions == parse_versions(raw.get("versions", "0+")), where
        assert field.nullable_versions == (parse_versions(raw["nullableVersions"])
                                           if "nullableVersions" in raw else None), where
        assert field.tagged_versions == (parse_versions(raw["taggedVersions"])
                                         if "taggedVersions" in raw else None), where
        assert field.tag == (None if raw.get("tag") is None else int(raw["tag"])), where   # a few definitions write the tag as a string
        assert field.ignorable == bool(raw.get("ignorable", False)), where
        if "flexibleVersions" in raw:
            assert field.flexible_versions == parse_versions(raw["flexibleVersions"]), where
        else:
            assert field.flexible_versions == "message", where
        expected = _expected_default(raw, element, is_array, is_struct)
        assert field.default == expected or (expected is NEW and field.default is NEW), (where, field.default)


def _record_spec_files():
    require_specs()
    files = {}
    for path in internal_spec_files():
        name = load_json(path)["name"]
        if name in internal_pkg.MODULES:
            files[name] = path
    for path in metadata_spec_files():
        files[load_json(path)["name"]] = path
    return files


def test_every_record_declaration_matches_its_json():
    files = _record_spec_files()
    checked = 0
    for pkg in (internal_pkg, metadata_pkg):
        for name in pkg.MODULES:
            spec = load_json(files[name])
            cls = getattr(pkg, name)
            assert cls.valid_versions == parse_versions(spec["validVersions"]), name
            assert cls.flexible_versions == parse_versions(spec.get("flexibleVersions", "none")), name
            assert cls.message_type == spec["type"], name
            assert cls.api_key == spec.get("apiKey"), name
            common = {s["name"]: s["fields"] for s in spec.get("commonStructs", [])}
            _compare_fields(name, cls, spec.get("fields", []), common, set())
            checked += 1
    assert checked == len(internal_pkg.MODULES) + len(metadata_pkg.MODULES)


def _releases_of(cls) -> list[dict]:
    """The definitions of `cls`'s message in each release that has one, oldest first (requests
    and responses by API key: Kafka 4.1 renamed ListClientMetricsResources)."""
    found = []
    for spec in message_specs():
        if cls.message_type in ("request", "response"):
            if spec.get("type") == cls.message_type and spec.get("apiKey") == cls.api_key:
                found.append(spec)
        elif spec["name"] == cls.schema_name:
            found.append(spec)
    return found


def _in(versions, version: int) -> bool:
    return versions is not None and versions[0] <= version <= versions[1]


def _declared_at(struct_cls, version: int) -> list:
    """What the class says exists at `version`: each field's name, type, nullability, tag and
    default there, nested structs unfolded."""
    out = []
    for field in struct_cls.FIELDS:
        if not _in(field.versions, version):
            continue
        t = field.type.element if isinstance(field.type, Array) else field.type
        kind = t if isinstance(t, str) else [t.__name__, _declared_at(t, version)]
        default = "NEW" if field.default is NEW else field.default
        out.append([_norm(field.name), isinstance(field.type, Array), kind, _in(field.nullable_versions, version),
                    field.tag if _in(field.tagged_versions, version) else None, default])
    return out


def _defined_at(raw_fields, common, version: int) -> list:
    """The same, read from one release's JSON."""
    out = []
    for raw in raw_fields:
        if not _in(parse_versions(raw.get("versions", "0+")), version):
            continue
        type_text = raw["type"]
        is_array = type_text.startswith("[]")
        element = type_text[2:] if is_array else type_text
        is_struct = element not in PRIMITIVE_DEFAULTS and element != "uuid"
        kind = [element, _defined_at(raw.get("fields") or common[element], common, version)] if is_struct else element
        default = _expected_default(raw, element, is_array, is_struct)
        tagged = _in(parse_versions(raw.get("taggedVersions", "none")), version)
        out.append([raw["name"].lower(), is_array, kind, _in(parse_versions(raw.get("nullableVersions", "none")), version),
                    int(raw["tag"]) if tagged else None, "NEW" if default is NEW else default])
    return out


def test_every_message_declaration_matches_the_json_of_each_version():
    """Version by version, a message class declares what the newest release defining that
    version says: the fields, their types, nullability, tags and defaults."""
    checked = 0
    for name in messages_pkg.MODULES:
        cls = getattr(messages_pkg, name)
        releases = _releases_of(cls)
        assert releases, name
        newest = releases[-1]
        served = [parse_versions(spec["validVersions"]) for spec in releases]
        served = [versions for versions in served if versions is not None]
        assert cls.valid_versions == (min(v[0] for v in served), max(v[1] for v in served)), name
        assert cls.flexible_versions == parse_versions(newest.get("flexibleVersions", "none")), name
        assert cls.latest_version_unstable == bool(newest.get("latestVersionUnstable", False)), name
        for version in range(cls.valid_versions[0], cls.valid_versions[1] + 1):
            spec = next(s for s in reversed(releases) if _in(parse_versions(s["validVersions"]), version))
            common = {s["name"]: s["fields"] for s in spec.get("commonStructs", [])}
            assert _declared_at(cls, version) == _defined_at(spec.get("fields", []), common, version), (name, version)
            checked += 1
    assert checked > 600


def test_every_metadata_record_of_kafka_is_generated_and_indexed_by_its_type():
    specs = [load_json(path) for path in metadata_spec_files()]
    records = {spec["apiKey"]: spec["name"] for spec in specs if spec.get("type") == "metadata"}
    assert len(records) >= 26 and records[5] == "PartitionChangeRecord" and records[28] == "ClearElrRecord"
    assert metadata_pkg.RECORDS == records
    assert set(metadata_pkg.MODULES) == set(records.values())


def test_the_control_records_raft_writes_are_generated():
    from protocol.metadata_log import CONTROL_SCHEMAS

    for name in CONTROL_SCHEMAS.values():
        spec = load_json(SPECS / f"{name}.json")
        assert spec["type"] == "data" and name in messages_pkg.MODULES


# ---------------------------------------------------------------------------------------
# Helpers of the generator


def test_snake_case_agrees_with_kafka_python_for_every_field_name():
    """kafka-python 3 names fields with `re.sub('(?<!^)(?=[A-Z])', '_', name).lower()`;
    our names must be the same so code can move between the two."""
    import re

    names = set()

    def walk(fields):
        for raw in fields:
            names.add(raw["name"])
            walk(raw.get("fields", []))

    for spec in [*message_specs(), *map(load_json, internal_spec_files()), *map(load_json, metadata_spec_files())]:
        walk(spec.get("fields", []))
        for common in spec.get("commonStructs", []):
            walk(common["fields"])
    assert len(names) > 300
    differing = {n: codegen.snake_case(n) for n in names
                 if codegen.snake_case(n).rstrip("_") != re.sub(r"(?<!^)(?=[A-Z])", "_", n).lower()}
    assert differing == {}


# ---------------------------------------------------------------------------------------
# Header versions and the APIs a broker refuses, against the same definitions


def broker_api_rows():
    return [row for row in api_index_rows() if served(row)]


def _flexible(version, flex):
    return flex is not None and flex[0] <= version <= flex[1]


def test_the_index_lists_the_client_apis():
    names = {row["name"] for row in broker_api_rows()}
    assert {"Produce", "Fetch", "Metadata", "ApiVersions", "JoinGroup", "SaslHandshake"} <= names
    assert {"BrokerRegistration", "BrokerHeartbeat", "AlterPartition"} <= names   # a KRaft controller's
    assert "LeaderAndIsr" not in names  # a ZooKeeper-era API


def test_header_versions_follow_the_flexible_versions():
    from protocol import headers

    checked = 0
    for row in broker_api_rows():
        key = int(row["api_key"])
        low, high = parse_versions(row["valid_versions"])
        request_flex = parse_versions(row["request_flexible"])
        response_flex = parse_versions(row["response_flexible"])
        for version in range(low, high + 3):  # beyond the max too: an open-ended range stays flexible
            expected_request = 2 if _flexible(version, request_flex) else 1
            assert headers.request_header_version(key, version) == expected_request, (row["name"], version)
            expected_response = 0 if key == 18 else (1 if _flexible(version, response_flex) else 0)
            assert headers.response_header_version(key, version) == expected_response, (row["name"], version)
            checked += 1
    assert checked > 400


def test_the_decoder_fuzz_refuses_exactly_the_non_broker_apis():
    from tests.protocol.test_decoder_fuzz import NON_BROKER_API_KEYS

    expected = sorted(int(row["api_key"]) for row in api_index_rows() if not served(row))
    assert sorted(NON_BROKER_API_KEYS) == expected
