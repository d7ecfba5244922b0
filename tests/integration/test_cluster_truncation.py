"""A leader's records no follower had are cut from its log when it comes back as a follower.

RF 3, `min.insync.replicas` 1, `auto.leader.rebalance.enable` false (so leadership stays
where the failover put it). Both followers are paused (SIGSTOP) and the leader takes
records with acks=1 that nobody replicates; then the leader is killed (SIGKILL) and the
followers resumed at once, before their sessions (6 s here) expire, so the ISR never
shrank below them. Once the dead leader's session expires the controller elects one of
them (leader epoch + 1, a clean election from the ISR); it takes more records. The old
leader restarts with the unreplicated records still on its disk, follows the new leader,
is told its epoch diverges at the offset where the new epoch starts, truncates there and
copies the new leader's records.

Checked on disk, in the old leader's partition directory: the unreplicated values are gone;
every record (offset, partition leader epoch, value) equals the new leader's; the `.log`
segment is byte-identical to the new leader's (the follower stores the leader's batches as
fetched); `leader-epoch-checkpoint` is the same on both: epoch 0 from 0, epoch 1 from
where the replicated records ended.

A follower's fetch parked at the leader when it was paused would be answered by the first
append and sit in its socket; `replica.fetch.wait.max.ms` is 200 here and the test lets a
few of those pass after the pause before producing, and then checks that neither follower
got the records (else the scenario did not happen and the test says so).
"""

from __future__ import annotations

import time

import pytest

from pylog.cluster import Cluster
from tests.integration.cluster_support import create_topic, wait_full_isr
from tests.integration.cluster_wire import (
    epoch_checkpoint, fetch, partition_records, partition_view, produce,
)
from tests.integration.support import wait_until

TOPIC = "cut"
FETCH_WAIT_MAX_MS = 200
CONFIG = {"broker.session.timeout.ms": 6000, "min.insync.replicas": 1, "auto.leader.rebalance.enable": "false",
          "replica.fetch.wait.max.ms": FETCH_WAIT_MAX_MS}


def values(prefix: str, n: int = 10) -> list[bytes]:
    return [f"{prefix}-{i}".encode() for i in range(n)]


@pytest.mark.timeout(300)
def test_an_old_leader_truncates_what_it_alone_had_and_ends_identical_to_the_new_leader(tmp_path):
    with Cluster(brokers=3, data_dir=tmp_path / "cluster", config=CONFIG) as cluster:
        create_topic(cluster, TOPIC, 1, 3)
        before = partition_view(cluster, TOPIC, 0)
        old_leader = before.leader
        followers = [r for r in before.replicas if r != old_leader]
        directory = {node: cluster.data_dir / f"broker-{node}" / f"{TOPIC}-0" for node in cluster.brokers}

        replicated = values("replicated")
        assert produce(cluster.brokers[old_leader].port, TOPIC, 0, replicated, acks=-1) == (0, 0)
        assert before.leader_epoch == 0

        for node in followers:
            cluster.pause(node)
        time.sleep(10 * FETCH_WAIT_MAX_MS / 1000)   # fetches parked at the leader run out empty
        lost = values("unreplicated")
        assert produce(cluster.brokers[old_leader].port, TOPIC, 0, lost, acks=1) == (0, 10)
        assert [v for _, _, v in partition_records(directory[old_leader])] == replicated + lost
        cluster.kill(old_leader)
        for node in followers:
            cluster.resume(node)

        after = wait_until(lambda: (v := partition_view(cluster, TOPIC, 0)) and v.leader in followers and v, 60,
                           "a follower elected leader")
        new_leader = after.leader
        assert after.leader_epoch == 1
        assert set(followers) <= set(after.isr), "the election was not from an intact ISR"
        assert [v for _, _, v in partition_records(directory[new_leader])] == replicated, \
            "the new leader got the unreplicated records after all (a fetch in flight at the pause)"

        more = values("after-failover")
        assert produce(cluster.brokers[new_leader].port, TOPIC, 0, more, acks=-1) == (0, 10)

        cluster.restart(old_leader)
        wait_full_isr(cluster, TOPIC, 1, 3, timeout_s=90)
        final = partition_view(cluster, TOPIC, 0)
        assert (final.leader, final.leader_epoch) == (new_leader, 1), "the old leader came back as a follower"
        assert fetch(cluster.brokers[new_leader].port, TOPIC, 0, 0).high_watermark == 20

        leader_records = partition_records(directory[new_leader])
        assert [v for _, _, v in leader_records] == replicated + more
        assert [(o, e) for o, e, _ in leader_records] == [(o, 0) for o in range(10)] + [(o, 1) for o in range(10, 20)]
        old_records = partition_records(directory[old_leader])
        assert not set(lost) & {v for _, _, v in old_records}, "the unreplicated records are still there"
        assert old_records == leader_records
        for node in cluster.brokers:
            assert partition_records(directory[node]) == leader_records

        segments = sorted(p.name for p in directory[new_leader].glob("*.log"))
        assert sorted(p.name for p in directory[old_leader].glob("*.log")) == segments
        for name in segments:
            assert (directory[old_leader] / name).read_bytes() == (directory[new_leader] / name).read_bytes(), \
                f"{name} differs between the old and the new leader"

        assert epoch_checkpoint(directory[new_leader]) == [(0, 0), (1, 10)]
        assert epoch_checkpoint(directory[old_leader]) == [(0, 0), (1, 10)]

        log_text = (cluster.data_dir / f"broker-{old_leader}.log").read_text(errors="replace")
        assert "diverging from leader" in log_text and "truncating to 10" in log_text
