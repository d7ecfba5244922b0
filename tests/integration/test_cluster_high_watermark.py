"""Consumers see only what every in-sync replica has: the high watermark, on a 3-broker cluster.

RF 3, one follower paused (SIGSTOP) while it stays registered and in the ISR
(`broker.session.timeout.ms` 10000, `replica.lag.time.max.ms` left at 30000, and
`auto.leader.rebalance.enable` false so the leader stays put). Records the
leader takes with acks=1 are on its disk, but the high watermark stays where the paused
follower's log ends: a read_uncommitted and a read_committed Fetch both stop there, and
ListOffsets latest answers it, for as long as the follower is out. Resumed, the follower
catches up and the HW moves to the log end. Paused again until the controller fences it
(its session expires) and takes it out of the ISR, the HW moves on without it. A second
test leaves the session long and `replica.lag.time.max.ms` at 3000: the leader itself
shrinks the ISR (AlterPartition) without any fencing, and the HW moves on the same way;
resumed, the follower catches up and is taken back in.

Everything is raw requests to the leader's socket (tests/integration/cluster_wire.py), so
no client library's retries or caching can hide what the broker answers.
"""

from __future__ import annotations

import time

import pytest

from pylog.cluster import Cluster
from tests.integration.cluster_support import create_topic, wait_full_isr
from tests.integration.cluster_wire import (
    fence_count, fetch, latest_offset, partition_records, partition_view, produce, record_values,
)
from tests.integration.support import wait_until

TOPIC = "hw"
SESSION_TIMEOUT_MS = 10_000
STEADY_CHECK_S = 2.0
READ_UNCOMMITTED, READ_COMMITTED = 0, 1


def visible(port: int, isolation_level: int) -> tuple[int, int, list[bytes]]:
    """What a consumer of the leader at `port` sees from offset 0: (HW, LSO, values)."""
    answer = fetch(port, TOPIC, 0, 0, isolation_level=isolation_level)
    assert answer.error_code == 0, answer
    return answer.high_watermark, answer.last_stable_offset, [v for _, v in record_values(answer.records)]


def assert_consumers_stop_at(port: int, high_watermark: int, values: list[bytes]) -> None:
    for isolation_level in (READ_UNCOMMITTED, READ_COMMITTED):
        hw, lso, seen = visible(port, isolation_level)
        assert (hw, lso) == (high_watermark, high_watermark)
        assert seen == values, f"isolation {isolation_level}: a consumer read past the high watermark"
        assert latest_offset(port, TOPIC, 0, isolation_level) == (0, high_watermark)
    # a fetch at the HW is in range and returns nothing yet
    at_hw = fetch(port, TOPIC, 0, high_watermark)
    assert at_hw.error_code == 0 and record_values(at_hw.records) == []


def high_watermark(port: int) -> int:
    return fetch(port, TOPIC, 0, 0).high_watermark


def batch(prefix: str, n: int = 10) -> list[bytes]:
    return [f"{prefix}-{i}".encode() for i in range(n)]


