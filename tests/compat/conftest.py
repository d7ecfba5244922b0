"""Fixtures of `make compat`: the reference Kafka beside pylog, Kafka's tools, the table.

- `kafka_reference`: one Kafka broker (tests/compat/reference.py) for the session; tests
  use topic and group names of their own (`unique`).
- `pylog_server`: `pylog serve` as a subprocess, for the session. Tests that restart a
  broker or read its files start their own pair (tests/compat/test_on_disk.py).
- `both`: the two session brokers as {"pylog": ..., "kafka": ...}.
- `kafka_tools`: one `ToolRunner` (Kafka's tools in one JVM) for the session.
- `compat_table`: each comparison records a row; the table is printed at the end of the
  run: what ran against each broker and whether the outputs matched.
- `on_both`: Kafka's tools run against both session brokers and compared
  (tests/compat/compare.py).

The reference Kafka's version (tests/compat/versions.properties) heads the test output.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import pytest

from tests.compat.reference import KAFKA_VERSION, SAME_ON_BOTH, KafkaBroker
from tests.compat.tools import ToolRunner
from tests.integration.support import ServeProcess

_names = itertools.count(1)


def unique(prefix: str) -> str:
    """A topic or group name no other test of the session uses."""
    return f"{prefix}-{next(_names)}"


def fresh_pair(root, config: dict | None = None) -> dict:
    """A pylog (`pylog serve`, Kafka's settings where they differ: SAME_ON_BOTH) and a Kafka
    of their own, not started, each with a data directory under `root` and the broker
    settings `config`: for a module whose operations would disturb the session's brokers,
    that reads their files, or that needs settings of its own."""
    (root / "pylog").mkdir()
    config = dict(config or {})
    return {"pylog": ServeProcess(root / "pylog" / "data", overrides={**SAME_ON_BOTH, **config}),
            "kafka": KafkaBroker(root / "kafka" / "data", config=config or None)}


def each_of_a_fresh_pair(root, scenario, config: dict | None = None) -> dict:
    """`scenario(broker)` on a fresh pylog, then on a fresh Kafka (`fresh_pair`), each
    started for it and stopped after it; their results by name. pylog must stop cleanly."""
    brokers = fresh_pair(root, config)
    found = {}
    try:
        for name, broker in brokers.items():
            broker.start()
            found[name] = scenario(broker)
            code = broker.stop()
            if name == "pylog":
                assert code == 0, f"pylog serve exited with {code}"
    finally:
        for broker in brokers.values():
            if getattr(broker, "process", None) is not None and broker.process.poll() is None:
                broker.stop()
    return found


def pytest_report_header(config):
    return [f"reference broker: Apache Kafka {KAFKA_VERSION} (tests/compat/versions.properties)"]


@pytest.fixture(scope="session")
def kafka_reference(tmp_path_factory):
    broker = KafkaBroker(tmp_path_factory.mktemp("kafka-reference") / "data")
    broker.start()
    yield broker
    broker.stop()


@pytest.fixture(scope="session")
def pylog_server(tmp_path_factory):
    server = ServeProcess(tmp_path_factory.mktemp("pylog-server") / "data", overrides=SAME_ON_BOTH)
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def both(pylog_server, kafka_reference):
    return {"pylog": pylog_server, "kafka": kafka_reference}


@pytest.fixture(scope="session")
def kafka_tools():
    runner = ToolRunner()
    yield runner
    runner.close()


@pytest.fixture
def on_both(kafka_tools, both, compat_table, request):
    from tests.compat.compare import OnBoth

    return OnBoth(kafka_tools, both, compat_table, request)


# ---------------------------------------------------------------------------------------
# The table printed at the end


@dataclass
class Row:
    group: str          # "tool", "client" or "files"
    name: str           # e.g. "kafka-topics.sh --describe" or "sarama"
    on_pylog: str       # what ran against pylog, and how it ended
    on_kafka: str
    outcome: str = ""   # "same", "differs: ...", "fails on pylog: ..."


@dataclass
class CompatTable:
    rows: list[Row] = field(default_factory=list)

    def record(self, group: str, name: str, on_pylog: str, on_kafka: str, outcome: str) -> Row:
        row = Row(group, name, on_pylog, on_kafka, outcome)
        self.rows.append(row)
        return row

    def assert_same(self, name: str, answers: dict) -> None:
        """One row for a list (or mapping) of answers gathered from each broker, then the
        assertion that pylog's are Kafka's."""
        self.record("tool", name, f"{len(answers['pylog'])} answers", f"{len(answers['kafka'])} answers",
                    "same" if answers["pylog"] == answers["kafka"] else "differs")
        assert answers["pylog"] == answers["kafka"]


_TABLE = CompatTable()


@pytest.fixture
def compat_table():
    return _TABLE


def _cell(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


def pytest_terminal_summary(terminalreporter):
    write = terminalreporter.write_line
    write(f"reference broker: Apache Kafka {KAFKA_VERSION} (tests/compat/versions.properties)")
    if not _TABLE.rows:
        return
    write("")
    write(f"Kafka's tools, the clients and the files, against pylog and against Apache Kafka {KAFKA_VERSION}:")
    limits = (64, 24, 24)  # the outcome is printed whole
    widths = [min(limit, max(len(title), *(len(getattr(row, column)) for row in _TABLE.rows)))
              for limit, title, column in zip(limits, ("command", "pylog", "kafka"), ("name", "on_pylog", "on_kafka"))]
    header = f"{'command':<{widths[0]}}  {'pylog':<{widths[1]}}  {'kafka':<{widths[2]}}  outputs"
    write(header)
    write("-" * len(header))
    for group in ("tool", "client", "files"):
        for row in (r for r in _TABLE.rows if r.group == group):
            write(f"{_cell(row.name, widths[0]):<{widths[0]}}  {_cell(row.on_pylog, widths[1]):<{widths[1]}}  "
                  f"{_cell(row.on_kafka, widths[2]):<{widths[2]}}  {row.outcome}")
    counts = {}
    for row in _TABLE.rows:
        kind = row.outcome.split(":")[0].split(" (")[0]
        counts[kind] = counts.get(kind, 0) + 1
    write(f"{len(_TABLE.rows)} rows: " + ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items())))
