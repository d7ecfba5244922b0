"""Retention on pylog and on Kafka: the same records, the same configs, the same segments left.

One pylog and one Kafka, fresh for this module, with `log.retention.check.interval.ms` of
one second (and on Kafka `log.initial.task.delay.ms` of one second, so that its first pass
comes as soon), get the same Produce requests over a raw socket: ~5.5 KiB batches in
segments of 1 MiB (Kafka 4's smallest `segment.bytes`), five segments per topic.

- "aged": the first 600 batches carry 2023 timestamps, the rest the current time (the
  first of which rolls a segment: `segment.ms`); then `retention.ms` of one hour by
  IncrementalAlterConfigs: the old segments go;
- "sized": current timestamps; `retention.bytes` of 2.5 MiB by AlterConfigs: the oldest
  segments go, as many as leave the log at or above the limit;
- "kept": current timestamps, neither config; nothing goes.

After the passes the tests compare, on both: ListOffsets earliest and latest, the names of
the live `.log`, `.index`, `.timeindex` and `.snapshot` files, and those renamed
`.deleted` awaiting `file.delete.delay.ms`. Also the refusal of `retention.ms=-2` by
CreateTopics, IncrementalAlterConfigs and AlterConfigs: code and message.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

from protocol.messages import (
    AlterConfigsRequest,
    CreateTopicsRequest,
    IncrementalAlterConfigsRequest,
    ListOffsetsRequest,
)
from protocol.records import build_batch
from tests.compat.reference import KafkaBroker
from tests.compat.test_on_disk import produce_all
from tests.integration.support import ServeProcess, WireClient

SEGMENT_BYTES = 1024 * 1024
OLD_MS = 1_700_000_000_000
HOUR_MS = 3600 * 1000
BATCHES = 900
OLD_BATCHES = 600
RETENTION_BYTES = 5 * SEGMENT_BYTES // 2
CHECK = {"log.retention.check.interval.ms": "1000"}
TOPICS = ("aged", "sized", "kept")
TOPIC_RESOURCE = 2


def batches(now_ms: int, old: int) -> list[bytes]:
    rng = random.Random(21)
    return [build_batch([(None, rng.randbytes(5600))], timestamp_ms=(OLD_MS + i) if i < old else now_ms)
            for i in range(BATCHES)]


def create_topics(client: WireClient, configs: dict[str, dict[str, str]]):
    Topic, Config = CreateTopicsRequest.CreatableTopic, CreateTopicsRequest.CreatableTopicConfig
    response = client.request(19, 5, CreateTopicsRequest(timeout_ms=30_000, topics=[
        Topic(name=name, num_partitions=1, replication_factor=1,
              configs=[Config(name=k, value=v) for k, v in topic_configs.items()])
        for name, topic_configs in configs.items()]))
    return {t.name: (t.error_code, t.error_message) for t in response.topics}


def incremental_alter(client: WireClient, topic: str, configs: dict[str, str]):
    Request = IncrementalAlterConfigsRequest
    response = client.request(44, 1, Request(resources=[Request.AlterConfigsResource(
        resource_type=TOPIC_RESOURCE, resource_name=topic, configs=[
            Request.AlterableConfig(name=k, config_operation=0, value=v) for k, v in configs.items()])]))
    return response.responses[0].error_code, response.responses[0].error_message


def alter(client: WireClient, topic: str, configs: dict[str, str]):
    Request = AlterConfigsRequest
    response = client.request(33, 2, Request(resources=[Request.AlterConfigsResource(
        resource_type=TOPIC_RESOURCE, resource_name=topic, configs=[
            Request.AlterableConfig(name=k, value=v) for k, v in configs.items()])]))
    return response.responses[0].error_code, response.responses[0].error_message


def list_offset(client: WireClient, topic: str, timestamp: int) -> int:
    request = ListOffsetsRequest(replica_id=-1, isolation_level=0, topics=[ListOffsetsRequest.ListOffsetsTopic(
        name=topic, partitions=[ListOffsetsRequest.ListOffsetsPartition(partition_index=0, timestamp=timestamp)])])
    partition = client.request(2, 7, request).topics[0].partitions[0]
    assert partition.error_code == 0
    return partition.offset


def run(bootstrap_servers: str) -> dict:
    now_ms = int(time.time() * 1000)
    with WireClient(bootstrap_servers, timeout_s=30) as client:
        refusals = {"create": create_topics(client, {"bad": {"retention.ms": "-2"}})["bad"]}
        # retention.ms -1 until the records are all written: the default seven days would
        # delete the 2023 ones as they come, at moments that differ between the brokers.
        created = create_topics(client, {name: {"segment.bytes": str(SEGMENT_BYTES), "retention.ms": "-1"}
                                         for name in TOPICS})
        assert all(code == 0 for code, _ in created.values()), created
        refusals["incremental"] = incremental_alter(client, "kept", {"retention.ms": "-2"})
        refusals["alter"] = alter(client, "kept", {"retention.ms": "-2", "segment.bytes": str(SEGMENT_BYTES)})
        produce_all(client, "aged", batches(now_ms, OLD_BATCHES))
        produce_all(client, "sized", batches(now_ms, 0))
        produce_all(client, "kept", batches(now_ms, 0))
        assert incremental_alter(client, "aged", {"retention.ms": str(HOUR_MS)})[0] == 0
        assert alter(client, "sized", {"retention.bytes": str(RETENTION_BYTES), "retention.ms": "-1",
                                       "segment.bytes": str(SEGMENT_BYTES)})[0] == 0
        # Wait for the passes: both topics lose segments, then a few more passes change nothing.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if all(list_offset(client, topic, -2) > 0 for topic in ("aged", "sized")):
                break
            time.sleep(0.2)
        time.sleep(3)
        offsets = {topic: (list_offset(client, topic, -2), list_offset(client, topic, -1)) for topic in TOPICS}
    return {"refusals": refusals, "offsets": offsets}


def file_names(data_dir: Path, topic: str) -> dict[str, list[str]]:
    names = sorted(p.name for p in (data_dir / f"{topic}-0").iterdir())
    live = [n for n in names if n.rsplit(".", 1)[-1] in ("log", "index", "timeindex", "snapshot")]
    deleted = [n for n in names if n.endswith(".deleted")]   # segment files and producer snapshots
    return {"live": live, "deleted": deleted}


@pytest.fixture(scope="module")
def twins(tmp_path_factory):
    root = tmp_path_factory.mktemp("retention-twins")
    pylog_server = ServeProcess(root / "pylog-data", overrides=CHECK)
    kafka = KafkaBroker(root / "kafka-data", config={**CHECK, "log.initial.task.delay.ms": "1000"})
    try:
        pylog_server.start()
        kafka.start()
        results = {name: run(broker.bootstrap_servers) for name, broker in (("pylog", pylog_server), ("kafka", kafka))}
        for name, data_dir in (("pylog", pylog_server.data_dir), ("kafka", kafka.data_dir)):
            results[name]["files"] = {topic: file_names(data_dir, topic) for topic in TOPICS}
    finally:
        if pylog_server.process:
            pylog_server.stop()
        kafka.stop()
    return results


def test_retention_leaves_the_same_log_start_offsets(twins, compat_table):
    for topic in TOPICS:
        ours, theirs = twins["pylog"]["offsets"][topic], twins["kafka"]["offsets"][topic]
        compat_table.record("retention", f"{topic}: earliest, latest", str(ours), str(theirs),
                            "same" if ours == theirs else "differs")
    assert twins["pylog"]["offsets"] == twins["kafka"]["offsets"]
    aged_start, sized_start = (twins["kafka"]["offsets"][t][0] for t in ("aged", "sized"))
    # The first new batch rolled a segment (segment.ms: seven days after the 2023 ones).
    assert aged_start == OLD_BATCHES and sized_start > 0
    assert twins["kafka"]["offsets"]["kept"] == (0, BATCHES)


@pytest.mark.parametrize("topic", TOPICS)
def test_retention_leaves_the_same_files(twins, topic, compat_table):
    ours, theirs = twins["pylog"]["files"][topic], twins["kafka"]["files"][topic]
    if topic != "kept":   # the deleted segments' producer snapshots wait with their files
        assert any(name.endswith(".snapshot.deleted") for name in theirs["deleted"]), theirs
    compat_table.record("retention", f"{topic}: files", f"{len(ours['live'])} live, "
                        f"{len(ours['deleted'])} .deleted", f"{len(theirs['live'])} live, "
                        f"{len(theirs['deleted'])} .deleted", "same" if ours == theirs else "differs")
    assert ours == theirs


def test_retention_ms_below_minus_one_is_refused_alike(twins, compat_table):
    ours, theirs = twins["pylog"]["refusals"], twins["kafka"]["refusals"]
    for api in theirs:
        compat_table.record("retention", f"retention.ms=-2 by {api}", str(ours[api]), str(theirs[api]),
                            "same" if ours[api] == theirs[api] else "differs")
    assert ours == theirs
    assert theirs["create"][0] == 40  # INVALID_CONFIG