@pytest.mark.timeout(300)
def test_records_past_a_paused_in_sync_follower_are_not_visible_until_it_catches_up_or_leaves(tmp_path):
    config = {"broker.session.timeout.ms": SESSION_TIMEOUT_MS, "auto.leader.rebalance.enable": "false"}
    with Cluster(brokers=3, data_dir=tmp_path / "cluster", config=config) as cluster:
        create_topic(cluster, TOPIC, 1, 3)
        view = partition_view(cluster, TOPIC, 0)
        leader = view.leader
        port = cluster.brokers[leader].port
        paused = [r for r in view.replicas if r != leader][0]
        leader_dir = cluster.data_dir / f"broker-{leader}" / f"{TOPIC}-0"

        replicated = batch("replicated")
        assert produce(port, TOPIC, 0, replicated, acks=-1) == (0, 0)
        assert_consumers_stop_at(port, 10, replicated)

        # 1. the follower stalls, still in the ISR: the leader's new records stay invisible
        cluster.pause(paused)
        paused_at = time.monotonic()
        held = batch("held")
        assert produce(port, TOPIC, 0, held, acks=1) == (0, 10)
        assert [v for _, _, v in partition_records(leader_dir)] == replicated + held   # on the leader's disk
        steady_until = time.monotonic() + STEADY_CHECK_S
        while time.monotonic() < steady_until:
            assert_consumers_stop_at(port, 10, replicated)
            time.sleep(0.1)
        still = partition_view(cluster, TOPIC, 0, via=leader)
        assert paused in still.isr, "the paused follower left the ISR too early for this check"
        assert time.monotonic() - paused_at < SESSION_TIMEOUT_MS / 1000, "the checks took longer than a session"

        # 2. it resumes and catches up: the HW reaches the log end
        cluster.resume(paused)
        wait_until(lambda: high_watermark(port) == 20, 60, "the HW at the log end once the follower is back")
        assert_consumers_stop_at(port, 20, replicated + held)
        assert paused in partition_view(cluster, TOPIC, 0, via=leader).isr

        # 3. paused again, until it is fenced and out of the ISR: then the HW moves on without it
        fenced_before = fence_count(cluster, paused)
        cluster.pause(paused)
        more = batch("more")
        assert produce(port, TOPIC, 0, more, acks=1) == (0, 20)
        assert_consumers_stop_at(port, 20, replicated + held)
        wait_until(lambda: paused not in partition_view(cluster, TOPIC, 0, via=leader).isr,
                   SESSION_TIMEOUT_MS / 1000 + 60, "the paused follower out of the ISR")
        wait_until(lambda: high_watermark(port) == 30, 30, "the HW past the records the follower lacks")
        assert_consumers_stop_at(port, 30, replicated + held + more)
        assert fence_count(cluster, paused) > fenced_before, "it left the ISR without its session expiring"

        cluster.resume(paused)
        wait_full_isr(cluster, TOPIC, 1, 3, timeout_s=90)


@pytest.mark.timeout(300)
def test_a_lagging_follower_is_shrunk_out_of_the_isr_by_the_leader_and_the_hw_moves_on(tmp_path):
    config = {"broker.session.timeout.ms": 120_000, "replica.lag.time.max.ms": 3000,
              "auto.leader.rebalance.enable": "false"}
    with Cluster(brokers=3, data_dir=tmp_path / "cluster", config=config) as cluster:
        create_topic(cluster, TOPIC, 1, 3)
        view = partition_view(cluster, TOPIC, 0)
        leader = view.leader
        port = cluster.brokers[leader].port
        lagging = [r for r in view.replicas if r != leader][0]
        replicated = batch("replicated")
        assert produce(port, TOPIC, 0, replicated, acks=-1) == (0, 0)
        fenced_before = fence_count(cluster, lagging)

        cluster.pause(lagging)
        held = batch("held")
        assert produce(port, TOPIC, 0, held, acks=1) == (0, 10)
        assert high_watermark(port) == 10
        wait_until(lambda: lagging not in partition_view(cluster, TOPIC, 0, via=leader).isr, 60,
                   "the lagging follower shrunk out of the ISR")
        wait_until(lambda: high_watermark(port) == 20, 30, "the HW past the records the follower lacks")
        assert_consumers_stop_at(port, 20, replicated + held)
        assert fence_count(cluster, lagging) == fenced_before, "the shrink was a fencing, not the leader's"

        cluster.resume(lagging)
        wait_until(lambda: lagging in partition_view(cluster, TOPIC, 0, via=leader).isr, 60,
                   "the follower back in the ISR once caught up")
        more = batch("more")
        assert produce(port, TOPIC, 0, more, acks=-1) == (0, 20)
        assert_consumers_stop_at(port, 30, replicated + held + more)
