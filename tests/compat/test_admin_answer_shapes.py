"""The smaller admin APIs' answers, against the reference Kafka, every field compared (but a
config's documentation: pylog does not copy Kafka's prose, README). Found by a differential
fuzz of these APIs; each line of `requests` is one of its findings:

- DescribeConfigs lists a resource's configs in the order of Kafka's Scala `mutable.HashMap`
  of their names; a resource of an unknown type refuses the whole request;
- OffsetDelete of the empty group id is INVALID_GROUP_ID;
- DescribeTopicPartitions of a topic named "" without a cursor fails whole (Kafka reads the
  null cursor);
- ElectLeaders with an unknown election type, or a timeout of 0, fails whole, each partition
  named carrying the error; an empty topic list is answered at once;
- AlterPartitionReassignments with a timeout of 0 fails whole; cancelling a reassignment that
  is not in progress carries no message;
- DeleteRecords answers in the order of Kafka's Scala maps of topics and partitions, leaves
  out a topic named with no partition and merges a topic named twice;
- IncrementalAlterConfigs with an unknown operation id fails whole (UNKNOWN_SERVER_ERROR),
  unless a refusal comes first in the order of a Java HashMap of the config names; a BROKER_LOGGER
  resource with one is UNKNOWN_SERVER_ERROR alone; a resource of an unknown type is refused
  by the broker, INVALID_REQUEST "Unknown resource type N", in both APIs;
- Kafka's controller takes a resource's operations before its name and values, refuses
  APPEND / SUBTRACT on every CLIENT_METRICS and GROUP config (it knows no LIST there), and
  parses values in their definition order; a broker refuses APPEND / SUBTRACT of a name it
  does not know with UNKNOWN_SERVER_ERROR;
- OffsetCommit answers the partitions the metadata lacks first (a topic unknown as a whole
  even with no partition), then merges the coordinator's answer in;
- DescribeAcls, CreateAcls and DeleteAcls, with no authorizer on either broker, answer
  SECURITY_DISABLED with Kafka's two messages, for each creation and each filter;
- on a PLAINTEXT listener SaslHandshake and SaslAuthenticate are ILLEGAL_SASL_STATE and the
  delegation token APIs DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, the owner of a token asked for
  being the one named or else User:ANONYMOUS;
- AlterUserScramCredentials takes each user once per request and lists the deletions made,
  the upsertions made and the refusals in the order of Kafka's HashMaps of the user names;
  DescribeUserScramCredentials answers in that order too.
"""

from __future__ import annotations

import time

import pytest

from protocol.messages import (
    AlterConfigsRequest,
    AlterPartitionReassignmentsRequest,
    AlterUserScramCredentialsRequest,
    CreateAclsRequest,
    CreateDelegationTokenRequest,
    DeleteAclsRequest,
    DeleteRecordsRequest,
    DescribeAclsRequest,
    DescribeConfigsRequest,
    DescribeDelegationTokenRequest,
    DescribeTopicPartitionsRequest,
    DescribeUserScramCredentialsRequest,
    ElectLeadersRequest,
    ExpireDelegationTokenRequest,
    FindCoordinatorRequest,
    IncrementalAlterConfigsRequest,
    MetadataRequest,
    OffsetCommitRequest,
    OffsetDeleteRequest,
    ProduceRequest,
    RenewDelegationTokenRequest,
    SaslAuthenticateRequest,
    SaslHandshakeRequest,
)
from protocol.records import build_batch
from tests.compat.answers import plain
from tests.compat.conftest import unique
from tests.integration.support import WireClient

Resource = DescribeConfigsRequest.DescribeConfigsResource
Elect = ElectLeadersRequest.TopicPartitions
Reassign = AlterPartitionReassignmentsRequest.ReassignableTopic
Target = AlterPartitionReassignmentsRequest.ReassignablePartition
Delete, DeletePartition = DeleteRecordsRequest.DeleteRecordsTopic, DeleteRecordsRequest.DeleteRecordsPartition


