"""pylog's timeouts are `asyncio.timeout` blocks, never `asyncio.wait_for`.

On Python 3.11, `wait_for` returns the awaited result when the result and a cancellation of
the waiting task land in the same step of the event loop, and the cancellation is lost: a
task stopped at that moment runs on, and whoever awaits its end waits for ever (a broker's
heartbeat loop did, in a cluster test). `asyncio.timeout` hands the cancellation on. The
behaviour itself is tested in test_network_client.py; this keeps the idiom from coming back.
"""

from __future__ import annotations

import ast
from pathlib import Path

PYLOG = Path(__file__).resolve().parents[2] / "pylog"


def wait_for_calls(source: str) -> list[int]:
    """Lines that call `asyncio.wait_for` or a `wait_for` imported from asyncio."""
    tree = ast.parse(source)
    imported = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                and node.module == "asyncio" for alias in node.names if alias.name == "wait_for"}
    lines = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        called = node.func
        if (isinstance(called, ast.Attribute) and called.attr == "wait_for"
                and isinstance(called.value, ast.Name) and called.value.id == "asyncio"):
            lines.append(node.lineno)
        elif isinstance(called, ast.Name) and called.id in imported:
            lines.append(node.lineno)
    return lines


def test_the_check_sees_both_spellings():
    assert wait_for_calls("import asyncio\nasync def f(x):\n    await asyncio.wait_for(x, 1)\n") == [3]
    assert wait_for_calls("from asyncio import wait_for as w\nasync def f(x):\n    await w(x, 1)\n") == [3]
    assert wait_for_calls("import asyncio\nasync def f(x):\n    async with asyncio.timeout(1):\n"
                          "        await x\n") == []


def test_no_module_of_pylog_calls_wait_for():
    modules = sorted(PYLOG.rglob("*.py"))
    assert len(modules) > 50
    found = {str(path.relative_to(PYLOG)): lines for path in modules
             if (lines := wait_for_calls(path.read_text()))}
    assert found == {}
