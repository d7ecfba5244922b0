"""pylog's table of Kafka's broker configs is the reference Kafka's (tests/compat/broker_config_table.py)."""

from __future__ import annotations

from tests.compat.broker_config_table import TABLE_PATH, kafka_rows, table_text


def test_the_shipped_table_is_the_reference_kafkas():
    rows = kafka_rows()
    assert len(rows) > 300
    assert TABLE_PATH.read_text(encoding="utf-8") == table_text(rows), (
        "pylog/kafka_broker_configs.py is not the reference Kafka's: "
        "`.venv/bin/python -m tests.compat.broker_config_table --write`")