SKIPPED = ("throttle_time_ms", "topic_id", "documentation")   # what differs by nature
ALTER_USER_SCRAM_CREDENTIALS = 51
SETTLE_S = 0.3   # after an AlterUserScramCredentials, before the next request


def requests(a: str, b: str) -> list:
    """(API key, version, request) of each case; topics `a` (3 partitions, 5 records in
    partition 0) and `b` (1 partition) exist on the broker."""
    def delete(*topics, timeout_ms=30_000):
        return DeleteRecordsRequest(timeout_ms=timeout_ms, topics=[
            Delete(name=name, partitions=[DeletePartition(partition_index=p, offset=o) for p, o in parts])
            for name, parts in topics])

    def incremental(*resources, validate_only=False):
        Request = IncrementalAlterConfigsRequest
        return Request(validate_only=validate_only, resources=[Request.AlterConfigsResource(
            resource_type=t, resource_name=name, configs=[Request.AlterableConfig(name=k, config_operation=op, value=v)
                                                          for k, op, v in configs])
            for t, name, configs in resources])

    def scram(deletions=(), upsertions=()):
        Request = AlterUserScramCredentialsRequest
        return Request(deletions=[Request.ScramCredentialDeletion(name=f"{a}-{n}" if n else "", mechanism=m)
                                  for n, m in deletions],
                       upsertions=[Request.ScramCredentialUpsertion(name=f"{a}-{n}" if n else "", mechanism=m,
                                                                    iterations=i, salt=b"salt", salted_password=p)
                                   for n, m, i, p in upsertions])

    def users(*names):
        return DescribeUserScramCredentialsRequest(users=[DescribeUserScramCredentialsRequest.UserName(
            name=f"{a}-{n}") for n in names])

    key = b"k" * 32
    return [
        (51, 0, scram(upsertions=[(n, 1 + i % 2, 4096 + i, key) for i, n in enumerate("abcdefgh")])),
        (50, 0, users(*"abcz", "a")),
        (51, 0, scram(deletions=[("a", 1), ("z", 1), ("c", 1), ("c", 2)],
                      upsertions=[("b", 1, 5000, key), ("a", 2, 4096, key), ("", 1, 4096, key), ("x", 0, 4096, key),
                                  ("y", 1, 4095, key), ("w", 2, 16385, key), ("v", 1, 4096, b"")])),
        (50, 0, users(*"abcdefghvwxyz")),
        (32, 4, DescribeConfigsRequest(resources=[Resource(resource_type=2, resource_name=b, configuration_keys=None)],
                                       include_synonyms=True)),
        (32, 3, DescribeConfigsRequest(resources=[Resource(resource_type=2, resource_name=a, configuration_keys=[
            "retention.ms", "cleanup.policy", "segment.bytes", "max.message.bytes", "min.insync.replicas"])])),
        (32, 4, DescribeConfigsRequest(resources=[Resource(resource_type=2, resource_name=a, configuration_keys=None),
                                                  Resource(resource_type=99, resource_name="x", configuration_keys=None)])),
        (47, 0, OffsetDeleteRequest(group_id="", topics=[])),
        (75, 0, DescribeTopicPartitionsRequest(topics=[DescribeTopicPartitionsRequest.TopicRequest(name=n)
                                                       for n in (a, "")])),
        (43, 2, ElectLeadersRequest(election_type=5, topic_partitions=[Elect(topic=a, partitions=[0, 7]),
                                                                       Elect(topic="", partitions=[])])),
        (43, 1, ElectLeadersRequest(election_type=5, topic_partitions=[])),
        (43, 0, ElectLeadersRequest(timeout_ms=0, topic_partitions=[Elect(topic=b, partitions=[0])])),
        (45, 1, AlterPartitionReassignmentsRequest(timeout_ms=0, topics=[
            Reassign(name=a, partitions=[Target(partition_index=0, replicas=[1])])])),
        (45, 0, AlterPartitionReassignmentsRequest(timeout_ms=30_000, topics=[
            Reassign(name=a, partitions=[Target(partition_index=1, replicas=None),
                                         Target(partition_index=9, replicas=None)])])),
        (21, 2, delete((a, [(0, 2), (1, 0), (2, 0), (9, 0)]), (b, [(0, 0)]), ("gone-1", []), (a, [(1, -1)]))),
        (21, 1, delete(("nope-" + a, [(0, 0), (1, 0)]), ("nope-" + b, [(2, 0)]), ("", [(0, 0)]))),
        (21, 0, delete(*[(f"nope-{i}-{a}", [(i, 0), (i + 1, 0)]) for i in range(4)])),
        (21, 2, delete((a, [(i, 0) for i in range(8)]), (b, [(0, 0), (5, 0)]))),
        (44, 1, incremental((2, b, [("retention.ms", 0, "5")]), (2, a, [("flush.ms", 9, "1")]))),
        (44, 0, incremental((2, a, [("retention.ms", 9, "1"), ("flush.ms", 2, "1")]))),
        (44, 1, incremental((8, "1", [("root", 9, "DEBUG")]), (99, "x", [("a", 0, "1")]))),
        (33, 1, AlterConfigsRequest(validate_only=True, resources=[
            AlterConfigsRequest.AlterConfigsResource(resource_type=99, resource_name="1", configs=[]),
            AlterConfigsRequest.AlterConfigsResource(resource_type=8, resource_name="1", configs=[])])),
        (32, 4, DescribeConfigsRequest(resources=[Resource(resource_type=2, resource_name=b, configuration_keys=[
            "retention.ms"])])),   # unchanged by the failed requests above
        # the controller's order: operations, then the name, then the values (definition order)
        (44, 1, incremental((2, "", [("local.retention.ms", 2, "")]), (16, "", [("metrics", 2, "1")]),
                            (16, "sub", [("match", 3, "client_id=x")]), validate_only=True)),
        (33, 0, AlterConfigsRequest(validate_only=True, resources=[
            AlterConfigsRequest.AlterConfigsResource(resource_type=2, resource_name=a, configs=[
                AlterConfigsRequest.AlterableConfig(name=k, value=v)
                for k, v in (("message.timestamp.type", "delete,compact"), ("retention.bytes", "abc"))]),
            AlterConfigsRequest.AlterConfigsResource(resource_type=32, resource_name="g", configs=[
                AlterConfigsRequest.AlterableConfig(name=k, value=v)
                for k, v in (("consumer.heartbeat.interval.ms", "-1"), ("consumer.session.timeout.ms", ""))])])),
        (44, 0, incremental((4, "", [("no.such.config", 3, "x")]), validate_only=True)),
        (29, 3, DescribeAclsRequest(resource_type_filter=1, resource_name_filter=None, pattern_type_filter=1,
                                    principal_filter=None, host_filter=None, operation=1, permission_type=1)),
        (29, 1, DescribeAclsRequest(resource_type_filter=99, resource_name_filter="x", pattern_type_filter=3,
                                    principal_filter="User:x", host_filter="*", operation=3, permission_type=3)),
        (30, 2, CreateAclsRequest(creations=[CreateAclsRequest.AclCreation(
            resource_type=2, resource_name=name, resource_pattern_type=3, principal="User:bob", host="*",
            operation=3, permission_type=3) for name in (a, b)])),
        (30, 1, CreateAclsRequest(creations=[])),
        (31, 3, DeleteAclsRequest(filters=[DeleteAclsRequest.DeleteAclsFilter(
            resource_type_filter=2, resource_name_filter=name, pattern_type_filter=3, principal_filter=None,
            host_filter=None, operation=1, permission_type=1) for name in (a, None)])),
        (17, 0, SaslHandshakeRequest(mechanism="PLAIN")),
        (17, 1, SaslHandshakeRequest(mechanism="SCRAM-SHA-256")),
        (36, 2, SaslAuthenticateRequest(auth_bytes=b"\0user\0password")),
        (38, 3, CreateDelegationTokenRequest(owner_principal_type="User", owner_principal_name="alice",
                                             renewers=[], max_lifetime_ms=-1)),
        (38, 1, CreateDelegationTokenRequest(renewers=[], max_lifetime_ms=1000)),
        (38, 3, CreateDelegationTokenRequest(owner_principal_type=None, owner_principal_name="x", renewers=[],
                                             max_lifetime_ms=-1)),
        (39, 2, RenewDelegationTokenRequest(hmac=b"x", renew_period_ms=-1)),
        (40, 1, ExpireDelegationTokenRequest(hmac=b"x", expiry_time_period_ms=-1)),
        (41, 3, DescribeDelegationTokenRequest(owners=None)),
    ]


