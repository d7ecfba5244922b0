"""The generator's own behaviour and the committed modules' shape, without Kafka's files.

What needs Kafka's JSON definitions (the committed modules are what they generate, every
declaration matches its JSON) is in `tests/compat/test_codegen_against_kafka.py`, run by
`make compat`, which fetches them from the Maven repository. Here the generator runs on a
small spec folder written by the test (a made-up API), in a temporary copy of the package.
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

from protocol import codegen
from protocol import internal as internal_pkg
from protocol import messages as messages_pkg
from protocol import metadata as metadata_pkg
from protocol.schema import MAX_VERSION, Message

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "protocol"
GENERATED_DIRS = (PACKAGE / "messages", PACKAGE / "internal", PACKAGE / "metadata")


def run_codegen(cwd: Path, *args: str, seed: str = "0") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSAFEPATH")}
    env["PYTHONHASHSEED"] = seed
    return subprocess.run([sys.executable, "-m", "protocol.codegen", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


# A made-up API in Kafka's spec format, comment lines included.
TOY_REQUEST = {
    "apiKey": 900, "type": "request", "listeners": ["broker"], "name": "ToyRequest",
    "validVersions": "0-2", "flexibleVersions": "2+",
    "fields": [
        {"name": "GroupId", "type": "string", "versions": "0+"},
        {"name": "Items", "type": "[]ToyItem", "versions": "1+", "fields": [
            {"name": "ItemIndex", "type": "int32", "versions": "1+", "default": "-1"},
        ]},
    ],
}
TOY_RESPONSE = {
    "apiKey": 900, "type": "response", "name": "ToyResponse",
    "validVersions": "0-2", "flexibleVersions": "2+",
    "fields": [{"name": "ErrorCode", "type": "int16", "versions": "0+"}],
}
CONTROLLER_REQUEST = {**TOY_REQUEST, "apiKey": 901, "name": "HiddenRequest", "listeners": ["controller"]}
ZK_ERA_REQUEST = {**TOY_REQUEST, "apiKey": 903, "name": "ZkEraRequest", "listeners": ["zkBroker", "controller"]}
SPARE_REQUEST = {**TOY_REQUEST, "apiKey": 902, "name": "SpareRequest"}
SPARE_RESPONSE = {**TOY_RESPONSE, "apiKey": 902, "name": "SpareResponse"}


def write_toy_specs(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for spec in (TOY_REQUEST, TOY_RESPONSE, CONTROLLER_REQUEST, ZK_ERA_REQUEST, SPARE_REQUEST, SPARE_RESPONSE):
        text = "// a license header\n" + json.dumps(spec, indent=2)
        (folder / f"{spec['name']}.json").write_text(text, encoding="utf-8")
    return folder


def toy_package(tmp_path: Path) -> Path:
    """A copy of `protocol` whose generated folders are empty."""
    root = tmp_path / "pkg"
    shutil.copytree(PACKAGE, root / "protocol", ignore=shutil.ignore_patterns("__pycache__"))
    for folder in ("messages", "internal", "metadata"):
        for path in (root / "protocol" / folder).glob("*.py"):
            path.unlink()
    return root


# Two made-up metadata records and a schema of another type beside them.
TOY_RECORDS = [
    {"apiKey": 3, "type": "metadata", "name": "ToyPartitionRecord", "validVersions": "0-1",
     "flexibleVersions": "0+", "fields": [
         {"name": "TopicId", "type": "uuid", "versions": "0+"},
         {"name": "Replicas", "type": "[]int32", "versions": "0+"},
         {"name": "Directories", "type": "[]uuid", "versions": "1+"},
         {"name": "Leader", "type": "int32", "versions": "0+", "default": "-2", "taggedVersions": "0+", "tag": 1},
         {"name": "Isr", "type": "[]int32", "versions": "0+", "nullableVersions": "0+", "default": "null",
          "taggedVersions": "0+", "tag": 0},
     ]},
    {"apiKey": 1, "type": "metadata", "name": "ToyNoOpRecord", "validVersions": "0", "flexibleVersions": "0+",
     "fields": []},
    {"type": "data", "name": "NotARecord", "validVersions": "0", "fields": []},
]


def write_toy_records(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for spec in TOY_RECORDS:
        (folder / f"{spec['name']}.json").write_text("// header\n" + json.dumps(spec), encoding="utf-8")
    return folder


def test_a_spec_folder_generates_deterministic_modules_and_check_sees_changes(tmp_path):
    specs = write_toy_specs(tmp_path / "specs")
    outputs, roots = [], []
    for seed in ("1", "12345"):
        root = toy_package(tmp_path / f"run{seed}")
        result = run_codegen(root, "--specs", str(specs), seed=seed)
        assert result.returncode == 0, result.stderr
        assert f"{root}" in result.stdout  # the copy was generated, not the repository
        outputs.append({p.name: p.read_text(encoding="utf-8")
                        for p in sorted((root / "protocol" / "messages").glob("*.py"))})
        roots.append(root)
    assert outputs[0] == outputs[1], "two runs (different hash seeds) must give identical files"
    assert set(outputs[0]) == {"__init__.py", "toy_request.py", "toy_response.py",
                              "spare_request.py", "spare_response.py",
                              "hidden_request.py"}  # a KRaft controller's API is kept, a ZooKeeper-era one not
    module = outputs[0]["toy_request.py"]
    assert module.startswith("# Generated") and "valid_versions = (0, 2)" in module
    assert "license header" not in module
    root = roots[0]
    assert run_codegen(root, "--specs", str(specs), "--check").returncode == 0
    # a changed spec, a hand-edited module and a removed spec are each reported by --check
    changed = json.loads(json.dumps(TOY_REQUEST))
    changed["validVersions"] = "0-3"
    (specs / "ToyRequest.json").write_text(json.dumps(changed), encoding="utf-8")
    result = run_codegen(root, "--specs", str(specs), "--check")
    assert result.returncode == 1 and "toy_request.py" in result.stderr
    (specs / "ToyRequest.json").write_text(json.dumps(TOY_REQUEST), encoding="utf-8")
    target = root / "protocol" / "messages" / "toy_response.py"
    target.write_text(target.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    result = run_codegen(root, "--specs", str(specs), "--check")
    assert result.returncode == 1 and "toy_response.py" in result.stderr
    assert run_codegen(root, "--specs", str(specs)).returncode == 0  # regenerate: back to clean
    (specs / "SpareRequest.json").unlink()
    result = run_codegen(root, "--specs", str(specs), "--check")
    assert result.returncode == 1 and "spare_request.py (no longer generated)" in result.stderr
    assert "spare_response.py (no longer generated)" in result.stderr  # its half goes too


def test_metadata_records_get_their_own_package_indexed_by_record_type(tmp_path):
    specs = write_toy_specs(tmp_path / "specs")
    records = write_toy_records(tmp_path / "metadata")
    root = toy_package(tmp_path / "run")
    result = run_codegen(root, "--specs", str(specs), "--metadata-specs", str(records))
    assert result.returncode == 0, result.stderr
    folder = root / "protocol" / "metadata"
    assert {p.name for p in folder.glob("*.py")} == {"__init__.py", "toy_partition_record.py", "toy_no_op_record.py"}
    index = (folder / "__init__.py").read_text(encoding="utf-8")
    assert 'RECORDS = {\n    1: "ToyNoOpRecord",\n    3: "ToyPartitionRecord",\n}' in index
    assert "REQUESTS" not in index
    namespace: dict = {}
    exec(compile((folder / "toy_partition_record.py").read_text(encoding="utf-8"), "toy", "exec"), namespace)
    cls = namespace["ToyPartitionRecord"]
    assert cls.api_key == 3 and cls.message_type == "metadata"
    record = cls()
    assert (record.leader, record.isr, record.replicas, record.directories) == (-2, None, [], [])
    from protocol import codec

    record.directories = [__import__("uuid").UUID(int=5)]
    assert codec.decode(cls, codec.encode(record, 1), 1) == record
    # a run without --metadata-specs neither checks nor removes the metadata package
    result = run_codegen(root, "--specs", str(specs), "--check")
    assert result.returncode == 0, result.stderr
    assert (folder / "toy_no_op_record.py").exists()
    assert run_codegen(root, "--specs", str(specs), "--metadata-specs", str(records), "--check").returncode == 0
    (records / "ToyNoOpRecord.json").unlink()
    result = run_codegen(root, "--specs", str(specs), "--metadata-specs", str(records), "--check")
    assert result.returncode == 1 and "toy_no_op_record.py (no longer generated)" in result.stderr


def test_a_metadata_folder_without_a_metadata_record_is_an_error(tmp_path):
    specs = write_toy_specs(tmp_path / "specs")
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run_codegen(REPO, "--specs", str(specs), "--metadata-specs", str(empty), "--check")
    assert result.returncode == 2 and "no metadata record schema" in result.stderr


def test_a_folder_with_nothing_to_generate_is_an_error(tmp_path):
    folder = tmp_path / "specs"
    folder.mkdir()
    (folder / "ZkEraRequest.json").write_text(json.dumps(ZK_ERA_REQUEST), encoding="utf-8")
    result = run_codegen(REPO, "--specs", str(folder), "--check")
    assert result.returncode == 2 and "no schema to generate" in result.stderr


def test_the_generated_toy_class_decodes_its_versions(tmp_path):
    specs = write_toy_specs(tmp_path / "specs")
    outputs = codegen.generate([specs], [])
    text = next(t for p, t in outputs.items() if p.name == "toy_request.py")
    namespace: dict = {}
    exec(compile(text, "toy_request.py", "exec"), namespace)
    cls = namespace["ToyRequest"]
    assert cls.api_key == 900 and cls.flexible_versions == (2, MAX_VERSION)
    assert [f.name for f in cls.FIELDS] == ["group_id", "items"]
    assert cls.ToyItem().item_index == -1


def test_missing_specs_folder_is_an_error(tmp_path):
    result = run_codegen(REPO, "--specs", str(tmp_path / "nope"), "--check")
    assert result.returncode != 0


def test_index_modules_and_lazy_access():
    for pkg, folder in ((messages_pkg, PACKAGE / "messages"), (internal_pkg, PACKAGE / "internal"),
                        (metadata_pkg, PACKAGE / "metadata")):
        files = {p.stem for p in folder.glob("*.py")} - {"__init__"}
        assert set(pkg.MODULES.values()) == files
        for name, module_name in pkg.MODULES.items():
            module = importlib.import_module(f"{pkg.__name__}.{module_name}")
            cls = getattr(pkg, name)  # lazy attribute access
            assert cls is getattr(module, name)
            assert cls.schema_name == name and module.__all__ == [name]
            assert issubclass(cls, Message)
        with pytest.raises(AttributeError):
            getattr(pkg, "NoSuchMessage")
    assert {"RequestHeader", "ResponseHeader", "ConsumerProtocolSubscription",
            "ConsumerProtocolAssignment"} <= set(messages_pkg.MODULES)
    assert set(internal_pkg.MODULES) == set(codegen.INTERNAL_SCHEMAS)
    assert {"LeaderChangeMessage", "SnapshotHeaderRecord", "VotersRecord"} <= set(messages_pkg.MODULES)
    assert set(metadata_pkg.RECORDS.values()) == set(metadata_pkg.MODULES)
    assert {getattr(metadata_pkg, name).api_key for name in metadata_pkg.MODULES} == set(metadata_pkg.RECORDS)


def test_generated_files_carry_the_do_not_edit_line():
    for folder in GENERATED_DIRS:
        for path in folder.glob("*.py"):
            first = path.read_text(encoding="utf-8").splitlines()[0]
            assert first.startswith("# Generated") and "do not edit" in first, path.name


def test_nested_structs_are_reachable_from_the_message_class():
    from protocol.messages import FetchRequest, MetadataResponse

    assert FetchRequest.FetchTopic is FetchRequest.FIELDS[-3].type.element
    assert MetadataResponse.MetadataResponseTopic().partitions == []
    assert FetchRequest.ReplicaState().replica_id == -1


@pytest.mark.parametrize("text,expected", [("0+", (0, MAX_VERSION)), ("3-7", (3, 7)), ("5", (5, 5)),
                                           ("none", None), (" 12+ ", (12, MAX_VERSION))])
def test_parse_versions(text, expected):
    assert codegen.parse_versions(text) == expected


@pytest.mark.parametrize("name,expected", [("ThrottleTimeMs", "throttle_time_ms"), ("TopicId", "topic_id"),
                                           ("isKRaftController", "is_k_raft_controller"),
                                           ("ZkMigrationReady", "zk_migration_ready"),
                                           ("ErrorCode", "error_code"), ("Global", "global_")])
def test_snake_case(name, expected):
    assert codegen.snake_case(name) == expected


def test_load_schema_drops_comment_lines(tmp_path):
    path = tmp_path / "X.json"
    path.write_text('// license\n  // more\n{\n  // inside\n  "name": "X", "url": "http://a//b"\n}\n')
    assert codegen.load_schema(path) == {"name": "X", "url": "http://a//b"}
