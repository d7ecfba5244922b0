"""The `pylog` command.

    pylog serve [--host H] [--port P] [--data-dir DIR] [--config server.properties] [--override k=v ...]
    pylog dump-log PATH... [--print-data-log] [--deep-iteration] [--index-sanity-check]
    pylog groups list|describe GROUP --bootstrap-server HOST:PORT
    pylog cluster [--brokers N] [--data-dir DIR]

`serve` logs, in one warning line before it starts, the settings given with another value
than the default that pylog accepts but does not act on yet (`BrokerConfig.not_acted_on`).

`serve` runs its imports and the broker's start with the cyclic garbage collector paused:
they make tens of thousands of objects (modules, classes, functions, the logs' state) that
live as long as the process, and no garbage cycles, so the collections their allocations
would trigger are work for nothing. Once the broker is ready, what exists is frozen
(`gc.freeze`: later collections do not scan it again) and the collector is turned back on.

`serve` and `cluster` read their few options with `parse_options` from the OPTIONS table
rather than with argparse: argparse, with the gettext it loads and the terminal-size
lookup its help formatter makes as each option is added (shutil, and with it bz2 and
lzma), costs about 5 ms of every broker's start (bench/start_bench.py). `dump-log` and
`groups` are tools, not starts, and keep argparse.
"""

from __future__ import annotations

import gc
import logging
import sys
import time
from types import SimpleNamespace

GIL_SWITCH_INTERVAL_S = 0.0005   # Python's default is 0.005

USAGE = """usage: pylog {serve,cluster,dump-log,groups} ...

A Kafka-compatible log broker.

  serve      run a broker
  cluster    run a controller and N brokers, each its own process
  dump-log   print .log/.index/.timeindex files like kafka-dump-log.sh
  groups     list consumer groups; describe one with its lag in records and seconds
"""

# Each command's options: flag -> (attribute, value type, default, help). An attribute
# whose default is a list collects every occurrence of its flag.
OPTIONS = {
    "serve": {
        "--host": ("host", str, None, "address to bind (default 127.0.0.1)"),
        "--port": ("port", int, None, "port (default 9092; 0 = any free port)"),
        "--data-dir": ("data_dir", str, None, "log directory (default ./pylog-data)"),
        "--config": ("config", str, None, "a Kafka server.properties file"),
        "--override": ("override", str, [], "KEY=VALUE: set a broker config (repeatable)"),
    },
    "cluster": {
        "--brokers": ("brokers", int, 3, "number of brokers (default 3)"),
        "--data-dir": ("data_dir", str, None, "directory of the nodes' data (default: temporary)"),
    },
}


class UsageError(Exception):
    """A command line that names an unknown option or gives a bad value."""


def parse_options(command: str, argv: list[str]) -> SimpleNamespace | None:
    """`argv` (what follows the command's name) parsed against OPTIONS[command]: `--flag
    VALUE` or `--flag=VALUE`, one attribute per option. None after printing the command's
    help (`-h`, `--help`)."""
    options = OPTIONS[command]
    values = {attribute: (list(default) if isinstance(default, list) else default)
              for attribute, _, default, _ in options.values()}
    args = iter(argv)
    for arg in args:
        if arg in ("-h", "--help"):
            print(f"usage: pylog {command} [options]\n")
            for flag, (attribute, _, _, text) in options.items():
                print(f"  {flag + ' ' + attribute.upper():<24} {text}")
            return None
        flag, equals, value = arg.partition("=")
        if flag not in options:
            raise UsageError(f"unrecognized argument: {arg}")
        if not equals:
            value = next(args, None)
            if value is None:
                raise UsageError(f"argument {flag}: expected one argument")
        attribute, kind, default, _ = options[flag]
        try:
            value = kind(value)
        except ValueError:
            raise UsageError(f"argument {flag}: invalid {kind.__name__} value: {value!r}") from None
        if isinstance(default, list):
            values[attribute].append(value)
        else:
            values[attribute] = value
    return SimpleNamespace(**values)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    command = argv[0] if argv else None
    if command == "serve":
        gc.disable()   # until the broker is ready (see the module docstring)
    if command == "dump-log":
        from pylog.tools import dump_log
        return dump_log.main(argv[1:])
    if command == "groups":
        from pylog.tools import groups_cli
        return groups_cli.main(argv[1:])
    if command in ("-h", "--help"):
        print(USAGE, end="")
        return 0
    if command not in OPTIONS:
        print(USAGE, end="", file=sys.stderr)
        print(f"pylog: error: {'a command is required' if command is None else f'unknown command {command!r}'}",
              file=sys.stderr)
        return 2
    try:
        args = parse_options(command, argv[1:])
    except UsageError as e:
        print(f"usage: pylog {command} [options] (pylog {command} --help)\npylog {command}: error: {e}",
              file=sys.stderr)
        return 2
    if args is None:
        return 0
    if command == "serve":
        return serve_command(args)
    from pylog.cluster import cluster_command
    return cluster_command(args.brokers, args.data_dir)


def raise_open_files_limit() -> None:
    """Raise this process's soft limit of open files to its hard limit, as the JVM does for
    Kafka (HotSpot's MaxFDLimit, on by default: a Kafka started under `ulimit -Sn 256`
    runs with the hard limit). A broker holds descriptors for its segments, their index
    maps and its connections; the usual soft default of 1024 runs out at a few hundred
    partitions. Only `pylog serve` does this: the process is the broker's."""
    try:
        import resource
    except ImportError:   # not a POSIX system
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == hard:
        return
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (OSError, ValueError) as e:
        logging.getLogger("pylog.cli").warning("open files limit left at %d (hard limit %d): %s", soft, hard, e)


def serve_command(args) -> int:
    import asyncio
    import signal

    from pylog.broker import Broker
    from pylog.broker_lifecycle import RegistrationFailed
    from pylog.config import BrokerConfig
    from pylog.listen_sockets import ListenerBindFailed

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    raise_open_files_limit()
    overrides = list(args.override)
    if args.data_dir is not None:
        overrides.append(f"log.dirs={args.data_dir}")
    if args.config:
        config = BrokerConfig.from_file(args.config, overrides)
    else:
        config = BrokerConfig.from_properties(None, overrides)
    idle = config.not_acted_on()
    if idle:
        logging.getLogger("pylog.cli").warning(
            "accepted but not acted on yet (README, \"Accepted but not acted on yet\"): %s",
            ", ".join(f"{name}={value}" for name, value in idle.items()))
    started = time.perf_counter()
    # The broker's worker threads (the log cleaner's copy) hold the GIL for up to the
    # switch interval before the event loop gets it back: 5 ms by default, which a
    # producer waiting for its acknowledgement would see. A shorter interval bounds that
    # pause (bench/cleaner_bench.py measures it). Only `pylog serve` sets it: the process
    # is the broker's.
    sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)

    async def run() -> None:
        try:
            import uvloop  # noqa: F401  (the loop policy is set below)
        except ImportError:
            pass
        broker = Broker(config)
        try:
            await broker.start(args.host, args.port)
        except (RegistrationFailed, ListenerBindFailed) as e:
            logging.getLogger("pylog.cli").error("%s", e)
            raise SystemExit(1) from None
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):  # before the ready line: a stop may follow it at once
            loop.add_signal_handler(sig, stop.set)
        print(f"pylog ready on {broker.host}:{broker.port} in {(time.perf_counter() - started) * 1000:.0f} ms",
              flush=True)
        gc.freeze()
        gc.enable()
        await stop.wait()
        await broker.stop()

    try:
        import uvloop
        uvloop.run(run())
    except ImportError:
        asyncio.run(run())
    return 0
