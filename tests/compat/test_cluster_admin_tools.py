"""Kafka 4.1.1's leadership and reassignment tools against a pylog cluster.

- `kafka-leader-election.sh --election-type preferred`: a partition whose leader moved away
  from its preferred (first) replica gets it back, through ElectLeaders to the controller;
  asked again, the election is not needed;
- `kafka-reassign-partitions.sh --execute` then `--verify`: a partition's replicas move to
  another set of brokers (AlterPartitionReassignments, ListPartitionReassignments); the new
  replica catches up, joins the ISR and the reassignment completes, the removed replica's
  log goes.
"""

from __future__ import annotations

import json

from pylog.cluster import Cluster
from tests.integration.support import wait_until
from tests.integration.cluster_support import create_topic, partition_states, wait_full_isr



def test_preferred_leader_election_through_kafkas_tool(tmp_path, kafka_tools):
    config = {"auto.leader.rebalance.enable": "false"}   # the tool, not the timer, moves it back
    with Cluster(brokers=3, data_dir=tmp_path / "cluster", config=config) as cluster:
        create_topic(cluster, "elect", 1, 3)
        preferred, replicas, _ = partition_states(cluster, "elect")[0]
        assert preferred == replicas[0]
        cluster.kill(preferred)
        wait_until(lambda: cluster.leader("elect", 0) != preferred, 60, "a new leader")
        cluster.restart(preferred)
        wait_full_isr(cluster, "elect", 1, 3)
        assert partition_states(cluster, "elect")[0][0] != preferred
        result = kafka_tools.run("kafka-leader-election.sh", "--bootstrap-server", cluster.bootstrap_servers,
                                 "--election-type", "preferred", "--topic", "elect", "--partition", "0").check()
        assert "Successfully completed leader election (PREFERRED) for partitions elect-0" in result.stdout
        wait_until(lambda: partition_states(cluster, "elect")[0][0] == preferred, 60, "the preferred leader back")
        again = kafka_tools.run("kafka-leader-election.sh", "--bootstrap-server", cluster.bootstrap_servers,
                                "--election-type", "preferred", "--topic", "elect", "--partition", "0")
        assert "Valid replica already elected for partitions elect-0" in again.stdout + again.stderr


def test_partition_reassignment_through_kafkas_tool(tmp_path, kafka_tools):
    with Cluster(brokers=3, data_dir=tmp_path / "cluster") as cluster:
        create_topic(cluster, "moving", 1, 2)
        _, replicas, _ = partition_states(cluster, "moving")[0]
        (spare,) = {1, 2, 3} - set(replicas)
        target = [spare, replicas[0]]
        plan = tmp_path / "plan.json"
        plan.write_text(json.dumps({"version": 1, "partitions": [
            {"topic": "moving", "partition": 0, "replicas": target}]}))
        kafka_tools.run("kafka-reassign-partitions.sh", "--bootstrap-server", cluster.bootstrap_servers,
                        "--reassignment-json-file", str(plan), "--execute").check()

        def verified() -> bool:
            result = kafka_tools.run("kafka-reassign-partitions.sh", "--bootstrap-server",
                                     cluster.bootstrap_servers, "--reassignment-json-file", str(plan), "--verify")
            return "Reassignment of partition moving-0 is completed." in result.stdout

        wait_until(verified, 60, "the reassignment to complete")
        leader, now_replicas, isr = partition_states(cluster, "moving")[0]
        assert now_replicas == target and sorted(isr) == sorted(target) and leader in target
        removed = (set(replicas) - set(target)).pop()
        wait_until(lambda: not (tmp_path / "cluster" / f"broker-{removed}" / "moving-0").exists(), 60,
                   "the removed replica's log to go")
