"""`make test`: the whole Python suite, as four pytest runs side by side.

    python -m tests.suite

Most of the time of the cluster and client tests is waiting (brokers fenced after a session
timeout, processes restarted, ISRs refilled, clients backing off), not computing, so the
groups run beside each other instead of one after the other:

    campaign      tests/integration/test_cluster_failover.py (the leader-kill campaigns)
    cluster       every other tests/integration/test_cluster_*.py, then tests/pylog/replication
                  (in-process brokers on a real controller: mostly waiting too)
    integration   the rest of tests/integration (real clients against real brokers)
    units         everything else under tests/ (compat excluded, as pyproject.toml says)

Each run's output is printed whole when it ends, one after the other. The suite fails if any
run fails, including one that ran no test (pytest's exit code 5).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CAMPAIGN = "tests/integration/test_cluster_failover.py"
REPLICATION = "tests/pylog/replication"


def groups() -> dict[str, list[str]]:
    cluster = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "tests" / "integration").glob("test_cluster_*.py")
                     if str(path.relative_to(ROOT)) != CAMPAIGN)
    return {
        "campaign": [CAMPAIGN],
        "cluster": [*cluster, REPLICATION],
        "integration": ["tests/integration", f"--ignore={CAMPAIGN}", *(f"--ignore={path}" for path in cluster)],
        "units": ["tests", "--ignore=tests/integration", f"--ignore={REPLICATION}"],
    }


def main() -> int:
    started = time.monotonic()
    runs = []
    for name, arguments in groups().items():
        output = tempfile.TemporaryFile()
        process = subprocess.Popen([sys.executable, "-m", "pytest", "-q", *arguments], cwd=ROOT,
                                   stdout=output, stderr=subprocess.STDOUT)
        runs.append((name, process, output))
    failed = []
    for name, process, output in runs:
        code = process.wait()
        output.seek(0)
        sys.stdout.write(f"\n===== {name}: pytest exited {code} =====\n")
        sys.stdout.flush()
        sys.stdout.buffer.write(output.read())
        sys.stdout.flush()
        if code != 0:
            failed.append(f"{name} ({code})")
    elapsed = time.monotonic() - started
    print(f"\n===== suite: {'FAILED ' + ', '.join(failed) if failed else 'passed'} in {elapsed:.0f} s =====")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
