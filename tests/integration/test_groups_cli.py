"""`pylog groups list` / `pylog groups describe` over the wire (pylog/tools/groups_cli.py).

A half-consumed topic: records produced with known timestamps, the group's offset committed
half way with kafka-python; `describe` must show the lag in records and in seconds (now
minus the timestamp of the first unconsumed record, computed here from the timestamps we
produced, with a small tolerance for the clock). Also: a live group member's ids, host and
client id; `list` with and without states; an unknown group; the tool run as its own
process; and the same answers when the tool is held to old API versions (Metadata v1,
FindCoordinator v0-3, OffsetFetch v2-7, ListOffsets v0, Fetch v4), as with older brokers.
"""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.structs import OffsetAndMetadata

from pylog.coordinator.group import GroupState
from pylog.tools import groups_cli
from pylog.testing import EmbeddedBroker
from tests.integration.support import KAFKA_PYTHON_GROUP_CONFIG, KAFKA_PYTHON_GROUP_POLL_MS, ROOT, wait_until

pytestmark = pytest.mark.timeout(120)

N = 20
STEP_MS = 10_000
CLOCK_TOLERANCE_S = 1.0
COLUMNS = ["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST",
           "CLIENT-ID", "LAG-SECONDS"]


@pytest.fixture
def embedded(tmp_path):
    broker = EmbeddedBroker(tmp_path / "data")
    broker.start()
    yield broker
    broker.stop()


def produce_with_timestamps(bootstrap: str, topic: str, partitions: int) -> list[int]:
    """N records per partition; record i of every partition has timestamp base + i * STEP_MS."""
    base = int(time.time() * 1000) - N * STEP_MS - 60_000
    producer = KafkaProducer(bootstrap_servers=bootstrap)
    for p in range(partitions):
        for i in range(N):
            producer.send(topic, f"{p}-{i}".encode(), partition=p, timestamp_ms=base + i * STEP_MS)
    producer.flush()
    producer.close()
    return [base + i * STEP_MS for i in range(N)]


def commit(bootstrap: str, group: str, offsets: dict[tuple[str, int], int]) -> None:
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False)
    tps = {TopicPartition(t, p): OffsetAndMetadata(o, "", -1) for (t, p), o in offsets.items()}
    consumer.assign(list(tps))
    consumer.commit(tps)
    consumer.close()


def run(argv, capsys) -> tuple[int, str, str, float, float]:
    before = time.time() * 1000
    code = groups_cli.main(argv)
    after = time.time() * 1000
    captured = capsys.readouterr()
    return code, captured.out, captured.err, before, after


def parse_table(out: str) -> list[dict]:
    lines = [line for line in out.splitlines() if line.strip()]
    header = next(i for i, line in enumerate(lines) if line.split()[:2] == ["GROUP", "TOPIC"])
    assert lines[header].split() == COLUMNS
    rows = []
    for line in lines[header + 1:]:
        if line.split()[:2] == ["GROUP", "TOPIC"]:
            continue
        cells = line.split()
        assert len(cells) == len(COLUMNS), line
        rows.append(dict(zip(COLUMNS, cells)))
    return rows


def expected_lag_seconds(timestamp_ms: int, before_ms: float, after_ms: float) -> tuple[float, float]:
    return ((before_ms - timestamp_ms) / 1000 - CLOCK_TOLERANCE_S, (after_ms - timestamp_ms) / 1000 + CLOCK_TOLERANCE_S)