def mechanisms_sorted(api_key: int, answer: dict) -> dict:
    """A DescribeUserScramCredentials answer with each user's credentials by mechanism: Kafka
    keeps them in a HashMap keyed by an enum, whose order changes from one JVM to the next."""
    if api_key == 50:
        for result in answer["results"]:
            result["credential_infos"].sort(key=lambda info: info["mechanism"])
    return answer


def simple_commits(client, group: str, topic: str) -> list:
    """OffsetCommits of a simple group: refusals first, then the coordinator's answer merged
    in; with nothing refused, that answer as it is, a topic entry per request entry."""
    deadline = time.monotonic() + 30
    while client.request(10, 3, FindCoordinatorRequest(key=group, key_type=0)).error_code != 0:
        assert time.monotonic() < deadline, "no group coordinator"
        time.sleep(0.2)
    Request = OffsetCommitRequest

    def commit(*topics):
        return client.request(8, 8, Request(group_id=group, generation_id_or_member_epoch=-1, topics=[
            Request.OffsetCommitRequestTopic(name=name, partitions=[
                Request.OffsetCommitRequestPartition(partition_index=p, committed_offset=1) for p in partitions])
            for name, partitions in topics]))

    while True:   # Kafka's coordinator loads its partition just after FindCoordinator answers
        first = commit((topic, [0]))
        if first.topics[0].partitions[0].error_code not in (14, 15, 16) or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    return [commit(("nope", []), (topic, [0, 5]), (topic, [1]), ("bad name", [0])), commit((topic, [0]), (topic, [1]))]


