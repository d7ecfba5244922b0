"""Run the benchmarks: `python -m bench [NAME ...]`.

Every module in this package whose name ends in `_bench` is a benchmark: it defines
`run() -> list[str]`, and this runner prints the lines it returns under a heading.
Modules are discovered, not listed, so a new `bench/foo_bench.py` joins in by itself.

With no arguments every benchmark runs, in name order, except that those in `RUN_LAST`
come after the others. backlog_bench writes and reads a GiB and frees it at the end, and
the benchmark after it ran slower: broker_bench's 100 B produce row right after it gave
every broker 0.47-0.74 of its speed in a run of its own (pylog 476k records/s against 876k,
tansu 715k against 967k, Kafka 439k against 939k). The likely cause is the project's
virtual machine (Firecracker, with DAMON reclaim): memory the guest frees goes back to the
host, and touching fresh memory costs about a second per GiB there. Arguments choose a
subset, in the order given, and
either form of a name works: `python -m bench protocol crc32c` or
`python -m bench protocol_bench`. The exit status is 1 if a benchmark raised or a
requested one does not exist (the others still run). The last line is the total time.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import time
import traceback

import bench

SUFFIX = "_bench"
RUN_LAST = ("backlog_bench",)   # frees a GiB at its end (see above)


def discover() -> list[str]:
    """Names of the benchmark modules in this package: sorted, those of RUN_LAST last."""
    names = sorted(m.name for m in pkgutil.iter_modules(bench.__path__) if m.name.endswith(SUFFIX))
    return [name for name in names if name not in RUN_LAST] + [name for name in names if name in RUN_LAST]


def _normalise(name: str) -> str:
    name = name.removesuffix(".py").rsplit("/", 1)[-1].removeprefix("bench.")
    return name if name.endswith(SUFFIX) else name + SUFFIX


def main(argv: list[str]) -> int:
    available = discover()
    wanted = [_normalise(a) for a in argv] if argv else available
    status = 0
    total_started = time.perf_counter()
    for name in wanted:
        print(f"# {name}", flush=True)
        if name not in available:
            print(f"  (no module bench/{name}.py; available: {', '.join(available) or 'none'})")
            status = 1
            continue
        started = time.perf_counter()
        try:
            module = importlib.import_module(f"bench.{name}")
            run = getattr(module, "run", None)
            if run is None:
                print(f"  (bench/{name}.py defines no run())")
                status = 1
                continue
            for line in run():
                print(line, flush=True)
        except Exception:  # a broken benchmark must not hide the others
            traceback.print_exc()
            status = 1
        print(f"# {name}: {time.perf_counter() - started:.1f} s", flush=True)
    print(f"# total: {time.perf_counter() - total_started:.1f} s for {', '.join(wanted)}", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