def test_describe_a_half_consumed_topic(embedded, capsys):
    bootstrap = embedded.bootstrap_servers
    embedded.call(lambda: embedded.broker.create_topic("half", 3))
    timestamps = produce_with_timestamps(bootstrap, "half", 3)
    commit(bootstrap, "half-group", {("half", 0): N // 2, ("half", 1): N, ("half", 2): 3})

    code, out, err, before, after = run(["describe", "half-group", "--bootstrap-server", bootstrap], capsys)
    assert code == 0, err
    assert "Consumer group 'half-group' has no active members." in err
    rows = parse_table(out)
    assert [(r["GROUP"], r["TOPIC"], r["PARTITION"], r["CURRENT-OFFSET"], r["LOG-END-OFFSET"], r["LAG"])
            for r in rows] == [("half-group", "half", "0", "10", "20", "10"),
                               ("half-group", "half", "1", "20", "20", "0"),
                               ("half-group", "half", "2", "3", "20", "17")]
    assert all((r["CONSUMER-ID"], r["HOST"], r["CLIENT-ID"]) == ("-", "-", "-") for r in rows)
    low, high = expected_lag_seconds(timestamps[N // 2], before, after)
    assert low <= float(rows[0]["LAG-SECONDS"]) <= high
    assert rows[1]["LAG-SECONDS"] == "0"
    low, high = expected_lag_seconds(timestamps[3], before, after)
    assert low <= float(rows[2]["LAG-SECONDS"]) <= high
    # the oldest unconsumed record of partition 2 is 7 steps older than that of partition 0
    assert float(rows[2]["LAG-SECONDS"]) - float(rows[0]["LAG-SECONDS"]) == pytest.approx(7 * STEP_MS / 1000, abs=1)


@pytest.mark.parametrize("caps", [
    {3: 1, 10: 0, 9: 2, 2: 0, 1: 4, 15: 0, 16: 0},       # Metadata v1, FindCoordinator v0, ... Fetch v4
    {10: 3, 9: 7, 2: 3, 1: 11},
], ids=["oldest", "pre-v8"])
def test_describe_with_older_api_versions(embedded, capsys, monkeypatch, caps):
    monkeypatch.setattr(groups_cli, "VERSION_CAPS", caps)
    bootstrap = embedded.bootstrap_servers
    embedded.call(lambda: embedded.broker.create_topic("old", 1))
    timestamps = produce_with_timestamps(bootstrap, "old", 1)
    commit(bootstrap, "old-group", {("old", 0): 5})
    code, out, err, before, after = run(["describe", "old-group", "--bootstrap-server", bootstrap], capsys)
    assert code == 0, err
    (row,) = parse_table(out)
    assert (row["CURRENT-OFFSET"], row["LOG-END-OFFSET"], row["LAG"]) == ("5", "20", "15")
    low, high = expected_lag_seconds(timestamps[5], before, after)
    assert low <= float(row["LAG-SECONDS"]) <= high


def test_describe_an_active_member(embedded, capsys):
    bootstrap = embedded.bootstrap_servers
    embedded.call(lambda: embedded.broker.create_topic("live", 2))
    timestamps = produce_with_timestamps(bootstrap, "live", 2)
    consumer = KafkaConsumer("live", bootstrap_servers=bootstrap, group_id="live-group", client_id="lag-client",
                             enable_auto_commit=False, auto_offset_reset="earliest", **KAFKA_PYTHON_GROUP_CONFIG)
    try:
        wait_until(lambda: consumer.poll(timeout_ms=KAFKA_PYTHON_GROUP_POLL_MS) is not None
                   and len(consumer.assignment()) == 2, 30,
                   "the consumer's assignment")
        consumer.commit({TopicPartition("live", 0): OffsetAndMetadata(15, "", -1)})
        wait_until(lambda: embedded.call(embedded.broker.group_coordinator.group_state, "live-group")
                   is GroupState.STABLE, 30, "a Stable group")
        code, out, err, before, after = run(["describe", "live-group", "--bootstrap-server", bootstrap], capsys)
        assert code == 0, err
        assert "no active members" not in err
        rows = parse_table(out)
        assert [(r["PARTITION"], r["CURRENT-OFFSET"], r["LOG-END-OFFSET"], r["LAG"]) for r in rows] == [
            ("0", "15", "20", "5"), ("1", "-", "20", "-")]
        member_ids = {r["CONSUMER-ID"] for r in rows}
        assert len(member_ids) == 1 and member_ids.pop().startswith("lag-client-")
        assert all(r["CLIENT-ID"] == "lag-client" and "127.0.0.1" in r["HOST"] for r in rows)
        low, high = expected_lag_seconds(timestamps[15], before, after)
        assert low <= float(rows[0]["LAG-SECONDS"]) <= high
        assert rows[1]["LAG-SECONDS"] == "-"

        code, out, err, _, _ = run(["list", "--bootstrap-server", bootstrap, "--state"], capsys)
        assert code == 0, err
        assert out.split("\n")[0].split() == ["GROUP", "STATE"]
        assert "live-group Stable" in " ".join(" ".join(line.split()) for line in out.splitlines())
    finally:
        consumer.close()


def test_list_groups(embedded, capsys):
    bootstrap = embedded.bootstrap_servers
    embedded.call(lambda: embedded.broker.create_topic("listed", 1))
    commit(bootstrap, "group-b", {("listed", 0): 0})
    commit(bootstrap, "group-a", {("listed", 0): 0})
    code, out, err, _, _ = run(["list", "--bootstrap-server", bootstrap], capsys)
    assert code == 0, err
    assert out.split() == ["group-a", "group-b"]
    code, out, err, _, _ = run(["list", "--bootstrap-server", bootstrap, "--state", "Empty"], capsys)
    assert code == 0, err
    assert [line.split() for line in out.splitlines()] == [["GROUP", "STATE"], ["group-a", "Empty"],
                                                          ["group-b", "Empty"]]
    code, out, err, _, _ = run(["list", "--bootstrap-server", bootstrap, "--state", "Stable"], capsys)
    assert [line.split() for line in out.splitlines()] == [["GROUP", "STATE"]]


def test_unknown_group_and_unreachable_broker(embedded, capsys):
    code, out, err, _, _ = run(["describe", "nobody", "--bootstrap-server", embedded.bootstrap_servers], capsys)
    assert code == 1
    assert "Consumer group 'nobody' does not exist." in err
    code, out, err, _, _ = run(["describe", "g", "--bootstrap-server", "127.0.0.1:1"], capsys)
    assert code == 1 and "cannot connect to 127.0.0.1:1" in err


def test_runs_as_its_own_process(embedded):
    bootstrap = embedded.bootstrap_servers
    embedded.call(lambda: embedded.broker.create_topic("proc", 1))
    produce_with_timestamps(bootstrap, "proc", 1)
    commit(bootstrap, "proc-group", {("proc", 0): 12})
    result = subprocess.run([sys.executable, "-m", "pylog.tools.groups_cli", "describe", "proc-group",
                             "--bootstrap-server", bootstrap], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    (row,) = parse_table(result.stdout)
    assert (row["TOPIC"], row["CURRENT-OFFSET"], row["LOG-END-OFFSET"], row["LAG"]) == ("proc", "12", "20", "8")
