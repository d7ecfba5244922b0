"""The clients people run, against pylog and against the reference Kafka: one scenario each.

Each client of tests/compat/client_programs.py (kcat, kafkajs, sarama, franz-go,
kafka-python, aiokafka, confluent-kafka) runs the same scenario on each session broker:

1. produce N keyed records to a new topic (auto-created by the broker) and wait for the acks;
2. a consumer in a new group G reads all N from the earliest offset, commits, leaves;
3. produce M more;
4. a new consumer in G must resume at the committed offset: it reads exactly the M new
   records, commits, leaves.

What the client reports at each step (keys, values, partitions, offsets of what it produced
and consumed) and the group's committed offsets after each consumer (read by an observer,
kafka-python's admin client) make the scenario's transcript.

- `test_scenario[broker-client]` asserts the transcript on one broker: every record
  where it belongs (offsets 0..N-1, then N..N+M-1), committed N, then N+M.
- `test_same_on_both[client]` records the client's row in the compat table and asserts
  that the two brokers gave the same transcript.

A scenario runs once per (client, broker) in a session; both tests use that run.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import pytest

from tests.compat.client_programs import CLIENTS, Rec, committed_offsets, key, value
from tests.compat.conftest import unique

N = 20  # records produced before the first consumer
M = 5   # records produced while no consumer runs, read on resume

BROKERS = ("kafka", "pylog")

# client -> why it fails on pylog (strict xfail of its pylog side; the Kafka side must pass)
XFAIL_ON_PYLOG: dict[str, str] = {}


def records(first: int, count: int) -> list[Rec]:
    return [Rec(key(i), value(i), 0, i) for i in range(first, first + count)]


EXPECTED = {
    "produced": records(0, N),
    "consumed": records(0, N),
    "committed": {0: N},
    "produced while stopped": records(N, M),
    "consumed on restart": records(N, M),
    "committed on restart": {0: N + M},
}


@dataclass
class Run:
    client: str          # name and version
    transcript: dict     # the steps done, as far as they went
    error: BaseException | None
    seconds: float

    def unexpected(self) -> list[str]:
        """The steps whose outcome is not the expected one."""
        return [step for step, expected in EXPECTED.items() if self.transcript.get(step) != expected]

    def summary(self) -> str:
        if self.error is not None:
            failed_at = next((step for step in EXPECTED if step not in self.transcript), "?")
            first_line = (str(self.error).strip().splitlines() or [type(self.error).__name__])[0]
            return f"failed at {failed_at!r}: {first_line[:160]}"
        if self.unexpected():
            return f"ran, unexpected: {', '.join(self.unexpected())}"
        return f"ok: {N}+{M} records, resumed at {N} ({self.seconds:.1f} s)"


_runs: dict[tuple[str, str], Run] = {}


def scenario(client, bootstrap: str, topic: str, group: str, transcript: dict) -> None:
    transcript["produced"] = client.produce(bootstrap, topic, 0, N)
    transcript["consumed"] = client.consume(bootstrap, topic, group, N)
    transcript["committed"] = committed_offsets(bootstrap, group, topic)
    transcript["produced while stopped"] = client.produce(bootstrap, topic, N, M)
    transcript["consumed on restart"] = client.consume(bootstrap, topic, group, M)
    transcript["committed on restart"] = committed_offsets(bootstrap, group, topic)


def run(name: str, broker: str, both) -> Run:
    """The scenario of client `name` on `broker`, run once per session."""
    if (name, broker) not in _runs:
        transcript: dict = {}
        started = time.monotonic()
        label = name
        try:
            client = CLIENTS[name]()
            label = f"{name} {client.version}"
            scenario(client, both[broker].bootstrap_servers, unique(f"clients-{name}"), unique(f"group-{name}"),
                     transcript)
            error = None
        except Exception as e:  # kept, and raised by each test that uses this run
            error = e
        _runs[name, broker] = Run(label, transcript, error, time.monotonic() - started)
    return _runs[name, broker]


def assert_expected(result: Run) -> None:
    if result.error is not None:
        raise result.error
    for step, expected in EXPECTED.items():
        assert result.transcript[step] == expected, f"{result.client}: {step}"


def xfail_on_pylog(name: str):
    reason = XFAIL_ON_PYLOG.get(name)
    return [pytest.mark.xfail(strict=True, reason=reason)] if reason else []


@pytest.mark.parametrize("broker, name", [
    pytest.param(broker, name, id=f"{broker}-{name}", marks=xfail_on_pylog(name) if broker == "pylog" else [])
    for name in CLIENTS for broker in BROKERS])
def test_scenario(broker, name, both):
    assert_expected(run(name, broker, both))


@pytest.mark.parametrize("name", [pytest.param(name, marks=xfail_on_pylog(name)) for name in CLIENTS])
def test_same_on_both(name, both, compat_table):
    on_kafka = run(name, "kafka", both)
    on_pylog = run(name, "pylog", both)
    # each transcript is either the expected one or not: equal when both are as expected
    if on_kafka.error is not None or on_kafka.unexpected():
        outcome = f"fails on kafka: {on_kafka.summary()}"
    elif on_pylog.error is not None or on_pylog.unexpected():
        outcome = f"fails on pylog: {on_pylog.summary()}"
    else:
        outcome = "same"
    compat_table.record("client", on_kafka.client, on_pylog=on_pylog.summary(), on_kafka=on_kafka.summary(),
                        outcome=outcome)
    assert on_kafka.error is None, f"{on_kafka.client} on Kafka: {on_kafka.error}"
    assert on_pylog.error is None, f"{on_pylog.client} on pylog: {on_pylog.error}"
    for step in EXPECTED:
        assert on_pylog.transcript[step] == on_kafka.transcript[step], f"{on_kafka.client}: {step}"
