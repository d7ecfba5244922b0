"""Kafka 4.1.1's leadership and reassignment tools against a pylog cluster.

- `kafka-leader-election.sh --election-type preferred`: a partition whose leader moved away
  from its preferred (first) replica gets it back, through ElectLeaders to the controller;
  asked again, the election is not needed;
- `kafka-reassign-partitions.sh --execute` then `--verify`: a partition's replicas move to
  another set of brokers (AlterPartitionReassignments, ListPartitionReassignments); the new
  replica catches up, joins the ISR and the reassignment completes, the removed replica's
  log goes;
- `kafka-metadata-quorum.sh describe`, through a broker (which forwards DescribeQuorum) and
  straight to the controller (`--bootstrap-controller`, which finds it by DescribeCluster on
  the controller's listener, KIP-919): the controller leads as the one voter, the brokers
  follow as observers, in the order of Kafka's map of them. The controller listener's
  DescribeCluster answers as the reference Kafka's CONTROLLER listener does, and so do its
  ACL, SASL and delegation token requests.
"""

from __future__ import annotations

import json

from protocol import messages as M
from protocol.messages import DescribeClusterRequest
from pylog.cluster import CONTROLLER_NODE_ID, Cluster
from tests.compat.answers import plain
from tests.integration.support import WireClient
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


def test_the_quorum_through_kafkas_tool(tmp_path, kafka_tools):
    with Cluster(brokers=2, data_dir=tmp_path / "cluster") as cluster:
        controller = f"127.0.0.1:{cluster.controller.port}"
        for how, address in (("--bootstrap-server", cluster.bootstrap_servers), ("--bootstrap-controller", controller)):
            def observed() -> list[str] | None:
                lines = kafka_tools.run("kafka-metadata-quorum.sh", how, address, "describe", "--status").check().lines
                return lines if 'CurrentObservers:       [{"id": 1}, {"id": 2}]' in lines else None
            status = wait_until(observed, 30, f"both brokers observed ({how})")
            fields = dict(line.split(":", 1) for line in status)
            assert fields["ClusterId"].strip() == cluster.cluster_id
            assert (fields["LeaderId"].strip(), fields["MaxFollowerLag"].strip()) == (str(CONTROLLER_NODE_ID), "0")
            assert fields["CurrentVoters"].strip() == f'[{{"id": {CONTROLLER_NODE_ID}, "endpoints": ' \
                f'["PLAINTEXT://{controller}"]}}]'
            replication = kafka_tools.run("kafka-metadata-quorum.sh", how, address, "describe",
                                          "--replication").check().lines
            rows = [[column.strip() for column in line.split("\t") if column.strip()] for line in replication[1:]]
            assert [(row[0], row[1], row[-1]) for row in rows] == [
                (str(CONTROLLER_NODE_ID), "AAAAAAAAAAAAAAAAAAAAAA", "Leader"),
                ("1", "AAAAAAAAAAAAAAAAAAAAAA", "Observer"), ("2", "AAAAAAAAAAAAAAAAAAAAAA", "Observer")]


def controller_describe_cluster(address: str) -> dict:
    """DescribeCluster at each version and endpoint type, on a controller listener; what
    differs by nature (the cluster id, the node's id and port) masked."""
    answers = {}
    with WireClient(address) as client:
        for version in (0, 1, 2):
            for endpoint_type in (0, 1, 2, 3):
                answer = plain(client.request(60, version, DescribeClusterRequest(
                    endpoint_type=endpoint_type, include_cluster_authorized_operations=endpoint_type == 2)))
                if answer["error_code"] == 0:
                    (node,) = answer["brokers"]
                    assert answer["controller_id"] == node["broker_id"]
                    answer.update(cluster_id="<cluster-id>", controller_id="<node>",
                                  brokers=[{**node, "broker_id": "<node>", "port": "<port>"}])
                answers[f"v{version} endpoint type {endpoint_type}"] = answer
    return answers


def controller_security_answers(address: str) -> list:
    """ACLs (no authorizer), SASL and delegation tokens (a PLAINTEXT listener) on a
    controller listener, at versions Kafka 4.1 serves there."""
    acl_filter = dict(resource_type_filter=1, resource_name_filter=None, pattern_type_filter=1, principal_filter=None,
                      host_filter=None, operation=1, permission_type=1)
    requests = [
        (29, 3, M.DescribeAclsRequest(**acl_filter)),
        (30, 1, M.CreateAclsRequest(creations=[M.CreateAclsRequest.AclCreation(
            resource_type=2, resource_name="t", resource_pattern_type=3, principal="User:bob", host="*",
            operation=3, permission_type=3)])),
        (31, 2, M.DeleteAclsRequest(filters=[M.DeleteAclsRequest.DeleteAclsFilter(**acl_filter)])),
        (17, 1, M.SaslHandshakeRequest(mechanism="PLAIN")),
        (36, 2, M.SaslAuthenticateRequest(auth_bytes=b"x")),
        (38, 3, M.CreateDelegationTokenRequest(owner_principal_type=None, owner_principal_name=None, renewers=[],
                                               max_lifetime_ms=-1)),
        (39, 2, M.RenewDelegationTokenRequest(hmac=b"x", renew_period_ms=-1)),
        (40, 2, M.ExpireDelegationTokenRequest(hmac=b"x", expiry_time_period_ms=-1)),
    ]
    with WireClient(address) as client:
        return [(key, version, plain(client.request(key, version, request))) for key, version, request in requests]


def test_describe_cluster_on_a_controller_listener(tmp_path, kafka_reference, compat_table):
    kafka_address = f"127.0.0.1:{kafka_reference.controller_port}"
    kafka = controller_describe_cluster(kafka_address)
    kafka_security = controller_security_answers(kafka_address)
    with Cluster(brokers=1, data_dir=tmp_path / "cluster") as cluster:
        pylog = controller_describe_cluster(f"127.0.0.1:{cluster.controller.port}")
        pylog_security = controller_security_answers(f"127.0.0.1:{cluster.controller.port}")
    compat_table.assert_same("DescribeCluster on a controller listener", {"pylog": pylog, "kafka": kafka})
    assert kafka["v2 endpoint type 2"]["error_code"] == 0 and kafka["v2 endpoint type 1"]["error_code"] == 114
    compat_table.assert_same("ACLs, SASL and delegation tokens on a controller listener",
                             {"pylog": pylog_security, "kafka": kafka_security})
