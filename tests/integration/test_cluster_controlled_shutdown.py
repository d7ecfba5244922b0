"""SIGTERM of a partition leader is a controlled shutdown: leadership moves before the process exits.

RF 3, 3 partitions, `min.insync.replicas` 2, a confluent-kafka producer streaming with
acks=all and idempotence. `cluster.stop(leader)` sends SIGTERM and returns once the process
has exited. By then:

- every partition the stopped broker led is led by another broker, as the remaining
  brokers' Metadata already says (the controller lets a broker stop only once it leads
  nothing and every active broker has read past the batch that started its shutdown);
- the controller's `__cluster_metadata` holds, in this order: the broker marked in
  controlled shutdown, the leadership changes away from it, then its fencing;
- the broker's log has no "controlled shutdown ... did not finish".

The producer never sees an error (every delivery report is a success: leadership changes
are retriable for it), and after a restart of the node every acknowledged record is read
back, exactly once.
"""

from __future__ import annotations

import time

import pytest

from protocol.metadata import BrokerRegistrationChangeRecord, FenceBrokerRecord, PartitionChangeRecord, PartitionRecord, TopicRecord
from pylog.cluster import Cluster
from tests.integration.cluster_support import ConfluentStream, create_topic, read_all, wait_for_progress, wait_full_isr
from tests.integration.cluster_wire import metadata_records, partition_view
from tests.integration.support import wait_until

TOPIC = "orderly"
PARTITIONS = 3
IN_CONTROLLED_SHUTDOWN = 1
FENCED = 1
NO_LEADER_CHANGE = -2


def shutdown_history(metadata_dir, topic: str, broker_id: int) -> list[tuple[str, int | None]]:
    """The controller's records about `broker_id` going away, in log order: ("shutting down", None),
    ("leader", partition) for each leadership moved off it, ("fenced", None)."""
    records = metadata_records(metadata_dir)
    topic_id = next(r.topic_id for r in records if isinstance(r, TopicRecord) and r.name == topic)
    leaders: dict[int, int] = {}
    history = []
    for record in records:
        if isinstance(record, BrokerRegistrationChangeRecord) and record.broker_id == broker_id:
            if record.in_controlled_shutdown == IN_CONTROLLED_SHUTDOWN:
                history.append(("shutting down", None))
            if record.fenced == FENCED:
                history.append(("fenced", None))
        elif isinstance(record, FenceBrokerRecord) and record.id == broker_id:
            history.append(("fenced", None))
        elif isinstance(record, PartitionChangeRecord) and record.topic_id == topic_id \
                and record.leader != NO_LEADER_CHANGE:
            if leaders.get(record.partition_id) == broker_id and record.leader != broker_id:
                history.append(("leader", record.partition_id))
            leaders[record.partition_id] = record.leader
        elif isinstance(record, PartitionRecord) and record.topic_id == topic_id:
            leaders[record.partition_id] = record.leader
    return history


@pytest.mark.timeout(300)
def test_sigterm_moves_leadership_away_first_and_the_idempotent_producer_sees_no_error(tmp_path):
    with Cluster(brokers=3, data_dir=tmp_path / "cluster", config={"min.insync.replicas": 2}) as cluster:
        create_topic(cluster, TOPIC, PARTITIONS, 3)
        stream = ConfluentStream(cluster, TOPIC, "orderly", acks="all", idempotent=True).start()
        wait_for_progress([stream], 200)

        stopped = cluster.leader(TOPIC, 0)
        led = [p for p in range(PARTITIONS) if partition_view(cluster, TOPIC, p).leader == stopped]
        cluster.stop(stopped)
        assert stopped not in cluster.running_brokers()
        for p in led:   # no waiting: the move was done before the process was allowed to exit
            view = partition_view(cluster, TOPIC, p)
            assert view.leader not in (-1, stopped), f"partition {p} still led by the stopped broker: {view}"
            assert stopped not in view.isr

        metadata_dir = cluster.data_dir / "controller" / "__cluster_metadata-0"
        history = wait_until(lambda: (h := shutdown_history(metadata_dir, TOPIC, stopped)) and
                             ("fenced", None) in h and h, 30, "the stopped broker fenced")
        assert history[0] == ("shutting down", None)
        assert sorted(p for kind, p in history if kind == "leader") == sorted(led)
        assert history.index(("fenced", None)) > max(i for i, (kind, _) in enumerate(history) if kind == "leader")
        log_text = (cluster.data_dir / f"broker-{stopped}.log").read_text(errors="replace")
        assert "did not finish" not in log_text

        wait_for_progress([stream], 200)
        cluster.restart(stopped)
        wait_full_isr(cluster, TOPIC, PARTITIONS, 3, timeout_s=90)
        wait_for_progress([stream], 200)
        result = stream.stop()
        assert result.errors == []
        assert len(result.acked) == result.sent, "some sends were never acknowledged"

        stored = read_all(cluster, TOPIC, "orderly-readers", len(result.acked))
        everything = [v for values in stored.values() for v in values]
        assert len(everything) == len(set(everything)), "duplicates from an idempotent producer"
        missing = set(result.acked) - set(everything)
        assert not missing, f"{len(missing)} acknowledged records not readable, e.g. {sorted(missing)[:5]}"


@pytest.mark.timeout(120)
def test_brokers_stopped_together_do_not_wait_out_each_others_parked_follower_fetches(tmp_path):
    # Followers park their fetches for replica.fetch.wait.max.ms when there is nothing new; here
    # a minute. Every broker leads some partitions and follows the others, so each has fetches
    # of the others parked at it. A stopping broker waits for the requests it has in hand, and
    # stops its own fetchers before: had it kept them, or not heard their connections close,
    # brokers stopped together would wait on each other until those fetches time out.
    cluster = Cluster(brokers=3, data_dir=tmp_path, config={"replica.fetch.wait.max.ms": "60000"}).start()
    try:
        create_topic(cluster, TOPIC, 6, 3)
        leaders = {cluster.leader(TOPIC, p) for p in range(6)}
        assert len(leaders) > 1   # leadership spread, so fetches go both ways
    except BaseException:
        cluster.close()
        raise
    began = time.monotonic()
    cluster.close()
    # A broker's server gives the requests in hand 5 s before it closes their connections:
    # a stop that waited on a parked fetch would take those 5 s (the fetch itself, 60 s).
    assert time.monotonic() - began < 4