def known(client, partitions: dict[str, int], timeout_s: float = 30) -> None:
    """Wait until the broker's own metadata has the topics (Kafka's follows its controller's
    a little later), every partition led."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        answer = client.request(3, 12, MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name=n)
                                                               for n in partitions], allow_auto_topic_creation=False))
        if all(t.error_code == 0 and len(t.partitions) == partitions[t.name]
               and all(p.leader_id >= 0 for p in t.partitions) for t in answer.topics):
            return
        time.sleep(0.1)
    raise AssertionError(f"topics {sorted(partitions)} not in the broker's metadata after {timeout_s} s")


@pytest.fixture(scope="module")
def answers(both):
    a, b, group = unique("shapes-a"), unique("shapes-b"), unique("shapes-g")
    found = {}
    for name, broker in both.items():
        with WireClient(broker.bootstrap_servers, timeout_s=60) as client:
            client.create_topics([a], 3)
            client.create_topics([b], 1)
            known(client, {a: 3, b: 1})
            client.request(0, 9, ProduceRequest(acks=-1, timeout_ms=5000, topic_data=[ProduceRequest.TopicProduceData(
                name=a, partition_data=[ProduceRequest.PartitionProduceData(
                    index=0, records=build_batch([(None, b"v%d" % i) for i in range(5)],
                                                 timestamp_ms=1_700_000_000_000))])]))
            found[name] = []
            for key, version, request in requests(a, b):
                found[name].append((key, version, mechanisms_sorted(key, plain(client.request(key, version, request),
                                                                                SKIPPED))))
                if key == ALTER_USER_SCRAM_CREDENTIALS:
                    time.sleep(SETTLE_S)   # Kafka's broker applies the controller's records a moment after
            found[name] += [plain(answer, SKIPPED) for answer in simple_commits(client, group, a)]
    return found


def test_the_smaller_admin_apis_answer_as_kafka(answers, compat_table):
    compat_table.assert_same("DescribeConfigs, DeleteRecords, ElectLeaders, reassignments, ACLs, SASL, SCRAM, ...: answer shapes",
                             answers)
