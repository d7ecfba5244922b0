"""`max.connections.per.ip.overrides` set live on both brokers: connections from an address
beyond its maximum are closed at once, the same on pylog and on the reference Kafka, and
each logs its rejection (pylog/connection_quotas.py). The clients connect from 127.0.0.2,
an address nothing else of the session uses, so the counts are this test's alone."""

from __future__ import annotations

import re
import socket
import time
from pathlib import Path

from protocol.messages import ApiVersionsRequest, IncrementalAlterConfigsRequest
from tests.integration.support import WireClient

SOURCE = "127.0.0.2"
BROKER, SET, DELETE = 4, 0, 1
Incremental = IncrementalAlterConfigsRequest


def alter_overrides(broker, operation: int, value: str | None) -> int:
    with WireClient(broker.bootstrap_servers) as client:
        request = Incremental(validate_only=False, resources=[Incremental.AlterConfigsResource(
            resource_type=BROKER, resource_name="", configs=[Incremental.AlterableConfig(
                name="max.connections.per.ip.overrides", config_operation=operation, value=value)])])
        (response,) = client.request(44, 1, request).responses
        return response.error_code


def served_of(broker, connections: int) -> list[bool]:
    """Open `connections` connections from SOURCE at once, then ask ApiVersions on each:
    which were served."""
    host, port = broker.bootstrap_servers.rsplit(":", 1)
    socks = []
    try:
        for _ in range(connections):
            sock = socket.create_connection((host, int(port)), timeout=5, source_address=(SOURCE, 0))
            socks.append(sock)
        time.sleep(0.2)   # the broker has accepted (and closed) them all
        served = []
        for sock in socks:
            client = WireClient.__new__(WireClient)
            client.sock, client.timeout_s, client.correlation_id = sock, 5, 0
            try:
                served.append(client.request(18, 0, ApiVersionsRequest()).error_code == 0)
            except (OSError, EOFError, ConnectionError, AssertionError):
                served.append(False)
        return served
    finally:
        for sock in socks:
            sock.close()


def until(condition, timeout_s: float = 15):
    deadline = time.monotonic() + timeout_s
    while True:
        result = condition()
        if result or time.monotonic() > deadline:
            return result
        time.sleep(0.2)


REJECTED = re.compile(r"Rejected connection from \S+, address already has the configured maximum of \d+ connections\.")


def rejection_lines(name: str, broker) -> list[str]:
    """The rejection lines in the broker's log: pylog's stderr, every file of Kafka's log directory."""
    paths = [broker.log_path] if name == "pylog" else sorted(Path(broker.log_dir).glob("*.log"))
    return [m.group(0) for path in paths for m in REJECTED.finditer(path.read_text(errors="replace"))
            if SOURCE in m.group(0)]


def test_connections_beyond_an_address_maximum_are_closed(both, compat_table):
    outcomes = {}
    for name, broker in both.items():
        assert alter_overrides(broker, SET, f"{SOURCE}:2") == 0
        try:
            # (Kafka applies a dynamic config when its metadata publisher gets to it)
            limited = until(lambda: served_of(broker, 3) == [True, True, False] and [True, True, False])
        finally:
            assert alter_overrides(broker, DELETE, None) == 0
        unlimited = until(lambda: served_of(broker, 3) == [True, True, True] and [True, True, True])
        lines = until(lambda: rejection_lines(name, broker))
        outcomes[name] = (limited, unlimited, lines[-1] if lines else None)
    same = outcomes["pylog"] == outcomes["kafka"]
    compat_table.record("tool", "max.connections.per.ip.overrides=127.0.0.2:2, 3 connections from it",
                        str(outcomes["pylog"]), str(outcomes["kafka"]),
                        "same" if same else "differs")
    assert outcomes["pylog"] == outcomes["kafka"] == (
        [True, True, False], [True, True, True],
        f"Rejected connection from /{SOURCE}, address already has the configured maximum of 2 connections.")
