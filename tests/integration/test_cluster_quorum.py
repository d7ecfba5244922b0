"""The controller quorum as a 2-broker pylog cluster shows it, over real sockets: a broker
forwards DescribeQuorum and UnregisterBroker to the controller (as Kafka's brokers do,
which is how `kafka-metadata-quorum.sh` and `kafka-cluster.sh unregister` reach it).

- DescribeQuorum v2: the controller leads as the one voter, with its own endpoint; each
  broker, following the metadata log, is an observer that has fetched up to the high
  watermark, with fetch times taken while the test ran.
- UnregisterBroker: an unknown broker id is BROKER_ID_NOT_REGISTERED with Kafka's message; a
  stopped broker's registration goes, and the next Metadata lists only the other broker.
- DescribeCluster on the controller's own listener (KIP-919) lists the controller, and
  refuses a request for brokers with MISMATCHED_ENDPOINT_TYPE and Kafka's message; that
  listener answers DescribeAcls as a broker does.
- With the controller gone, a request the broker forwards fails whole with REQUEST_TIMED_OUT.
"""

from __future__ import annotations

import time

import pytest

from protocol.error_codes import ErrorCode
from protocol.messages import (
    AlterUserScramCredentialsRequest,
    DescribeAclsRequest,
    DescribeClusterRequest,
    DescribeQuorumRequest,
    MetadataRequest,
    UnregisterBrokerRequest,
)
from protocol.metadata_log import METADATA_TOPIC
from pylog.cluster import CONTROLLER_NODE_ID, Cluster
from tests.integration.support import WireClient, wait_until


def describe_quorum(client: WireClient):
    R = DescribeQuorumRequest
    answer = client.request(55, 2, R(topics=[R.TopicData(topic_name=METADATA_TOPIC,
                                                         partitions=[R.PartitionData(partition_index=0)])]))
    assert answer.error_code == 0
    (topic,) = answer.topics
    (partition,) = topic.partitions
    assert partition.error_code == 0
    return answer, partition


@pytest.mark.timeout(180)
def test_a_broker_forwards_the_quorum_requests_to_the_controller(tmp_path):
    started_ms = int(time.time() * 1000)
    with Cluster(brokers=2, data_dir=tmp_path / "cluster") as cluster:
        with WireClient(f"127.0.0.1:{cluster.brokers[1].port}") as client:
            def both_observed():
                answer, partition = describe_quorum(client)
                observers = {o.replica_id: o for o in partition.observers}
                caught_up = set(observers) == {1, 2} and all(
                    o.log_end_offset == partition.high_watermark for o in observers.values())
                return (answer, partition) if caught_up else None
            answer, partition = wait_until(both_observed, 30, "both brokers observed at the high watermark")
            asked_ms = int(time.time() * 1000)
            assert (partition.leader_id, partition.leader_epoch >= 1) == (CONTROLLER_NODE_ID, True)
            (voter,) = partition.current_voters
            assert (voter.replica_id, voter.log_end_offset) == (CONTROLLER_NODE_ID, partition.high_watermark)
            for observer in partition.observers:
                assert started_ms <= observer.last_fetch_timestamp <= asked_ms
                assert started_ms <= observer.last_caught_up_timestamp <= observer.last_fetch_timestamp
            (node,) = answer.nodes
            assert node.node_id == CONTROLLER_NODE_ID
            assert [(listener.host, listener.port) for listener in node.listeners] == [
                ("127.0.0.1", cluster.controller.port)]

            with WireClient(f"127.0.0.1:{cluster.controller.port}") as at_controller:
                controllers = at_controller.request(60, 2, DescribeClusterRequest(endpoint_type=2))
                assert (controllers.error_code, controllers.endpoint_type, controllers.cluster_id,
                        controllers.controller_id) == (0, 2, cluster.cluster_id, CONTROLLER_NODE_ID)
                assert [(n.broker_id, n.host, n.port) for n in controllers.brokers] == [
                    (CONTROLLER_NODE_ID, "127.0.0.1", cluster.controller.port)]
                acls = at_controller.request(29, 3, DescribeAclsRequest(
                    resource_type_filter=1, resource_name_filter=None, pattern_type_filter=1, principal_filter=None,
                    host_filter=None, operation=1, permission_type=1))
                assert (acls.error_code, acls.error_message) == (ErrorCode.SECURITY_DISABLED,
                                                                 "No Authorizer is configured on the broker")
                brokers = at_controller.request(60, 2, DescribeClusterRequest(endpoint_type=1))
                assert (brokers.error_code, brokers.error_message) == (
                    ErrorCode.MISMATCHED_ENDPOINT_TYPE,
                    "The request was sent to an endpoint of type CONTROLLER, but we wanted an endpoint of type BROKER")

            refused = client.request(64, 0, UnregisterBrokerRequest(broker_id=99))
            assert (refused.error_code, refused.error_message) == (
                ErrorCode.BROKER_ID_NOT_REGISTERED, "Broker ID 99 is not currently registered")
            cluster.stop(2)
            done = client.request(64, 0, UnregisterBrokerRequest(broker_id=2))
            assert (done.error_code, done.error_message) == (0, None)
            metadata = client.request(3, 12, MetadataRequest(topics=[], allow_auto_topic_creation=False))
            assert [b.node_id for b in metadata.brokers] == [1]


@pytest.mark.timeout(180)
def test_with_the_controller_gone_a_forwarded_request_fails_whole_with_request_timed_out(tmp_path):
    """Each in the shape of Kafka's error answer of its request: DescribeQuorum's at the top,
    UnregisterBroker's alone, AlterUserScramCredentials' for every user named, sorted."""
    Alter = AlterUserScramCredentialsRequest
    with Cluster(brokers=1, data_dir=tmp_path / "cluster") as cluster:
        cluster.kill(CONTROLLER_NODE_ID)
        with WireClient(f"127.0.0.1:{cluster.brokers[1].port}", timeout_s=60) as client:
            quorum = client.request(55, 2, DescribeQuorumRequest(topics=[]))
            assert (quorum.error_code, quorum.topics) == (ErrorCode.REQUEST_TIMED_OUT, [])
            unregistered = client.request(64, 0, UnregisterBrokerRequest(broker_id=1))
            assert unregistered.error_code == ErrorCode.REQUEST_TIMED_OUT
            altered = client.request(51, 0, Alter(
                deletions=[Alter.ScramCredentialDeletion(name="zoe", mechanism=1)],
                upsertions=[Alter.ScramCredentialUpsertion(name=name, mechanism=1, iterations=4096, salt=b"s",
                                                           salted_password=b"p") for name in ("bob", "zoe")]))
            assert [(r.user, r.error_code) for r in altered.results] == [
                ("bob", ErrorCode.REQUEST_TIMED_OUT), ("zoe", ErrorCode.REQUEST_TIMED_OUT)]
