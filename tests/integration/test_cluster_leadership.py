"""Leadership on a 3-broker cluster, as Metadata reports it: a killed leader's partitions move
to another in-sync replica and name it an offline replica; `auto.leader.rebalance.enable`
brings leadership back to the preferred (first) replica once it is in sync again; a
replication factor above the broker count is refused."""

from __future__ import annotations


import pytest
from confluent_kafka.admin import AdminClient, NewTopic
from confluent_kafka import KafkaException

from pylog.cluster import Cluster, _metadata
from tests.integration.support import wait_until
from tests.integration.cluster_support import create_topic, partition_states, wait_full_isr


def offline_replicas(cluster, topic: str, partition: int) -> list[int]:
    for node_id in cluster.running_brokers():
        for found in _metadata(cluster.brokers[node_id].port, topic).topics:
            for p in found.partitions:
                if p.partition_index == partition:
                    return list(p.offline_replicas)
    return []



@pytest.mark.timeout(180)
def test_a_killed_leader_is_offline_and_the_preferred_leader_comes_back_by_itself(tmp_path):
    config = {"leader.imbalance.check.interval.seconds": 1}
    with Cluster(brokers=3, data_dir=tmp_path / "cluster", config=config) as cluster:
        create_topic(cluster, "led", 1, 3)
        preferred, replicas, _ = partition_states(cluster, "led")[0]
        assert preferred == replicas[0]
        cluster.kill(preferred)
        wait_until(lambda: cluster.leader("led", 0) != preferred, 60, "a new leader")
        wait_until(lambda: offline_replicas(cluster, "led", 0) == [preferred], 60, "the killed replica offline")
        leader, now_replicas, isr = partition_states(cluster, "led")[0]
        assert leader in isr and preferred not in isr and now_replicas == replicas
        cluster.restart(preferred)
        wait_full_isr(cluster, "led", 1, 3)
        # the controller's imbalance check moves it back, nobody asks
        wait_until(lambda: partition_states(cluster, "led")[0][0] == preferred, 60, "the preferred leader back")
        assert offline_replicas(cluster, "led", 0) == []


def test_a_replication_factor_above_the_broker_count_is_refused(tmp_path):
    with Cluster(brokers=2, data_dir=tmp_path / "cluster") as cluster:
        admin = AdminClient({"bootstrap.servers": cluster.bootstrap_servers})
        future = admin.create_topics([NewTopic("too-many", 1, 3)], operation_timeout=30)["too-many"]
        with pytest.raises(KafkaException) as refused:
            future.result(60)
        error = refused.value.args[0]
        assert error.name() == "INVALID_REPLICATION_FACTOR"
        assert "The target replication factor of 3 cannot be reached because only 2 broker(s) are registered" \
            in error.str()
