"""The dependency rules of the code layout (README, "Layout of the code"), checked on the source of `protocol/` and `storage/`.

    pylog -> storage -> protocol.records        pylog -> protocol

- Neither `protocol` nor `storage` imports `pylog`.
- `protocol` imports nothing from `storage`.
- `storage` takes from `protocol` only the record-batch codec and what it is built on:
  `protocol.records`, `protocol.record_scan`, `protocol.errors`, `protocol.primitives`,
  `protocol.crc32c`, `protocol.compression`, `protocol.file_range` (a byte range of a file,
  and the one exact pread), `protocol.java_order` and `protocol.scala_order` (the orders of
  Java's and Scala's hash collections: Kafka writes a producer snapshot and two checkpoint
  files in them) (never the message schemas, the codec, headers or framing).
- `protocol` is a pure codec: no event loop, sockets, threads or processes.
- `storage` does blocking file I/O but no event loop and no network.

Every import is read from the AST, whatever its form: `import x.y`, `from x import y`,
relative imports (resolved against the file's package), and `importlib.import_module`
or `__import__` calls with a literal name. Imports under `if TYPE_CHECKING:` count too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

STORAGE_MAY_IMPORT_FROM_PROTOCOL = (
    "protocol.records",
    "protocol.record_scan",
    "protocol.errors",
    "protocol.primitives",
    "protocol.crc32c",
    "protocol.compression",
    "protocol.file_range",
    "protocol.java_order",
    "protocol.scala_order",
)
# `threading` itself is allowed: protocol/codec.py guards its compile cache with a
# threading.Lock, which is neither I/O nor a way to run work. Importing Thread or Timer by
# name is refused (a use as `threading.Thread(...)` is not an import and is not seen).
NO_IO_IN_PROTOCOL = (
    "asyncio", "socket", "selectors", "ssl", "socketserver", "uvloop",
    "multiprocessing", "concurrent", "threading.Thread", "threading.Timer",
)
NO_NETWORK_IN_STORAGE = ("asyncio", "socket", "selectors", "ssl", "socketserver", "uvloop")


# ---------------------------------------------------------------------------------------
# Reading imports


def module_name(path: Path, root: Path = ROOT) -> str:
    """Dotted module name of a file under root: protocol/messages/fetch.py -> protocol.messages.fetch."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(source: str, module: str, is_package: bool = False) -> list[tuple[int, str]]:
    """(line, absolute dotted name) of everything `source` imports.

    `from a import b` yields `a.b` (b may be a submodule or a name; the rules below treat
    both alike, which is the strict reading).
    """
    package = module if is_package else module.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".") if package else []
                up = node.level - 1
                if up > len(anchor):
                    found.append((node.lineno, "<relative import beyond the top level>"))
                    continue
                anchor = anchor[: len(anchor) - up]
                base = ".".join(anchor + ([node.module] if node.module else []))
            for alias in node.names:
                if alias.name == "*":
                    found.append((node.lineno, base))
                else:
                    found.append((node.lineno, f"{base}.{alias.name}" if base else alias.name))
        elif isinstance(node, ast.Call) and _is_dynamic_import(node.func):
            if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                found.append((node.lineno, node.args[0].value))
    return found


def _is_dynamic_import(func: ast.expr) -> bool:
    if isinstance(func, ast.Name):
        return func.id in ("__import__", "import_module")
    return isinstance(func, ast.Attribute) and func.attr == "import_module"


def within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def python_files(package: str) -> list[Path]:
    top = ROOT / package
    if not top.is_dir():
        return []
    return sorted(p for p in top.rglob("*.py") if "__pycache__" not in p.parts)


