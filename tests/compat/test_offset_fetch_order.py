"""OffsetFetch of all of a group's offsets, against the reference Kafka: its coordinator keeps a
group's offsets in hash maps of its own (a map of topic names, each a map of partition numbers:
pylog/coordinator/offsets_order.py) and lists them in their order, which depends on the keys,
the order they came in and how large the tables grew. Drawn histories of commits (several
topics per request, partitions in any order, some named twice, some committed again) and
OffsetDeletes, one group each, on a fresh pylog and a fresh Kafka; every group's answer is
compared at v5 and v8, then again after each broker restarts and replays `__consumer_offsets`."""

from __future__ import annotations

import random

from protocol.messages import (
    CreateTopicsRequest,
    FindCoordinatorRequest,
    OffsetCommitRequest,
    OffsetDeleteRequest,
    OffsetFetchRequest,
)
from tests.compat.answers import while_coordinator_loads
from tests.compat.conftest import each_of_a_fresh_pair
from tests.integration.support import WireClient

TOPICS = ["orders", "payments", "audit-log", "clicks", "Zebra_9.events", "t"]
PARTITIONS = 24
GROUPS = 16
Commit, Delete = OffsetCommitRequest, OffsetDeleteRequest


def histories(seed: int = 16) -> list[list[tuple[str, dict[str, list[int]]]]]:
    """Per group, its steps: ("commit" | "delete", {topic: [partition, ...]})."""
    rng = random.Random(seed)
    drawn = []
    for _ in range(GROUPS):
        topics = rng.sample(TOPICS, rng.randint(1, len(TOPICS)))
        committed: dict[str, set[int]] = {}
        steps = []
        for step in range(rng.randint(1, 7)):
            if step and rng.random() < 0.3 and any(committed.values()):
                doomed = {t: sorted(rng.sample(sorted(ps), rng.randint(1, len(ps))))
                          for t, ps in committed.items() if ps}
                steps.append(("delete", doomed))
                for t, ps in doomed.items():
                    committed[t] -= set(ps)
            else:
                chosen = {t: rng.sample(range(PARTITIONS), rng.randint(1, PARTITIONS))
                          for t in rng.sample(topics, rng.randint(1, len(topics)))}
                for ps in chosen.values():   # now and then a partition named twice: two records
                    if rng.random() < 0.3:
                        ps += rng.sample(ps, rng.randint(1, len(ps)))
                steps.append(("commit", chosen))
                for t, ps in chosen.items():
                    committed.setdefault(t, set()).update(ps)
        drawn.append(steps)
    return drawn


def listed(client, group: str) -> list:
    v5 = while_coordinator_loads(lambda: (lambda r: (r, r.error_code))(client.request(9, 5, OffsetFetchRequest(
        group_id=group, topics=None))))
    v8 = while_coordinator_loads(lambda: (lambda r: (r, r.groups[0].error_code))(client.request(
        9, 8, OffsetFetchRequest(groups=[OffsetFetchRequest.OffsetFetchRequestGroup(group_id=group, topics=None)]))))
    return [[(t.name, [(p.partition_index, p.committed_offset) for p in t.partitions]) for t in topics]
            for topics in (v5.topics, v8.groups[0].topics)]


def scenario(broker) -> dict:
    found = {}
    groups = [f"order-{i}" for i in range(GROUPS)]
    with WireClient(broker.bootstrap_servers, timeout_s=30) as client:
        answer = client.request(19, 5, CreateTopicsRequest(timeout_ms=30_000, topics=[
            CreateTopicsRequest.CreatableTopic(name=name, num_partitions=PARTITIONS, replication_factor=1)
            for name in TOPICS]))
        assert all(t.error_code == 0 for t in answer.topics), answer
        for group, steps in zip(groups, histories()):
            while_coordinator_loads(lambda group=group: (None, client.request(10, 3, FindCoordinatorRequest(
                key=group, key_type=0)).error_code))
            while_coordinator_loads(lambda group=group: (None, client.request(9, 5, OffsetFetchRequest(
                group_id=group, topics=None)).error_code))
            for number, (kind, entries) in enumerate(steps):
                if kind == "commit":
                    reply = client.request(8, 8, Commit(group_id=group, generation_id_or_member_epoch=-1, member_id="",
                                                        topics=[Commit.OffsetCommitRequestTopic(name=t, partitions=[
                                                            Commit.OffsetCommitRequestPartition(
                                                                partition_index=p, committed_offset=number)
                                                            for p in ps]) for t, ps in entries.items()]))
                    assert all(p.error_code == 0 for t in reply.topics for p in t.partitions), reply
                else:
                    reply = client.request(47, 0, Delete(group_id=group, topics=[Delete.OffsetDeleteRequestTopic(
                        name=t, partitions=[Delete.OffsetDeleteRequestPartition(partition_index=p) for p in ps])
                        for t, ps in entries.items()]))
                    assert reply.error_code == 0, reply
        found["before restart"] = {group: listed(client, group) for group in groups}
    broker.stop()
    broker.start()
    with WireClient(broker.bootstrap_servers, timeout_s=30) as client:
        found["after restart"] = {group: listed(client, group) for group in groups}
    return found


def test_all_of_a_groups_offsets_in_kafkas_order(tmp_path, compat_table):
    found = each_of_a_fresh_pair(tmp_path, scenario)
    compat_table.assert_same("OffsetFetch of all offsets, drawn histories: order", found)
    # what the comparison stands on: the same order across a restart, several topics, and
    # answers not in the order of the request nor sorted
    kafka = found["kafka"]
    assert kafka["before restart"] == kafka["after restart"]
    answers = [v5 for v5, _ in kafka["before restart"].values()]
    assert any(len(topics) >= 3 for topics in answers)
    assert any([p for p, _ in ps] != sorted(p for p, _ in ps) for topics in answers for _, ps in topics)
