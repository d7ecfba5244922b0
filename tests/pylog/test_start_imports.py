"""A starting broker imports only what it needs: the group coordinator and the cleaner's
copy are imported with their first use, not with `pylog.broker`.

Each check runs a fresh interpreter, since this test process has imported everything.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]

LOADED_LATER = {"pylog.coordinator.coordinator", "pylog.coordinator.offsets", "pylog.coordinator.group",
                "storage.cleaner.cleaning", "storage.cleaner.offset_map"}


def _imported_after(code: str) -> set[str]:
    """The names in sys.modules after running `code` in a fresh interpreter."""
    script = code + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))\n"
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO_ROOT, capture_output=True, text=True,
                          timeout=60, check=True)
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_importing_the_broker_leaves_the_coordinator_and_the_cleaner_copy_out():
    modules = _imported_after("import pylog.broker")
    assert "pylog.broker" in modules and "storage.log" in modules
    assert "pylog.coordinator" in modules            # the package: the name of __consumer_offsets
    assert not modules & LOADED_LATER


def test_a_started_broker_imports_the_coordinator_with_its_first_group_request_and_no_cleaner_copy(tmp_path):
    code = f"""
import asyncio, sys
from pylog.broker import Broker
from pylog.config import BrokerConfig
from kafka import KafkaAdminClient

def list_groups(port):   # in a thread: the client blocks, the broker's loop must go on
    admin = KafkaAdminClient(bootstrap_servers=f"127.0.0.1:{{port}}", request_timeout_ms=10000)
    try:
        return admin.list_groups()
    finally:
        admin.close()

async def main():
    broker = Broker(BrokerConfig.from_properties(None, ["log.dirs={tmp_path}"]))
    await broker.start("127.0.0.1", 0)
    before = "pylog.coordinator.coordinator" in sys.modules
    groups = await asyncio.get_running_loop().run_in_executor(None, list_groups, broker.port)
    after = "pylog.coordinator.coordinator" in sys.modules
    # the cleaner's first pass has run meanwhile (a task of start()): no log to compact, no copy
    cleaner_copy = "storage.cleaner.cleaning" in sys.modules
    passes_started = len(broker.log_cleaner._tasks)
    await broker.stop()
    print(before, after, cleaner_copy, passes_started, groups)

asyncio.run(main())
"""
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    before, after, cleaner_copy, passes_started, groups = done.stdout.split()[:5]
    assert (before, after, groups) == ("False", "True", "[]"), done.stdout + done.stderr[-2000:]
    assert int(passes_started) >= 1 and cleaner_copy == "False", done.stdout