def imports_of(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    source = path.read_text(encoding="utf-8")
    return imported_modules(source, module_name(path, root), path.name == "__init__.py")


# ---------------------------------------------------------------------------------------
# The rules


def violations(path: Path, root: Path = ROOT) -> list[str]:
    layer = module_name(path, root).split(".")[0]
    where = path.relative_to(root)
    found = []
    for line, name in imports_of(path, root):
        problem = None
        if name.startswith("<"):
            problem = name
        elif within(name, "pylog"):
            problem = "protocol and storage never import pylog"
        elif layer == "protocol" and within(name, "storage"):
            problem = "protocol never imports storage"
        elif layer == "protocol" and any(within(name, m) for m in NO_IO_IN_PROTOCOL):
            problem = "protocol is a pure codec: no event loop, sockets, threads or processes"
        elif layer == "storage" and within(name, "protocol"):
            if not any(within(name, m) for m in STORAGE_MAY_IMPORT_FROM_PROTOCOL):
                problem = f"storage may take only {', '.join(STORAGE_MAY_IMPORT_FROM_PROTOCOL)} from protocol"
        elif layer == "storage" and any(within(name, m) for m in NO_NETWORK_IN_STORAGE):
            problem = "storage does no networking and runs no event loop"
        if problem:
            found.append(f"{where}:{line}: imports {name}: {problem}")
    return found


def test_protocol_and_storage_follow_the_dependency_rules():
    protocol_files = python_files("protocol")
    storage_files = python_files("storage")
    assert len(protocol_files) > 0, "found no protocol/*.py: the check would pass vacuously"
    assert ROOT / "protocol" / "errors.py" in protocol_files
    problems = [v for path in protocol_files + storage_files for v in violations(path)]
    assert problems == [], "\n".join(problems)


def test_every_scanned_file_parses_and_some_imports_are_seen():
    """Guard against a checker that silently sees nothing."""
    files = python_files("protocol") + python_files("storage")
    seen = [name for path in files for _, name in imports_of(path)]
    assert "protocol.errors.InvalidFrame" in seen  # protocol/framing.py's own import


# ---------------------------------------------------------------------------------------
# The import reader itself, on made-up sources


@pytest.mark.parametrize(
    "source, expected",
    [
        ("import pylog", ["pylog"]),
        ("import pylog.server as s", ["pylog.server"]),
        ("from pylog import broker", ["pylog.broker"]),
        ("from pylog.handlers.produce import handle", ["pylog.handlers.produce.handle"]),
        ("from protocol import records, codec", ["protocol.records", "protocol.codec"]),
        ("from protocol.records import *", ["protocol.records"]),
        ("import importlib\nimportlib.import_module('pylog.cli')", ["importlib", "pylog.cli"]),
        ("__import__('asyncio')", ["asyncio"]),
        ("if TYPE_CHECKING:\n    from pylog.partition import Partition", ["pylog.partition.Partition"]),
        ("def f():\n    import socket", ["socket"]),
    ],
)
def test_import_reader_absolute(source, expected):
    assert [name for _, name in imported_modules(source, "storage.log")] == expected


@pytest.mark.parametrize(
    "module, is_package, source, expected",
    [
        ("storage.log", False, "from . import segment", "storage.segment"),
        ("storage.log", False, "from .index import OffsetIndex", "storage.index.OffsetIndex"),
        ("storage.log", False, "from ..protocol import codec", "protocol.codec"),
        ("storage.log", False, "from ..pylog import x", "pylog.x"),
        ("protocol.messages.fetch", False, "from ..schema import Field", "protocol.schema.Field"),
        ("protocol.messages.fetch", False, "from ...storage import log", "storage.log"),
        ("protocol.messages", True, "from .fetch import FetchRequest", "protocol.messages.fetch.FetchRequest"),
        ("protocol.messages", True, "from .. import codec", "protocol.codec"),
    ],
)
def test_import_reader_relative(module, is_package, source, expected):
    assert [name for _, name in imported_modules(source, module, is_package)] == [expected]


def test_rules_catch_each_kind_of_violation(tmp_path):
    cases = {
        "protocol/a.py": "import pylog",
        "protocol/b.py": "from storage.log import Log",
        "protocol/c.py": "import asyncio",
        "protocol/d.py": "from threading import Thread",
        "storage/e.py": "from pylog.errors import x",
        "storage/f.py": "from protocol import codec",
        "storage/g.py": "from protocol.messages.produce import ProduceRequest",
        "storage/h.py": "import socket",
        "storage/i.py": "from ..pylog import broker",
    }
    allowed = {
        "protocol/ok.py": (
            "import struct\nimport threading\nfrom threading import Lock\n"
            "from protocol.errors import InvalidFrame\nfrom . import primitives"
        ),
        "storage/ok.py": (
            "import os\nfrom protocol.records import iter_batches\nfrom protocol import crc32c\n"
            "from protocol.errors import CorruptRecord\nfrom .index import OffsetIndex"
        ),
    }
    for rel, source in {**cases, **allowed}.items():
        path = tmp_path / rel
        path.parent.mkdir(exist_ok=True)
        path.write_text(source)
    for rel in cases:
        assert len(violations(tmp_path / rel, tmp_path)) == 1, rel
    for rel in allowed:
        assert violations(tmp_path / rel, tmp_path) == [], rel
