"""The broker's `fetch.max.bytes` on pylog and on Kafka, each started with the smallest value
Kafka takes (1024): the same batches produced to both, then Fetches whose `max_bytes` and
`min_bytes` ask for more. Kafka caps both (KafkaApis.handleFetchRequest), so does pylog
(pylog/handlers/fetch.py): the record bytes each partition gets, and whether a long poll
that asks for more than the cap waits, are the same on both."""

from __future__ import annotations

import time

import pytest

from protocol.messages import CreateTopicsRequest, FetchRequest
from protocol.records import build_batch
from tests.compat.reference import KafkaBroker
from tests.compat.test_on_disk import produce_all
from tests.integration.support import ServeProcess, WireClient

CAP = {"fetch.max.bytes": "1024"}
TOPIC = "capped"


def fetch(client: WireClient, max_bytes: int, min_bytes: int = 1, max_wait_ms: int = 0) -> tuple[list, float]:
    request = FetchRequest(replica_id=-1, max_wait_ms=max_wait_ms, min_bytes=min_bytes, max_bytes=max_bytes,
                           isolation_level=0, topics=[FetchRequest.FetchTopic(topic=TOPIC, partitions=[
                               FetchRequest.FetchPartition(partition=p, fetch_offset=0, log_start_offset=-1,
                                                           partition_max_bytes=1 << 20) for p in (0, 1)])])
    started = time.monotonic()
    response = client.request(1, 12, request)
    return ([(p.partition_index, p.error_code, len(p.records)) for t in response.responses for p in t.partitions],
            time.monotonic() - started)


def run(bootstrap_servers: str) -> dict:
    with WireClient(bootstrap_servers) as client:
        created = client.request(19, 5, CreateTopicsRequest(timeout_ms=30_000, topics=[
            CreateTopicsRequest.CreatableTopic(name=TOPIC, num_partitions=2, replication_factor=1)]))
        assert created.topics[0].error_code == 0
        batch = build_batch([(None, bytes(500))], timestamp_ms=1_700_000_000_000)
        produce_all(client, TOPIC, [batch, batch, batch])
        deadline = time.monotonic() + 30
        while client.produce(TOPIC, 1, batch, acks=-1).error_code != 0:   # Kafka's leaders start just after
            assert time.monotonic() < deadline
            time.sleep(0.05)
        wide, _ = fetch(client, max_bytes=10 << 20)
        long_poll, waited_s = fetch(client, max_bytes=10 << 20, min_bytes=1 << 20, max_wait_ms=3000)
        return {"wide": wide, "long poll": long_poll, "waited": waited_s > 1.5, "batch": len(batch)}


@pytest.fixture(scope="module")
def twins(tmp_path_factory):
    root = tmp_path_factory.mktemp("fetch-max-bytes-twins")
    pylog_server = ServeProcess(root / "pylog-data", overrides=CAP)
    kafka = KafkaBroker(root / "kafka-data", config=CAP)
    try:
        pylog_server.start()
        kafka.start()
        return {name: run(broker.bootstrap_servers) for name, broker in (("pylog", pylog_server), ("kafka", kafka))}
    finally:
        if pylog_server.process:
            pylog_server.stop()
        kafka.stop()


def test_fetch_max_bytes_caps_an_answer_the_same_on_both(twins, compat_table):
    ours, theirs = twins["pylog"], twins["kafka"]
    compat_table.record("tool", "Fetch v12 max_bytes 10 MiB, fetch.max.bytes=1024", str(ours["wide"]),
                        str(theirs["wide"]), "same" if ours["wide"] == theirs["wide"] else "differs")
    assert ours["wide"] == theirs["wide"] == [(0, 0, 1024), (1, 0, 0)]
    assert 3 * ours["batch"] > 1024


def test_a_long_poll_asking_more_than_fetch_max_bytes_answers_at_once_on_both(twins, compat_table):
    ours, theirs = twins["pylog"], twins["kafka"]
    said = {name: f"{'waited' if r['waited'] else 'at once'} {r['long poll']}" for name, r in twins.items()}
    compat_table.record("tool", "Fetch v12 min_bytes 1 MiB, max_wait 3 s, fetch.max.bytes=1024", said["pylog"],
                        said["kafka"], "same" if said["pylog"] == said["kafka"] else "differs")
    assert said["pylog"] == said["kafka"]
    assert not ours["waited"] and ours["long poll"] == [(0, 0, 1024), (1, 0, 0)]
