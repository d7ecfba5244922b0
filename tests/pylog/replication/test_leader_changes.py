"""Leadership moving around three brokers while producers write: every record an acks=-1
produce had acknowledged survives every clean election, and in the end every replica holds
the same log, byte for byte (tests/pylog/replication/cluster_support.py: a real
controller and three broker-only nodes).

Each scenario is a seeded random walk: produce with acks=-1 or acks=1, stop or restart a
follower's fetching, or have the controller elect a new leader from the ISR (a clean
election: the next leader epoch, the ISR kept; a refusal because the ISR shrank meanwhile
is a step that did nothing). Meanwhile the leaders shrink and expand the ISR through the
controller as followers stop and come back. Records acknowledged with acks=1 may be lost
at a leader change (the follower truncates them); acks=-1 ones may not. The walk ends with
one more clean election, so that every scenario moves leadership at least once.
"""

from __future__ import annotations

import asyncio
import random

import pytest

from protocol.error_codes import ErrorCode
from protocol.records import iter_batches, iter_records

from tests.pylog.replication.cluster_support import ReplicationCluster, batch, eventually, fetch, produce, segment_bytes


def run(scenario, timeout_s: float = 90):
    asyncio.run(asyncio.wait_for(scenario, timeout_s))


async def read_all_values(client, end_offset: int) -> list[bytes]:
    values, offset = [], 0
    while offset < end_offset:
        data = await fetch(client, offset)
        assert data.error_code == ErrorCode.NONE
        for view in iter_batches(data.records):
            for record in iter_records(view):
                if record.offset >= offset:
                    values.append(record.value)
                    offset = record.offset + 1
    return values


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_acknowledged_records_survive_clean_elections(tmp_path, seed):
    async def scenario():
        rng = random.Random(seed)
        cluster = await ReplicationCluster(tmp_path, 3, broker_configs={"replica.lag.time.max.ms": "2000"}).start()
        try:
            await cluster.create_topic((1, 2, 3))
            acknowledged = []
            for step in range(40):
                registration = cluster.registration
                leader = registration.leader
                action = rng.choice(["acks-all", "acks-all", "acks-one", "pause", "resume", "elect"])
                if action in ("acks-all", "acks-one"):
                    value = b"%d-%d" % (seed, step)
                    answer = await produce(cluster.client(leader), batch(value),
                                           acks=-1 if action == "acks-all" else 1, timeout_ms=1500)
                    if action == "acks-all" and answer.error_code == ErrorCode.NONE:
                        acknowledged.append(value)
                elif action == "pause":
                    followers = [r for r in registration.replicas if r != leader and r not in cluster.paused]
                    if followers:
                        cluster.pause_fetching(rng.choice(followers))
                elif action == "resume" and cluster.paused:
                    cluster.resume_fetching(rng.choice(sorted(cluster.paused)))
                elif action == "elect":
                    candidates = [r for r in registration.isr if r != leader]
                    if candidates:
                        new_leader = rng.choice(candidates)
                        if await cluster.elect(new_leader, may_refuse=True) is not None \
                                and new_leader in cluster.paused:
                            cluster.resume_fetching(new_leader)   # it leads: nothing to fetch
                await asyncio.sleep(rng.choice([0, 0.05, 0.2]))
            for node_id in sorted(cluster.paused):
                cluster.resume_fetching(node_id)
            # Under load the ISR may have stayed shrunk through every "elect" step of the walk;
            # one last clean election, once every replica is back in the ISR, makes sure the
            # acknowledged records have lived through at least one leader change.
            await eventually(lambda: len(cluster.registration.isr) == 3, timeout_s=20,
                             what="every replica back in the ISR")
            leader = cluster.registration.leader
            await cluster.elect(rng.choice([r for r in (1, 2, 3) if r != leader]))
            leader = cluster.registration.leader
            end = cluster.partition(leader).log_end_offset
            await eventually(lambda: all(cluster.partition(n).log_end_offset == end for n in (1, 2, 3))
                             and cluster.partition(leader).high_watermark == end, timeout_s=20,
                             what="every replica at the leader's LEO")
            files = segment_bytes(cluster.brokers[leader])
            # a follower learns an epoch from its batches: the leader's latest one may have none yet
            epochs = [e for e in cluster.partition(leader).log.epoch_entries if e[1] < end]
            for node_id in (1, 2, 3):
                assert segment_bytes(cluster.brokers[node_id]) == files, node_id
                assert [e for e in cluster.partition(node_id).log.epoch_entries if e[1] < end] == epochs
            values = await read_all_values(cluster.client(leader), end)
            assert set(acknowledged) <= set(values)
            assert len(values) == len(set(values))   # nothing written twice
            assert acknowledged, "the walk acknowledged nothing: it tests nothing"
        finally:
            await cluster.stop()
    run(scenario())
