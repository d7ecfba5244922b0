"""pylog's table of Kafka's broker configs (`pylog/kafka_broker_configs.py`), written from the
reference Kafka itself.

`BrokerConfigDefs` (tests/compat/kafka) prints the reference broker's ConfigDef, one JSON
line per name; `table_text()` turns it into the Python module pylog ships, and
`tests/compat/test_broker_config_table.py` fails while the shipped module differs from it.
After a change of the reference version:

    make kafka-reference && .venv/bin/python -m tests.compat.broker_config_table --write
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.compat.reference import KAFKA_VERSION, java_command

TABLE_PATH = Path(__file__).resolve().parents[2] / "pylog" / "kafka_broker_configs.py"

_HEADER = '''"""Apache Kafka {version}'s broker configs: every name a Kafka broker describes, with its type,
its default, its validator and how it may be updated dynamically. Generated from the reference
Kafka by `python -m tests.compat.broker_config_table --write`; do not edit.

Each row of `BROKER_CONFIGS` is (name, type, default, validator, dynamic):
- type: Kafka's ConfigDef type (INT, LONG, SHORT, DOUBLE, BOOLEAN, STRING, LIST, CLASS,
  PASSWORD);
- default: the default as DescribeConfigs prints it, None when it is null (or, for the names
  of `WITHOUT_DEFAULT`, when there is none and the name must be given);
- validator: the validator as Kafka prints it in its docs ("[1,...]", "[0,...,100]",
  "[compact, delete]"), None when there is none;
- dynamic: "per-broker" (a node id only), "cluster-wide" (a node id or the cluster default "")
  or None (read-only: server.properties only).

`PER_LISTENER` are the dynamic names that must be set per listener
(`listener.name.NAME.<config>`), never bare. `INTERNAL` are Kafka's internal names (for its
own tests and tools), which a broker describes only when they are given.

`pylog/config_keys.py` takes every name it does not define itself from here; this module
only holds data.
"""

KAFKA_VERSION = "{version}"
'''


def kafka_rows() -> list[dict]:
    """The reference broker's configs, as BrokerConfigDefs prints them."""
    done = subprocess.run(java_command("dev.pylog.compat.BrokerConfigDefs"), capture_output=True,
                          text=True, timeout=120, check=True)
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def table_text(rows: list[dict]) -> str:
    lines = [_HEADER.format(version=KAFKA_VERSION), "BROKER_CONFIGS = ("]
    for row in rows:
        fields = (row["name"], row["type"], row.get("default"), row["validator"], row["dynamic"])
        lines.append(f"    ({', '.join(_literal(f) for f in fields)}),")
    lines.append(")")
    lines.append("")
    lines.append("WITHOUT_DEFAULT = frozenset({"
                 + ", ".join(_literal(r["name"]) for r in rows if "default" not in r) + "})")
    lines.append("")
    lines.append("PER_LISTENER = frozenset({")
    lines.extend(f"    {_literal(r['name'])}," for r in rows if r["per_listener"])
    lines.append("})")
    lines.append("")
    lines.append("INTERNAL = frozenset({")
    lines.extend(f"    {_literal(r['name'])}," for r in rows if r["internal"])
    lines.append("})")
    return "\n".join(lines) + "\n"


def _literal(value) -> str:
    return "None" if value is None else json.dumps(value)


if __name__ == "__main__":
    text = table_text(kafka_rows())
    if sys.argv[1:] == ["--write"]:
        TABLE_PATH.write_text(text, encoding="utf-8")
        print(f"wrote {TABLE_PATH}")
    else:
        sys.stdout.write(text)
